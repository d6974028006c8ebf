"""A numpy PCG64 generator's state as JSON numbers, for the strategies
that keep a generator of their own (OpenAI-ES, MAP-Elites' archive and
emitter): its 128-bit state and increment are exact Python integers."""
from __future__ import annotations

import numpy as np


def generator_state(rng: np.random.Generator) -> dict:
    bits = rng.bit_generator.state
    return {"state": int(bits["state"]["state"]), "inc": int(bits["state"]["inc"]),
            "has_uint32": int(bits["has_uint32"]), "uinteger": int(bits["uinteger"])}


def set_generator_state(rng: np.random.Generator, state: dict) -> None:
    rng.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": int(state["state"]), "inc": int(state["inc"])},
        "has_uint32": int(state["has_uint32"]), "uinteger": int(state["uinteger"])}

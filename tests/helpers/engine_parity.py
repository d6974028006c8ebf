"""Stepping the readable simulation and the compiled engine side by side
and finding the first frame where they differ."""
from __future__ import annotations

import numpy as np

from speednik.engine import CompiledSim
from speednik.engine.lowering import state_arrays
from speednik.observation import OBSERVATIONS
from speednik.simulation import create_sim, sim_step

# Every observation the compiled engine has a twin of.
COMPILED_OBSERVATIONS = [(name, o.fn) for name, o in OBSERVATIONS.items() if o.compiled]


def first_difference(sim, inputs, observe: bool = True,
                     after_end: int = 0) -> str | None:
    """Step `sim` (a SimState, advanced in place) and a compiled copy of it
    through `inputs`, and `after_end` frames more once the player is dead
    or at the goal; None when every frame's state, events (death causes
    included) and observations are equal (== on floats), else where they
    first differ."""
    compiled = CompiledSim(sim)
    for frame, inp in enumerate(inputs):
        expected = sim_step(sim, inp)
        got = compiled.step(inp)
        where = f"{sim.stage.name}, frame {frame}"
        if got != expected:
            return f"{where}: events {got} != {expected}"
        causes = [e.cause for e in expected if hasattr(e, "cause")]
        if causes != [e.cause for e in got if hasattr(e, "cause")]:
            return f"{where}: death causes differ"
        f, s = state_arrays(sim)
        if not (np.array_equal(f, compiled.f) and np.array_equal(s, compiled.s)):
            return (f"{where}: state {compiled.f.tolist()} {compiled.s.tolist()} != "
                    f"{f.tolist()} {s.tolist()}")
        gone = sim.ring_taken + sim.enemy_destroyed + sim.checkpoint_hit
        if compiled.gone.tobytes() != bytes(gone):
            return f"{where}: collected rings, enemies or checkpoints differ"
        if observe:
            for name, encode in COMPILED_OBSERVATIONS:
                want, have = encode(sim), compiled.observe(name)
                if not np.array_equal(want, have):
                    bad = np.nonzero(want != have)[0].tolist()
                    return f"{where}: {name} observation differs at {bad}"
        if sim.player_dead or sim.goal_reached:
            if after_end == 0:
                break
            after_end -= 1
    return None


def parity_from_start(stage, inputs, observe: bool = True) -> str | None:
    return first_difference(create_sim(stage), inputs, observe)

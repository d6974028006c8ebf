"""Stepping the readable simulation and the compiled engine side by side
and finding the first frame where they differ."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from speednik.engine import CompiledSim
from speednik.engine.lowering import state_arrays
from speednik.observation import OBSERVATIONS
from speednik.simulation import create_sim, sim_step

# Every observation the compiled engine has a twin of.
COMPILED_OBSERVATIONS = [(name, o.fn) for name, o in OBSERVATIONS.items() if o.compiled]

# The compiled observations in two sets: those a run chooses among, which
# `make test` compares frame by frame, and those kept for the record, which
# the broad sweeps compare too. Most of a parity test's time is the
# readable observations, two thirds of it the record's.
OBSERVED = {
    "chosen": tuple(n for n, o in OBSERVATIONS.items() if o.compiled and not o.for_the_record),
    "record": tuple(n for n, o in OBSERVATIONS.items() if o.compiled and o.for_the_record),
}


def first_difference(sim, inputs, observe: bool | Sequence[str] = True,
                     after_end: int = 0) -> str | None:
    """Step `sim` (a SimState, advanced in place) and a compiled copy of it
    through `inputs`, and `after_end` frames more once the player is dead
    or at the goal; None when every frame's state, events (death causes
    included) and observations are equal (== on floats), else where they
    first differ. `observe`: every compiled observation (True), none
    (False), or those named."""
    if observe is True:
        observed = COMPILED_OBSERVATIONS
    else:
        wanted = set(observe or ())
        observed = [(n, fn) for n, fn in COMPILED_OBSERVATIONS if n in wanted]
        assert len(observed) == len(wanted), f"not compiled observations: {wanted}"
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
        if observed:
            for name, encode in observed:
                want, have = encode(sim), compiled.observe(name)
                if not np.array_equal(want, have):
                    bad = np.nonzero(want != have)[0].tolist()
                    return f"{where}: {name} observation differs at {bad}"
        if sim.player_dead or sim.goal_reached:
            if after_end == 0:
                break
            after_end -= 1
    return None


def parity_from_start(stage, inputs, observe: bool | Sequence[str] = True) -> str | None:
    return first_difference(create_sim(stage), inputs, observe)

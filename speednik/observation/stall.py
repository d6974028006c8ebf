"""The "stall" observation (39 values, `extract_stall_observation`): the 38
of "hazards", then a clock of how long the player has gone without getting
further. Every other value can stay the same frame after frame (pushing
against a step it did not jump, rocking in a half-pipe too slow to leave
it), and a policy that sees only those repeats the same action for ever;
the clock lets it try something else when nothing has worked for a while.

| idx | name         | value                                                   |
|-----|--------------|---------------------------------------------------------|
| 38  | stalled_for  | frames since max_x last grew / 240, at most 1           |
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from speednik.observation.basic import F32, basic_values
from speednik.observation.hazards import HAZARD_VALUES, hazards_ahead
from speednik.observation.terrain import terrain_probes
from speednik.observation.value import Value, index_of, names

if TYPE_CHECKING:
    from speednik.simulation import SimState

STALL_VALUES: tuple[Value, ...] = HAZARD_VALUES + (Value("stalled_for", 0.0, 1.0),)
STALL_NAMES = names(STALL_VALUES)
STALL_OBS_DIM = len(STALL_NAMES)
STALLED_FOR = index_of(STALL_VALUES, "stalled_for")
# Frames without progress that fill the stall clock: the stall rule of an
# evolution run's episodes (4 s) ends them there.
STALL_NORM = 240
_INV_STALL = 1.0 / STALL_NORM


def stall_clock(sim: SimState) -> float:
    clock = sim.frames_without_gain * _INV_STALL
    return 1.0 if clock > 1.0 else clock


def extract_stall_observation(sim: SimState) -> np.ndarray:
    """The 39-value "stall" observation (table in the module docstring):
    "hazards", then the stall clock."""
    return np.array((*basic_values(sim), *terrain_probes(sim), *hazards_ahead(sim),
                     stall_clock(sim)), F32)

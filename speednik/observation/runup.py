"""The "runup" observation (56 values, `extract_runup_observation`):
"reach" and how far behind the farthest x it has reached the player is.

Where a policy stalls on a designed stage, the way on mostly goes back
first: a run-up of 70 to 270 px, taken backwards, then a run (or a
spindash) at the climb, wall or crest that stopped it (`runners.replay
--why`). A policy that only reacts to what it sees cannot time that move
in "reach": going back, every value it reads of the terrain turns round
with the player, and the stall clock counts frames, not pixels, so
nothing says when the run-up is long enough to turn. Here one value
does: the distance back from the farthest x, which grows as the player
goes back and falls to 0 as it passes the place it stalled at again.
It reads nothing of where on the stage the player is, only how far it
has gone back, so a rule learnt over it holds on any stage.

| idx | name            | value                                                  |
|-----|-----------------|--------------------------------------------------------|
| 55  | behind_farthest | (farthest x reached - x) / 320, from 0 to 1            |

The first 55 values are "reach"'s.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from speednik.observation.basic import F32
from speednik.observation.reach import REACH_VALUES, extract_reach_observation
from speednik.observation.value import Value, index_of, names

if TYPE_CHECKING:
    from speednik.simulation import SimState

RUNUP_VALUES: tuple[Value, ...] = REACH_VALUES + (Value("behind_farthest", 0.0, 1.0),)
RUNUP_NAMES = names(RUNUP_VALUES)
RUNUP_OBS_DIM = len(RUNUP_NAMES)
BEHIND_FARTHEST = index_of(RUNUP_VALUES, "behind_farthest")
# Pixels back that fill the value: longer than the longest run-up the
# planner takes on the designed stages (273 px).
RUNUP_NORM = 320
_INV_RUNUP = 1.0 / RUNUP_NORM


def behind_farthest(farthest: float, x: float) -> float:
    """How far back from `farthest` x is, scaled to 0..1. The compiled
    engine reads it with this same expression, so both agree to the bit."""
    back = (farthest - x) * _INV_RUNUP
    return 0.0 if back < 0.0 else 1.0 if back > 1.0 else back


def extract_runup_observation(sim: SimState) -> np.ndarray:
    """The 56-value "runup" observation (table in the module docstring)."""
    back = behind_farthest(sim.max_x_reached, sim.player.physics.x)
    return np.concatenate((extract_reach_observation(sim), np.array((back,), F32)))

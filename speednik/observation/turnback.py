"""The "turnback" observation (62 values, `extract_turnback_observation`):
"behind" and how far behind the farthest x it has reached the player is.

Where the way on is a spring the player has passed (foundry's first
spring wall, quarry's bench: `runners.replay RUN --why`), a policy has
two things to know: that a spring lies behind it ("behind"'s six values)
and when it is back far enough to turn and come down on it, or to run at
the wall again ("runup"'s one value). Each of the two observations reads
one of them; this one reads both, nothing else added:

| idx | name            | value                                                  |
|-----|-----------------|--------------------------------------------------------|
| 61  | behind_farthest | (farthest x reached - x) / 320, from 0 to 1            |

The first 61 values are "behind"'s (55 of "reach", then the spring
behind the player); the last is "runup"'s, by the same expression.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from speednik.observation.basic import F32
from speednik.observation.behind import BEHIND_VALUES, extract_behind_observation
from speednik.observation.runup import RUNUP_VALUES, behind_farthest
from speednik.observation.value import index_of, names

if TYPE_CHECKING:
    from speednik.simulation import SimState

TURNBACK_VALUES = BEHIND_VALUES + RUNUP_VALUES[-1:]
TURNBACK_NAMES = names(TURNBACK_VALUES)
TURNBACK_OBS_DIM = len(TURNBACK_NAMES)
TURNBACK_FARTHEST = index_of(TURNBACK_VALUES, "behind_farthest")


def extract_turnback_observation(sim: SimState) -> np.ndarray:
    """The 62-value "turnback" observation (table in the module docstring)."""
    back = behind_farthest(sim.max_x_reached, sim.player.physics.x)
    return np.concatenate((extract_behind_observation(sim), np.array((back,), F32)))

"""The "behind" observation (61 values, `extract_behind_observation`):
"reach" and the nearest spring behind the player.

Every spring value of "lookahead" and the observations after it is of the
nearest spring in the direction the player looks. Where the way on is a
spring the player has passed, that leaves it blind: on quarry the bench
at x 1232 is taller than any jump, the lift spring at x 1112 is the way
up, and a player coming off the ledge before it at running speed flies
over the spring and lands against the bench, facing it. Facing the bench
it reads no spring at all, and the policies stand there pressing right
until the stall clock ends the episode. Here six more values read the
spring behind, as the six of "lookahead" read the one ahead:

| idx | name                  | value                                             |
|-----|-----------------------|---------------------------------------------------|
| 55  | spring_behind_near    | 1 - distance / 320 to the nearest spring behind   |
| 56  | spring_behind_dx      | how far behind its x lies / 320 (positive)        |
| 57  | spring_behind_dy      | its y offset / 320, positive below                |
| 58  | spring_behind_power   | its launch speed / 16: yellow 0.625, red 1        |
| 59  | spring_behind_up      | 1 when it throws up                               |
| 60  | spring_behind_forward | a side spring: +1 throws further back, -1 the way |
|     |                       | the player looks; up: 0                           |

- "Behind" is past the player's centre against the direction it looks
  (the way "lookahead" decides "ahead", turned round); with no spring
  there within 320 px the six values are 0.
- Turning round swaps the two: what read behind reads ahead.

The first 55 values are "reach"'s.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from speednik.observation.basic import F32
from speednik.observation.lookahead import spring_ahead
from speednik.observation.probes import probe_origin
from speednik.observation.reach import REACH_VALUES, extract_reach_observation
from speednik.observation.value import Value, names

if TYPE_CHECKING:
    from speednik.simulation import SimState

BEHIND_VALUES: tuple[Value, ...] = REACH_VALUES + (
    Value("spring_behind_near", 0.0, 1.0), Value("spring_behind_dx", 0.0, 1.0),
    Value("spring_behind_dy", -1.0, 1.0), Value("spring_behind_power", 0.0, 1.0),
    Value("spring_behind_up", 0.0, 1.0), Value("spring_behind_forward", -1.0, 1.0),
)
BEHIND_NAMES = names(BEHIND_VALUES)
BEHIND_OBS_DIM = len(BEHIND_NAMES)


def spring_behind(sim: SimState) -> list[float]:
    """The six values of the nearest spring behind the player: those of
    `spring_ahead` looking the other way."""
    look = probe_origin(sim.player.physics)[2]
    return spring_ahead(sim, -look)


def extract_behind_observation(sim: SimState) -> np.ndarray:
    """The 61-value "behind" observation (table in the module docstring)."""
    return np.concatenate((extract_reach_observation(sim),
                           np.array(spring_behind(sim), F32)))

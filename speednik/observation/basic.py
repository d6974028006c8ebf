"""The "basic" observation (12 values, `extract_observation`), the
kinematic summary:

| idx | name          | value                                   |
|-----|---------------|-----------------------------------------|
| 0   | x             | x / level_width                         |
| 1   | y             | y / level_height                        |
| 2   | x_vel         | x_vel / MAX_X_SPEED (16)                |
| 3   | y_vel         | y_vel / MAX_X_SPEED                     |
| 4   | on_ground     | 1.0 or 0.0                              |
| 5   | ground_speed  | ground_speed / MAX_X_SPEED              |
| 6   | is_rolling    | 1.0 or 0.0                              |
| 7   | facing_right  | 1.0 or 0.0                              |
| 8   | angle         | angle byte / 255                        |
| 9   | max_x         | max_x_reached / level_width             |
| 10  | goal_dx       | (goal_x - x) / level_width              |
| 11  | time          | frame / 3600                            |

Positions are fractions of the stage (a spring can throw the player above
its top, a pit lets it fall below its bottom before dying), speeds
fractions of the 16 px/frame cap; time is bounded by the episode length.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from speednik.constants import DEFAULT_MAX_STEPS, MAX_X_SPEED
from speednik.observation.value import Value, names

if TYPE_CHECKING:
    from speednik.simulation import SimState

BASIC_VALUES: tuple[Value, ...] = (
    Value("x", -1.0, 2.0), Value("y", -3.0, 3.0),
    Value("x_vel", -2.0, 2.0), Value("y_vel", -2.0, 2.0),
    Value("on_ground", 0.0, 1.0), Value("ground_speed", -2.0, 2.0),
    Value("is_rolling", 0.0, 1.0), Value("facing_right", 0.0, 1.0),
    Value("angle", 0.0, 1.0), Value("max_x", -1.0, 2.0), Value("goal_dx", -3.0, 3.0),
    Value("time", 0.0, None),
)
OBS_NAMES = names(BASIC_VALUES)
OBS_DIM = len(OBS_NAMES)
# The time feature counts in minutes of game time whatever the episode length.
TIME_NORM = float(DEFAULT_MAX_STEPS)

_INV_SPEED = 1.0 / MAX_X_SPEED
_INV_TIME = 1.0 / TIME_NORM
F32 = np.float32


def basic_values(sim: SimState) -> tuple:
    """The 12 values of the table in the module docstring, unconverted."""
    p = sim.player.physics
    stage = sim.stage
    inv_w = 1.0 / stage.width
    x = p.x
    return (
        x * inv_w, p.y / stage.height, p.x_vel * _INV_SPEED,
        p.y_vel * _INV_SPEED, p.on_ground, p.ground_speed * _INV_SPEED,
        p.is_rolling, p.facing_right, p.angle / 255.0,
        sim.max_x_reached * inv_w, (stage.goal.x - x) * inv_w,
        sim.frame * _INV_TIME,
    )


def extract_observation(sim: SimState) -> np.ndarray:
    """The 12-value "basic" observation (table in the module docstring)."""
    return np.array(basic_values(sim), F32)

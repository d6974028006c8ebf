"""The "lookahead" observation (49 values, `extract_lookahead_observation`):
the 39 of "stall", then what a run needs to see further on than a jump:
the next spring and what it does, how tall the wall ahead is, a low
ceiling ahead, the ground farther on, and the spindash charge. The probes
look the way "terrain" does ("ahead" is the way the player moves, or
faces when it barely moves).

| idx | name                 | value                                              |
|-----|----------------------|----------------------------------------------------|
| 39  | spring_ahead_near    | 1 - distance / 320 to the nearest spring ahead     |
| 40  | spring_ahead_dx      | its x offset / 320 (positive: ahead)               |
| 41  | spring_ahead_dy      | its y offset / 320, positive below                 |
| 42  | spring_ahead_power   | its launch speed / 16: yellow 0.625, red 1         |
| 43  | spring_ahead_up      | 1 when it throws up                                |
| 44  | spring_ahead_forward | a side spring: +1 throws ahead, -1 back; up: 0     |
| 45  | wall_ahead_height    | how far the wall ahead rises above the feet / 256  |
| 46  | ceiling_ahead        | distance from head height up to solid, 64 px ahead, / 64 |
| 47  | ground_ahead_farther | ground height 320 px ahead, as the ground probes   |
| 48  | spindash_charge      | the spindash's revs / their cap (8)                |

- With no spring ahead within 320 px the six spring values are 0.
- wall_ahead_height is 0 with no wall within the wall ray's reach (128
  px), and 1 when the wall rises 256 px or more (or is solid up to where
  the probe starts): a jump clears about 96 px, a yellow spring about
  190, a red one about 500.
- ceiling_ahead reads 1 with nothing within 64 px (a low tunnel ahead
  reads less), and 1 where the probe starts inside solid: that is a wall
  ahead (wall_ahead and wall_ahead_height show it), not a ceiling to stay
  low under.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from speednik.constants import SPINDASH_MAX_REV, SPRING_RED_SPEED, SPRING_YELLOW_SPEED
from speednik.observation.basic import F32, basic_values
from speednik.observation.hazards import hazards_ahead
from speednik.observation.probes import (
    CEILING_REACH,
    DROP_NORM,
    DROP_REACH,
    GROUND_PROBE_RISE,
    WALL_REACH,
    probe_origin,
    ray,
)
from speednik.observation.stall import STALL_VALUES, stall_clock
from speednik.observation.terrain import terrain_probes
from speednik.observation.value import Value, names
from speednik.terrain import DOWN, UP

if TYPE_CHECKING:
    from speednik.simulation import SimState

SPRING_REACH = 320.0
WALL_HEIGHT_REACH = 256
CEILING_AHEAD = 64
GROUND_FARTHER = 320

LOOKAHEAD_VALUES: tuple[Value, ...] = STALL_VALUES + (
    Value("spring_ahead_near", 0.0, 1.0), Value("spring_ahead_dx", 0.0, 1.0),
    Value("spring_ahead_dy", -1.0, 1.0), Value("spring_ahead_power", 0.0, 1.0),
    Value("spring_ahead_up", 0.0, 1.0), Value("spring_ahead_forward", -1.0, 1.0),
    Value("wall_ahead_height", 0.0, 1.0), Value("ceiling_ahead", 0.0, 1.0),
    Value("ground_ahead_farther", -1.0, 2.0), Value("spindash_charge", 0.0, 1.0),
)
LOOKAHEAD_NAMES = names(LOOKAHEAD_VALUES)
LOOKAHEAD_OBS_DIM = len(LOOKAHEAD_NAMES)
_INV_SPRING_REACH = 1.0 / SPRING_REACH


def spring_ahead(sim: SimState, look: float) -> list[float]:
    """The six spring values: the nearest spring whose centre is past the
    player's in the direction it looks (the first in stage order of those
    equally near)."""
    p = sim.player.physics
    best = SPRING_REACH + 1.0
    found = None
    dx_best = dy_best = 0.0
    for spring in sim.stage.springs:
        dx, dy = spring.x - p.x, spring.y - p.y
        if dx * look <= 0.0:
            continue
        d = math.sqrt(dx * dx + dy * dy)
        if d < best:
            best, found, dx_best, dy_best = d, spring, dx, dy
    if found is None or best > SPRING_REACH:
        return [0.0] * 6
    speed = SPRING_RED_SPEED if found.strength == "red" else SPRING_YELLOW_SPEED
    if found.direction == "up":
        up, forward = 1.0, 0.0
    else:
        up = 0.0
        forward = (1.0 if found.direction == "right" else -1.0) * look
    return [1.0 - best * _INV_SPRING_REACH, dx_best * look * _INV_SPRING_REACH,
            dy_best * _INV_SPRING_REACH, speed / SPRING_RED_SPEED, up, forward]


def wall_height(tiles, x: int, y: int, feet: int, sign: int, ahead: int, layer: int) -> float:
    """How far the wall ahead at centre height rises above the feet, over
    WALL_HEIGHT_REACH: a ray down the wall's first column from that far
    above the feet finds its top."""
    d, _ = ray(tiles, ahead, x, y, layer, WALL_REACH)
    if d > WALL_REACH:
        return 0.0
    column = x + sign * (d + 1)
    top = feet - WALL_HEIGHT_REACH
    down, _ = ray(tiles, DOWN, column, top, layer, WALL_HEIGHT_REACH)
    if down <= 0:
        return 1.0
    rise = WALL_HEIGHT_REACH - down
    return 0.0 if rise < 0 else rise / WALL_HEIGHT_REACH


def lookahead_probes(sim: SimState) -> list[float]:
    p = sim.player.physics
    tiles = sim.stage.tiles
    layer = p.layer
    x, y, look, sign, ahead, hr, feet = probe_origin(p)
    above, _ = ray(tiles, UP, x + sign * CEILING_AHEAD, y - hr, layer, CEILING_REACH)
    if above == 0:
        above = CEILING_REACH
    top = y - GROUND_PROBE_RISE
    reach = feet - top + DROP_REACH
    d, _ = ray(tiles, DOWN, x + sign * GROUND_FARTHER, top, layer, reach)
    if d > reach:
        farther = DROP_REACH / DROP_NORM
    else:
        drop = (top + d - feet) / DROP_NORM
        farther = -1.0 if drop < -1.0 else drop
    return [
        *spring_ahead(sim, look),
        wall_height(tiles, x, y, feet, sign, ahead, layer),
        (above if above < CEILING_REACH else CEILING_REACH) / CEILING_REACH,
        farther,
        p.spinrev / SPINDASH_MAX_REV,
    ]


def extract_lookahead_observation(sim: SimState) -> np.ndarray:
    """The 49-value "lookahead" observation (table in the module
    docstring): "stall", then the spring, wall, ceiling and ground further
    ahead, and the spindash charge."""
    return np.array((*basic_values(sim), *terrain_probes(sim), *hazards_ahead(sim),
                     stall_clock(sim), *lookahead_probes(sim)), F32)

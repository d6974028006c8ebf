"""The "terrain" observation (28 values, `extract_terrain_observation`): the
12 "basic" values, then probes of the terrain and objects around the
player. The probes look the way the player moves (the sign of x_vel when
it is at least 1 px/frame, otherwise the way it faces), so "ahead" below
means that direction; they use the player's collision layer, and rays are
horizontal and vertical in the stage's frame even when the player runs up
a wall.

| idx | name              | value                                              |
|-----|-------------------|----------------------------------------------------|
| 12  | look_dir          | +1 looking right, -1 looking left                  |
| 13  | wall_ahead        | distance to solid ahead at centre height / 128     |
| 14  | wall_ahead_low    | the same at knee height (centre + half height)     |
| 15  | ground_ahead_near | ground height 32 px ahead, relative to the feet    |
| 16  | ground_ahead_mid  | the same 96 px ahead                               |
| 17  | ground_ahead_far  | the same 192 px ahead                              |
| 18  | slope_ahead       | signed surface angle at the near probe / 64        |
| 19  | ground_below      | distance from the feet down to ground / 128        |
| 20  | ceiling_above     | distance from the head up to solid / 64            |
| 21  | gap_ahead         | 1 when a ground-ahead probe found no ground        |
| 22  | enemy_near        | 1 - distance / 256 to the nearest live enemy       |
| 23  | enemy_dx          | its x offset / 256, positive ahead                 |
| 24  | enemy_dy          | its y offset / 256, positive below                 |
| 25  | hazard_near       | as enemy_near, for the nearest spikes              |
| 26  | hazard_dx         | as enemy_dx                                        |
| 27  | hazard_dy         | as enemy_dy                                        |

- Distances read 1.0 when nothing is within reach (and 0 when touching).
- Ground heights are (ground y - feet y) / 64: 0 level, > 0 lower (a
  drop), < 0 higher (a step up); clipped to [-1, 2], where 2 means no
  ground within 128 px below the feet (a gap).
- slope_ahead is > 0 when the ground rises ahead, 0 on the flat or with
  no ground; 1 would be a vertical rise.
- ground_below is 0 when standing.
- With no live enemy (no spikes) within 256 px, the three enemy (hazard)
  values are 0.

Top-only ledges count as ground for the ground probes and are invisible to
the wall and ceiling rays, as they are to the player.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from speednik.objects import object_tables
from speednik.observation.basic import BASIC_VALUES, F32, basic_values
from speednik.observation.probes import (
    BELOW_REACH,
    CEILING_REACH,
    DROP_NORM,
    DROP_REACH,
    GROUND_AHEAD,
    GROUND_PROBE_RISE,
    WALL_REACH,
    nearest_enemy,
    nearest_spikes,
    object_features,
    probe_origin,
    ray,
)
from speednik.observation.value import Value, names
from speednik.player import FLOOR_MODE, MODE_OF_ANGLE
from speednik.terrain import DOWN, UP

if TYPE_CHECKING:
    from speednik.simulation import SimState

# Distances and the gap flag are in [0, 1], ground heights in [-1, 2],
# a slope in [-1, 1], object offsets in [-1, 1].
TERRAIN_VALUES: tuple[Value, ...] = BASIC_VALUES + (
    Value("look_dir", -1.0, 1.0), Value("wall_ahead", 0.0, 1.0),
    Value("wall_ahead_low", 0.0, 1.0), Value("ground_ahead_near", -1.0, 2.0),
    Value("ground_ahead_mid", -1.0, 2.0), Value("ground_ahead_far", -1.0, 2.0),
    Value("slope_ahead", -1.0, 1.0), Value("ground_below", 0.0, 1.0),
    Value("ceiling_above", 0.0, 1.0), Value("gap_ahead", 0.0, 1.0),
    Value("enemy_near", 0.0, 1.0), Value("enemy_dx", -1.0, 1.0), Value("enemy_dy", -1.0, 1.0),
    Value("hazard_near", 0.0, 1.0), Value("hazard_dx", -1.0, 1.0),
    Value("hazard_dy", -1.0, 1.0),
)
TERRAIN_NAMES = names(TERRAIN_VALUES)
TERRAIN_OBS_DIM = len(TERRAIN_NAMES)


def terrain_probes(sim: SimState) -> list[float]:
    p = sim.player.physics
    stage = sim.stage
    tiles = stage.tiles
    layer = p.layer
    x, y, look, sign, ahead, hr, feet = probe_origin(p)

    wall_mid, _ = ray(tiles, ahead, x, y, layer, WALL_REACH)
    wall_low, _ = ray(tiles, ahead, x, y + hr // 2, layer, WALL_REACH)

    top = y - GROUND_PROBE_RISE
    reach = feet - top + DROP_REACH
    ground: list[float] = []
    slope = 0.0
    gap = 0.0
    for k, dx in enumerate(GROUND_AHEAD):
        d, a = ray(tiles, DOWN, x + sign * dx, top, layer, reach)
        if d > reach:
            ground.append(DROP_REACH / DROP_NORM)
            gap = 1.0
            continue
        drop = (top + d - feet) / DROP_NORM
        ground.append(-1.0 if drop < -1.0 else drop)
        if k == 0:
            signed = a - 256 if a >= 128 else a
            slope = signed * look / 64.0
    if p.on_ground and MODE_OF_ANGLE[p.angle] == FLOOR_MODE:
        below = 0   # standing on a floor: no need to look
    else:
        below, _ = ray(tiles, DOWN, x, feet, layer, BELOW_REACH)
        below = 0 if below < 0 else below
    above, _ = ray(tiles, UP, x, y - hr, layer, CEILING_REACH)

    objs = object_tables(stage)
    best, edx, edy, _ = nearest_enemy(sim, objs, 0.0)
    enemy = object_features(best, edx, edy, look)
    hazard = object_features(*nearest_spikes(sim, objs, 0.0), look)

    return [
        look,
        (wall_mid if wall_mid < WALL_REACH else WALL_REACH) / WALL_REACH,
        (wall_low if wall_low < WALL_REACH else WALL_REACH) / WALL_REACH,
        *ground,
        slope,
        (below if below < BELOW_REACH else BELOW_REACH) / BELOW_REACH,
        (above if above < CEILING_REACH else CEILING_REACH) / CEILING_REACH,
        gap,
        *enemy,
        *hazard,
    ]


def extract_terrain_observation(sim: SimState) -> np.ndarray:
    """The 28-value "terrain" observation (table in the module docstring):
    the basic 12, then the probes."""
    return np.array((*basic_values(sim), *terrain_probes(sim)), F32)

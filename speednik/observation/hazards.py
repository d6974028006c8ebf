"""The "hazards" observation (38 values, `extract_hazard_observation`): the
28 of "terrain", then what can end a life. Enemies and spikes behind the
player can hide the ones ahead from the nearest-object values above, so
these look only ahead (the same direction as the probes, the object's
centre past the player's), and they say what protects the player.

| idx | name              | value                                              |
|-----|-------------------|----------------------------------------------------|
| 28  | rings_held        | 1 when holding a ring (a hit then costs the rings) |
| 29  | invulnerable      | invulnerable frames left / 120                     |
| 30  | enemy_ahead_near  | 1 - distance / 256 to the nearest live enemy ahead |
| 31  | enemy_ahead_dx    | its x offset / 256 (positive: ahead)               |
| 32  | enemy_ahead_dy    | its y offset / 256, positive below                 |
| 33  | enemy_ahead_vx    | its motion this frame, px/frame, positive: ahead   |
| 34  | enemy_ahead_vy    | the same downward                                  |
| 35  | spikes_ahead_near | as enemy_ahead_near, for the nearest spikes ahead  |
| 36  | spikes_ahead_dx   | as enemy_ahead_dx                                  |
| 37  | spikes_ahead_dy   | as enemy_ahead_dy                                  |

An enemy's motion is where it will be next frame less where it is (a
walker patrols at about half a pixel a frame, a flyer bobs at 0.8),
clipped to the player's top speed, 16. With nothing ahead within 256 px
the five (three) values are 0.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from speednik.constants import INVULNERABLE_FRAMES, MAX_X_SPEED
from speednik.enemies import enemy_position
from speednik.objects import object_tables
from speednik.observation.basic import F32, basic_values
from speednik.observation.probes import (
    OBJECT_REACH,
    looks_right,
    nearest_enemy,
    nearest_spikes,
    object_features,
)
from speednik.observation.terrain import TERRAIN_VALUES, terrain_probes
from speednik.observation.value import Value, names

if TYPE_CHECKING:
    from speednik.simulation import SimState

# An enemy's motion is clipped to the player's top speed, so its bounds
# hold whatever a stage profile allows.
HAZARD_VALUES: tuple[Value, ...] = TERRAIN_VALUES + (
    Value("rings_held", 0.0, 1.0), Value("invulnerable", 0.0, 1.0),
    Value("enemy_ahead_near", 0.0, 1.0), Value("enemy_ahead_dx", 0.0, 1.0),
    Value("enemy_ahead_dy", -1.0, 1.0), Value("enemy_ahead_vx", -MAX_X_SPEED, MAX_X_SPEED),
    Value("enemy_ahead_vy", -MAX_X_SPEED, MAX_X_SPEED), Value("spikes_ahead_near", 0.0, 1.0),
    Value("spikes_ahead_dx", 0.0, 1.0), Value("spikes_ahead_dy", -1.0, 1.0),
)
HAZARD_NAMES = names(HAZARD_VALUES)
HAZARD_OBS_DIM = len(HAZARD_NAMES)
_INV_INVULNERABLE = 1.0 / INVULNERABLE_FRAMES


def _clip_motion(v: float) -> float:
    return -MAX_X_SPEED if v < -MAX_X_SPEED else (MAX_X_SPEED if v > MAX_X_SPEED else v)


def hazards_ahead(sim: SimState) -> list[float]:
    player = sim.player
    look = 1.0 if looks_right(player.physics) else -1.0
    objs = object_tables(sim.stage)
    best, edx, edy, enemy = nearest_enemy(sim, objs, look)
    if best <= OBJECT_REACH:
        ex, ey = enemy_position(enemy, sim.frame)
        nx, ny = enemy_position(enemy, sim.frame + 1)
        motion = (_clip_motion((nx - ex) * look), _clip_motion(ny - ey))
    else:
        motion = (0.0, 0.0)
    return [
        1.0 if player.rings > 0 else 0.0,
        player.invulnerable * _INV_INVULNERABLE,
        *object_features(best, edx, edy, look), *motion,
        *object_features(*nearest_spikes(sim, objs, look), look),
    ]


def extract_hazard_observation(sim: SimState) -> np.ndarray:
    """The 38-value "hazards" observation (table in the module docstring):
    "terrain", then rings, invulnerability, and the enemy and spikes ahead."""
    return np.array((*basic_values(sim), *terrain_probes(sim), *hazards_ahead(sim)), F32)

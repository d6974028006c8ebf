"""Observations: what an agent sees of a simulation, as float32 vectors.

Two encoders, registered by name:

"basic" (12 values, `extract_observation`), the kinematic summary:

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

"terrain" (28 values, `extract_terrain_observation`): the 12 above, then
probes of the terrain and objects around the player. The probes look the
way the player moves (the sign of x_vel when it is at least 1 px/frame,
otherwise the way it faces), so "ahead" below means that direction; they
use the player's collision layer, and rays are horizontal and vertical in
the stage's frame even when the player runs up a wall.

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

"hazards" (38 values, `extract_hazard_observation`): the 28 of "terrain",
then what can end a life. Enemies and spikes behind the player can hide
the ones ahead from the nearest-object values above, so these look only
ahead (the same direction as the probes, the object's centre past the
player's), and they say what protects the player.

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

"stall" (39 values, `extract_stall_observation`): the 38 of "hazards",
then a clock of how long the player has gone without getting further.
Every other value can stay the same frame after frame (pushing against
a step it did not jump, rocking in a half-pipe too slow to leave it), and
a policy that sees only those repeats the same action for ever; the
clock lets it try something else when nothing has worked for a while.

| idx | name         | value                                                   |
|-----|--------------|---------------------------------------------------------|
| 38  | stalled_for  | frames since max_x last grew / 240, at most 1           |
"""
from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

from speednik.constants import DEFAULT_MAX_STEPS, INVULNERABLE_FRAMES, MAX_X_SPEED
from speednik.enemies import enemy_position
from speednik.player import FLOOR_MODE, MODE_OF_ANGLE, radii
from speednik.terrain import DOWN, LEFT, NO_HIT, RIGHT, UP

if TYPE_CHECKING:
    from speednik.simulation import SimState

OBS_DIM = 12
OBS_NAMES: tuple[str, ...] = (
    "x", "y", "x_vel", "y_vel", "on_ground", "ground_speed", "is_rolling",
    "facing_right", "angle", "max_x", "goal_dx", "time",
)
# The time feature counts in minutes of game time whatever the episode length.
TIME_NORM = float(DEFAULT_MAX_STEPS)

TERRAIN_NAMES: tuple[str, ...] = OBS_NAMES + (
    "look_dir", "wall_ahead", "wall_ahead_low", "ground_ahead_near",
    "ground_ahead_mid", "ground_ahead_far", "slope_ahead", "ground_below",
    "ceiling_above", "gap_ahead", "enemy_near", "enemy_dx", "enemy_dy",
    "hazard_near", "hazard_dx", "hazard_dy",
)
TERRAIN_OBS_DIM = len(TERRAIN_NAMES)

HAZARD_NAMES: tuple[str, ...] = TERRAIN_NAMES + (
    "rings_held", "invulnerable", "enemy_ahead_near", "enemy_ahead_dx",
    "enemy_ahead_dy", "enemy_ahead_vx", "enemy_ahead_vy", "spikes_ahead_near",
    "spikes_ahead_dx", "spikes_ahead_dy",
)
HAZARD_OBS_DIM = len(HAZARD_NAMES)

STALL_NAMES: tuple[str, ...] = HAZARD_NAMES + ("stalled_for",)
STALL_OBS_DIM = len(STALL_NAMES)

WALL_REACH = 128
GROUND_AHEAD = (32, 96, 192)
# Ground probes start this far above the centre so a step up is found.
GROUND_PROBE_RISE = 32
DROP_REACH = 128
DROP_NORM = 64.0
BELOW_REACH = 128
CEILING_REACH = 64
OBJECT_REACH = 256.0
# Frames without progress that fill the stall clock: the stall rule of an
# evolution run's episodes (4 s) ends them there.
STALL_NORM = 240
# Below this speed (px/frame) the probes follow the facing, not the motion.
LOOK_SPEED = 1.0

_INV_SPEED = 1.0 / MAX_X_SPEED
_INV_TIME = 1.0 / TIME_NORM
_INV_INVULNERABLE = 1.0 / INVULNERABLE_FRAMES
_INV_STALL = 1.0 / STALL_NORM
_F32 = np.float32


def _basic_values(sim: SimState) -> tuple:
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
    return np.array(_basic_values(sim), _F32)


# -- terrain probes -----------------------------------------------------------

def ray(tiles, direction: int, x: int, y: int, layer: int,
        reach: int) -> tuple[int, int]:
    """(distance, surface angle) from pixel (x, y) to the first surface
    along `direction` (DOWN, RIGHT, UP or LEFT of `speednik.terrain`), or
    (`reach + 1`, 0) when there is none within `reach`.

    A DOWN ray finds top-only ledges too, the others pass through them, as
    the player does. A start inside solid reads 0 (touching), except for a
    DOWN ray: the negative distance up to the surface, when that is within
    a tile or so.

    The ray walks one row (RIGHT, LEFT) or column (DOWN, UP) of tiles.
    Empty tiles are skipped by index; the sensor cast runs only where a
    tile holds something, so a long clear ray costs a few list reads.
    """
    w = tiles.width_tiles
    if direction & 1:
        lane = y >> 4
        if not 0 <= lane < tiles.height_tiles:
            return reach + 1, 0
        along = x
        n = w
        k0 = lane * w               # cells[k0 + t * stride] is tile t of the lane
        stride = 1
    else:
        lane = x >> 4
        if not 0 <= lane < w:
            return reach + 1, 0
        along = y
        n = tiles.height_tiles
        k0 = lane
        stride = w
    if direction < UP:              # DOWN, RIGHT: toward larger coordinates
        low = 0
        high = n - 1
    else:
        # UP, LEFT walk the mirrored axis (p -> -p - 1, tile t -> -t - 1),
        # so that every ray runs toward larger coordinates.
        along = -along - 1
        low = -n
        high = -1
        k0 -= stride
        stride = -stride
    t = along >> 4
    if t < low:
        t = low
    last = (along + reach) >> 4
    if last > high:
        last = high
    try:
        cells = tiles.cells[layer]
    except AttributeError:          # the readable engine's first use of this map
        tiles.make_readable()
        cells = tiles.cells[layer]
    while t <= last:
        if cells[k0 + t * stride]:
            # Cast from where the ray enters the tile, or from its start.
            start = t << 4
            if start < along:
                start = along
            if direction == DOWN:
                d, a = tiles.cast_down(x, start, layer, True)
            elif direction == RIGHT:
                d, a = tiles.cast_right(start, y, layer)
            elif direction == UP:
                d, a = tiles.cast_up(x, -start - 1, layer)
            else:
                d, a = tiles.cast_left(-start - 1, y, layer)
            if d != NO_HIT:
                d += start - along
                if d > reach:
                    return reach + 1, 0
                return (d if d >= 0 or direction == DOWN else 0), a
            t += 2                  # the cast read this tile and the next
        else:
            t += 1
    return reach + 1, 0


def _object_features(near: float, dx: float, dy: float,
                     look: float) -> tuple[float, float, float]:
    if near > OBJECT_REACH:
        return 0.0, 0.0, 0.0
    k = 1.0 / OBJECT_REACH
    return 1.0 - near * k, dx * look * k, dy * k


def _looks_right(p) -> bool:
    """The way the probes look: the way the player moves, or faces when
    it barely moves."""
    return p.x_vel >= LOOK_SPEED or (p.x_vel > -LOOK_SPEED and p.facing_right)


def _object_tables(stage):
    try:
        return stage.object_tables
    except AttributeError:          # its first use on this stage
        return stage.derive("object_tables")


def _nearest_enemy(sim: SimState, objs, ahead: float):
    """(distance, dx, dy, enemy) of the nearest live enemy within reach,
    only among those with dx * ahead > 0 when `ahead` is not 0; distance
    OBJECT_REACH + 1 and no enemy when there is none."""
    p = sim.player.physics
    px, py = p.x, p.y
    best = OBJECT_REACH + 1.0
    edx = edy = 0.0
    found = None
    if objs.enemies:
        lo = bisect_left(objs.enemy_x, px - OBJECT_REACH - objs.enemy_span)
        hi = bisect_right(objs.enemy_x, px + OBJECT_REACH)
        destroyed = sim.enemy_destroyed
        frame = sim.frame
        for i, enemy, _ in objs.enemies[lo:hi]:
            if destroyed[i]:
                continue
            ex, ey = enemy_position(enemy, frame)
            dx, dy = ex - px, ey - py
            if ahead != 0.0 and dx * ahead <= 0.0:
                continue
            # sqrt, not hypot: its rounding is IEEE's, the same in the
            # compiled engine, where hypot's is the C library's own.
            d = math.sqrt(dx * dx + dy * dy)
            if d < best:
                best, edx, edy, found = d, dx, dy, enemy
    return best, edx, edy, found


def _nearest_spikes(sim: SimState, objs, ahead: float) -> tuple[float, float, float]:
    """(distance, dx, dy) of the nearest spikes, as `_nearest_enemy`."""
    p = sim.player.physics
    px, py = p.x, p.y
    best = OBJECT_REACH + 1.0
    hdx = hdy = 0.0
    if objs.spikes:
        lo = bisect_left(objs.spike_x, px - OBJECT_REACH)
        hi = bisect_right(objs.spike_x, px + OBJECT_REACH)
        for sx, sy in objs.spikes[lo:hi]:
            dx, dy = sx - px, sy - py
            if ahead != 0.0 and dx * ahead <= 0.0:
                continue
            d = math.sqrt(dx * dx + dy * dy)
            if d < best:
                best, hdx, hdy = d, dx, dy
    return best, hdx, hdy


def _terrain_probes(sim: SimState) -> list[float]:
    p = sim.player.physics
    stage = sim.stage
    tiles = stage.tiles
    layer = p.layer
    x = math.floor(p.x)
    y = math.floor(p.y)
    if _looks_right(p):
        look, sign, ahead = 1.0, 1, RIGHT
    else:
        look, sign, ahead = -1.0, -1, LEFT
    hr = radii(p)[1]
    feet = y + hr

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

    objs = _object_tables(stage)
    best, edx, edy, _ = _nearest_enemy(sim, objs, 0.0)
    enemy = _object_features(best, edx, edy, look)
    hazard = _object_features(*_nearest_spikes(sim, objs, 0.0), look)

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
    return np.array((*_basic_values(sim), *_terrain_probes(sim)), _F32)


def _clip_motion(v: float) -> float:
    return -MAX_X_SPEED if v < -MAX_X_SPEED else (MAX_X_SPEED if v > MAX_X_SPEED else v)


def _hazards_ahead(sim: SimState) -> list[float]:
    player = sim.player
    look = 1.0 if _looks_right(player.physics) else -1.0
    objs = _object_tables(sim.stage)
    best, edx, edy, enemy = _nearest_enemy(sim, objs, look)
    if best <= OBJECT_REACH:
        ex, ey = enemy_position(enemy, sim.frame)
        nx, ny = enemy_position(enemy, sim.frame + 1)
        motion = (_clip_motion((nx - ex) * look), _clip_motion(ny - ey))
    else:
        motion = (0.0, 0.0)
    return [
        1.0 if player.rings > 0 else 0.0,
        player.invulnerable * _INV_INVULNERABLE,
        *_object_features(best, edx, edy, look), *motion,
        *_object_features(*_nearest_spikes(sim, objs, look), look),
    ]


def extract_hazard_observation(sim: SimState) -> np.ndarray:
    """The 38-value "hazards" observation (table in the module docstring):
    "terrain", then rings, invulnerability, and the enemy and spikes ahead."""
    return np.array((*_basic_values(sim), *_terrain_probes(sim), *_hazards_ahead(sim)), _F32)


def stall_clock(sim: SimState) -> float:
    clock = sim.frames_without_gain * _INV_STALL
    return 1.0 if clock > 1.0 else clock


def extract_stall_observation(sim: SimState) -> np.ndarray:
    """The 39-value "stall" observation (table in the module docstring):
    "hazards", then the stall clock."""
    return np.array((*_basic_values(sim), *_terrain_probes(sim), *_hazards_ahead(sim),
                     stall_clock(sim)), _F32)


# -- the registry ---------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ObservationEncoder:
    """A named observation: `encoder(sim)` gives a fresh float32 vector of
    `size` values. Pickles by name, so it crosses process boundaries."""

    name: str
    size: int
    fn: Callable[[SimState], np.ndarray]
    feature_names: tuple[str, ...]
    description: str = ""
    # Whether the compiled engine (`speednik.engine.observation`) has a
    # twin of it; policies over other observations run on the readable
    # runner.
    compiled: bool = False

    def __call__(self, sim: SimState) -> np.ndarray:
        return self.fn(sim)

    def __reduce__(self):
        return (get_observation, (self.name,))


OBSERVATIONS: dict[str, ObservationEncoder] = {
    "basic": ObservationEncoder(
        "basic", OBS_DIM, extract_observation, OBS_NAMES,
        "position, velocity, ground state, angle, progress and time", compiled=True),
    "terrain": ObservationEncoder(
        "terrain", TERRAIN_OBS_DIM, extract_terrain_observation, TERRAIN_NAMES,
        "basic plus wall, ground, gap, slope, ceiling, enemy and spike probes",
        compiled=True),
    "hazards": ObservationEncoder(
        "hazards", HAZARD_OBS_DIM, extract_hazard_observation, HAZARD_NAMES,
        "terrain plus rings held, invulnerability, and the enemy (with its motion) "
        "and spikes ahead", compiled=True),
    "stall": ObservationEncoder(
        "stall", STALL_OBS_DIM, extract_stall_observation, STALL_NAMES,
        "hazards plus a clock of the frames since the player last got further",
        compiled=True),
}
DEFAULT_OBSERVATION = "basic"


def list_observations() -> tuple[str, ...]:
    return tuple(OBSERVATIONS)


def get_observation(name: str | ObservationEncoder) -> ObservationEncoder:
    """The encoder registered as `name` (an encoder is returned as is)."""
    if isinstance(name, ObservationEncoder):
        return name
    try:
        return OBSERVATIONS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown observation {name!r}: accepted names are "
            f"{', '.join(repr(n) for n in OBSERVATIONS)}") from None

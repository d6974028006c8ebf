"""What the probing observations share: rays through the terrain, the
way the player looks, and the nearest enemy and spikes.

Rays are horizontal and vertical in the stage's frame even when the
player runs up a wall, and use the player's collision layer. Top-only
ledges count as ground for a DOWN ray and are invisible to the others, as
they are to the player.
"""
from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING

from speednik.enemies import enemy_position
from speednik.player import radii
from speednik.terrain import DOWN, LEFT, NO_HIT, RIGHT, UP

if TYPE_CHECKING:
    from speednik.simulation import SimState

WALL_REACH = 128
GROUND_AHEAD = (32, 96, 192)
# Ground probes start this far above the centre so a step up is found.
GROUND_PROBE_RISE = 32
DROP_REACH = 128
DROP_NORM = 64.0
BELOW_REACH = 128
CEILING_REACH = 64
OBJECT_REACH = 256.0
# Below this speed (px/frame) the probes follow the facing, not the motion.
LOOK_SPEED = 1.0


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


def probe_origin(p) -> tuple[int, int, float, int, int, int, int]:
    """Where the probes start and which way they look: (x, y, look, sign,
    ahead, half height, feet), with x, y the player's pixel, look +1.0 or
    -1.0, sign +1 or -1 and `ahead` the ray direction RIGHT or LEFT."""
    x = math.floor(p.x)
    y = math.floor(p.y)
    if looks_right(p):
        look, sign, ahead = 1.0, 1, RIGHT
    else:
        look, sign, ahead = -1.0, -1, LEFT
    hr = radii(p)[1]
    return x, y, look, sign, ahead, hr, y + hr


def object_features(near: float, dx: float, dy: float,
                     look: float) -> tuple[float, float, float]:
    if near > OBJECT_REACH:
        return 0.0, 0.0, 0.0
    k = 1.0 / OBJECT_REACH
    return 1.0 - near * k, dx * look * k, dy * k


def looks_right(p) -> bool:
    """The way the probes look: the way the player moves, or faces when
    it barely moves."""
    return p.x_vel >= LOOK_SPEED or (p.x_vel > -LOOK_SPEED and p.facing_right)


def nearest_enemy(sim: SimState, objs, ahead: float):
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


def nearest_spikes(sim: SimState, objs, ahead: float) -> tuple[float, float, float]:
    """(distance, dx, dy) of the nearest spikes, as `nearest_enemy`."""
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

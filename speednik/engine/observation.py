"""The "basic" and "terrain" observations (`speednik.observation`),
compiled: written into a float32 array instead of returned."""
from __future__ import annotations

import math

from speednik.engine.jit import frame_jit

from speednik.engine.layout import (
    F_GROUND_SPEED,
    F_MAX_X,
    F_X,
    F_X_VEL,
    F_Y,
    F_Y_VEL,
    S_ANGLE,
    S_FACING_RIGHT,
    S_FRAME,
    S_LAYER,
    S_ON_GROUND,
    S_ROLLING,
)
from speednik.engine.lowering import (
    G_GOAL_X,
    G_WALKER_SPAN,
    I_ENEMY_ORDER,
    I_ENEMY_SORTED_X,
    I_HEIGHT,
    I_NUM_ENEMIES,
    I_NUM_SPIKES,
    I_SPIKE_X,
    I_SPIKE_Y,
    I_WIDTH,
)
from speednik.engine.objects import enemy_gone, enemy_position
from speednik.engine.terrain import (
    cast_down,
    cast_left,
    cast_right,
    cast_up,
    has_tile,
    height_tiles,
    width_tiles,
)
from speednik.observation import (
    BELOW_REACH,
    CEILING_REACH,
    DROP_NORM,
    DROP_REACH,
    GROUND_PROBE_RISE,
    LOOK_SPEED,
    OBJECT_REACH,
    OBS_DIM,
    TERRAIN_OBS_DIM,
    WALL_REACH,
    _INV_SPEED,
    _INV_TIME,
)
from speednik.observation import GROUND_AHEAD as _GROUND_AHEAD
from speednik.constants import ROLL_HEIGHT_RADIUS, STAND_HEIGHT_RADIUS
from speednik.terrain import NO_HIT

GROUND_NEAR, GROUND_MID, GROUND_FAR = _GROUND_AHEAD

# Observation kinds, by their index in this tuple.
OBSERVATION_KINDS = ("basic", "terrain")
OBS_BASIC = 0
OBS_TERRAIN = 1
OBS_SIZES = (OBS_DIM, TERRAIN_OBS_DIM)


@frame_jit
def basic_values(st, f, s, out):
    inv_w = 1.0 / st.ints[I_WIDTH]
    x = f[F_X]
    out[0] = x * inv_w
    out[1] = f[F_Y] / st.ints[I_HEIGHT]
    out[2] = f[F_X_VEL] * _INV_SPEED
    out[3] = f[F_Y_VEL] * _INV_SPEED
    out[4] = 1.0 if s[S_ON_GROUND] else 0.0
    out[5] = f[F_GROUND_SPEED] * _INV_SPEED
    out[6] = 1.0 if s[S_ROLLING] else 0.0
    out[7] = 1.0 if s[S_FACING_RIGHT] else 0.0
    out[8] = s[S_ANGLE] / 255.0
    out[9] = f[F_MAX_X] * inv_w
    out[10] = (st.floats[G_GOAL_X] - x) * inv_w
    out[11] = s[S_FRAME] * _INV_TIME


@frame_jit
def observe(kind, st, f, s, gone, out):
    basic_values(st, f, s, out)
    if kind == OBS_TERRAIN:
        terrain_probes(st, f, s, gone, out)


# -- terrain probes -----------------------------------------------------------

@frame_jit
def ray_right(st, x, y, layer, reach):
    ty = y >> 4
    w = width_tiles(st)
    if not 0 <= ty < height_tiles(st):
        return reach + 1
    tx = x >> 4
    if tx < 0:
        tx = 0
    last = (x + reach) >> 4
    if last >= w:
        last = w - 1
    while tx <= last:
        if has_tile(st, layer, tx, ty):
            px = tx << 4
            if px < x:
                px = x
            d, _ = cast_right(st, px, y, layer)
            if d != NO_HIT:
                d += px - x
                return (d if d > 0 else 0) if d <= reach else reach + 1
            tx += 2
        else:
            tx += 1
    return reach + 1


@frame_jit
def ray_left(st, x, y, layer, reach):
    ty = y >> 4
    w = width_tiles(st)
    if not 0 <= ty < height_tiles(st):
        return reach + 1
    tx = x >> 4
    if tx >= w:
        tx = w - 1
    last = (x - reach) >> 4
    if last < 0:
        last = 0
    while tx >= last:
        if has_tile(st, layer, tx, ty):
            px = (tx << 4) + 15
            if px > x:
                px = x
            d, _ = cast_left(st, px, y, layer)
            if d != NO_HIT:
                d += x - px
                return (d if d > 0 else 0) if d <= reach else reach + 1
            tx -= 2
        else:
            tx -= 1
    return reach + 1


@frame_jit
def ray_down(st, x, y, layer, reach):
    tx = x >> 4
    w = width_tiles(st)
    if not 0 <= tx < w:
        return reach + 1, 0
    ty = y >> 4
    if ty < 0:
        ty = 0
    last = (y + reach) >> 4
    if last >= height_tiles(st):
        last = height_tiles(st) - 1
    while ty <= last:
        if has_tile(st, layer, tx, ty):
            py = ty << 4
            if py < y:
                py = y
            d, a = cast_down(st, x, py, layer, True)
            if d != NO_HIT:
                d += py - y
                if d <= reach:
                    return d, a
                return reach + 1, 0
            ty += 2
        else:
            ty += 1
    return reach + 1, 0


@frame_jit
def ray_up(st, x, y, layer, reach):
    tx = x >> 4
    w = width_tiles(st)
    if not 0 <= tx < w:
        return reach + 1
    ty = y >> 4
    if ty >= height_tiles(st):
        ty = height_tiles(st) - 1
    last = (y - reach) >> 4
    if last < 0:
        last = 0
    while ty >= last:
        if has_tile(st, layer, tx, ty):
            py = (ty << 4) + 15
            if py > y:
                py = y
            d, _ = cast_up(st, x, py, layer)
            if d != NO_HIT:
                d += y - py
                return (d if d > 0 else 0) if d <= reach else reach + 1
            ty -= 2
        else:
            ty -= 1
    return reach + 1


@frame_jit
def _ground_probe(st, x, top, feet, layer, reach, look, ahead, out, k):
    """One ground-ahead probe into out[k]; returns (found, angle)."""
    d, a = ray_down(st, x + int(look) * ahead, top, layer, reach)
    if d > reach:
        out[k] = DROP_REACH / DROP_NORM
        return False, 0
    drop = (top + d - feet) / DROP_NORM
    out[k] = -1.0 if drop < -1.0 else drop
    return True, a


@frame_jit
def _search_left(floats, start, n, v):
    """`bisect_left` in the n sorted values from floats[start]."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if floats[start + mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@frame_jit
def _search_right(floats, start, n, v):
    """`bisect_right` in the n sorted values from floats[start]."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if v < floats[start + mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


@frame_jit
def _object_features(near, dx, dy, look, out, k):
    if near > OBJECT_REACH:
        out[k] = 0.0
        out[k + 1] = 0.0
        out[k + 2] = 0.0
        return
    r = 1.0 / OBJECT_REACH
    out[k] = 1.0 - near * r
    out[k + 1] = dx * look * r
    out[k + 2] = dy * r


@frame_jit
def terrain_probes(st, f, s, gone, out):
    layer = s[S_LAYER]
    x = int(math.floor(f[F_X]))
    y = int(math.floor(f[F_Y]))
    x_vel = f[F_X_VEL]
    look_right = x_vel >= LOOK_SPEED or (x_vel > -LOOK_SPEED and s[S_FACING_RIGHT] != 0)
    look = 1.0 if look_right else -1.0
    hr = ROLL_HEIGHT_RADIUS if s[S_ROLLING] else STAND_HEIGHT_RADIUS
    feet = y + hr

    if look_right:
        wall_mid = ray_right(st, x, y, layer, WALL_REACH)
        wall_low = ray_right(st, x, y + hr // 2, layer, WALL_REACH)
    else:
        wall_mid = ray_left(st, x, y, layer, WALL_REACH)
        wall_low = ray_left(st, x, y + hr // 2, layer, WALL_REACH)

    top = y - GROUND_PROBE_RISE
    reach = feet - top + DROP_REACH
    slope = 0.0
    found, a = _ground_probe(st, x, top, feet, layer, reach, look, GROUND_NEAR, out, 15)
    gap = 0.0 if found else 1.0
    if found:
        signed = a - 256 if a >= 128 else a
        slope = signed * look / 64.0
    if not _ground_probe(st, x, top, feet, layer, reach, look, GROUND_MID, out, 16)[0]:
        gap = 1.0
    if not _ground_probe(st, x, top, feet, layer, reach, look, GROUND_FAR, out, 17)[0]:
        gap = 1.0
    angle = s[S_ANGLE]
    if s[S_ON_GROUND] and (angle <= 32 or angle >= 224):
        below = 0
    else:
        below, _ = ray_down(st, x, feet, layer, BELOW_REACH)
        below = 0 if below < 0 else below
    above = ray_up(st, x, y - hr, layer, CEILING_REACH)

    out[12] = look
    out[13] = min(wall_mid, WALL_REACH) / WALL_REACH
    out[14] = min(wall_low, WALL_REACH) / WALL_REACH
    out[18] = slope
    out[19] = min(below, BELOW_REACH) / BELOW_REACH
    out[20] = min(above, CEILING_REACH) / CEILING_REACH
    out[21] = gap

    px, py = f[F_X], f[F_Y]
    frame = s[S_FRAME]
    ints, floats = st.ints, st.floats
    best = OBJECT_REACH + 1.0
    edx = edy = 0.0
    n_enemies = ints[I_NUM_ENEMIES]
    if n_enemies:
        xs = ints[I_ENEMY_SORTED_X]
        lo = _search_left(floats, xs, n_enemies, px - OBJECT_REACH - floats[G_WALKER_SPAN])
        hi = _search_right(floats, xs, n_enemies, px + OBJECT_REACH)
        order = ints[I_ENEMY_ORDER]
        for j in range(lo, hi):
            i = ints[order + j]
            if enemy_gone(st, gone, i):
                continue
            ex, ey = enemy_position(st, i, frame)
            dx, dy = ex - px, ey - py
            d = math.sqrt(dx * dx + dy * dy)
            if d < best:
                best, edx, edy = d, dx, dy
    _object_features(best, edx, edy, look, out, 22)
    best = OBJECT_REACH + 1.0
    hdx = hdy = 0.0
    n_spikes = ints[I_NUM_SPIKES]
    if n_spikes:
        xs, ys = ints[I_SPIKE_X], ints[I_SPIKE_Y]
        lo = _search_left(floats, xs, n_spikes, px - OBJECT_REACH)
        hi = _search_right(floats, xs, n_spikes, px + OBJECT_REACH)
        for j in range(lo, hi):
            dx, dy = floats[xs + j] - px, floats[ys + j] - py
            d = math.sqrt(dx * dx + dy * dy)
            if d < best:
                best, hdx, hdy = d, dx, dy
    _object_features(best, hdx, hdy, look, out, 25)

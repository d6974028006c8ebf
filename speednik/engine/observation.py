"""The "basic", "terrain", "hazards" and "stall" observations
(`speednik.observation`), compiled: written into a float32 array instead
of returned."""
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
    S_INVULNERABLE,
    S_LAYER,
    S_ON_GROUND,
    S_RINGS,
    S_ROLLING,
    S_WITHOUT_GAIN,
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
    HAZARD_OBS_DIM,
    LOOK_SPEED,
    OBJECT_REACH,
    OBS_DIM,
    STALL_OBS_DIM,
    TERRAIN_OBS_DIM,
    WALL_REACH,
    _INV_INVULNERABLE,
    _INV_SPEED,
    _INV_STALL,
    _INV_TIME,
)
from speednik.constants import MAX_X_SPEED
from speednik.observation import GROUND_AHEAD as _GROUND_AHEAD
from speednik.engine.player import MODE_OF_ANGLE, radii
from speednik.player import FLOOR_MODE
from speednik.terrain import DOWN, LEFT, NO_HIT, RIGHT, UP

GROUND_NEAR, GROUND_MID, GROUND_FAR = _GROUND_AHEAD

# Observation kinds, by their index in this tuple.
OBSERVATION_KINDS = ("basic", "terrain", "hazards", "stall")
OBS_BASIC = 0
OBS_TERRAIN = 1
OBS_HAZARDS = 2
OBS_STALL = 3
OBS_SIZES = (OBS_DIM, TERRAIN_OBS_DIM, HAZARD_OBS_DIM, STALL_OBS_DIM)


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
    if kind != OBS_BASIC:
        terrain_probes(st, f, s, gone, out)
    if kind == OBS_HAZARDS or kind == OBS_STALL:
        hazards_ahead(st, f, s, gone, out)
    if kind == OBS_STALL:
        clock = s[S_WITHOUT_GAIN] * _INV_STALL
        out[38] = 1.0 if clock > 1.0 else clock


# -- terrain probes -----------------------------------------------------------

@frame_jit
def _cell_has_tile(st, layer, k):
    """The readable `tiles.cells[layer][k]` (k = ty * width_tiles + tx)."""
    w = width_tiles(st)
    return has_tile(st, layer, k % w, k // w)


@frame_jit
def ray(st, direction, x, y, layer, reach):
    """`speednik.observation.ray`: (distance, surface angle) along
    `direction`, or (reach + 1, 0) with no surface within reach."""
    w = width_tiles(st)
    if direction & 1:
        lane = y >> 4
        if not 0 <= lane < height_tiles(st):
            return reach + 1, 0
        along = x
        n = w
        k0 = lane * w
        stride = 1
    else:
        lane = x >> 4
        if not 0 <= lane < w:
            return reach + 1, 0
        along = y
        n = height_tiles(st)
        k0 = lane
        stride = w
    if direction < UP:
        low = 0
        high = n - 1
    else:
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
    while t <= last:
        if _cell_has_tile(st, layer, k0 + t * stride):
            start = t << 4
            if start < along:
                start = along
            if direction == DOWN:
                d, a = cast_down(st, x, start, layer, True)
            elif direction == RIGHT:
                d, a = cast_right(st, start, y, layer)
            elif direction == UP:
                d, a = cast_up(st, x, -start - 1, layer)
            else:
                d, a = cast_left(st, -start - 1, y, layer)
            if d != NO_HIT:
                d += start - along
                if d > reach:
                    return reach + 1, 0
                return (d if d >= 0 or direction == DOWN else 0), a
            t += 2
        else:
            t += 1
    return reach + 1, 0


@frame_jit
def _ground_probe(st, x, top, feet, layer, reach, sign, ahead, out, k):
    """One ground-ahead probe into out[k]; returns (found, angle)."""
    d, a = ray(st, DOWN, x + sign * ahead, top, layer, reach)
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
def _looks_right(f, s):
    x_vel = f[F_X_VEL]
    return x_vel >= LOOK_SPEED or (x_vel > -LOOK_SPEED and s[S_FACING_RIGHT] != 0)


@frame_jit
def terrain_probes(st, f, s, gone, out):
    layer = s[S_LAYER]
    x = int(math.floor(f[F_X]))
    y = int(math.floor(f[F_Y]))
    if _looks_right(f, s):
        look, sign, ahead = 1.0, 1, RIGHT
    else:
        look, sign, ahead = -1.0, -1, LEFT
    hr = radii(s)[1]
    feet = y + hr

    wall_mid, _ = ray(st, ahead, x, y, layer, WALL_REACH)
    wall_low, _ = ray(st, ahead, x, y + hr // 2, layer, WALL_REACH)

    top = y - GROUND_PROBE_RISE
    reach = feet - top + DROP_REACH
    slope = 0.0
    found, a = _ground_probe(st, x, top, feet, layer, reach, sign, GROUND_NEAR, out, 15)
    gap = 0.0 if found else 1.0
    if found:
        signed = a - 256 if a >= 128 else a
        slope = signed * look / 64.0
    if not _ground_probe(st, x, top, feet, layer, reach, sign, GROUND_MID, out, 16)[0]:
        gap = 1.0
    if not _ground_probe(st, x, top, feet, layer, reach, sign, GROUND_FAR, out, 17)[0]:
        gap = 1.0
    if s[S_ON_GROUND] and MODE_OF_ANGLE[s[S_ANGLE]] == FLOOR_MODE:
        below = 0
    else:
        below, _ = ray(st, DOWN, x, feet, layer, BELOW_REACH)
        below = 0 if below < 0 else below
    above, _ = ray(st, UP, x, y - hr, layer, CEILING_REACH)

    out[12] = look
    out[13] = (wall_mid if wall_mid < WALL_REACH else WALL_REACH) / WALL_REACH
    out[14] = (wall_low if wall_low < WALL_REACH else WALL_REACH) / WALL_REACH
    out[18] = slope
    out[19] = (below if below < BELOW_REACH else BELOW_REACH) / BELOW_REACH
    out[20] = (above if above < CEILING_REACH else CEILING_REACH) / CEILING_REACH
    out[21] = gap

    best, edx, edy, _ = _nearest_enemy(st, f, s, gone, 0.0)
    _object_features(best, edx, edy, look, out, 22)
    best, hdx, hdy = _nearest_spikes(st, f, 0.0)
    _object_features(best, hdx, hdy, look, out, 25)


@frame_jit
def _nearest_enemy(st, f, s, gone, ahead):
    """`speednik.observation._nearest_enemy`, with the enemy's index (-1
    for none) in place of the enemy."""
    px, py = f[F_X], f[F_Y]
    frame = s[S_FRAME]
    ints, floats = st.ints, st.floats
    best = OBJECT_REACH + 1.0
    edx = edy = 0.0
    found = -1
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
            if ahead != 0.0 and dx * ahead <= 0.0:
                continue
            d = math.sqrt(dx * dx + dy * dy)
            if d < best:
                best, edx, edy, found = d, dx, dy, i
    return best, edx, edy, found


@frame_jit
def _nearest_spikes(st, f, ahead):
    """`speednik.observation._nearest_spikes`."""
    px, py = f[F_X], f[F_Y]
    ints, floats = st.ints, st.floats
    best = OBJECT_REACH + 1.0
    hdx = hdy = 0.0
    n_spikes = ints[I_NUM_SPIKES]
    if n_spikes:
        xs, ys = ints[I_SPIKE_X], ints[I_SPIKE_Y]
        lo = _search_left(floats, xs, n_spikes, px - OBJECT_REACH)
        hi = _search_right(floats, xs, n_spikes, px + OBJECT_REACH)
        for j in range(lo, hi):
            dx, dy = floats[xs + j] - px, floats[ys + j] - py
            if ahead != 0.0 and dx * ahead <= 0.0:
                continue
            d = math.sqrt(dx * dx + dy * dy)
            if d < best:
                best, hdx, hdy = d, dx, dy
    return best, hdx, hdy


@frame_jit
def _clip_motion(v):
    return -MAX_X_SPEED if v < -MAX_X_SPEED else (MAX_X_SPEED if v > MAX_X_SPEED else v)


@frame_jit
def hazards_ahead(st, f, s, gone, out):
    look = 1.0 if _looks_right(f, s) else -1.0
    out[28] = 1.0 if s[S_RINGS] > 0 else 0.0
    out[29] = s[S_INVULNERABLE] * _INV_INVULNERABLE
    best, edx, edy, i = _nearest_enemy(st, f, s, gone, look)
    _object_features(best, edx, edy, look, out, 30)
    if best <= OBJECT_REACH:
        frame = s[S_FRAME]
        ex, ey = enemy_position(st, i, frame)
        nx, ny = enemy_position(st, i, frame + 1)
        out[33] = _clip_motion((nx - ex) * look)
        out[34] = _clip_motion(ny - ey)
    else:
        out[33] = 0.0
        out[34] = 0.0
    best, hdx, hdy = _nearest_spikes(st, f, look)
    _object_features(best, hdx, hdy, look, out, 35)

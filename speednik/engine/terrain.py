"""The four sensor casts of `speednik.terrain.TileMap`, compiled.

Same reading of the same scan tables as `speednik.terrain._cast`; a
stage's tables are sections of its lowered `ints` (see `lowering`).
"""
from __future__ import annotations

from speednik.engine.jit import frame_jit, leaf_jit
from speednik.engine.lowering import (
    I_A_DOWN,
    I_A_LEFT,
    I_A_RIGHT,
    I_A_UP,
    I_CELLS,
    I_HEIGHT_TILES,
    I_OPEN_AIR,
    I_PW,
    I_T_DOWN,
    I_T_DOWN_ALL,
    I_T_LEFT,
    I_T_RIGHT,
    I_T_UP,
    I_WIDTH_TILES,
)
from speednik.terrain import DOWN, NO_HIT, NONE, OPEN, RIGHT, UP, _PAD as PAD


@frame_jit
def _cast(ints, table, angles, cells, k, step, lane, i):
    """`speednik.terrain._cast` with `table`, `angles` and `cells` the
    starts of those sections of `ints`."""
    t = ints[cells + k]
    v = ints[table + (t << 8) + lane + i]
    if v == NONE:
        t2 = ints[cells + k + step]
        v2 = ints[table + (t2 << 8) + lane]
        if v2 == NONE:
            return NO_HIT, ints[angles]
        if v2 > 0:
            return 16 - i + v2, ints[angles + t2]
        return 16 - i, ints[angles + t2]
    if v > OPEN:
        return v, ints[angles + t]
    t0 = ints[cells + k - step]
    v0 = ints[table + (t0 << 8) + lane + 15]
    if v0 <= 0:
        if v0 > OPEN:
            return v0 - 1 - i, ints[angles + t0]
        return -16 - i, ints[angles + t0]
    return -i, ints[angles + t]


@leaf_jit
def _outside(ints, tx, ty):
    return not (-1 <= tx <= ints[I_WIDTH_TILES] and -1 <= ty <= ints[I_HEIGHT_TILES])


@leaf_jit
def _cell(ints, tx, ty):
    """Index of tile (tx, ty) in a padded layer."""
    return (ty + PAD) * ints[I_PW] + tx + PAD


@leaf_jit
def open_air(st, layer, x, y):
    """Whether the tiles of `layer` around the one holding pixel (x, y),
    OPEN_AIR_COLUMNS to either side and OPEN_AIR_ROWS above and below
    (`lowering.open_air_cells`), are all empty: then every cast from a
    pixel within 16 px of x and 32 px of y reads only empty tiles (or
    none) and finds NO_HIT. False off the padded grid."""
    if x < 0 or y < 0:
        return False
    ints = st.ints
    tx, ty = x >> 4, y >> 4
    if tx >= ints[I_WIDTH_TILES] + PAD or ty >= ints[I_HEIGHT_TILES] + PAD:
        return False
    return ints[ints[I_OPEN_AIR + layer] + _cell(ints, tx, ty)] != 0


@leaf_jit
def cast_down(st, px, py, layer, top_only):
    ints = st.ints
    tx, ty = px >> 4, py >> 4
    if _outside(ints, tx, ty):
        return NO_HIT, 0
    table = ints[I_T_DOWN_ALL] if top_only else ints[I_T_DOWN]
    return _cast(ints, table, ints[I_A_DOWN], ints[I_CELLS + layer], _cell(ints, tx, ty),
                 ints[I_PW], (px & 15) << 4, py & 15)


@leaf_jit
def cast_up(st, px, py, layer):
    ints = st.ints
    tx, ty = px >> 4, py >> 4
    if _outside(ints, tx, ty):
        return NO_HIT, 128
    return _cast(ints, ints[I_T_UP], ints[I_A_UP], ints[I_CELLS + layer],
                 _cell(ints, tx, ty), -ints[I_PW], (px & 15) << 4, 15 - (py & 15))


@leaf_jit
def cast_right(st, px, py, layer):
    ints = st.ints
    tx, ty = px >> 4, py >> 4
    if _outside(ints, tx, ty):
        return NO_HIT, 64
    return _cast(ints, ints[I_T_RIGHT], ints[I_A_RIGHT], ints[I_CELLS + layer],
                 _cell(ints, tx, ty), 1, (py & 15) << 4, px & 15)


@leaf_jit
def cast_left(st, px, py, layer):
    ints = st.ints
    tx, ty = px >> 4, py >> 4
    if _outside(ints, tx, ty):
        return NO_HIT, 192
    return _cast(ints, ints[I_T_LEFT], ints[I_A_LEFT], ints[I_CELLS + layer],
                 _cell(ints, tx, ty), -1, (py & 15) << 4, 15 - (px & 15))


@frame_jit
def cast(st, direction, px, py, layer):
    """`TileMap.cast` with `top_only` False."""
    if direction == DOWN:
        return cast_down(st, px, py, layer, False)
    if direction == RIGHT:
        return cast_right(st, px, py, layer)
    if direction == UP:
        return cast_up(st, px, py, layer)
    return cast_left(st, px, py, layer)


@leaf_jit
def width_tiles(st):
    return st.ints[I_WIDTH_TILES]


@leaf_jit
def height_tiles(st):
    return st.ints[I_HEIGHT_TILES]

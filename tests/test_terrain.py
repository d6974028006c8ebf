"""Tiles: height arrays, angles and sensor distances from pixel grids."""
from __future__ import annotations

import numpy as np

from speednik.terrain import DOWN, LEFT, NO_HIT, RIGHT, SOLID, TOP_ONLY, UP, TileMap


def one_tile_map(tile: np.ndarray) -> tuple[TileMap, int]:
    """A 5x5-tile map with `tile` in the middle; returns it and its index."""
    g = np.zeros((80, 80), np.uint8)
    g[32:48, 32:48] = tile
    tm = TileMap.from_grids([g, g])
    return tm, tm.cells[0][2 * 5 + 2]


def test_a_45_degree_slope_tile():
    tile = np.zeros((16, 16), np.uint8)
    for col in range(16):
        tile[15 - col:, col] = SOLID   # rises one pixel per column
    tm, t = one_tile_map(tile)
    assert tm.height_array(t, DOWN) == tuple(range(1, 17))
    assert tm.a_down[t] == 32          # 45 degrees, counter-clockwise
    # Coming from the left, a sensor meets the slope (row by row, top
    # down); coming from the right it meets the tile's full right edge.
    assert tm.height_array(t, RIGHT) == tuple(range(1, 17))
    assert tm.height_array(t, LEFT) == (16,) * 16


def test_full_and_empty_tiles():
    tm, t = one_tile_map(np.full((16, 16), SOLID, np.uint8))
    assert tm.height_array(t, DOWN) == (16,) * 16
    assert (tm.a_down[t], tm.a_right[t], tm.a_up[t], tm.a_left[t]) == (0, 64, 128, 192)
    assert tm.height_array(0, UP) == (0,) * 16


def test_sensor_distances_are_pixel_exact():
    tm, _ = one_tile_map(np.full((16, 16), SOLID, np.uint8))
    # The block spans x 32..47, y 32..47.
    assert tm.cast_down(40, 20, 0, False)[0] == 12    # 12 px above its top
    assert tm.cast_down(40, 35, 0, False)[0] == -3    # 3 px inside
    assert tm.cast_right(25, 40, 0)[0] == 7
    assert tm.cast_left(55, 40, 0)[0] == 8
    assert tm.cast_up(40, 50, 0)[0] == 3
    assert tm.cast_down(10, 10, 0, False)[0] == NO_HIT


def test_top_only_tiles_only_for_the_floor_sensor_when_asked():
    tile = np.zeros((16, 16), np.uint8)
    tile[0:4, :] = TOP_ONLY
    tm, t = one_tile_map(tile)
    assert tm.cast_down(40, 28, 0, True)[0] == 4
    assert tm.cast_down(40, 28, 0, False)[0] == NO_HIT
    assert tm.cast_up(40, 40, 0)[0] == NO_HIT
    assert tm.cast_right(25, 33, 0)[0] == NO_HIT


def test_a_sensor_does_not_see_solid_it_has_already_passed():
    # Solid on the right half only: a left-pointing sensor in the empty
    # left half finds nothing ahead of it.
    tile = np.zeros((16, 16), np.uint8)
    tile[:, 8:] = SOLID
    tm, _ = one_tile_map(tile)
    assert tm.cast_left(35, 40, 0)[0] == NO_HIT
    assert tm.cast_right(35, 40, 0)[0] == 5

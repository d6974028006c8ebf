"""Tiles: height arrays, angles and sensor distances from pixel grids."""
from __future__ import annotations

import numpy as np

from speednik.terrain import DOWN, LEFT, NO_HIT, RIGHT, SOLID, TOP_ONLY, UP, TileMap


def one_tile_map(tile: np.ndarray) -> tuple[TileMap, int]:
    """A 5x5-tile map with `tile` in the middle; returns it and its index."""
    g = np.zeros((80, 80), np.uint8)
    g[32:48, 32:48] = tile
    tm = TileMap.from_grids([g, g])
    return tm, int(tm.cell_grids[0][2, 2])


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


# -- the vectorised tables against plain, pixel-by-pixel references --------------

def _reference_codes(column: list[bool]) -> list[int]:
    """One lane's scan codes, read off the module docstring pixel by pixel."""
    from speednik.terrain import NONE, OPEN
    codes = []
    for i, solid in enumerate(column):
        if not solid:
            ahead = next((j for j in range(i, 16) if column[j]), None)
            codes.append(NONE if ahead is None else ahead - i)
            continue
        start = i
        while start > 0 and column[start - 1]:
            start -= 1
        codes.append(start - i + (OPEN if start == 0 else 0))
    return codes


def _random_tiles(n: int, seed: int) -> np.ndarray:
    """Tiles of every kind the builder makes: empty, full, surfaces, and
    noise with top-only pixels, mixed ones included."""
    rng = np.random.default_rng(seed)
    tiles = np.zeros((n, 16, 16), np.uint8)
    for k in range(n):
        kind = k % 4
        if kind == 0:
            surface = np.clip(rng.integers(-2, 18) + np.cumsum(rng.integers(-2, 3, 16)), 0, 16)
            for col in range(16):
                tiles[k, 16 - surface[col]:, col] = SOLID
        elif kind == 1:
            tiles[k] = rng.choice([0, SOLID], size=(16, 16), p=[0.6, 0.4])
        elif kind == 2:
            tiles[k] = rng.choice([0, TOP_ONLY], size=(16, 16), p=[0.5, 0.5])
        else:
            tiles[k] = rng.integers(0, 3, (16, 16))
    return tiles


def test_scan_tables_match_a_pixel_by_pixel_scan():
    from speednik.terrain import _scan_tables
    masks = _random_tiles(200, 1) > 0
    codes = _scan_tables(masks)     # (n, lane, scan)
    for k in range(len(masks)):
        for lane in range(16):
            assert codes[k, lane].tolist() == _reference_codes(masks[k, :, lane].tolist())


def test_surface_angles_all_at_once_match_the_least_squares_fit():
    from speednik.terrain import DIRECTIONS, _surface_angle, _surface_angles
    rng = np.random.default_rng(2)
    heights = np.concatenate([
        rng.integers(0, 17, (3000, 16)),
        np.clip(np.arange(16)[None, :] * rng.integers(-3, 4, (500, 1))
                + rng.integers(0, 17, (500, 1)), 0, 16),
        np.eye(16, dtype=np.int64) * 8,          # one partial lane: no fit
    ])
    for d in DIRECTIONS:
        assert _surface_angles(heights, d) == [_surface_angle(h, d) for h in heights]


def _reference_tile_map(grids):
    """The distinct tiles, numbered in byte order, and each layer's grid of
    them, as plainly as it can be computed: every tile compared whole."""
    shape = grids[0].shape
    rows, cols = -(-shape[0] // 16), -(-shape[1] // 16)
    tiles = []
    for g in grids:
        padded = np.zeros((rows * 16, cols * 16), np.uint8)
        padded[:shape[0], :shape[1]] = g
        t = padded.reshape(rows, 16, cols, 16).swapaxes(1, 2).reshape(rows * cols, 256)
        mixed = (t == SOLID).any(axis=1)
        tiles.append(np.where(mixed[:, None] & (t > 0), SOLID, t).astype(np.uint8))
    stacked = np.concatenate(tiles + [np.zeros((1, 256), np.uint8)])
    unique, inverse = np.unique(stacked, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    return unique.reshape(-1, 16, 16), [inverse[i * rows * cols:(i + 1) * rows * cols]
                                        .reshape(rows, cols) for i in range(2)]


def _random_grid(height: int, width: int, seed: int) -> np.ndarray:
    """Sky over ground with random tiles pasted on, some aligned to the
    tile grid and some not, so uniform and mixed tiles both occur."""
    rng = np.random.default_rng(seed)
    grid = np.zeros((height, width), np.uint8)
    surface = np.clip(height // 2 + np.cumsum(rng.integers(-1, 2, width)), 0, height)
    grid[np.arange(height)[:, None] >= surface[None, :]] = SOLID
    patches = _random_tiles(30, seed)
    for patch in patches:
        y, x = rng.integers(0, height - 16), rng.integers(0, width - 16)
        if rng.random() < 0.5:
            y, x = y // 16 * 16, x // 16 * 16
        grid[y:y + 16, x:x + 16] = patch
    grid[rng.integers(0, height), :] = TOP_ONLY        # a whole row of top-only
    return grid


def test_from_grids_numbers_tiles_as_comparing_every_tile_whole_does():
    for seed, (height, width) in enumerate([(160, 320), (170, 333), (64, 80)]):
        layer0 = _random_grid(height, width, seed)
        layer1 = layer0.copy()
        layer1[:height // 2, :width // 3] = _random_grid(height // 2, width // 3, seed + 10)
        for grids in ([layer0, layer1], [layer0, layer0], [layer0, layer0.copy()]):
            tm = TileMap.from_grids(grids)
            masks, cell_grids = _reference_tile_map(grids)
            assert np.array_equal(tm.masks, masks)
            for got, want in zip(tm.cell_grids, cell_grids):
                assert np.array_equal(got, want)
            for layer, grid in enumerate(grids):
                assert np.array_equal(tm.pixel_grid(layer)[:height, :width] > 0, grid > 0)


def test_casts_read_the_same_tables_the_compiled_engine_is_given():
    from speednik.terrain import SCAN_TABLES
    g = _random_grid(160, 320, 7)
    tm = TileMap.from_grids([g, g])
    assert not hasattr(tm, "_t_down") and not hasattr(tm, "cells")   # not before
    tm.cast_down(40, 40, 0, False)                                     # the first cast
    for name, table in zip(SCAN_TABLES, tm.scan_tables):
        assert getattr(tm, f"_t_{name}") == table.tolist()
    assert tm._pcells == tm.padded_cells().tolist()
    assert tm.cells == [g.ravel().tolist() for g in tm.cell_grids]

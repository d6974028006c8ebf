"""Terrain as 16x16 tiles with height arrays, angles and solidity, and the
sensors that read it.

A stage's geometry arrives as pixel grids (one per collision layer) whose
values are EMPTY, TOP_ONLY or SOLID. `TileMap.from_grids` cuts them into
tiles, keeps each distinct tile once, and pre-computes for every tile and
every sensor direction (down, right, up, left) a 16-value height array and
an angle byte. The hot path then reads flat Python lists only.

A sensor casts from a pixel in one direction and returns the distance to the
first solid pixel along it (0: the sensor pixel is that surface pixel;
negative: the sensor is inside solid, that far past the surface it came
through) and that surface's angle. It reads pixel-exact distance tables of
the sensor's tile, looks one tile further when that tile is empty ahead,
and one tile back when the solid reaches the tile's edge, as in the
original game. Nothing found within that reach reads as NO_HIT.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from speednik.constants import TILE_SIZE

EMPTY = 0
TOP_ONLY = 1
SOLID = 2

DOWN, RIGHT, UP, LEFT = 0, 1, 2, 3
DIRECTIONS = (DOWN, RIGHT, UP, LEFT)
# The angle a flat surface met by a sensor pointing this way has.
CARDINAL_ANGLE = (0, 64, 128, 192)
# Distance reported when no surface is within reach.
NO_HIT = 32
NUM_LAYERS = 2
_PAD = 2


# Scan-table codes. A value v for a pixel: 1..15, the next solid pixel is v
# ahead in this tile; NONE, there is none; 0..-15, the pixel is solid and
# the surface of its run is -v behind; -100 - k, the same with the run
# reaching back to the tile's entry edge (so it may go on in the tile before).
NONE = 64
OPEN = -100


def _select(condition: np.ndarray, a, b) -> np.ndarray:
    """`np.where(condition, a, b)` for small integers, as arithmetic: many
    times faster than np.where on them."""
    return b + condition * (a - b)


def _scan_tables(solid: np.ndarray) -> np.ndarray:
    """Distance codes for masks (n, scan, lane), scanning along axis 1, as
    int8 (every code fits), shaped (n, lane, scan)."""
    n = solid.shape[0]
    # Worked on as (scan, every tile's lanes): each step of a scan is then
    # one operation along a long row.
    s = np.ascontiguousarray(solid.transpose(1, 0, 2)).reshape(16, -1).astype(np.int16)
    idx = np.arange(16, dtype=np.int16)[:, None]
    # The first solid pixel at or after each one (16: none).
    nxt = _select(s, idx, 16)
    for i in range(14, -1, -1):
        np.minimum(nxt[i], nxt[i + 1], out=nxt[i])
    # Where the run of solid holding each pixel starts: the last pixel at
    # or before it that opens the tile or follows a non-solid one.
    start = np.zeros_like(s)
    start[1:] = _select(s[:-1], 0, idx[1:])
    for i in range(1, 16):
        np.maximum(start[i - 1], start[i], out=start[i])
    ahead = _select(nxt < 16, nxt - idx, NONE)
    behind = start - idx
    behind = _select(start == 0, behind + OPEN, behind)
    codes = _select(s, behind, ahead).astype(np.int8)
    return codes.reshape(16, n, 16).transpose(1, 2, 0)


def _oriented(solid: np.ndarray, direction: int) -> np.ndarray:
    """Masks turned so the sensor's direction runs along axis 1."""
    if direction == DOWN:
        return solid
    if direction == UP:
        return solid[:, ::-1, :]
    if direction == RIGHT:
        return solid.transpose(0, 2, 1)
    return solid.transpose(0, 2, 1)[:, ::-1, :]


def _entry_heights(oriented: np.ndarray) -> np.ndarray:
    """Per lane, how far the solid met first reaches back from the far
    edge (16 - index of the first solid pixel), 0 for an empty lane."""
    any_ = oriented.any(axis=1)
    return np.where(any_, 16 - oriented.argmax(axis=1), 0)


def _surface_angle(heights: np.ndarray, direction: int) -> int:
    """Angle byte of the surface a sensor pointing `direction` meets.

    The surface points are those of partial heights; the angle is that of
    the least-squares line through them, oriented along the direction in
    which positive ground speed moves the player in that sensor's mode.
    """
    idx = np.nonzero((heights > 0) & (heights < 16))[0]
    if len(idx) < 2:
        return CARDINAL_ANGLE[direction]
    h = heights[idx].astype(float)
    i = idx.astype(float)
    slope = float(np.polyfit(i, h, 1)[0])
    # Tangent in screen coordinates (y down), along increasing index.
    if direction == DOWN:      # points (i, 16 - h): moving +x
        tx, ty = 1.0, -slope
    elif direction == UP:      # points (i, h - 1): moving -x, so reverse
        tx, ty = -1.0, -slope
    elif direction == RIGHT:   # points (16 - h, i): moving up, so reverse
        tx, ty = slope, -1.0
    else:                      # LEFT, points (h - 1, i): moving down
        tx, ty = slope, 1.0
    deg = math.degrees(math.atan2(-ty, tx))
    return int(round(deg * 256.0 / 360.0)) % 256


# Where a fitted angle lands this close to half a step between two angle
# bytes, the closed form below and np.polyfit could round it apart: there
# `_surface_angle`, which defines the angles, decides.
ROUNDING_MARGIN = 1e-6


def _surface_angles(heights: np.ndarray, direction: int) -> list[int]:
    """`_surface_angle` of each row of `heights` (tiles, 16), all at once:
    the least-squares slope in closed form, from exact integer sums."""
    partial = (heights > 0) & (heights < 16)
    lane = np.arange(16)
    n = partial.sum(axis=1)
    h = np.where(partial, heights, 0).astype(np.int64)
    sum_i, sum_ii = partial @ lane, partial @ (lane * lane)
    sum_h, sum_ih = h.sum(axis=1), h @ lane
    fitted = n >= 2
    spread = np.where(fitted, n * sum_ii - sum_i * sum_i, 1)
    slope = (n * sum_ih - sum_i * sum_h) / spread
    one = np.ones_like(slope)
    tx, ty = {DOWN: (one, -slope), UP: (-one, -slope),
              RIGHT: (slope, -one), LEFT: (slope, one)}[direction]
    steps = np.degrees(np.arctan2(-ty, tx)) * 256.0 / 360.0
    angles = np.where(fitted, np.round(steps).astype(np.int64) % 256,
                      CARDINAL_ANGLE[direction]).tolist()
    near_half = fitted & (np.abs(steps - np.floor(steps) - 0.5) < ROUNDING_MARGIN)
    for t in np.nonzero(near_half)[0]:
        angles[t] = _surface_angle(heights[t], direction)
    return angles


def _cast(table: list, angles: list, cells: list, k: int, step: int,
          lane: int, i: int) -> tuple[int, int]:
    """One sensor in a padded cell list: tile `k`, `step` to the next tile
    along the direction, scan position `i` in lane `lane` (pre-shifted)."""
    t = cells[k]
    v = table[(t << 8) + lane + i]
    if v == NONE:
        t2 = cells[k + step]
        v2 = table[(t2 << 8) + lane]
        if v2 == NONE:
            return NO_HIT, angles[0]
        if v2 > 0:
            return 16 - i + v2, angles[t2]
        return 16 - i, angles[t2]
    if v > OPEN:
        return v, angles[t]
    t0 = cells[k - step]
    v0 = table[(t0 << 8) + lane + 15]
    if v0 <= 0:
        if v0 > OPEN:
            return v0 - 1 - i, angles[t0]
        return -16 - i, angles[t0]
    return -i, angles[t]


def _whole_tiles(grid: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """`grid` as uint8, padded with EMPTY to `rows` x `cols` whole tiles."""
    size = (rows * TILE_SIZE, cols * TILE_SIZE)
    if grid.shape == size and grid.dtype == np.uint8 and grid.flags.c_contiguous:
        return grid
    padded = np.zeros(size, np.uint8)
    padded[:grid.shape[0], :grid.shape[1]] = grid
    return padded


def _uniform_fill(padded: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Per tile of a whole-tile grid, the value all its pixels share, or -1
    where they differ. Read eight pixels at a time: a tile is uniform when
    the least and the greatest of its 8-pixel words are, in each eighth of
    its width, one byte repeated eight times (the grid is read only by the
    two reductions: picking single pixels out of it would cost more)."""
    words = padded.view(np.uint64).reshape(rows, TILE_SIZE, cols, TILE_SIZE // 8)
    low = np.minimum.reduce(words, axis=1)
    high = np.maximum.reduce(words, axis=1)
    value = low[:, :, 0] & np.uint64(0xFF)
    repeated = value * np.uint64(0x0101010101010101)
    uniform = np.ones((rows, cols), bool)
    for part in range(TILE_SIZE // 8):
        uniform &= (low[:, :, part] == repeated) & (high[:, :, part] == repeated)
    return np.where(uniform, value.astype(np.int64), -1)


# The scan tables a TileMap keeps, in order: the floor sensor with top-only
# tiles, then each direction with solid tiles only.
SCAN_TABLES = ("down_all", "down", "right", "up", "left")


class TileMap:
    """Tiles of a stage on its collision layers, with the four sensor casts.

    Its tables are arrays (`cell_grids`, `scan_tables`, `padded_cells()`),
    from which the compiled engine's flat arrays are copied. The readable
    engine reads them as Python lists (`cells` and the casts' tables), made
    by `make_readable()` when it first needs them: a stage only the
    compiled engine plays never pays for them.
    """

    __slots__ = (
        "width_tiles", "height_tiles", "masks", "cell_grids",
        "a_down", "a_right", "a_up", "a_left", "top_only", "heights",
        "scan_tables", "_pw",
        # The readable engine's lists (`make_readable`), made on first use.
        "cells", "_pcells", "_t_down_all", "_t_down", "_t_right", "_t_up", "_t_left",
    )

    def __init__(self, masks: np.ndarray, cell_grids: Sequence[np.ndarray]):
        """`masks`: (n, 16, 16) uint8 solidity values of each distinct tile,
        tile 0 empty. `cell_grids`: per layer, (rows, cols) tile indices."""
        self.masks = masks
        self.cell_grids = [np.asarray(g, dtype=np.int32) for g in cell_grids]
        self.height_tiles, self.width_tiles = self.cell_grids[0].shape
        # Two empty tiles of padding on every side: a cast near an edge
        # needs no bounds checks for the tiles before and after its own.
        self._pw = self.width_tiles + 2 * _PAD
        solid = masks > 0
        top_only = masks.max(axis=(1, 2)) == TOP_ONLY
        self.top_only = top_only.tolist()
        full = solid & ~top_only[:, None, None]
        angles = []
        self.heights = []
        for d in DIRECTIONS:
            # A top-only tile exists for the floor sensor alone.
            heights = _entry_heights(_oriented(solid if d == DOWN else full, d))
            self.heights.append(heights.astype(np.int8))
            angles.append(_surface_angles(heights, d))
        self.a_down, self.a_right, self.a_up, self.a_left = angles
        # One pass over the masks turned each table's way (SCAN_TABLES);
        # every code fits a byte.
        turned = np.concatenate([_oriented(solid, DOWN)] + [
            _oriented(full, d) for d in DIRECTIONS])
        self.scan_tables = _scan_tables(turned).reshape(len(SCAN_TABLES), -1)

    def padded_cells(self) -> np.ndarray:
        """Per layer, its tile indices with two empty tiles of padding on
        every side, row by row: (layers, padded rows * `_pw`)."""
        return np.stack([np.pad(g, _PAD).ravel() for g in self.cell_grids])

    def make_readable(self) -> list[list[int]]:
        """Make the Python lists the readable engine reads: `cells` (each
        layer's tile indices, row by row) and the casts' padded cells and
        scan tables. Returns the padded cells of each layer."""
        # Layers that share a grid share its list.
        first = self.cell_grids[0].ravel().tolist()
        self.cells = [first if g is self.cell_grids[0] else g.ravel().tolist()
                      for g in self.cell_grids]
        (self._t_down_all, self._t_down, self._t_right, self._t_up,
         self._t_left) = self.scan_tables.tolist()
        # Made last: a cast that finds it finds the rest.
        self._pcells = self.padded_cells().tolist()
        return self._pcells

    @classmethod
    def from_grids(cls, grids: Sequence[np.ndarray]) -> TileMap:
        """Build from per-layer pixel grids of EMPTY / TOP_ONLY / SOLID.

        Grids are padded with empty pixels up to whole tiles (a grid that
        already is whole tiles of uint8 is read in place). A tile holding
        both kinds of solid pixels is fully solid. The distinct tiles are
        numbered in the byte order of their pixels, so the all-empty tile
        is tile 0.
        """
        if len(grids) != NUM_LAYERS:
            raise ValueError(
                f"TileMap needs {NUM_LAYERS} layer grids, got {len(grids)}")
        shape = grids[0].shape
        rows = -(-shape[0] // TILE_SIZE)
        cols = -(-shape[1] // TILE_SIZE)
        for g in grids:
            if g.shape != shape:
                raise ValueError("layer grids differ in size")
        # Layers that are one grid (a stage without a loop) are read once and
        # share one grid of tiles.
        sources = grids[:1] if all(g is grids[0] for g in grids) else grids
        padded = [_whole_tiles(g, rows, cols) for g in sources]
        # Nearly every tile is all sky or all ground: those are told apart by
        # one value, and only the others are compared pixel by pixel.
        fills = [_uniform_fill(p, rows, cols) for p in padded]
        mixed = [np.nonzero(f < 0) for f in fills]
        shapes = [np.zeros((1, TILE_SIZE * TILE_SIZE), np.uint8)]  # the empty tile
        for p, (r, c) in zip(padded, mixed):
            t = p.reshape(rows, TILE_SIZE, cols, TILE_SIZE)[r, :, c, :]
            t = t.reshape(len(r), TILE_SIZE * TILE_SIZE)
            # Mixed tiles become fully solid.
            solid = (t == SOLID).any(axis=1)
            shapes.append(np.where(solid[:, None] & (t > 0), SOLID, t).astype(np.uint8))
        # One tile of each value some uniform tile has.
        fill_values = np.flatnonzero(sum(
            np.bincount(f[f >= 0], minlength=256) for f in fills))
        shapes.append(np.repeat(fill_values.astype(np.uint8), TILE_SIZE * TILE_SIZE)
                      .reshape(len(fill_values), TILE_SIZE * TILE_SIZE))
        stacked = np.ascontiguousarray(np.concatenate(shapes))
        # Compare whole tiles as 256-byte keys: far faster than axis=0.
        keys = stacked.view(np.dtype((np.void, TILE_SIZE * TILE_SIZE))).ravel()
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        unique = stacked[first]
        inverse = inverse.ravel()
        # Keys sort bytewise, so the all-empty tile is index 0.
        assert not unique[0].any()
        tile_of_fill = np.zeros(256, np.int32)
        tile_of_fill[fill_values] = inverse[len(inverse) - len(fill_values):]
        cell_grids = []
        start = 1
        for f, (r, c) in zip(fills, mixed):
            grid = tile_of_fill[np.maximum(f, 0)]
            grid[r, c] = inverse[start:start + len(r)]
            start += len(r)
            cell_grids.append(grid)
        if len(cell_grids) < NUM_LAYERS:
            cell_grids *= NUM_LAYERS
        return cls(unique.reshape(-1, TILE_SIZE, TILE_SIZE), cell_grids)

    # -- queries that are not on the hot path ---------------------------------

    def height_array(self, tile: int, direction: int = DOWN) -> tuple[int, ...]:
        """The tile's 16-value height array as a sensor pointing `direction`
        meets it (the original game's view of a tile; angles come from it)."""
        return tuple(int(h) for h in self.heights[direction][tile])

    def solidity_at(self, x: float, y: float, layer: int) -> int:
        """EMPTY, TOP_ONLY or SOLID for the pixel holding (x, y)."""
        px, py = math.floor(x), math.floor(y)
        tx, ty = px >> 4, py >> 4
        if not (0 <= tx < self.width_tiles and 0 <= ty < self.height_tiles):
            return EMPTY
        t = self.cell_grids[layer][ty, tx]
        return int(self.masks[t, py & 15, px & 15])

    def pixel_grid(self, layer: int) -> np.ndarray:
        """The layer as a (height, width) uint8 array of solidity values."""
        m = self.masks[self.cell_grids[layer]]  # rows, cols, 16, 16
        r, c = self.cell_grids[layer].shape
        return m.swapaxes(1, 2).reshape(r * TILE_SIZE, c * TILE_SIZE)

    # -- sensors --------------------------------------------------------------

    def cast(self, direction: int, px: int, py: int, layer: int,
             top_only: bool = False) -> tuple[int, int]:
        """Cast a sensor from pixel (px, py); see the module docstring."""
        if direction == DOWN:
            return self.cast_down(px, py, layer, top_only)
        if direction == RIGHT:
            return self.cast_right(px, py, layer)
        if direction == UP:
            return self.cast_up(px, py, layer)
        return self.cast_left(px, py, layer)

    def cast_down(self, px: int, py: int, layer: int,
                  top_only: bool) -> tuple[int, int]:
        tx, ty = px >> 4, py >> 4
        if not (-1 <= tx <= self.width_tiles and -1 <= ty <= self.height_tiles):
            return NO_HIT, 0
        try:
            cells = self._pcells[layer]
        except AttributeError:      # this map's first cast
            cells = self.make_readable()[layer]
        pw = self._pw
        return _cast(self._t_down_all if top_only else self._t_down,
                     self.a_down, cells,
                     (ty + _PAD) * pw + tx + _PAD, pw,
                     (px & 15) << 4, py & 15)

    def cast_up(self, px: int, py: int, layer: int) -> tuple[int, int]:
        tx, ty = px >> 4, py >> 4
        if not (-1 <= tx <= self.width_tiles and -1 <= ty <= self.height_tiles):
            return NO_HIT, 128
        try:
            cells = self._pcells[layer]
        except AttributeError:      # this map's first cast
            cells = self.make_readable()[layer]
        pw = self._pw
        return _cast(self._t_up, self.a_up, cells,
                     (ty + _PAD) * pw + tx + _PAD, -pw,
                     (px & 15) << 4, 15 - (py & 15))

    def cast_right(self, px: int, py: int, layer: int) -> tuple[int, int]:
        tx, ty = px >> 4, py >> 4
        if not (-1 <= tx <= self.width_tiles and -1 <= ty <= self.height_tiles):
            return NO_HIT, 64
        try:
            cells = self._pcells[layer]
        except AttributeError:      # this map's first cast
            cells = self.make_readable()[layer]
        return _cast(self._t_right, self.a_right, cells,
                     (ty + _PAD) * self._pw + tx + _PAD, 1,
                     (py & 15) << 4, px & 15)

    def cast_left(self, px: int, py: int, layer: int) -> tuple[int, int]:
        tx, ty = px >> 4, py >> 4
        if not (-1 <= tx <= self.width_tiles and -1 <= ty <= self.height_tiles):
            return NO_HIT, 192
        try:
            cells = self._pcells[layer]
        except AttributeError:      # this map's first cast
            cells = self.make_readable()[layer]
        return _cast(self._t_left, self.a_left, cells,
                     (ty + _PAD) * self._pw + tx + _PAD, -1,
                     (py & 15) << 4, 15 - (px & 15))

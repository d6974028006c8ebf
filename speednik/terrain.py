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


def _scan_tables(solid: np.ndarray) -> np.ndarray:
    """Distance codes for masks (n, scan, lane), scanning along axis 1."""
    n = solid.shape[0]
    nxt = np.full((n, 17, 16), 16, np.int64)
    for i in range(15, -1, -1):
        nxt[:, i] = np.where(solid[:, i], i, nxt[:, i + 1])
    start = np.zeros((n, 16, 16), np.int64)
    for i in range(1, 16):
        start[:, i] = np.where(solid[:, i - 1], start[:, i - 1], i)
    idx = np.arange(16)[None, :, None]
    ahead = np.where(nxt[:, :16] < 16, nxt[:, :16] - idx, NONE)
    behind = start - idx
    behind = np.where(start == 0, behind + OPEN, behind)
    codes = np.where(solid, behind, ahead)
    return codes.transpose(0, 2, 1)  # (n, lane, scan)


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


class TileMap:
    """Tiles of a stage on its collision layers, with the four sensor casts."""

    __slots__ = (
        "width_tiles", "height_tiles", "cells", "masks", "cell_grids",
        "a_down", "a_right", "a_up", "a_left", "top_only", "heights",
        "_pcells", "_pw", "_t_down_all", "_t_down", "_t_right", "_t_up",
        "_t_left",
    )

    def __init__(self, masks: np.ndarray, cell_grids: Sequence[np.ndarray]):
        """`masks`: (n, 16, 16) uint8 solidity values of each distinct tile,
        tile 0 empty. `cell_grids`: per layer, (rows, cols) tile indices."""
        self.masks = masks
        self.cell_grids = [np.asarray(g, dtype=np.int32) for g in cell_grids]
        self.height_tiles, self.width_tiles = self.cell_grids[0].shape
        self.cells = [g.ravel().tolist() for g in self.cell_grids]
        # Two empty tiles of padding on every side: a cast near an edge
        # needs no bounds checks for the tiles before and after its own.
        self._pw = self.width_tiles + 2 * _PAD
        self._pcells = [np.pad(g, _PAD).ravel().tolist() for g in self.cell_grids]
        solid = masks > 0
        top_only = masks.max(axis=(1, 2)) == TOP_ONLY
        self.top_only = top_only.tolist()
        full = solid & ~top_only[:, None, None]
        tables = []
        angles = []
        self.heights = []
        for d in DIRECTIONS:
            # A top-only tile exists for the floor sensor alone.
            oriented = _oriented(solid if d == DOWN else full, d)
            tables.append(_scan_tables(oriented).ravel().tolist())
            heights = _entry_heights(oriented)
            self.heights.append(heights.astype(np.int8))
            angles.append([_surface_angle(heights[t], d)
                           for t in range(len(masks))])
        self._t_down_all, self._t_right, self._t_up, self._t_left = tables
        self._t_down = _scan_tables(_oriented(full, DOWN)).ravel().tolist()
        self.a_down, self.a_right, self.a_up, self.a_left = angles

    @classmethod
    def from_grids(cls, grids: Sequence[np.ndarray]) -> TileMap:
        """Build from per-layer pixel grids of EMPTY / TOP_ONLY / SOLID.

        Grids are padded with empty pixels up to whole tiles. A tile holding
        both kinds of solid pixels is fully solid.
        """
        if len(grids) != NUM_LAYERS:
            raise ValueError(
                f"TileMap needs {NUM_LAYERS} layer grids, got {len(grids)}")
        shape = grids[0].shape
        rows = -(-shape[0] // TILE_SIZE)
        cols = -(-shape[1] // TILE_SIZE)
        tiles = []
        for g in grids:
            if g.shape != shape:
                raise ValueError("layer grids differ in size")
            padded = np.zeros((rows * TILE_SIZE, cols * TILE_SIZE), np.uint8)
            padded[:shape[0], :shape[1]] = g
            t = padded.reshape(rows, TILE_SIZE, cols, TILE_SIZE).swapaxes(1, 2)
            t = t.reshape(rows * cols, TILE_SIZE * TILE_SIZE)
            # Mixed tiles become fully solid.
            mixed = (t == SOLID).any(axis=1)
            t = np.where(mixed[:, None] & (t > 0), SOLID, t).astype(np.uint8)
            tiles.append(t)
        stacked = np.ascontiguousarray(
            np.concatenate(tiles + [np.zeros((1, 256), np.uint8)]))
        # Compare whole tiles as 256-byte keys: far faster than axis=0.
        keys = stacked.view(np.dtype((np.void, 256))).ravel()
        _, first, inverse = np.unique(keys, return_index=True,
                                      return_inverse=True)
        unique = stacked[first]
        inverse = inverse.ravel()
        # Keys sort bytewise, so the all-empty tile (appended) is index 0.
        assert not unique[0].any()
        n = rows * cols
        cell_grids = [inverse[i * n:(i + 1) * n].reshape(rows, cols)
                      for i in range(NUM_LAYERS)]
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
        t = self.cells[layer][ty * self.width_tiles + tx]
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
        pw = self._pw
        return _cast(self._t_down_all if top_only else self._t_down,
                     self.a_down, self._pcells[layer],
                     (ty + _PAD) * pw + tx + _PAD, pw,
                     (px & 15) << 4, py & 15)

    def cast_up(self, px: int, py: int, layer: int) -> tuple[int, int]:
        tx, ty = px >> 4, py >> 4
        if not (-1 <= tx <= self.width_tiles and -1 <= ty <= self.height_tiles):
            return NO_HIT, 128
        pw = self._pw
        return _cast(self._t_up, self.a_up, self._pcells[layer],
                     (ty + _PAD) * pw + tx + _PAD, -pw,
                     (px & 15) << 4, 15 - (py & 15))

    def cast_right(self, px: int, py: int, layer: int) -> tuple[int, int]:
        tx, ty = px >> 4, py >> 4
        if not (-1 <= tx <= self.width_tiles and -1 <= ty <= self.height_tiles):
            return NO_HIT, 64
        return _cast(self._t_right, self.a_right, self._pcells[layer],
                     (ty + _PAD) * self._pw + tx + _PAD, 1,
                     (py & 15) << 4, px & 15)

    def cast_left(self, px: int, py: int, layer: int) -> tuple[int, int]:
        tx, ty = px >> 4, py >> 4
        if not (-1 <= tx <= self.width_tiles and -1 <= ty <= self.height_tiles):
            return NO_HIT, 192
        return _cast(self._t_left, self.a_left, self._pcells[layer],
                     (ty + _PAD) * self._pw + tx + _PAD, -1,
                     (py & 15) << 4, 15 - (px & 15))

"""Terrain as 16x16 tiles with height arrays, angles and solidity, and the
sensors that read it.

A stage's geometry arrives as pixel grids (one per collision layer) whose
values are EMPTY, TOP_ONLY or SOLID. `TileMap.from_grids` cuts them into
tiles, keeps each distinct tile once, and pre-computes for every tile and
every sensor direction (down, right, up, left) a 16-value height array and
an angle byte. The hot path then reads flat Python lists only.

A sensor casts from a pixel in one direction and returns the distance to the
first surface facing it along that direction (0: the sensor pixel is the surface pixel;
negative: the sensor is that deep inside solid) and that surface's angle.
A height of 0 in the sensor's tile looks one tile further; a full height
looks one tile back, as in the original game. Nothing found within that
reach reads as NO_HIT.
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


def _tile_heights(solid: np.ndarray, top_only: np.ndarray) -> list[np.ndarray]:
    """Height arrays of boolean tile masks (n, row, col), one per direction.

    A sensor only meets surfaces that face it, so for each direction the
    height is the length of the solid run attached to the tile's far edge
    (the bottom edge for a sensor pointing down, and so on); solid that
    hangs from the near edge belongs to a surface facing the other way.
    A top-only tile is a platform seen from above: its height runs from its
    first solid row down to the bottom edge, however thin it is.
    """
    def run(m: np.ndarray, axis: int) -> np.ndarray:
        return np.cumprod(m, axis=axis).sum(axis=axis)

    m = solid.astype(np.int64)
    down = run(m[:, ::-1, :], 1)
    up = run(m, 1)
    right = run(m[:, :, ::-1], 2)
    left = run(m, 2)
    col_any = solid.any(axis=1)
    platform = np.where(col_any, 16 - solid.argmax(axis=1), 0)
    down[top_only] = platform[top_only]
    for h in (right, up, left):
        h[top_only] = 0
    return [down, right, up, left]


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


class TileMap:
    """Tiles of a stage on its collision layers, with the four sensor casts."""

    __slots__ = (
        "width_tiles", "height_tiles", "cells", "h_down", "h_right", "h_up",
        "h_left", "a_down", "a_right", "a_up", "a_left", "top_only",
        "masks", "cell_grids",
    )

    def __init__(self, masks: np.ndarray, cell_grids: Sequence[np.ndarray]):
        """`masks`: (n, 16, 16) uint8 solidity values of each distinct tile,
        tile 0 empty. `cell_grids`: per layer, (rows, cols) tile indices."""
        self.masks = masks
        self.cell_grids = [np.asarray(g, dtype=np.int32) for g in cell_grids]
        self.height_tiles, self.width_tiles = self.cell_grids[0].shape
        self.cells = [g.ravel().tolist() for g in self.cell_grids]
        solid = masks > 0
        top_only = (masks.max(axis=(1, 2)) == TOP_ONLY)
        heights = _tile_heights(solid, top_only)
        self.h_down, self.h_right, self.h_up, self.h_left = (
            h.astype(int).ravel().tolist() for h in heights)
        angles = [[_surface_angle(heights[d][t], d) for t in range(len(masks))]
                  for d in DIRECTIONS]
        self.a_down, self.a_right, self.a_up, self.a_left = angles
        self.top_only = top_only.tolist()

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
        w = self.width_tiles
        tx = px >> 4
        if tx < 0 or tx >= w:
            return NO_HIT, 0
        cells = self.cells[layer]
        hd = self.h_down
        last = self.height_tiles - 1
        col = px & 15
        ty = py >> 4
        t = cells[ty * w + tx] if 0 <= ty <= last else 0
        h = hd[t * 16 + col]
        if h and not top_only and self.top_only[t]:
            h = 0
        if h == 0:
            ty += 1
            t = cells[ty * w + tx] if 0 <= ty <= last else 0
            h = hd[t * 16 + col]
            if h == 0 or (not top_only and self.top_only[t]):
                return NO_HIT, 0
            return (ty << 4) + 16 - h - py, self.a_down[t]
        if h == 16:
            ty2 = ty - 1
            t2 = cells[ty2 * w + tx] if 0 <= ty2 <= last else 0
            h2 = hd[t2 * 16 + col]
            if h2 and (top_only or not self.top_only[t2]):
                return (ty2 << 4) + 16 - h2 - py, self.a_down[t2]
            return (ty << 4) - py, self.a_down[t]
        return (ty << 4) + 16 - h - py, self.a_down[t]

    def cast_up(self, px: int, py: int, layer: int) -> tuple[int, int]:
        w = self.width_tiles
        tx = px >> 4
        if tx < 0 or tx >= w:
            return NO_HIT, 128
        cells = self.cells[layer]
        hu = self.h_up
        last = self.height_tiles - 1
        col = px & 15
        ty = py >> 4
        t = cells[ty * w + tx] if 0 <= ty <= last else 0
        h = hu[t * 16 + col]
        if h == 0:
            ty -= 1
            t = cells[ty * w + tx] if 0 <= ty <= last else 0
            h = hu[t * 16 + col]
            if h == 0:
                return NO_HIT, 128
            return py - ((ty << 4) + h - 1), self.a_up[t]
        if h == 16:
            ty2 = ty + 1
            t2 = cells[ty2 * w + tx] if 0 <= ty2 <= last else 0
            h2 = hu[t2 * 16 + col]
            if h2:
                return py - ((ty2 << 4) + h2 - 1), self.a_up[t2]
            return py - ((ty << 4) + 15), self.a_up[t]
        return py - ((ty << 4) + h - 1), self.a_up[t]

    def cast_right(self, px: int, py: int, layer: int) -> tuple[int, int]:
        ty = py >> 4
        if ty < 0 or ty >= self.height_tiles:
            return NO_HIT, 64
        w = self.width_tiles
        cells = self.cells[layer]
        hr = self.h_right
        row = py & 15
        tx = px >> 4
        base = ty * w
        t = cells[base + tx] if 0 <= tx < w else 0
        h = hr[t * 16 + row]
        if h == 0:
            tx += 1
            t = cells[base + tx] if 0 <= tx < w else 0
            h = hr[t * 16 + row]
            if h == 0:
                return NO_HIT, 64
            return (tx << 4) + 16 - h - px, self.a_right[t]
        if h == 16:
            tx2 = tx - 1
            t2 = cells[base + tx2] if 0 <= tx2 < w else 0
            h2 = hr[t2 * 16 + row]
            if h2:
                return (tx2 << 4) + 16 - h2 - px, self.a_right[t2]
            return (tx << 4) - px, self.a_right[t]
        return (tx << 4) + 16 - h - px, self.a_right[t]

    def cast_left(self, px: int, py: int, layer: int) -> tuple[int, int]:
        ty = py >> 4
        if ty < 0 or ty >= self.height_tiles:
            return NO_HIT, 192
        w = self.width_tiles
        cells = self.cells[layer]
        hl = self.h_left
        row = py & 15
        tx = px >> 4
        base = ty * w
        t = cells[base + tx] if 0 <= tx < w else 0
        h = hl[t * 16 + row]
        if h == 0:
            tx -= 1
            t = cells[base + tx] if 0 <= tx < w else 0
            h = hl[t * 16 + row]
            if h == 0:
                return NO_HIT, 192
            return px - ((tx << 4) + h - 1), self.a_left[t]
        if h == 16:
            tx2 = tx + 1
            t2 = cells[base + tx2] if 0 <= tx2 < w else 0
            h2 = hl[t2 * 16 + row]
            if h2:
                return px - ((tx2 << 4) + h2 - 1), self.a_left[t2]
            return px - ((tx << 4) + 15), self.a_left[t]
        return px - ((tx << 4) + h - 1), self.a_left[t]

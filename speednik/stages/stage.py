"""A built stage: terrain tiles plus everything placed on them."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from speednik.entities import (
    Checkpoint,
    Enemy,
    Goal,
    LayerSwitch,
    Ring,
    Spikes,
    Spring,
)
from speednik.terrain import TileMap


@dataclass(slots=True)
class Stage:
    """Immutable once built; every simulation of it shares one instance."""

    name: str
    width: int
    height: int
    tiles: TileMap
    start_x: float
    start_y: float
    goal: Goal
    rings: tuple[Ring, ...] = ()
    springs: tuple[Spring, ...] = ()
    spikes: tuple[Spikes, ...] = ()
    checkpoints: tuple[Checkpoint, ...] = ()
    enemies: tuple[Enemy, ...] = ()
    layer_switches: tuple[LayerSwitch, ...] = ()
    # Where the profile came from (a file path, "generated:seed=..", ...).
    source: str = ""
    # Free-form facts a reader or a plot may want (segment spans, ...).
    meta: dict = field(default_factory=dict)
    # What is computed from the stage and kept with it (see `derived`).
    _derived: dict = field(default_factory=dict, init=False, repr=False,
                           compare=False)

    def derived(self, key: str, build):
        """`build(self)`, computed on first use and kept by the stage:
        the one home of everything derived from a stage, so nothing needs
        a per-process cache keyed by the stage's identity."""
        value = self._derived.get(key)
        if value is None:
            value = self._derived[key] = build(self)
        return value

    def solidity_grid(self, layer: int) -> np.ndarray:
        """One collision layer as a (height, width) array of EMPTY /
        TOP_ONLY / SOLID pixels, exactly the stage's size (the tile grid
        underneath is rounded up to whole tiles)."""
        grid = self.tiles.pixel_grid(layer)
        out = np.zeros((self.height, self.width), grid.dtype)
        h, w = min(self.height, grid.shape[0]), min(self.width, grid.shape[1])
        out[:h, :w] = grid[:h, :w]
        return out

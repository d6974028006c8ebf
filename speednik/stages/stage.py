"""A built stage: terrain tiles plus everything placed on them, and what is
derived from them.

A `Stage` is immutable once built, and everything computed from it alone
belongs to it: the object index the simulation reads every frame, the
sorted object tables of the observation and token encoders, the token
planes, the terrain classes of the pictures, the compiled engine's flat
arrays. Each is a field declared with `derived()`, and the module that
builds it reads it through one function of its own
(`speednik.objects.object_index(stage)`, say), which calls
`stage.derive("object_index", ObjectIndex)`: the stage builds it with that
builder the first time it is asked for and keeps it in its slot; from then on it is a plain attribute,
`stage.object_index`, as cheap to read as `stage.width`. So it is built
once per stage and process, whoever asks first, and lives and dies with
the stage. (Two threads asking first at once may both build it; they
build the same thing and one is kept.)

Until it is built, reading the attribute raises AttributeError. Code on
the per-frame path, which may be the first to need a field, reads it as

    try:
        index = stage.object_index
    except AttributeError:          # its first use on this stage
        index = stage.derive("object_index", ObjectIndex)

which costs nothing once it is built (a `try` is free when nothing is
raised); elsewhere the builder's own reader is simpler. The stage has no
`__getattr__` hook doing this on its own: Python reads every attribute
of a class with such a hook several times slower, `stage.width` included.

Derived data is not pickled: a stage sent to another process arrives with
its built fields only and builds the rest there when they are first read.

To add one: a `name: Type = derived()` field below, and a reader beside
its builder. The stage imports none of the builders (they know what a
stage is; it need not know them), so every dependency is a plain import.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Callable

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

if TYPE_CHECKING:
    from speednik.engine.lowering import CompiledStage
    from speednik.objects import ObjectIndex, ObjectTables

def derived():
    """A field computed from the stage when first read (see `DERIVED`)."""
    return field(init=False, repr=False, compare=False)


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
    # -- derived from the fields above (module docstring) --------------------
    # Columns of nearby objects, read by every frame's `interact`.
    object_index: ObjectIndex = derived()
    # Enemies, spikes, rings and checkpoints sorted by x, for the encoders.
    object_tables: ObjectTables = derived()
    # Per-layer tile planes of terrain, springs, spikes and the goal, padded.
    token_planes: np.ndarray = derived()
    # The (height, width) terrain class image the pictures are drawn from.
    terrain_classes: np.ndarray = derived()
    # The flat arrays the compiled engine reads (speednik.engine.lowering).
    compiled: CompiledStage = derived()
    # The engine's (f, s) state arrays of a player at its start, which every
    # episode of a batch starts from (speednik.engine.batch).
    initial_state: tuple = derived()

    def derive(self, name: str, build: Callable[[Stage], Any]):
        """The derived field `name`, built by `build(stage)` now if this is
        the first time it is needed, and kept."""
        try:
            return getattr(self, name)
        except AttributeError:
            if name not in DERIVED:
                raise AttributeError(
                    f"a stage has no derived field {name!r}; derived fields are "
                    f"{', '.join(DERIVED)}") from None
        value = build(self)
        setattr(self, name, value)
        return value

    def __getstate__(self):
        # (no __dict__, the slots): the built fields only.
        return None, {f.name: getattr(self, f.name) for f in fields(self) if f.init}

    def solidity_grid(self, layer: int) -> np.ndarray:
        """One collision layer as a (height, width) array of EMPTY /
        TOP_ONLY / SOLID pixels, exactly the stage's size (the tile grid
        underneath is rounded up to whole tiles)."""
        grid = self.tiles.pixel_grid(layer)
        out = np.zeros((self.height, self.width), grid.dtype)
        h, w = min(self.height, grid.shape[0]), min(self.width, grid.shape[1])
        out[:h, :w] = grid[:h, :w]
        return out


# The fields a stage derives from itself (module docstring).
DERIVED: tuple[str, ...] = tuple(f.name for f in fields(Stage) if not f.init)

"""A built stage: terrain tiles plus everything placed on them."""
from __future__ import annotations

from dataclasses import dataclass, field

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

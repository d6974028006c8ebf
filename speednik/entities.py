"""What can be placed in a stage, as plain immutable data.

Positions are pixels with y growing downward. `x, y` is an object's centre
unless a field says otherwise. Behaviour lives in `speednik.objects` and
`speednik.enemies`; these records only say where things are.
"""
from __future__ import annotations

from dataclasses import dataclass

SPRING_DIRECTIONS = ("up", "left", "right")
SPRING_STRENGTHS = ("yellow", "red")
ENEMY_KINDS = ("walker", "flyer")


@dataclass(frozen=True, slots=True)
class Ring:
    x: float
    y: float


@dataclass(frozen=True, slots=True)
class Spring:
    """`direction` is where it throws the player; `strength` how hard."""

    x: float
    y: float
    direction: str = "up"
    strength: str = "yellow"


@dataclass(frozen=True, slots=True)
class Spikes:
    """A row of spikes: `x, y` is the centre of its bottom edge, `width` px wide."""

    x: float
    y: float
    width: float = 32.0
    height: float = 16.0


@dataclass(frozen=True, slots=True)
class Checkpoint:
    x: float
    y: float


@dataclass(frozen=True, slots=True)
class Goal:
    """The finish post; crossing its x at any height ends the stage."""

    x: float
    y: float


@dataclass(frozen=True, slots=True)
class Enemy:
    """A walker patrols the ground, a flyer hovers up and down.

    The enemy moves back and forth `span` px from its start (horizontally
    for a walker, vertically for a flyer) over `period` frames; its position
    is a function of the frame number alone, so the simulation stays cheap
    to copy and exactly reproducible.
    """

    kind: str
    x: float
    y: float
    span: float = 64.0
    period: int = 240


@dataclass(frozen=True, slots=True)
class LayerSwitch:
    """An invisible line at `x` from `y_top` to `y_bottom`.

    Crossing it moving right puts the player on `layer_right`; moving left,
    on `layer_left`. Loops use them to change which half is solid.
    """

    x: float
    y_top: float
    y_bottom: float
    layer_right: int
    layer_left: int

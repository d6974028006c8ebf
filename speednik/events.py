"""What can happen in a frame; `sim_step` returns a list of these."""
from __future__ import annotations

from dataclasses import dataclass, field

from speednik.entities import ENEMY_KINDS

# What hurts or kills the player, as `DamageEvent.source` and
# `DeathEvent.cause`: an enemy ("enemy:walker", by its kind), spikes, or
# falling below the stage ("pit"). The game has no other way to die.
ENEMY_CAUSES: dict[str, str] = {kind: f"enemy:{kind}" for kind in ENEMY_KINDS}
CAUSES: tuple[str, ...] = tuple(ENEMY_CAUSES.values()) + ("spikes", "pit")


@dataclass(frozen=True, slots=True)
class RingCollectedEvent:
    x: float = 0.0
    y: float = 0.0


@dataclass(frozen=True, slots=True)
class DamageEvent:
    """The player was hurt and lost `rings_lost` rings (it survived);
    `source` is one of `CAUSES`."""

    rings_lost: int = 0
    source: str = ""


@dataclass(frozen=True, slots=True)
class DeathEvent:
    """The player died of `cause` (one of `CAUSES`). Every later step
    repeats it, cause and all; `cause` does not take part in equality, so
    any death compares equal to `DeathEvent()`."""

    cause: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class SpringEvent:
    direction: str = "up"
    strength: str = "yellow"


@dataclass(frozen=True, slots=True)
class GoalReachedEvent:
    frame: int = 0


@dataclass(frozen=True, slots=True)
class CheckpointEvent:
    x: float = 0.0
    y: float = 0.0


@dataclass(frozen=True, slots=True)
class EnemyDestroyedEvent:
    kind: str = ""
    x: float = 0.0
    y: float = 0.0


@dataclass(frozen=True, slots=True)
class JumpEvent:
    x: float = 0.0
    y: float = 0.0


Event = (RingCollectedEvent | DamageEvent | DeathEvent | SpringEvent
         | GoalReachedEvent | CheckpointEvent | EnemyDestroyedEvent
         | JumpEvent)

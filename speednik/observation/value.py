"""One value of an observation: its name and the range it stays in, the
one definition the registry, the Gymnasium bounds and the compiled
engine's indices are derived from."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Value:
    """A named value and its bounds (with room to spare where the game
    does not pin it down exactly). `high` None: bounded by the episode's
    length (the game clock)."""

    name: str
    low: float
    high: float | None


def names(values: tuple[Value, ...]) -> tuple[str, ...]:
    return tuple(v.name for v in values)


def index_of(values: tuple[Value, ...], name: str) -> int:
    """Where `name` sits in an observation of `values`: the one way code
    reaches a value, never by a bare number."""
    for i, v in enumerate(values):
        if v.name == name:
            return i
    raise KeyError(f"no value {name!r} in {', '.join(names(values))}")

"""`BaseAgent`: what the episode runner drives.

An agent picks one of the eight actions of `speednik.actions` each time the
runner asks, from what it sees of the game:

    class Forward(BaseAgent):
        def get_action(self, obs) -> int:
            return ACTION_RIGHT
        def reset(self) -> None:
            pass

What an agent sees is chosen by two class attributes, read once per
episode by the runner:

- `observation`: the name of a registered encoder (`"basic"`, 12 values;
  `"terrain"`, 28 values; see `speednik.observation`). `None`, the
  default, means "whatever the runner was built with". An agent whose
  weights are sized for one encoder names it, so it can never be fed
  the other.
- `observe_sim`: when True the agent is handed the live `SimState` itself
  instead of an encoded vector. This is for scripted agents that read the
  terrain or the objects directly; they must treat the state as
  read-only (the runner owns it and steps it after every decision).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar


class BaseAgent(ABC):
    """An agent: `reset()` at every episode start, then `get_action(obs)`
    once per decision.

    `get_action` returns an action id, an integer in 0..7 (a plain `int` is
    fastest; numpy integers are accepted). Anything else stops the episode
    with an error naming the agent, the value and the frame.
    """

    observation: ClassVar[str | None] = None
    observe_sim: ClassVar[bool] = False

    @abstractmethod
    def get_action(self, obs: Any) -> int:
        """The action to take, given the observation (or the `SimState`
        when `observe_sim` is set)."""

    @abstractmethod
    def reset(self) -> None:
        """Forget the previous episode; called before its first frame."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

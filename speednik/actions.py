"""The discrete action space: eight button combinations an agent picks from.

| id | name        | buttons        |
|----|-------------|----------------|
| 0  | noop        | none           |
| 1  | left        | left           |
| 2  | right       | right          |
| 3  | jump        | jump           |
| 4  | left_jump   | left + jump    |
| 5  | right_jump  | right + jump   |
| 6  | down        | down           |
| 7  | down_jump   | down + jump    |

A jump action holds the jump button. The game needs to know the frame the
button goes down (`jump_pressed`, which starts a jump or revs a spindash)
apart from the frames it stays down (`jump_held`, which keeps a jump rising
to full height), so `action_to_input` takes whether jump was held on the
previous frame and returns the new held flag for the caller to pass back.
"""
from __future__ import annotations

from dataclasses import fields
from typing import Any

import numpy as np

from speednik.physics import InputState

ACTION_NOOP = 0
ACTION_LEFT = 1
ACTION_RIGHT = 2
ACTION_JUMP = 3
ACTION_LEFT_JUMP = 4
ACTION_RIGHT_JUMP = 5
ACTION_DOWN = 6
ACTION_DOWN_JUMP = 7
NUM_ACTIONS = 8

ACTION_NAMES: tuple[str, ...] = (
    "noop", "left", "right", "jump", "left_jump", "right_jump", "down",
    "down_jump",
)

_INPUT_FIELDS = tuple(f.name for f in fields(InputState))


class FrozenInput(InputState):
    """An `InputState` that refuses to change.

    `action_to_input` hands out the same few instances on every call, so a
    caller that edited one would silently change every later frame of every
    episode in the process; this makes such an edit fail loudly instead.
    It compares equal to a plain `InputState` with the same buttons, and a
    copy or a pickle of it is a plain (mutable) `InputState`.
    """

    __slots__ = ()

    def __init__(self, **buttons: bool) -> None:
        for name in _INPUT_FIELDS:
            object.__setattr__(self, name, bool(buttons.pop(name, False)))
        if buttons:
            raise TypeError(f"unknown InputState fields: {sorted(buttons)}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(
            f"the InputState of an action is shared and read-only; build an "
            f"InputState(...) to change {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("the InputState of an action is read-only")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, InputState):
            return all(getattr(self, n) == getattr(other, n) for n in _INPUT_FIELDS)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to mutable InputStates

    def __reduce__(self):
        return (InputState, tuple(getattr(self, n) for n in _INPUT_FIELDS))

    def __copy__(self) -> InputState:
        return InputState(*(getattr(self, n) for n in _INPUT_FIELDS))

    def __deepcopy__(self, memo: dict) -> InputState:
        return self.__copy__()


_BUTTONS: tuple[dict[str, bool], ...] = (
    {},
    {"left": True},
    {"right": True},
    {"jump_held": True},
    {"left": True, "jump_held": True},
    {"right": True, "jump_held": True},
    {"down_held": True},
    {"down_held": True, "jump_held": True},
)

# The button template of each action: a jump action shows `jump_pressed`
# set, i.e. what it does when the button was up on the previous frame.
ACTION_MAP: dict[int, InputState] = {
    a: FrozenInput(**b, jump_pressed=b.get("jump_held", False))
    for a, b in enumerate(_BUTTONS)
}

ACTION_HAS_JUMP: tuple[bool, ...] = tuple(
    b.get("jump_held", False) for b in _BUTTONS)

# (InputState, jump_held_now) for each action, after a frame with the jump
# button up (_FRESH) or down (_HELD): a lookup replaces building inputs.
_FRESH: tuple[tuple[InputState, bool], ...] = tuple(
    (ACTION_MAP[a], ACTION_HAS_JUMP[a]) for a in range(NUM_ACTIONS))
_HELD: tuple[tuple[InputState, bool], ...] = tuple(
    (FrozenInput(**_BUTTONS[a]), ACTION_HAS_JUMP[a]) if ACTION_HAS_JUMP[a]
    else _FRESH[a]
    for a in range(NUM_ACTIONS))


def check_action(action: object) -> int:
    """`action` as a plain int, or a clear error if it is not a valid action.

    Python and numpy integers are accepted; bools, floats and anything
    else are not, even when they would convert.
    """
    if isinstance(action, (bool, np.bool_)):
        raise TypeError(
            f"action must be an integer in 0..{NUM_ACTIONS - 1}, got the bool "
            f"{action!r}")
    if isinstance(action, np.ndarray) and action.ndim == 0 and np.issubdtype(
            action.dtype, np.integer):
        action = action.item()
    if not isinstance(action, (int, np.integer)):
        raise TypeError(
            f"action must be an integer in 0..{NUM_ACTIONS - 1}, got {action!r} "
            f"({type(action).__name__})")
    value = int(action)
    if not 0 <= value < NUM_ACTIONS:
        raise ValueError(
            f"action {value} is out of range: accepted actions are "
            f"0..{NUM_ACTIONS - 1} ({', '.join(ACTION_NAMES)})")
    return value


def action_to_input(action: int, prev_jump_held: bool) -> tuple[InputState, bool]:
    """The buttons of `action` and whether jump is now held.

    `jump_pressed` is set only when the action holds jump and the previous
    frame did not. The returned `InputState` is shared and read-only.
    """
    if type(action) is not int or not 0 <= action < NUM_ACTIONS:
        action = check_action(action)
    return _HELD[action] if prev_jump_held else _FRESH[action]

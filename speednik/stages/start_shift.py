"""A stage played from a start moved along x: `NAME@start+DX` (or
`NAME@start-DX`) names stage NAME with the player placed DX whole pixels
further right (or left) of its start, standing on the ground there.

Whether a policy finishes a designed stage can hang on where one jump
comes down, and that moves with a few pixels of run-up. Playing a stage
from starts a few pixels apart shows how much its result is owed to
that, and a search scored on starts drawn anew each generation
(`EvolutionConfig.start_shift`) is scored on a neighbourhood of each
stage rather than on one trajectory.

Everything but the start is the named stage's: its terrain and objects,
and what it has derived from them (the shifted stage shares those), so a
shifted stage costs one player placement to build.
"""
from __future__ import annotations

import dataclasses
import re

from speednik.player import PlayerState, create_player
from speednik.stages.profile import StageError
from speednik.stages.stage import DERIVED, Stage

START_MARK = "@start"
# The farthest a start may be moved either way, in pixels.
MAX_START_SHIFT = 256
_SHIFTED = re.compile(r"(?P<base>.+)@start(?P<dx>[+-]\d+)\Z")
# What a shifted stage builds afresh rather than share: the player's state.
_OWN = ("initial_state",)


def shifted_name(name: str, dx: int) -> str:
    """`name` played from a start `dx` px to the right (0: `name` itself)."""
    return name if dx == 0 else f"{name}{START_MARK}{dx:+d}"


def split_shift(name: str) -> tuple[str, int]:
    """(the stage's own name, the shift of its start) of a stage name; a
    name without `@start` has shift 0. A malformed or too large shift is a
    `StageError` naming what is accepted."""
    if START_MARK not in name:
        return name, 0
    m = _SHIFTED.match(name)
    if m is None:
        raise StageError(f"bad start shift in stage {name!r}; accepted: NAME@start+DX or "
                         f"NAME@start-DX, DX whole pixels, e.g. hillside@start+8")
    dx = int(m["dx"])
    if abs(dx) > MAX_START_SHIFT:
        raise StageError(f"start shift {dx:+d} px in stage {name!r} is too far; accepted: "
                         f"at most {MAX_START_SHIFT} px either way")
    return m["base"], dx


def shift_start(stage: Stage, dx: int, name: str) -> Stage:
    """`stage` with its start moved `dx` px along x, named `name`: the
    player is placed standing on the ground below the new start, as at any
    start. A start off the stage, over a gap or not before the goal is a
    `StageError`."""
    x = stage.start_x + dx
    if not 0 <= x < stage.width or x >= stage.goal.x:
        raise StageError(f"stage {name!r}: a start at x {x:g} is not on the stage before its "
                         f"goal (x {stage.goal.x:g}); accepted: a shift that keeps it there")
    player = create_player(x, stage.start_y, stage.tiles)
    if player.state != PlayerState.STANDING:
        raise StageError(f"stage {name!r}: no ground below a start at x {x:g}; accepted: "
                         f"a shift that keeps the start over ground")
    moved = dataclasses.replace(stage, name=name, start_x=x, start_y=player.physics.y)
    for field in DERIVED:
        if field in _OWN:
            continue
        try:
            setattr(moved, field, getattr(stage, field))
        except AttributeError:
            pass    # not built on the named stage yet: the shifted one builds its own
    return moved

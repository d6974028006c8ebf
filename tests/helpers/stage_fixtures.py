"""Small hand-built stages for the tests of the agent-facing layers.

Each builder returns a fresh `Stage` whose geometry is easy to reason about:
a flat floor, optionally with a pit, a wall, a ramp or a top-only ledge.
The built-in stages may change shape at any time; these do not.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

import numpy as np

from speednik.constants import STAND_HEIGHT_RADIUS
from speednik.entities import Checkpoint, Enemy, Goal, Ring, Spikes, Spring
from speednik.stages.stage import Stage
from speednik.terrain import SOLID, TOP_ONLY, TileMap

FLOOR_Y = 256
WIDTH = 1024
HEIGHT = 320
START_X = 64.0
# A standing player's centre sits this far above the floor surface.
START_Y = float(FLOOR_Y - STAND_HEIGHT_RADIUS)


def floor_grid(width: int = WIDTH, height: int = HEIGHT,
               floor_y: int = FLOOR_Y) -> np.ndarray:
    """Empty sky above `floor_y`, solid ground from it down."""
    grid = np.zeros((height, width), np.uint8)
    grid[floor_y:, :] = SOLID
    return grid


def build_stage(grid: np.ndarray, *, name: str = "test", goal_x: float | None = None,
                start_x: float = START_X, start_y: float = START_Y,
                rings: Iterable[Ring] = (), springs: Iterable[Spring] = (),
                spikes: Iterable[Spikes] = (), checkpoints: Iterable[Checkpoint] = (),
                enemies: Iterable[Enemy] = (), layer1: np.ndarray | None = None) -> Stage:
    height, width = grid.shape
    tiles = TileMap.from_grids([grid, grid if layer1 is None else layer1])
    if goal_x is None:
        goal_x = width - 64.0
    return Stage(name, width, height, tiles, start_x, start_y,
                 Goal(goal_x, float(FLOOR_Y)), rings=tuple(rings),
                 springs=tuple(springs), spikes=tuple(spikes),
                 checkpoints=tuple(checkpoints), enemies=tuple(enemies))


def flat_stage(width: int = WIDTH, **kwargs) -> Stage:
    return build_stage(floor_grid(width=width), name="flat", **kwargs)


def pit_stage(pit_x0: int = 160, pit_x1: int = 320, **kwargs) -> Stage:
    """A floor with a bottomless gap from `pit_x0` to `pit_x1`."""
    grid = floor_grid()
    grid[:, pit_x0:pit_x1] = 0
    return build_stage(grid, name="pit", **kwargs)


def wall_stage(wall_x: int = 256, wall_height: int = 96, **kwargs) -> Stage:
    """A floor with a solid wall `wall_height` px tall starting at `wall_x`."""
    grid = floor_grid()
    grid[FLOOR_Y - wall_height:FLOOR_Y, wall_x:wall_x + 32] = SOLID
    return build_stage(grid, name="wall", **kwargs)


def ramp_stage(ramp_x0: int = 192, ramp_len: int = 128, rise: int = 64,
               **kwargs) -> Stage:
    """A floor rising by `rise` px over `ramp_len` px, then a plateau."""
    grid = floor_grid()
    for x in range(ramp_x0, grid.shape[1]):
        h = min(rise, (x - ramp_x0) * rise // ramp_len)
        grid[FLOOR_Y - h:FLOOR_Y, x] = SOLID
    return build_stage(grid, name="ramp", **kwargs)


def ledge_stage(x0: int = 192, x1: int = 320, y: int = FLOOR_Y - 64,
                **kwargs) -> Stage:
    """A floor with a 16 px thick top-only ledge above it."""
    grid = floor_grid()
    grid[y:y + 16, x0:x1] = TOP_ONLY
    return build_stage(grid, name="ledge", **kwargs)


def brush_stage(floor_below: int | None = None, pillar_x: int = 532) -> Stage:
    """A pit from x=400 to 1000, bottomless or (`floor_below`) floored
    that many px below the floor, and an 8 px pillar in it from
    `pillar_x`: running right off its edge, the player's feet touch the
    pillar's top on the way down, for two frames (for one from 534)."""
    grid = floor_grid(height=HEIGHT if floor_below is None else FLOOR_Y + floor_below + 64)
    grid[:, 400:1000] = 0
    if floor_below is not None:
        grid[FLOOR_Y + floor_below:, 400:1000] = SOLID
    grid[FLOOR_Y + 48:FLOOR_Y + 64, pillar_x:pillar_x + 8] = SOLID
    return build_stage(grid, name="brush")


def try_load_builtin(name: str) -> Stage | None:
    """A built-in stage, or None while it cannot be loaded yet."""
    try:
        from speednik.stages import load_stage
        return load_stage(name)
    except Exception:
        return None


BUILTIN_STAGES = ("hillside", "pipeworks", "skybridge")


def place(sim, x: float, y: float, **physics) -> None:
    """Put the player of `sim` at (x, y) with the given PhysicsState fields."""
    p = sim.player.physics
    p.x, p.y = float(x), float(y)
    for name, value in physics.items():
        if not hasattr(p, name):
            raise AttributeError(f"PhysicsState has no field {name!r}")
        setattr(p, name, value)


# A stage profile (TOML) of flat ground with the goal at x 700: holding
# right finishes it, standing still does not.
FLAT_PROFILE = """
[stage]
name = "flat"
height = 512
ground_y = 400
start_x = 64

[[segment]]
kind = "flat"
length = 800

[[entity]]
kind = "goal"
x = 700
"""


def write_flat_profile(folder) -> str:
    """FLAT_PROFILE written to `folder`/flat.toml; its path, a stage name."""
    path = Path(folder) / "flat.toml"
    path.write_text(FLAT_PROFILE, encoding="utf-8")
    return str(path)

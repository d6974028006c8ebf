"""Hand-made terrain for physics tests: flat floors, slopes, walls, loops
and platforms as pixel grids, independent of the stage profile format."""
from __future__ import annotations

import numpy as np

from speednik.entities import Goal, LayerSwitch
from speednik.stages.stage import Stage
from speednik.terrain import SOLID, TileMap

FLOOR_Y = 640
HEIGHT = 1024


def flat_grid(width: int, floor_y: int = FLOOR_Y, height: int = HEIGHT) -> np.ndarray:
    g = np.zeros((height, width), np.uint8)
    g[floor_y:, :] = SOLID
    return g


def make_stage(grids, width: int, start_x: float = 64.0,
               start_y: float = FLOOR_Y - 40, goal_x: float | None = None,
               name: str = "test", **entities) -> Stage:
    if not isinstance(grids, (list, tuple)):
        grids = [grids, grids]
    tiles = TileMap.from_grids(list(grids))
    height = grids[0].shape[0]
    goal = Goal(goal_x if goal_x is not None else width - 32, FLOOR_Y)
    return Stage(name, width, height, tiles, start_x, start_y, goal, **entities)


def flat_stage(width: int = 4096, **kw) -> Stage:
    return make_stage(flat_grid(width), width, **kw)


def loop_stage(radius: int, lead: int = 2400, tail: int = 800) -> tuple[Stage, float]:
    """Flat ground with one loop of inner radius `radius`, entered from the
    left. Returns the stage and the loop centre's x."""
    width = lead + 2 * radius + tail
    cx = lead + radius
    cy = FLOOR_Y - radius
    base = flat_grid(width)
    yy, xx = np.mgrid[0:HEIGHT, 0:width]
    d = np.hypot(xx + 0.5 - cx, yy + 0.5 - cy)
    thick = radius + 24
    upper = (d >= radius) & (d <= thick) & (yy <= cy)
    # Below the centre the loop is filled out to a vertical outer wall, so
    # its outside meets the ground square instead of overhanging it.
    lower = ((d >= radius) & (yy > cy) & (yy < FLOOR_Y)
             & (np.abs(xx + 0.5 - cx) <= thick))
    lower_left = lower & (xx < cx)
    lower_right = lower & (xx >= cx)
    layer0 = base.copy()
    layer1 = base.copy()
    layer0[upper | lower_right] = SOLID
    layer1[upper | lower_left] = SOLID
    top = cy - radius - 40
    switches = (
        LayerSwitch(cx - radius - 32, top, FLOOR_Y + 8, 0, 0),
        LayerSwitch(cx, top, cy, 0, 1),
        LayerSwitch(cx + radius + 32, top, FLOOR_Y + 8, 0, 0),
    )
    stage = make_stage([layer0, layer1], width, layer_switches=switches)
    return stage, cx

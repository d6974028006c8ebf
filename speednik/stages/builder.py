"""Profile -> pixel grids for both collision layers + entities -> `Stage`.

The terrain is drawn column by column: each segment gives the ground
surface over its columns (evaluated at pixel centres), and everything from
the surface down to the bottom of the stage is solid, so steps and pit
walls are as thick as the stage is deep. Loops, tunnel ceilings, bridges
and platforms are drawn on top. Only loops make the two layers differ.

Checks that need the geometry (entities on ground, inside the stage, not
overlapping each other or the terrain) happen here and raise `StageError`
naming the entry, like the parser's.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from speednik.constants import STAND_HEIGHT_RADIUS, TILE_SIZE
from speednik.enemies import ENEMY_HALF_HEIGHT, ENEMY_HALF_WIDTH, enemy_reach
from speednik.entities import (
    Checkpoint,
    Enemy,
    Goal,
    LayerSwitch,
    Ring,
    Spikes,
    Spring,
)
from speednik.stages.profile import (
    CEILING_THICKNESS,
    LOOP_LEAD,
    LOOP_THICKNESS,
    EntitySpec,
    Profile,
    StageError,
    segment_levels,
)
from speednik.stages.stage import Stage
from speednik.terrain import EMPTY, SOLID, TOP_ONLY, TileMap

BRIDGE_THICKNESS = 8
PLATFORM_THICKNESS = 16
# Layer switches reach this far above the top of a loop and below its floor,
# so a player anywhere on the loop's path crosses them.
SWITCH_MARGIN_TOP = 40
SWITCH_MARGIN_BOTTOM = 8
# The entry/exit switches sit this far outside the loop's inner circle,
# just clear of its solid ring.
SWITCH_OFFSET = 32
# A walker keeps its height while it patrols, so its ground may not vary
# more than this under its path.
WALKER_LEVEL_TOLERANCE = 8.0


@dataclass
class Terrain:
    """The drawn terrain and what entity placement needs to know of it."""

    # Per collision layer, the (height, width) pixel grid: a view of the
    # top-left of its buffer, which is rounded up to whole tiles (all EMPTY
    # beyond the stage) so that the TileMap is cut from it without a copy.
    # Without a loop both layers are the same array: drawing on one draws
    # on both.
    layers: list[np.ndarray]
    buffers: list[np.ndarray]
    # Per pixel column: the surface objects are placed on (over a gap, the
    # line between its rims) and whether real ground (solid or bridge) is there.
    place: np.ndarray
    has_ground: np.ndarray
    spans: list[dict] = field(default_factory=list)
    pits: list[tuple[int, int]] = field(default_factory=list)
    loops: list[tuple[int, int, int, int]] = field(default_factory=list)


def _segment_surface(kind: str, seg, t: np.ndarray, level: float,
                     end: float) -> np.ndarray:
    """Ground y at local positions `t` (pixel centres) of one segment."""
    if kind == "ramp":
        return level + (end - level) * t / seg.length
    if kind == "hill":
        phase = 2.0 * math.pi * seg.waves * t / seg.length
        return level - seg.amplitude * (1.0 - np.cos(phase)) / 2.0
    if kind == "halfpipe":
        d = seg.depth
        y = np.full_like(t, level + d)
        left = t < d
        right = t > seg.length - d
        y[left] = level + np.sqrt(np.maximum(0.0, d * d - (d - t[left]) ** 2))
        u = t[right] - (seg.length - d)
        y[right] = level + np.sqrt(np.maximum(0.0, d * d - u * u))
        return y
    return np.full_like(t, level)


def build_terrain(profile: Profile) -> Terrain:
    """Draw both layers of a profile's segments (no platforms yet)."""
    width = profile.width
    height = profile.stage.height
    solid_top = np.full(width, np.nan)
    place = np.zeros(width)
    bridges: list[tuple[int, int, float]] = []
    ceilings: list[tuple[int, int, int, int]] = []
    loops: list[tuple[int, int, int, int]] = []
    spans: list[dict] = []
    pits: list[tuple[int, int]] = []
    for seg, (x0, x1, level, end) in zip(profile.segments,
                                         segment_levels(profile)):
        spans.append({"kind": seg.kind, "x0": x0, "x1": x1,
                      "y0": level, "y1": end})
        if x1 == x0:
            continue
        t = np.arange(x1 - x0) + 0.5
        surface = _segment_surface(seg.kind, seg, t, level, end)
        if seg.kind == "gap":
            # Objects over a pit are placed against the line between the rims.
            place[x0:x1] = level + (end - level) * t / seg.length
            pits.append((x0, x1))
            continue
        place[x0:x1] = surface
        if seg.kind == "bridge":
            bridges.append((x0, x1, level))
            pits.append((x0, x1))
            continue
        solid_top[x0:x1] = surface
        if seg.kind == "tunnel":
            bottom = int(round(level)) - seg.clearance
            ceilings.append((x0, x1, bottom - CEILING_THICKNESS, bottom))
        elif seg.kind == "loop":
            loops.append((x0 + LOOP_LEAD + seg.radius,
                          int(round(level)) - seg.radius, seg.radius,
                          int(round(level))))

    # A pixel is solid when its centre is at or below the surface.
    first = np.where(np.isnan(solid_top), height, np.ceil(solid_top - 0.5)).astype(np.int32)
    buffer = _blank_grid(height, width)
    base = buffer[:height, :width]
    # Rows above the highest ground stay EMPTY (0); below, the comparison's
    # 0 or 1 times SOLID.
    top = min(height, max(0, int(first.min())))
    below = base[top:]
    np.greater_equal(np.arange(top, height, dtype=np.int32)[:, None], first[None, :],
                     out=below.view(np.bool_))
    below *= np.uint8(SOLID)
    for x0, x1, y in bridges:
        y0 = int(round(y))
        base[y0:y0 + BRIDGE_THICKNESS, x0:x1] = TOP_ONLY
    for x0, x1, y0, y1 in ceilings:
        base[max(0, y0):y1, x0:x1] = SOLID
    # Only loops make the layers differ: without one, both are one grid.
    buffers = [buffer, buffer.copy() if loops else buffer]
    layer0, layer1 = (b[:height, :width] for b in buffers)
    for cx, cy, r, ground in loops:
        _draw_loop(layer0, layer1, cx, cy, r, ground)
    has_ground = ~np.isnan(solid_top)
    for x0, x1, _ in bridges:
        has_ground[x0:x1] = True
    return Terrain([layer0, layer1], buffers, place, has_ground, spans, pits, loops)


def _blank_grid(height: int, width: int) -> np.ndarray:
    """An empty pixel grid of `height` x `width` rounded up to whole tiles."""
    return np.zeros((-(-height // TILE_SIZE) * TILE_SIZE,
                     -(-width // TILE_SIZE) * TILE_SIZE), np.uint8)


def _draw_loop(layer0: np.ndarray, layer1: np.ndarray, cx: int, cy: int,
               r: int, ground: int) -> None:
    """The loop's solid ring, split between the layers as the physics'
    layer switches expect: the lower-left quarter only on layer 1 (so it
    lets the player in on layer 0), the lower-right only on layer 0 (so
    it lets the player out on layer 1), the upper half on both."""
    outer = r + LOOP_THICKNESS
    x0, x1 = max(0, cx - outer - 1), min(layer0.shape[1], cx + outer + 1)
    y0, y1 = max(0, cy - outer - 1), ground
    # Each pixel centre's offset from the loop's centre, doubled: whole
    # (odd) numbers, so the distances compare exactly, and no centre lies
    # on a circle, the centre row or the centre column.
    dx = 2 * np.arange(x0, x1) + 1 - 2 * cx
    dy = (2 * np.arange(y0, y1) + 1 - 2 * cy)[:, None]
    distance2 = dx * dx + dy * dy              # (2 d)^2
    ring = distance2 >= 4 * r * r
    upper = ring & (distance2 <= 4 * outer * outer) & (dy < 0)
    # Below the centre the loop is filled out to a vertical outer wall: an
    # outside that overhangs the ground would trap a player running down it.
    lower = ring & (dy > 0) & (np.abs(dx) <= 2 * outer)
    lower_left = lower & (dx < 0)
    lower_right = lower & (dx > 0)
    for layer, extra in ((layer0, lower_right), (layer1, lower_left)):
        view = layer[y0:y1, x0:x1]
        view[upper | extra] = SOLID


def loop_switches(cx: int, cy: int, r: int, ground: int) -> list[LayerSwitch]:
    """Entry and exit reset to layer 0; the top sends a player running
    leftward across it (upside down) to layer 1 for the descent."""
    top = cy - r - SWITCH_MARGIN_TOP
    return [
        LayerSwitch(float(cx - r - SWITCH_OFFSET), float(top),
                    float(ground + SWITCH_MARGIN_BOTTOM), 0, 0),
        LayerSwitch(float(cx), float(top), float(cy), 0, 1),
        LayerSwitch(float(cx + r + SWITCH_OFFSET), float(top),
                    float(ground + SWITCH_MARGIN_BOTTOM), 0, 0),
    ]


@dataclass
class _Placed:
    index: int
    spec: EntitySpec
    box: tuple[float, float, float, float]   # x0, y0, x1, y1
    centre: tuple[float, float]


def build_stage(profile: Profile) -> Stage:
    """Build a validated profile into a `Stage`."""
    terrain = build_terrain(profile)
    width, height = profile.width, profile.stage.height
    src = profile.source

    def where(i: int, e: EntitySpec) -> str:
        kind = e.enemy_kind if e.kind == "enemy" else e.kind
        return f"{src}: entity {i} ({kind})"

    def column(x: float) -> int:
        return min(width - 1, max(0, int(x)))

    def ground_y(x: float) -> float:
        return float(terrain.place[column(x)])

    def inside(i: int, e: EntitySpec, x: float, y: float) -> None:
        if not (0.0 <= x <= width):
            raise StageError(f"{where(i, e)}: x={x:g} outside the stage; "
                             f"accepted: 0..{width}")
        if not (0.0 <= y <= height):
            raise StageError(f"{where(i, e)}: y={y:g} outside the stage; "
                             f"accepted: 0..{height}")

    def needs_ground(i: int, e: EntitySpec, xa: float, xb: float) -> None:
        a, b = column(xa), column(xb)
        if not terrain.has_ground[a:b + 1].all():
            raise StageError(
                f"{where(i, e)}: no ground under x={xa:g}..{xb:g} (over a "
                f"gap); accepted: x over solid ground or a bridge")

    rings: list[Ring] = []
    springs: list[Spring] = []
    spikes: list[Spikes] = []
    checkpoints: list[Checkpoint] = []
    enemies: list[Enemy] = []
    platforms: list[tuple[int, int, int]] = []
    goal: Goal | None = None
    placed: list[_Placed] = []

    for i, e in enumerate(profile.entities, 1):
        x = e.x
        if e.kind == "ring":
            n = e.count
            for k in range(n):
                rx = x + k * e.spacing
                lift = 0.0
                if n > 1 and e.arc:
                    u = 2.0 * k / (n - 1) - 1.0
                    lift = e.arc * (1.0 - u * u)
                inside(i, e, rx, 0.0)
                ry = ground_y(rx) - e.above - lift
                inside(i, e, rx, ry)
                rings.append(Ring(rx, ry))
                placed.append(_Placed(i, e, (rx, ry, rx, ry), (rx, ry)))
            continue
        inside(i, e, x, 0.0)
        y = ground_y(x) - e.above
        inside(i, e, x, y)
        if e.kind == "spring":
            needs_ground(i, e, x - 14, x + 14)
            springs.append(Spring(x, y, e.direction, e.strength))
            placed.append(_Placed(i, e, (x - 14, y - 8, x + 14, y + 8), (x, y)))
        elif e.kind == "spikes":
            half = e.width / 2
            needs_ground(i, e, x - half, x + half)
            spikes.append(Spikes(x, y, e.width, e.height))
            placed.append(_Placed(i, e, (x - half, y - e.height, x + half, y),
                                  (x, y - e.height / 2)))
        elif e.kind == "checkpoint":
            needs_ground(i, e, x, x)
            checkpoints.append(Checkpoint(x, y))
            placed.append(_Placed(i, e, (x - 8, y - 48, x + 8, y + 48), (x, y)))
        elif e.kind == "goal":
            needs_ground(i, e, x, x)
            goal = Goal(x, y)
            placed.append(_Placed(i, e, (x - 8, y - 64, x + 8, y), (x, y - 32)))
        elif e.kind == "enemy":
            enemy = Enemy(e.enemy_kind, x, y, e.span, e.period)
            if e.enemy_kind == "walker":
                a, b = column(x - ENEMY_HALF_WIDTH), column(x + e.span + ENEMY_HALF_WIDTH)
                needs_ground(i, e, x - ENEMY_HALF_WIDTH, x + e.span + ENEMY_HALF_WIDTH)
                level = terrain.place[a:b + 1]
                if level.max() - level.min() > WALKER_LEVEL_TOLERANCE:
                    raise StageError(
                        f"{where(i, e)}: ground under its path x={x:g}.."
                        f"{x + e.span:g} varies by {level.max() - level.min():.0f} px; "
                        f"accepted: level ground (within {WALKER_LEVEL_TOLERANCE:g} px)")
                if x + e.span > width:
                    raise StageError(f"{where(i, e)}: its path ends outside the stage")
            elif y - e.span - ENEMY_HALF_HEIGHT < 0:
                raise StageError(f"{where(i, e)}: it bobs above the top of the stage")
            enemies.append(enemy)
            placed.append(_Placed(i, e, enemy_reach(enemy), (x, y)))
        elif e.kind == "platform":
            half = e.width / 2
            px0, px1 = int(round(x - half)), int(round(x + half))
            top = int(round(y))
            if px0 < 0 or px1 > width:
                raise StageError(f"{where(i, e)}: reaches outside the stage; "
                                 f"accepted: x - width/2 >= 0 and x + width/2 <= {width}")
            platforms.append((px0, px1, top))
            placed.append(_Placed(i, e, (px0, top, px1, top + PLATFORM_THICKNESS),
                                  (x, top + PLATFORM_THICKNESS / 2)))

    _check_overlaps(placed, terrain, src, where)

    layers = terrain.layers
    for px0, px1, top in platforms:
        for layer in layers:
            layer[top:top + PLATFORM_THICKNESS, px0:px1] = TOP_ONLY

    info = profile.stage
    if not terrain.has_ground[column(info.start_x)]:
        raise StageError(f"{src}: [stage]: start_x {info.start_x:g} is over a gap; "
                         f"accepted: x over solid ground or a bridge")
    assert goal is not None  # the parser insists on exactly one
    if goal.x <= info.start_x:
        raise StageError(f"{src}: the goal (x={goal.x:g}) must lie right of "
                         f"start_x {info.start_x:g}")

    switches: list[LayerSwitch] = []
    for loop in terrain.loops:
        switches.extend(loop_switches(*loop))

    tiles = TileMap.from_grids(terrain.buffers)
    start_y = ground_y(info.start_x) - STAND_HEIGHT_RADIUS
    meta = {
        "difficulty": info.difficulty,
        "description": info.description,
        "segments": terrain.spans,
        "pits": terrain.pits,
        "loops": [{"cx": cx, "cy": cy, "radius": r, "ground_y": g}
                  for cx, cy, r, g in terrain.loops],
        "platforms": platforms,
        "profile": profile,
    }
    return Stage(
        name=info.name, width=width, height=height, tiles=tiles,
        start_x=info.start_x, start_y=start_y, goal=goal,
        rings=tuple(rings), springs=tuple(springs), spikes=tuple(spikes),
        checkpoints=tuple(checkpoints), enemies=tuple(enemies),
        layer_switches=tuple(switches),
        source=profile.path or profile.source, meta=meta)


def _check_overlaps(placed: list[_Placed], terrain: Terrain, src: str,
                    where) -> None:
    """Objects may not sit inside the terrain, and objects other than rings
    may not overlap each other (rings may float anywhere in the open)."""
    layers = terrain.layers
    h, w = layers[0].shape
    for p in placed:
        cx, cy = p.centre
        ix, iy = int(cx), int(cy)
        if 0 <= ix < w and 0 <= iy < h and any(
                layer[iy, ix] != EMPTY for layer in layers):
            raise StageError(f"{where(p.index, p.spec)}: at ({cx:g}, {cy:g}) it is "
                             f"inside the terrain; accepted: open space")
        if p.spec.kind == "platform":
            x0, y0, x1, y1 = (int(v) for v in p.box)
            # One pixel of air all round, so the platform never merges with
            # the ground into one wall.
            region = [layer[max(0, y0 - 1):y1 + 1, max(0, x0 - 1):x1 + 1]
                      for layer in layers]
            if any((r != EMPTY).any() for r in region):
                raise StageError(f"{where(p.index, p.spec)}: overlaps the terrain; "
                                 f"accepted: open space")
    solid = [p for p in placed if p.spec.kind != "ring"]
    solid.sort(key=lambda p: p.box[0])
    for a_i, a in enumerate(solid):
        ax0, ay0, ax1, ay1 = a.box
        for b in solid[a_i + 1:]:
            bx0, by0, bx1, by1 = b.box
            if bx0 >= ax1:
                break
            if a.index != b.index and bx0 < ax1 and ax0 < bx1 and by0 < ay1 and ay0 < by1:
                first, second = sorted((a, b), key=lambda p: p.index)
                kind = (first.spec.enemy_kind if first.spec.kind == "enemy"
                        else first.spec.kind)
                raise StageError(
                    f"{where(second.index, second.spec)}: overlaps entity "
                    f"{first.index} ({kind}); accepted: objects apart")

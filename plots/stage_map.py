"""A whole stage drawn side-on, optionally with a run over it.

    plot_stage_map("hillside", "hillside.png")                  the empty stage
    plot_stage_map("hillside", "run.png", result=recorded)       with a run
    python -m plots stage hillside [--out FILE]

The terrain comes from the tiles' pixel grids, classified as for the
game's own frames (`speednik.render.terrain_masks`), so slopes are drawn
as they are collided with: earth (solid on both collision layers), steel blue
(solid on one layer only: the halves of a loop the player passes through
or runs along depending on the way it came) and tan top-only platforms,
with a green line on every walkable top. Rings, springs, spikes, enemies
(with the stretch they patrol), the checkpoint, the start and the goal
each have a marker in the legend; long segments worth naming (loop,
tunnel, half-pipe, bridge, pit) are named above the terrain.

A recorded trajectory is drawn as a line coloured by the player's speed
(colorbar on the right), with jumps, hits, the death, the goal and the
end of the episode marked.

Stages are ~7000 px wide and ~400 px tall once the empty sky is cropped
away. The figure is 24 inches wide with the height exaggerated by
`EXAGGERATION`; a stage that would still come out thinner than
`MIN_STRIP_INCHES` is cut into strips drawn one under the other, like
lines of text, so nothing is squashed.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib import colormaps
from matplotlib import patheffects
from matplotlib.collections import LineCollection
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.markers import MarkerStyle
from matplotlib.patches import Patch
from matplotlib.path import Path as MplPath

from plots import new_figure, save_figure
from runners.episode import resolve_stage
from runners.result import EpisodeResult, Trajectory
from speednik.constants import FPS, MAX_SPEED, TOP_SPEED
from speednik.render import below_open, terrain_masks
from speednik.stages import Stage

FIG_WIDTH = 24.0            # inches
EXAGGERATION = 1.5          # vertical stretch, keeps slopes readable
MIN_STRIP_INCHES = 1.6      # thinner than this and the stage is cut in strips
MAX_STRIPS = 4
OVERLAP = 64                # px a strip repeats of the one before
LEFT, RIGHT_RUN, RIGHT_EMPTY = 0.55, 1.25, 0.3   # margins, inches
TOP, GAP, BOTTOM = 0.6, 0.4, 0.85

SKY = (226, 238, 250)
EARTH = (164, 116, 74)
LOOP = (122, 146, 190)
LEDGE = (222, 178, 98)
GRASS = (58, 156, 58)
SPEED_CMAP = "plasma"

SEGMENT_NAMES = {"loop": "loop", "tunnel": "tunnel", "halfpipe": "half-pipe",
                 "bridge": "bridge", "gap": "pit"}

# A row of three teeth, for spikes (a single triangle is a spring).
_TEETH = MplPath([(-1.5, -0.5), (-1, 0.6), (-0.5, -0.5), (0, 0.6), (0.5, -0.5),
                  (1, 0.6), (1.5, -0.5), (-1.5, -0.5)], closed=True)
SPIKES_MARKER = MarkerStyle(_TEETH)
SPRING_MARKERS = {"up": "^", "left": "<", "right": ">"}
SPRING_COLOURS = {"yellow": "#f5d90a", "red": "#e02020"}


def terrain_image(stage: Stage, grass_px: int = 4) -> np.ndarray:
    """The stage's terrain as an RGB image (height, width, 3) in the map's
    colours; `grass_px` is the depth of the green top line."""
    h, w = stage.height, stage.width
    s0, s1, ledge = terrain_masks(stage)
    solid = s0 | s1
    img = np.empty((h, w, 3), np.uint8)
    img[:] = SKY
    img[ledge] = LEDGE
    img[s0 & s1] = EARTH
    img[s0 ^ s1] = LOOP
    # Walkable tops: ground (solid or ledge) with open sky just above; only
    # on earth: ledges and loops keep their own colour.
    img[below_open(solid | ledge, grass_px) & s0 & s1] = GRASS
    return img


def visible_rows(stage: Stage, trajectory: Trajectory | None = None,
                 margin: int = 56, below: int = 112) -> tuple[int, int]:
    """(top, bottom) stage rows worth drawing: from a little above the
    highest terrain, object or point of the run, to `below` px under the
    lowest walkable top (deeper earth says nothing)."""
    grid = stage.tiles.pixel_grid(0)[:stage.height, :stage.width] > 0
    for layer in range(1, len(stage.tiles.cell_grids)):
        grid = grid | (stage.tiles.pixel_grid(layer)[:stage.height, :stage.width] > 0)
    has = grid.any(axis=0)
    if not has.any():
        return 0, stage.height
    first = grid.argmax(axis=0)[has]
    highest = [float(first.min()), stage.goal.y - 96]
    highest += [r.y - 8 for r in stage.rings]
    highest += [s.y - 48 for s in stage.checkpoints]
    highest += [e.y - e.span - 16 if e.kind == "flyer" else e.y - 16 for e in stage.enemies]
    if trajectory is not None and len(trajectory):
        highest.append(float(np.min(trajectory.array("y"))) - 24)
    top = max(0, int(min(highest)) - margin)
    bottom = min(stage.height, int(first.max()) + below)
    return top, max(bottom, top + 64)


def _strip_span(width: int, n: int) -> int:
    """Stage px each of `n` strips shows; neighbours share `OVERLAP` px."""
    return math.ceil((width + OVERLAP * (n - 1)) / n)


def _strips(width: int, rows: int, run: bool) -> tuple[int, float, float]:
    """(strips, axes width in inches, strip height in inches)."""
    axes_w = FIG_WIDTH - LEFT - (RIGHT_RUN if run else RIGHT_EMPTY)
    for n in range(1, MAX_STRIPS + 1):
        height = axes_w * rows * EXAGGERATION / _strip_span(width, n)
        if height >= MIN_STRIP_INCHES or n == MAX_STRIPS:
            return n, axes_w, height
    raise AssertionError("unreachable")


def plot_stage_map(stage: Any, out: str | os.PathLike,
                   result: EpisodeResult | Trajectory | None = None,
                   title: str | None = None, label: str | None = None) -> Path:
    """Draw `stage` (a name, .toml path, Stage or (seed, difficulty)), and
    the recorded run in `result` if given, into the PNG `out`. `label`
    names who ran (an agent, a genome file) in the default title."""
    fig = draw_stage_map(stage, result, title=title, label=label)
    return save_figure(fig, out)


def draw_stage_map(stage: Any, result: EpisodeResult | Trajectory | None = None,
                   title: str | None = None, label: str | None = None) -> Figure:
    """The figure `plot_stage_map` saves."""
    stage = resolve_stage(stage)
    traj = result.trajectory if isinstance(result, EpisodeResult) else result
    if isinstance(result, EpisodeResult) and traj is None:
        raise ValueError("the episode was not recorded: run it with record=True "
                         "to draw its trajectory")
    if traj is not None and len(traj) == 0:
        traj = None
    top, bottom = visible_rows(stage, traj)
    n, axes_w, strip_h = _strips(stage.width, bottom - top, traj is not None)
    fig_h = TOP + n * strip_h + (n - 1) * GAP + BOTTOM
    fig = new_figure(FIG_WIDTH, fig_h)

    image = terrain_image(stage)[top:bottom]
    span = _strip_span(stage.width, n)
    axes = []
    for i in range(n):
        y0 = fig_h - TOP - (i + 1) * strip_h - i * GAP
        ax = fig.add_axes((LEFT / FIG_WIDTH, y0 / fig_h, axes_w / FIG_WIDTH, strip_h / fig_h))
        ax.imshow(image, extent=(0, stage.width, bottom, top), origin="upper",
                  interpolation="antialiased", aspect=EXAGGERATION)
        x0 = i * (span - OVERLAP)
        ax.set_xlim(x0, x0 + span)
        ax.set_ylim(bottom, top)
        ax.tick_params(labelsize=8)
        ax.set_ylabel("y (px)", fontsize=8)
        axes.append(ax)
    axes[-1].set_xlabel("x (px along the stage)", fontsize=9)

    handles = _draw_objects(axes, stage, top)
    if traj is not None:
        reason = result.done_reason if isinstance(result, EpisodeResult) else None
        handles += _draw_run(fig, axes, traj, top, bottom, strip_h, n, fig_h, reason)
    fig.legend(handles=handles, loc="lower center", ncol=len(handles),
               fontsize=9, frameon=False, handletextpad=0.3, columnspacing=1.4,
               bbox_to_anchor=(0.5, 0.0))
    fig.suptitle(title if title is not None else _default_title(stage, result, label),
                 fontsize=13, y=1 - 0.12 / fig_h, va="top")
    return fig


def _default_title(stage: Stage, result: Any, label: str | None) -> str:
    text = f"{stage.name} ({stage.width} x {stage.height} px)"
    desc = stage.meta.get("description") if isinstance(stage.meta, dict) else None
    if isinstance(result, EpisodeResult):
        m = result.metrics
        who = f"{label} on " if label else ""
        return (f"{who}{stage.name}: {result.done_reason} after {result.steps} frames "
                f"({result.steps / FPS:.1f} s), progress {m.get('progress', 0.0):.1%}, "
                f"rings {m.get('rings', 0)}, total reward {result.total_reward:.2f}")
    if result is not None and label:
        return f"{label} on {text}"
    return f"{text}: {desc}" if desc else text


def _draw_objects(axes: list, stage: Stage, top: int) -> list:
    """Markers of everything placed on the stage; the legend handles."""
    handles = [Patch(color=np.array(EARTH) / 255, label="ground"),
               Patch(color=np.array(LEDGE) / 255, label="top-only platform")]
    loops = [d for d in stage.meta.get("segments", []) if isinstance(d, dict)] \
        if isinstance(stage.meta, dict) else []
    if any(k.get("kind") == "loop" for k in loops) or _has_layer_terrain(stage):
        handles.append(Patch(color=np.array(LOOP) / 255, label="loop (solid on one collision layer)"))

    rings = np.array([(r.x, r.y) for r in stage.rings]).reshape(-1, 2)
    springs = [(s.x, s.y, SPRING_MARKERS.get(s.direction, "^"),
                SPRING_COLOURS.get(s.strength, "#f5d90a")) for s in stage.springs]
    for ax in axes:
        gx, gy = stage.goal.x, stage.goal.y
        ax.axvline(gx, color="black", linestyle=(0, (4, 3)), linewidth=1.2, zorder=3)
        ax.plot([gx, gx], [gy, gy - 64], color="#555555", linewidth=2, zorder=4)
        ax.plot([gx], [gy - 72], marker="*", markersize=16, color="#ffd700",
                markeredgecolor="black", zorder=6)
        ax.plot([stage.start_x], [stage.start_y], marker=">", markersize=9,
                color="#2ca02c", markeredgecolor="black", zorder=6)
        if rings.size:
            ax.plot(rings[:, 0], rings[:, 1], "o", markersize=3.5, color="#ffd000",
                    markeredgecolor="#9a7b00", markeredgewidth=0.6, zorder=4)
        for x, y, marker, colour in springs:
            ax.plot([x], [y - 4], marker=marker, markersize=10, color=colour,
                    markeredgecolor="black", zorder=5)
        for s in stage.spikes:
            ax.plot([s.x], [s.y - s.height / 2], marker=SPIKES_MARKER,
                    markersize=11 * max(1.0, s.width / 32), color="#c8c8d2",
                    markeredgecolor="#303040", markeredgewidth=1, zorder=5)
        for e in stage.enemies:
            colour = "#cc30a0" if e.kind == "walker" else "#f08220"
            if e.kind == "walker":
                ax.plot([e.x, e.x + e.span], [e.y + 10, e.y + 10], color=colour,
                        linewidth=2, alpha=0.7, zorder=4, solid_capstyle="butt")
            else:
                ax.plot([e.x + 14, e.x + 14], [e.y, e.y - e.span], color=colour,
                        linewidth=2, alpha=0.7, zorder=4, solid_capstyle="butt")
            ax.plot([e.x], [e.y], marker="s" if e.kind == "walker" else "D",
                    markersize=8, color=colour, markeredgecolor="black", zorder=5)
        for c in stage.checkpoints:
            ax.plot([c.x, c.x], [c.y + 24, c.y - 24], color="#606068", linewidth=2, zorder=4)
            ax.plot([c.x], [c.y - 28], marker="o", markersize=7, color="#2850e6",
                    markeredgecolor="black", zorder=5)
        for seg in loops:
            name = SEGMENT_NAMES.get(seg.get("kind"))
            if name is None or "x0" not in seg or "x1" not in seg:
                continue
            ax.text((seg["x0"] + seg["x1"]) / 2, top + 6, name, ha="center", va="top",
                    fontsize=8, style="italic", color="#505a6a", zorder=7, clip_on=True)

    def marker(label: str, **kw: Any) -> Line2D:
        return Line2D([], [], linestyle="none", label=label, **kw)

    handles += [marker("start", marker=">", markersize=9, color="#2ca02c",
                       markeredgecolor="black"),
                marker("goal", marker="*", markersize=14, color="#ffd700",
                       markeredgecolor="black")]
    if stage.rings:
        handles.append(marker(f"rings ({len(stage.rings)})", marker="o", markersize=5,
                              color="#ffd000", markeredgecolor="#9a7b00"))
    if stage.springs:
        handles.append(marker("spring (red: strong)", marker="^", markersize=9,
                              color=SPRING_COLOURS["yellow"], markeredgecolor="black"))
    if stage.spikes:
        handles.append(marker("spikes", marker=SPIKES_MARKER, markersize=11,
                              color="#c8c8d2", markeredgecolor="#303040"))
    kinds = {e.kind for e in stage.enemies}
    if "walker" in kinds:
        handles.append(marker("walker (line: patrol)", marker="s", markersize=8,
                              color="#cc30a0", markeredgecolor="black"))
    if "flyer" in kinds:
        handles.append(marker("flyer (line: patrol)", marker="D", markersize=7,
                              color="#f08220", markeredgecolor="black"))
    if stage.checkpoints:
        handles.append(marker("checkpoint", marker="o", markersize=7, color="#2850e6",
                              markeredgecolor="black"))
    return handles


def _has_layer_terrain(stage: Stage) -> bool:
    grids = stage.tiles.cell_grids
    return len(grids) > 1 and any(not np.array_equal(grids[0], g) for g in grids[1:])


# What the run's events look like: (event, legend text, marker style).
EVENT_STYLES = (
    ("jump", "jump", dict(marker="^", markersize=7, color="white",
                          markeredgecolor="black", markeredgewidth=0.8)),
    ("enemy", "enemy destroyed", dict(marker="*", markersize=11, color="#cc30a0",
                                      markeredgecolor="black")),
    ("damage", "hit (rings lost)", dict(marker="X", markersize=11, color="#ff3030",
                                        markeredgecolor="black")),
    ("death", "death", dict(marker="X", markersize=15, color="black",
                            markeredgecolor="#ff3030", markeredgewidth=1.5)),
    ("goal", "goal reached", dict(marker="*", markersize=20, color="#30e030",
                                  markeredgecolor="black")),
)


def _draw_run(fig: Figure, axes: list, traj: Trajectory, top: int, bottom: int,
              strip_h: float, n: int, fig_h: float, reason: str | None) -> list:
    """The trajectory coloured by speed, its events and its end; the
    legend handles."""
    x, y = traj.array("x"), traj.array("y")
    speed = np.hypot(traj.array("x_vel"), traj.array("y_vel"))
    points = np.column_stack([x, y])
    segments = np.stack([points[:-1], points[1:]], axis=1) if len(x) > 1 \
        else np.stack([points, points], axis=1)
    # Scaled to this run (at least up to top running speed) so its changes
    # of pace show; the colorbar gives the numbers.
    norm = Normalize(0.0, float(min(MAX_SPEED, max(TOP_SPEED, math.ceil(speed.max())))))
    cmap = colormaps[SPEED_CMAP]
    outline = [patheffects.Stroke(linewidth=4.2, foreground="#202020"), patheffects.Normal()]
    line = None
    for ax in axes:
        line = LineCollection(segments, cmap=cmap, norm=norm, linewidths=2.4,
                              capstyle="round", joinstyle="round", zorder=8)
        line.set_array(speed[1:] if len(x) > 1 else speed)
        line.set_path_effects(outline)
        ax.add_collection(line)

    events = traj.events
    handles = []
    for name, text, style in EVENT_STYLES:
        idx = [i for i, ev in enumerate(events) if name in ev]
        if not idx:
            continue
        # A fall to death ends below the map: pin its marker to the bottom edge.
        ys = np.clip(y[idx], top + 8, bottom - 8)
        for ax in axes:
            ax.plot(x[idx], ys, linestyle="none", zorder=9, **style)
        handles.append(Line2D([], [], linestyle="none", label=f"{text} ({len(idx)})", **style))
    end_names = {"goal", "death"}
    if not end_names & set(events[-1]):
        style = dict(marker="s", markersize=10, color="white", markeredgecolor="black",
                     markeredgewidth=1.5)
        for ax in axes:
            ax.plot([x[-1]], [np.clip(y[-1], top + 8, bottom - 8)], linestyle="none",
                    zorder=9, **style)
        end = f"end ({reason})" if reason else "end of episode"
        handles.append(Line2D([], [], linestyle="none", label=end, **style))

    # The colorbar spans all strips, right of them.
    y0 = BOTTOM / fig_h
    height = (n * strip_h + (n - 1) * GAP) / fig_h
    cax = fig.add_axes(((FIG_WIDTH - RIGHT_RUN + 0.2) / FIG_WIDTH, y0, 0.18 / FIG_WIDTH, height))
    bar = fig.colorbar(line, cax=cax)
    bar.set_label("speed (px/frame)", fontsize=9)
    bar.ax.tick_params(labelsize=8)
    return handles

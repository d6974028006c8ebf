"""Pictures of what the other packages produce.

    plot_fitness(run_dir)                     run_dir/fitness.png: fitness per generation
    plot_compare([run_a, run_b], "cmp.png")   best fitness of several runs
    plot_stage_map("hillside", "map.png", result=recorded_result)
    write_replay_gif(recorded_result, "stage", "run.gif")

`python -m plots --help` draws the same from the command line.

Figures are built on `matplotlib.figure.Figure` and drawn by the Agg
canvas directly, never through pyplot: no display or GUI backend is ever
involved, and a caller's own pyplot backend is left as it was. Every file
is rendered to memory first and then written atomically, so an
interrupted run never leaves half a PNG or GIF.
"""
from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from runners.atomic import atomic_write_bytes

DPI = 100

# Public names and the module each lives in; imported on first use so that
# `import plots.fitness` does not pay for the animation code and back.
_EXPORTS = {
    "plot_fitness": "plots.fitness",
    "draw_fitness": "plots.fitness",
    "read_run": "plots.fitness",
    "plot_compare": "plots.compare",
    "draw_compare": "plots.compare",
    "run_labels": "plots.compare",
    "plot_archive": "plots.archive",
    "plot_methods": "plots.methods",
    "draw_methods": "plots.methods",
    "draw_archive": "plots.archive",
    "plot_stage_map": "plots.stage_map",
    "draw_stage_map": "plots.stage_map",
    "write_replay_gif": "plots.animation",
    "replay_frames": "plots.animation",
}

__all__ = ["PlotError", "new_figure", "save_figure", "fit_width", *_EXPORTS]


class PlotError(ValueError):
    """Input a picture cannot be drawn from (a missing or malformed run
    file, an empty logbook, ...); the message names the file and why."""


def new_figure(width: float, height: float) -> Figure:
    """An empty figure of `width` x `height` inches on an Agg canvas."""
    fig = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def fit_width(fig: Figure, text, smallest: float = 10.0, margin: float = 0.01) -> None:
    """Shrink a centred line of `fig` (a title naming many stages, say)
    until it fits the figure's width, to `smallest` points at least, and
    wrap it between words where even that is too wide: it is never cut off
    at the edges."""
    renderer = fig.canvas.get_renderer()
    room = fig.bbox.width * (1.0 - 2.0 * margin)
    size = text.get_fontsize()
    while text.get_window_extent(renderer).width > room and size > smallest:
        size = max(smallest, size - 0.5)
        text.set_fontsize(size)
    if text.get_window_extent(renderer).width <= room:
        return
    words = text.get_text().split(" ")
    lines = [words[0]]
    for word in words[1:]:
        text.set_text(lines[-1] + " " + word)
        if text.get_window_extent(renderer).width > room:
            lines.append(word)
        else:
            lines[-1] += " " + word
    text.set_text("\n".join(lines))


def save_figure(fig: Figure, path: str | os.PathLike) -> Path:
    """Write `fig` as a PNG to `path` atomically; the path written."""
    path = Path(path)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    atomic_write_bytes(path, buf.getvalue())
    return path


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'plots' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(module), name)

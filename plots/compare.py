"""The best-fitness curves of several runs in one figure.

    plot_compare(["runs/a", "runs/b"], "compare.png")
    python -m plots compare runs/a runs/b [--out FILE]

Each curve is the run's `best` (the logbook's column: the fitness of the
genome the run would give at that generation, best.json's at the end;
for logbooks written before that column, the running maximum of the
population's max). Each curve is labelled by its seed and the settings that differ between
the runs ("seed 1, pop 60, terrain obs"); the settings they share go in
the subtitle. A dot marks the generation where a run first reached the
goal.
"""
from __future__ import annotations

import os
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from matplotlib.figure import Figure

from plots import PlotError, new_figure, save_figure
from plots.fitness import RunData, read_run

# Settings that never change what a run computes, so they never tell runs
# apart (results are identical on any number of workers).
IGNORED_SETTINGS = ("workers", "checkpoint_every", "seed")
# A legend label longer than this many characters is wrapped onto more
# lines, so the legend beside the curves stays narrow.
LABEL_WIDTH = 42
# The figure's margin on the right of the legend, and the least share of
# the width left to the curves (fractions of the figure).
RIGHT_MARGIN = 0.01
LEAST_AXES_WIDTH = 0.45
# The settings people vary most come first in a label.
LABEL_ORDER = ("algorithm", "population", "observation", "stages", "generations", "max_steps",
               "stall_frames")


def _format_setting(key: str, value: Any) -> str:
    if key == "seed":
        return f"seed {value}"
    if key == "algorithm":
        return str(value)
    if key == "population":
        return f"pop {value}"
    if key == "observation":
        return f"{value} obs"
    if key == "generations":
        return f"{value} gens"
    if key == "stages":
        names = value if isinstance(value, (list, tuple)) else [value]
        return "+".join(Path(str(n)).stem for n in names)
    if key == "max_steps":
        return f"max {value} steps"
    if key == "stall_frames":
        return "no stall limit" if value is None else f"stall {value}"
    return f"{key} {value}"


def _key(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _flat(settings: dict) -> dict:
    """A run's settings with its strategy's own (`options`) among the
    others, each a value a label can show."""
    out = {k: v for k, v in settings.items() if k != "options"}
    options = settings.get("options")
    if isinstance(options, dict):
        out.update(options)
    return out


def run_labels(runs: Sequence[RunData]) -> list[str]:
    """A label per run: its seed, then each setting whose value differs
    between the runs. Runs whose labels would be equal also get their
    directory name."""
    flat = [_flat(r.settings) for r in runs]
    keys = [k for k in LABEL_ORDER if any(k in s for s in flat)]
    for settings in flat:
        keys += [k for k in settings if k not in keys and k not in IGNORED_SETTINGS]
    differing = [k for k in keys if len({_key(s.get(k, "?")) for s in flat}) > 1]
    labels = []
    for run, settings in zip(runs, flat):
        if not run.settings:
            labels.append(run.name)
            continue
        parts = [_format_setting("seed", run.seed)] if run.seed is not None else []
        parts += [_format_setting(k, settings[k]) for k in differing if k in settings]
        labels.append(", ".join(parts) or run.name)
    counts = Counter(labels)
    return [f"{label} ({run.path})" if counts[label] > 1 and label != run.name else label
            for label, run in zip(labels, runs)]


def shared_settings(runs: Sequence[RunData]) -> str:
    """The settings every run has with the same value, as a short text."""
    if not all(r.settings for r in runs):
        return ""
    first = runs[0].settings
    same = [k for k in ("stages", "population", "observation", "generations")
            if k in first and all(_key(r.settings.get(k)) == _key(first[k]) for r in runs)]
    return ", ".join(_format_setting(k, first[k]) for k in same)


def plot_compare(run_dirs: Sequence[str | os.PathLike], out: str | os.PathLike) -> Path:
    """Draw the best fitness per generation of every run in `run_dirs`
    into `out`; the path written."""
    return save_figure(draw_compare(run_dirs), out)


def draw_compare(run_dirs: Sequence[str | os.PathLike]) -> Figure:
    """The figure `plot_compare` saves."""
    if not run_dirs:
        raise PlotError("no run directories given; name one or more")
    runs = [read_run(d) for d in run_dirs]
    labels = run_labels(runs)

    fig = new_figure(11, 6)
    ax = fig.add_axes((0.08, 0.13, 0.62, 0.75))
    old_logbooks = 0
    palette = [f"C{i}" for i in range(10)]
    for i, (run, label) in enumerate(zip(runs, labels)):
        colour = palette[i % len(palette)]
        style = "-" if i < len(palette) else "--"
        gen = run.columns["gen"]
        best, logged = run.best()
        old_logbooks += not logged
        ax.plot(gen, best, color=colour, linestyle=style, linewidth=2,
                marker="o" if gen.size <= 30 else None, markersize=3,
                label=textwrap.fill(label, LABEL_WIDTH, break_on_hyphens=False))
        first = run.first_goal_generation()
        if first is not None:
            j = int((gen == first).nonzero()[0][0])
            ax.plot([first], [best[j]], marker="o", markersize=10, color=colour,
                    markeredgecolor="black", linestyle="none")
    ax.plot([], [], marker="o", markersize=10, color="white", markeredgecolor="black",
            linestyle="none", label="first genome at the goal")
    ax.set_xlabel("generation")
    ax.set_ylabel("best fitness (mean total reward over the stages)")
    ax.grid(True, alpha=0.3)
    ax.xaxis.get_major_locator().set_params(integer=True)
    legend = ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=9,
                       borderaxespad=0.0, title="run")
    note = ("best: the genome each run gives" if not old_logbooks else
            "best: the genome each run gives (running max of the population's max for "
            f"{old_logbooks} older logbook{'s' if old_logbooks > 1 else ''})")
    shared = shared_settings(runs)
    ax.set_title("Best fitness per generation" + (f"\nall runs: {shared}" if shared else ""),
                 fontsize=12)
    fig.text(0.08, 0.012, note, fontsize=8, color="#555555")
    _fit_legend(fig, ax, legend)
    return fig


def _fit_legend(fig: Figure, ax, legend) -> None:
    """Narrow the curves' axes until the legend beside them fits inside
    the figure, and make the figure taller when the legend is taller."""
    renderer = fig.canvas.get_renderer()
    box = legend.get_window_extent(renderer)
    height = box.height / fig.bbox.height
    if height > 0.86:
        width_in, height_in = fig.get_size_inches()
        fig.set_size_inches(width_in, height_in * height / 0.86)
        box = legend.get_window_extent(renderer)
    width = box.width / fig.bbox.width
    left, bottom, _, tall = ax.get_position().bounds
    # The legend starts 2% of the axes' width right of them.
    right = (1.0 - RIGHT_MARGIN - width + 0.02 * left) / 1.02
    ax.set_position((left, bottom, max(right - left, LEAST_AXES_WIDTH), tall))

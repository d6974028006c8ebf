"""`fitness.png`: how a run's fitness moved, generation by generation.

    plot_fitness("runs/hill")                 -> runs/hill/fitness.png
    python -m plots fitness runs/hill [--out FILE]

Top panel: the best, mean (with a band of one standard deviation) and
worst fitness of each generation, and a vertical line at the first
generation in which a genome reached the goal on every stage. Bottom
panel: what the numbers mean on the stage, the best progress (% of the
way to the goal) and how many genomes reached the goal, and, for a run
with held-out test stages, the best genome's mean progress and completion
rate on them beside it: training against held-out. The title names the
stages, seed and population from `config.json`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from evolution.loop.outputs import (
    CONFIG_NAME,
    LOGBOOK_NAME,
    RUN_ACCEPTED,
    RunFileError,
    read_config_data,
    read_logbook_columns,
)
from plots import PlotError, new_figure, save_figure

FITNESS_NAME = "fitness.png"

BEST_COLOUR = "#1f4e9e"
MEAN_COLOUR = "#e08a1e"
WORST_COLOUR = "#808080"
GOAL_COLOUR = "#2ca02c"
HELD_OUT_COLOUR = "#b0307a"


@dataclass
class RunData:
    """What a run directory says: its settings (empty without a
    config.json) and its logbook, one numpy column per logbook column."""

    path: Path
    settings: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    columns: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.path.name

    def first_goal_generation(self) -> int | None:
        """The first generation in which a genome reached the goal on
        every stage, or None."""
        hits = np.nonzero(self.columns["completions"] > 0)[0]
        return int(self.columns["gen"][hits[0]]) if hits.size else None


def read_run(run_dir: str | os.PathLike) -> RunData:
    """The settings and logbook of a run directory; `PlotError` naming the
    file when something is missing or malformed."""
    path = Path(run_dir)
    if not path.is_dir():
        raise PlotError(f"{path}: not a directory; {RUN_ACCEPTED}")
    run = RunData(path)
    try:
        if (path / CONFIG_NAME).exists():
            data = read_config_data(path)
            run.settings = dict(data["settings"])
            seed = data.get("seed", run.settings.get("seed"))
            run.seed = seed if isinstance(seed, int) else None
        run.columns = read_logbook_columns(path / LOGBOOK_NAME)
    except RunFileError as e:
        raise PlotError(str(e)) from None
    return run


def describe_run(run: RunData) -> str:
    """"hillside, pipeworks · seed 3 · population 60 · terrain observation"."""
    s = run.settings
    parts = []
    if s.get("stages"):
        parts.append(", ".join(str(x) for x in s["stages"]))
    if run.seed is not None:
        parts.append(f"seed {run.seed}")
    if s.get("population") is not None:
        parts.append(f"population {s['population']}")
    if s.get("observation"):
        parts.append(f"{s['observation']} observation")
    return " · ".join(parts) if parts else run.name


def held_out_count(run: RunData) -> int | None:
    """How many held-out stages the run tests on (None if unknown)."""
    from speednik.stages import expand_stages

    try:
        return len(expand_stages(run.settings.get("test_stages") or [])) or None
    except ValueError:
        return None


def plot_fitness(run_dir: str | os.PathLike, out: str | os.PathLike | None = None) -> Path:
    """Draw the fitness curves of a run into `out` (default
    `run_dir/fitness.png`); the path written."""
    fig = draw_fitness(read_run(run_dir))
    return save_figure(fig, Path(out) if out is not None else Path(run_dir) / FITNESS_NAME)


def draw_fitness(run: RunData) -> Figure:
    """The figure `plot_fitness` saves."""
    c = run.columns
    gen = c["gen"]
    few = gen.size <= 30   # with few points, dots show where the data is

    fig = new_figure(11, 7)
    grid = fig.add_gridspec(2, 1, height_ratios=(3, 1.2), hspace=0.08,
                            left=0.08, right=0.92, top=0.86, bottom=0.09)
    ax = fig.add_subplot(grid[0])
    low = fig.add_subplot(grid[1], sharex=ax)

    ax.fill_between(gen, c["mean"] - c["std"], c["mean"] + c["std"],
                    color=MEAN_COLOUR, alpha=0.22, linewidth=0,
                    label="mean ± 1 std")
    ax.plot(gen, c["max"], color=BEST_COLOUR, linewidth=2.2,
            marker="o" if few else None, markersize=4,
            label=f"best (highest {float(np.nanmax(c['max'])):.2f})")
    ax.plot(gen, c["mean"], color=MEAN_COLOUR, linewidth=1.6,
            marker="o" if few else None, markersize=3, label="mean")
    ax.plot(gen, c["min"], color=WORST_COLOUR, linewidth=1.2, linestyle="--",
            label="worst")
    # Headroom above the curves for the first-goal label.
    values = np.concatenate([c["min"], c["max"], c["mean"] - c["std"], c["mean"] + c["std"]])
    values = values[np.isfinite(values)]
    if values.size:
        low_y, high_y = float(values.min()), float(values.max())
        pad = max(high_y - low_y, 1e-6)
        ax.set_ylim(low_y - 0.05 * pad, high_y + 0.14 * pad)
    ax.set_ylabel("fitness (mean total reward over the stages)")
    ax.grid(True, alpha=0.3)
    ax.tick_params(labelbottom=False)

    low.plot(gen, 100.0 * c["best_progress"], color=BEST_COLOUR, linewidth=1.8,
             marker="o" if few else None, markersize=3)
    tested = np.isfinite(c["test_progress"]) if "test_progress" in c else np.zeros(0, bool)
    if tested.any():
        count = held_out_count(run)
        low.plot(gen[tested], 100.0 * c["test_progress"][tested], color=HELD_OUT_COLOUR,
                 linewidth=1.6, linestyle="--", marker="s", markersize=3,
                 label="held-out progress (best genome)")
        if count:
            low.plot(gen[tested], 100.0 * c["test_goals"][tested] / count,
                     color=HELD_OUT_COLOUR, linewidth=1.2, linestyle=":", marker="^",
                     markersize=4, label=f"held-out completed (% of {count})")
        low.plot([], [], color=BEST_COLOUR, label="training progress (best)")
        low.legend(loc="upper left", ncol=3, fontsize=8, frameon=False)
    low.set_ylim(0, 105)
    low.set_ylabel("best progress (%)", color=BEST_COLOUR)
    low.set_xlabel("generation")
    low.grid(True, alpha=0.3)
    goals = low.twinx()
    goals.bar(gen, c["completions"], width=0.8 if gen.size < 60 else 1.0,
              color=GOAL_COLOUR, alpha=0.35)
    goals.set_ylabel("genomes at goal", color=GOAL_COLOUR)
    goals.set_ylim(0, max(1.0, float(c["completions"].max())) * 1.15)
    goals.yaxis.get_major_locator().set_params(integer=True)

    first = run.first_goal_generation()
    if first is not None:
        for a in (ax, low):
            a.axvline(first, color=GOAL_COLOUR, linestyle=":", linewidth=1.8)
        # Right of the line, unless that runs out of the axes.
        right = first <= gen[0] + 0.7 * (gen[-1] - gen[0])
        ax.text(first, 0.975, f" first goal: generation {first} " if right
                else f"first goal: generation {first} ", color=GOAL_COLOUR,
                transform=ax.get_xaxis_transform(), va="top",
                ha="left" if right else "right", fontsize=10, fontweight="bold")
        ax.plot([], [], color=GOAL_COLOUR, linestyle=":", label="first goal")
    else:
        ax.text(0.99, 0.03, "no genome has reached the goal yet", ha="right",
                va="bottom", transform=ax.transAxes, fontsize=9, color="#555555")
    # In a row above the axes, where no curve or label can be under it.
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.01), ncol=5, fontsize=9,
              frameon=False, borderaxespad=0.0)
    if gen.size == 1:
        ax.set_xlim(gen[0] - 1, gen[0] + 1)
    ax.xaxis.get_major_locator().set_params(integer=True)

    total = run.settings.get("generations")
    last = int(gen[-1])
    # Generation 0 is the random initial population; a run of N
    # generations logs 0..N.
    done = f"generations 0-{last}"
    if isinstance(total, int) and last < total:
        done += f" of {total} (still running or stopped)"
    fig.suptitle(f"Fitness per generation — {describe_run(run)}", fontsize=13, y=0.975)
    fig.text(0.5, 0.925, f"{run.name}: {done}", ha="center", fontsize=10, color="#444444")
    return fig

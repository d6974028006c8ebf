"""`fitness.png`: how a run's fitness moved, generation by generation.

    plot_fitness("runs/hill")                 -> runs/hill/fitness.png
    python -m plots fitness runs/hill [--out FILE]

Top panel: the run's best (the logbook's `best`: the fitness of the
genome the run would give at that generation, best.json's at the end; the
running maximum of the population's max for logbooks written before that
column) as the main line, and the population's own max, mean (with a band
of one standard deviation, clipped to the population's min and max) and
min, each named as such; a vertical line at the first generation in
which a genome reached the goal on every stage, or else how many stages
the best genome finished. Bottom
panel: what the numbers mean on the stage, the best progress (% of the
way to the goal) and how many genomes reached the goal, and, for a run
with held-out test stages, the best genome's mean progress and completion
rate on them beside it: training against held-out. The title names the
stages, seed and population from `config.json`. A run of several starts
(`--starts`) has a grey line where each start begins, and where the best
of them goes on.
"""
from __future__ import annotations

import json
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
from plots import PlotError, fit_width, new_figure, save_figure
from runners.genome_file import BEST_NAME

FITNESS_NAME = "fitness.png"

BEST_COLOUR = "#1f4e9e"
POP_MAX_COLOUR = "#6fa8dc"
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

    def best(self) -> tuple[np.ndarray, bool]:
        """The run's best per generation and whether the logbook has it:
        its `best` column, or for a logbook written before that column
        the running maximum of the population's `max`."""
        best = self.columns.get("best")
        if best is not None and best.size and not np.isnan(best).any():
            return best, True
        top = np.where(np.isnan(self.columns["max"]), -np.inf, self.columns["max"])
        return np.maximum.accumulate(top), False

    def stages_finished(self) -> tuple[int, int] | None:
        """(stages finished, stages played) by the genome best.json holds;
        None without a readable best.json."""
        try:
            results = json.loads((self.path / BEST_NAME).read_text())["results"]
            done = [bool(r["metrics"]["goal_reached"]) for r in results.values()]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        return (sum(done), len(done)) if done else None

    def first_goal_generation(self) -> int | None:
        """The first generation in which a genome reached the goal on
        every stage, or None."""
        hits = np.nonzero(self.columns["completions"] > 0)[0]
        return int(self.columns["gen"][hits[0]]) if hits.size else None


def start_rows(starts) -> list[tuple[int, str]]:
    """(row, label) where a run of several starts changed the search it
    plays, from its logbook's `start` column: "start 2" where the second
    began, "start 1 goes on" where the best of them took over again; none
    for a run of one start (no such column, or gaps in it)."""
    if starts is None or len(starts) == 0 or not all(
            isinstance(k, (int, float)) and np.isfinite(k) for k in starts):
        return []
    out = []
    seen = {int(starts[0])}
    for i in range(1, len(starts)):
        if starts[i] != starts[i - 1]:
            k = int(starts[i])
            out.append((i, f"start {k + 1} goes on" if k in seen else f"start {k + 1}"))
            seen.add(k)
    return out


def start_changes(run: RunData) -> list[tuple[int, str]]:
    """(generation, label) of each `start_rows` change of a run."""
    starts = run.columns.get("start")
    rows = start_rows(None if starts is None else [float(k) for k in starts])
    return [(int(run.columns["gen"][i]), label) for i, label in rows]


def repeat_rows(repeats) -> list[tuple[int, str]]:
    """(row, label) where a run with a final action repeat
    (`--final-action-repeat`) began deciding every K frames, from its
    logbook's `action_repeat` column: "deciding every frame" (K = 1) or
    "deciding every K frames"; none without that column."""
    if repeats is None:
        return []
    out = []
    for i in range(1, len(repeats)):
        k, before = repeats[i], repeats[i - 1]
        if (isinstance(k, (int, float)) and isinstance(before, (int, float))
                and np.isfinite(k) and np.isfinite(before) and k != before):
            out.append((i, "deciding every frame" if k == 1
                        else f"deciding every {int(k)} frames"))
    return out


def repeat_changes(run: RunData) -> list[tuple[int, str]]:
    """(generation, label) of each `repeat_rows` change of a run."""
    repeats = run.columns.get("action_repeat")
    rows = repeat_rows(None if repeats is None else [float(k) for k in repeats])
    return [(int(run.columns["gen"][i]), label) for i, label in rows]


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


# Stage names a title lists before it leaves the rest out.
TITLE_STAGES = 6


def describe_run(run: RunData) -> str:
    """"hillside, pipeworks · seed 3 · population 60 · terrain observation ·
    mlp policy (16 hidden)"."""
    s = run.settings
    parts = []
    if s.get("stages"):
        names = [str(x) for x in s["stages"]]
        if len(names) > TITLE_STAGES:
            names = names[:TITLE_STAGES - 1] + [f"... {names[-1]} ({len(names)} in all)"]
        parts.append(", ".join(names))
    if run.seed is not None:
        parts.append(f"seed {run.seed}")
    if s.get("population") is not None:
        parts.append(f"population {s['population']}")
    if s.get("observation"):
        parts.append(f"{s['observation']} observation")
    if s.get("policy"):
        hidden = f" ({s['hidden']} hidden)" if s.get("policy") in ("mlp", "rnn") \
            and s.get("hidden") else ""
        parts.append(f"{s['policy']} policy{hidden}")
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


def no_goal_text(run: RunData) -> str:
    """What to say when no genome has finished every stage: how many the
    best genome finished, when best.json says."""
    finished = run.stages_finished()
    if finished is None:
        return "no genome has reached the goal on every stage yet"
    done, played = finished
    return f"best genome finished {done} of {played} stage{'s' if played > 1 else ''}"


def draw_fitness(run: RunData) -> Figure:
    """The figure `plot_fitness` saves."""
    c = run.columns
    gen = c["gen"]
    few = gen.size <= 30   # with few points, dots show where the data is

    fig = new_figure(11, 7)
    grid = fig.add_gridspec(2, 1, height_ratios=(3, 1.2), hspace=0.08,
                            left=0.08, right=0.92, top=0.82, bottom=0.09)
    ax = fig.add_subplot(grid[0])
    low = fig.add_subplot(grid[1], sharex=ax)

    best, logged = run.best()
    # The band never leaves the population's own range: mean + std can
    # exceed the population's max (and the run's best) when few genomes
    # score far above the rest.
    with np.errstate(invalid="ignore"):
        band_low = np.clip(c["mean"] - c["std"], c["min"], c["max"])
        band_high = np.clip(c["mean"] + c["std"], c["min"], c["max"])
    ax.fill_between(gen, band_low, band_high, color=MEAN_COLOUR, alpha=0.22, linewidth=0,
                    label="population mean ± 1 std (within min–max)")
    ax.plot(gen, c["max"], color=POP_MAX_COLOUR, linewidth=1.2,
            label="population max")
    ax.plot(gen, c["mean"], color=MEAN_COLOUR, linewidth=1.6,
            marker="o" if few else None, markersize=3, label="population mean")
    ax.plot(gen, c["min"], color=WORST_COLOUR, linewidth=1.2, linestyle="--",
            label="population min")
    # Drawn last, over the population's lines: the genome the run gives.
    last = float(best[-1])
    ax.plot(gen, best, color=BEST_COLOUR, linewidth=2.4,
            marker="o" if few else None, markersize=4,
            label=(f"best: the run's genome (now {last:.2f})" if logged
                   else f"best so far: running max (now {last:.2f})"))
    # Headroom above the curves for the first-goal label.
    values = np.concatenate([c["min"], c["max"], band_low, band_high, best])
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
        # Progress climbs towards 100% early, so the lower right is where
        # the curves seldom are; a veil keeps any line under it readable.
        low.legend(loc="lower right", ncol=3, fontsize=8, frameon=True, framealpha=0.85,
                   edgecolor="none")
    low.set_ylim(0, 105)
    low.set_ylabel("population's best\nprogress (%)", color=BEST_COLOUR)
    low.set_xlabel("generation")
    low.grid(True, alpha=0.3)
    goals = low.twinx()
    goals.bar(gen, c["completions"], width=0.8 if gen.size < 60 else 1.0,
              color=GOAL_COLOUR, alpha=0.35)
    goals.set_ylabel("genomes at goal", color=GOAL_COLOUR)
    goals.set_ylim(0, max(1.0, float(c["completions"].max())) * 1.15)
    goals.yaxis.get_major_locator().set_params(integer=True)

    # Where the search changed: a start began or went on, or it began
    # deciding at another repeat; each kind a little lower than the first
    # goal's label at the top, so that labels falling close together stay
    # apart.
    for changes, height in ((start_changes(run), 0.91), (repeat_changes(run), 0.85)):
        for at, label in changes:
            for a in (ax, low):
                a.axvline(at, color=WORST_COLOUR, linestyle="-", linewidth=1.0, alpha=0.6)
            ax.text(at, height, label, color="#444444", transform=ax.get_xaxis_transform(),
                    va="top", ha="left", fontsize=8,
                    bbox=dict(facecolor="white", edgecolor="none", alpha=0.85, pad=1.5))

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
        ax.text(0.99, 0.03, no_goal_text(run), ha="right", va="bottom",
                transform=ax.transAxes, fontsize=9, color="#555555",
                bbox=dict(facecolor="white", edgecolor="none", alpha=0.85, pad=2))
    # In rows above the axes, where no curve or label can be under them;
    # the run's best first.
    handles, labels = ax.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda i: not labels[i].startswith("best"))
    ax.legend([handles[i] for i in order], [labels[i] for i in order],
              loc="lower left", bbox_to_anchor=(0.0, 1.01), ncol=3, fontsize=9,
              frameon=False, borderaxespad=0.0)
    if gen.size == 1:
        ax.set_xlim(gen[0] - 1, gen[0] + 1)
    ax.xaxis.get_major_locator().set_params(integer=True)

    total = run.settings.get("generations")
    last = int(gen[-1])
    # Generation 0 is the random initial population; a run of N
    # generations logs 0..N.
    done = f"generations 0-{last}"
    budget = run.settings.get("max_frames")
    frames = c.get("frames")
    spent = (isinstance(budget, int) and frames is not None and frames.size
             and np.isfinite(frames[-1]) and frames[-1] >= budget)
    if spent:
        done += f", its budget of {budget / 1e6:g} million frames played"
    elif isinstance(total, int) and last < total:
        done += f" of {total} (still running or stopped)"
    title = fig.suptitle(f"Fitness per generation — {describe_run(run)}", fontsize=13,
                         y=0.975, va="top")
    fit_width(fig, title)
    # Just under the title, however many lines fitting it took.
    under = title.get_window_extent(fig.canvas.get_renderer()).y0 / fig.bbox.height
    fig.text(0.5, under - 0.012, f"{run.name}: {done}", ha="center", va="top", fontsize=10,
             color="#444444")
    return fig

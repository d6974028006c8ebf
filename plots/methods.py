"""Search methods compared on frames played (`python -m evolution.compare`):
the best fitness against frames (each run's `best`: the fitness of the
genome the run would give then, ending at best.json's fitness, which the
comparison's table reports; the running maximum of the population's max
for runs logged before that column), per method the median over its
seeds as a line and the range from the lowest to the highest as a band;
beside it the performance profiles (rliable's): for each score, the
fraction of a method's runs that scored above it, on held-out completion
(or final training fitness without held-out stages)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from evolution.stats import performance_profile
from plots import PlotError, new_figure, save_figure

COMPARE_NAME = "compare.json"
METHODS_PICTURE = "compare.png"
POINTS = 200


def read_comparison(out_dir: str | os.PathLike) -> dict:
    path = Path(out_dir) / COMPARE_NAME
    try:
        data = json.loads(path.read_text())
        data["methods"], data["runs"]
    except FileNotFoundError:
        raise PlotError(f"{path}: no such file; accepted: the --out directory of "
                        f"python -m evolution.compare") from None
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise PlotError(f"{path}: not a comparison ({e})") from None
    return data


def step_values(frames: list[int], best: list[float], grid: np.ndarray) -> np.ndarray:
    """Each run's best-so-far at each point of `grid` (NaN before its
    first generation was scored)."""
    at = np.searchsorted(np.asarray(frames), grid, side="right") - 1
    values = np.asarray(best, dtype=np.float64)[np.clip(at, 0, None)]
    return np.where(at >= 0, values, np.nan)


def draw_methods(fig: Figure, out_dir: str | os.PathLike) -> Figure:
    data = read_comparison(out_dir)
    ax = fig.add_subplot(1, 2, 1)
    grid = np.linspace(0, float(data["frames"]), POINTS)
    for method in data["methods"]:
        runs = [r for name, r in data["runs"].items() if name.startswith(f"{method}-seed")]
        curves = np.array([step_values(r["frames"], r["best"], grid) for r in runs])
        with np.errstate(all="ignore"):
            # A column where every run is NaN is before any was scored.
            shown = ~np.all(np.isnan(curves), axis=0)
            median = np.nanmedian(curves[:, shown], axis=0)
            low = np.nanmin(curves[:, shown], axis=0)
            high = np.nanmax(curves[:, shown], axis=0)
        line, = ax.plot(grid[shown], median, label=f"{method} ({len(runs)} seeds)")
        ax.fill_between(grid[shown], low, high, color=line.get_color(), alpha=0.2)
    ax.set_xlabel("frames played")
    ax.set_ylabel("best fitness (the genome the run gives)")
    ax.set_title("median over seeds, band from the lowest to the highest")
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    draw_profiles(fig.add_subplot(1, 2, 2), data)
    return fig


def draw_profiles(ax, data: dict) -> None:
    """The fraction of each method's runs above each score."""
    methods = data["methods"]
    held = all(m.get("held_out") is not None for m in methods.values())
    key = "held_out" if held else "fitness"
    scores = {name: m[key]["values"] for name, m in methods.items()}
    everything = [v for values in scores.values() for v in values]
    low, high = (0.0, 1.0) if held else (min(everything), max(everything))
    pad = 0.02 * (high - low or 1.0)
    grid = np.linspace(low - pad, high + pad, POINTS)
    for name, values in scores.items():
        ax.step(grid, performance_profile(values, grid), where="post",
                label=f"{name} ({len(values)} runs)")
    ax.set_xlabel("held-out completion" if held else "final training fitness")
    ax.set_ylabel("fraction of runs above")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("performance profiles")
    ax.legend(loc="upper right")
    ax.grid(alpha=0.3)


def plot_methods(out_dir: str | os.PathLike, out: str | os.PathLike | None = None) -> Path:
    fig = draw_methods(new_figure(15, 5.5), out_dir)
    return save_figure(fig, out or Path(out_dir) / METHODS_PICTURE)

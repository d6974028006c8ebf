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


def chosen_methods(data: dict, methods: list[str] | None) -> list[str]:
    """The methods to draw, in the comparison's order; PlotError naming the
    comparison's methods for one it did not run."""
    held = list(data["methods"])
    if not methods:
        return held
    unknown = [m for m in methods if m not in held]
    if unknown:
        raise PlotError(f"--methods: {', '.join(unknown)} not in this comparison; "
                        f"accepted: {', '.join(held)}")
    return [m for m in held if m in methods]


def method_colours(data: dict) -> dict[str, str]:
    """A colour per method by its place in the whole comparison, so a
    picture of some of them colours each as the picture of all does."""
    return {m: f"C{i % 10}" for i, m in enumerate(data["methods"])}


def draw_methods(fig: Figure, out_dir: str | os.PathLike,
                 methods: list[str] | None = None) -> Figure:
    data = read_comparison(out_dir)
    names = chosen_methods(data, methods)
    colours = method_colours(data)
    ax = fig.add_subplot(1, 2, 1)
    grid = np.linspace(0, float(data["frames"]), POINTS)
    for method in names:
        runs = [r for name, r in data["runs"].items() if name.startswith(f"{method}-seed")]
        curves = np.array([step_values(r["frames"], r["best"], grid) for r in runs])
        with np.errstate(all="ignore"):
            # A column where every run is NaN is before any was scored.
            shown = ~np.all(np.isnan(curves), axis=0)
            median = np.nanmedian(curves[:, shown], axis=0)
            low = np.nanmin(curves[:, shown], axis=0)
            high = np.nanmax(curves[:, shown], axis=0)
        # Millions of frames: the axis reads as numbers, not an offset.
        x = grid[shown] / 1e6
        ax.plot(x, median, color=colours[method], label=f"{method} ({len(runs)} seeds)")
        ax.fill_between(x, low, high, color=colours[method], alpha=0.2)
    ax.set_xlabel("frames played (millions)")
    ax.set_ylabel("best fitness (the genome the run gives)")
    ax.set_title("median over seeds, band from the lowest to the highest")
    ax.grid(alpha=0.3)
    draw_profiles(fig.add_subplot(1, 2, 2), data, names, colours)
    # One legend for both, below them, where it hides no curve.
    fig.legend(*ax.get_legend_handles_labels(), loc="lower center",
               ncol=min(len(names), 7), frameon=False)
    fig.subplots_adjust(bottom=0.18, wspace=0.25)
    return fig


def draw_profiles(ax, data: dict, names: list[str] | None = None,
                  colours: dict[str, str] | None = None) -> None:
    """The fraction of each method's runs above each score."""
    methods = data["methods"]
    names = list(methods) if names is None else names
    colours = colours or method_colours(data)
    held = all(m.get("held_out") is not None for m in methods.values())
    key = "held_out" if held else "fitness"
    scores = {name: methods[name][key]["values"] for name in names}
    everything = [v for values in scores.values() for v in values]
    low, high = (0.0, 1.0) if held else (min(everything), max(everything))
    pad = 0.02 * (high - low or 1.0)
    grid = np.linspace(low - pad, high + pad, POINTS)
    for name, values in scores.items():
        ax.step(grid, performance_profile(values, grid), where="post",
                color=colours[name], label=f"{name} ({len(values)} runs)")
    ax.set_xlabel("held-out completion" if held else "final training fitness")
    ax.set_ylabel("fraction of runs above")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("performance profiles")
    ax.grid(alpha=0.3)


def plot_methods(out_dir: str | os.PathLike, out: str | os.PathLike | None = None,
                 methods: list[str] | None = None) -> Path:
    fig = draw_methods(new_figure(15, 6), out_dir, methods)
    return save_figure(fig, out or Path(out_dir) / METHODS_PICTURE)

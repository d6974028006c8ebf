"""A search method's own numbers drawn against generations, from the
run's `method.jsonl` (`evolution.loop.method_file`): CMA-ES's step size
and condition number (log scales: both change by orders of magnitude),
OpenAI-ES's learning statistics, and NEAT's species sizes as a stacked
area (each band one species, the oldest at the bottom, the whole height
the population)."""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

from plots import new_figure

Records = Sequence[dict[str, Any]]
# Past this many species the legend would hide the picture.
MAX_LEGEND = 12


def series(records: Records, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Generations and one number per generation (NaN where a line has
    none, or null for a number that was not finite)."""
    gens = np.array([r["gen"] for r in records], dtype=np.float64)
    values = [r.get(name) for r in records]
    return gens, np.array([math.nan if v is None else float(v) for v in values])


def species_table(records: Records, name: str = "species_sizes"
                  ) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Generations, every species key that ever lived (by age), and a
    (species, generations) matrix of their sizes, 0 where a species was
    not alive."""
    rows = [r for r in records if isinstance(r.get(name), dict)]
    keys = sorted({k for r in rows for k in r[name]}, key=_key_order)
    sizes = np.zeros((len(keys), len(rows)))
    where = {k: i for i, k in enumerate(keys)}
    for j, r in enumerate(rows):
        for k, n in r[name].items():
            sizes[where[k], j] = 0.0 if n is None else float(n)
    return np.array([r["gen"] for r in rows], dtype=np.float64), keys, sizes


def _key_order(key: str) -> tuple[int, float, str]:
    try:
        return (0, float(key), key)
    except ValueError:
        return (1, 0.0, key)


def _panels(records: Records, panels: Sequence[tuple[str, str, bool]],
            title: str) -> Figure:
    """One panel per (name, label, log scale), generations shared."""
    fig = new_figure(6.5, 1.9 * len(panels) + 0.8)
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    for ax, (name, label, log) in zip(axes, panels):
        gens, values = series(records, name)
        ax.plot(gens, values, marker="." if len(gens) < 60 else None)
        if log and np.any(values > 0):
            ax.set_yscale("log")
            # Plain numbers (0.96, not 9.6 x 10^-1); within one decade only
            # minor ticks fall inside, so they carry the labels.
            plain = FuncFormatter(lambda v, _: f"{v:.3g}")
            ax.yaxis.set_major_formatter(plain)
            positive = values[values > 0]
            ax.yaxis.set_minor_formatter(plain if positive.max() < 10 * positive.min()
                                         else NullFormatter())
        ax.set_ylabel(label)
        ax.grid(alpha=0.3, which="both")
    axes[0].set_title(title)
    axes[-1].set_xlabel("generation")
    fig.tight_layout()
    return fig


def draw_cmaes_history(records: Records) -> Figure:
    return _panels(records, [("sigma", "step size sigma", True),
                             ("condition", "condition number of C", True)],
                   "CMA-ES per generation")


def draw_openai_es_history(records: Records) -> Figure:
    return _panels(records, [("learning_rate", "learning rate\n(bias-corrected)", False),
                             ("noise_sigma", "noise sigma", False),
                             ("mean_norm", "|theta|\n(mean's norm)", False),
                             ("first_moment_norm", "|m| (Adam's\nfirst moment)", False)],
                   "OpenAI-ES per generation")


def draw_species_history(records: Records) -> Figure:
    gens, keys, sizes = species_table(records)
    fig = new_figure(7, 4.5)
    ax = fig.add_subplot(1, 1, 1)
    colours = [f"C{i % 10}" for i in range(len(keys))]
    ax.stackplot(gens, sizes, labels=[f"species {k}" for k in keys], colors=colours,
                 alpha=0.85, edgecolor="white", linewidth=0.3)
    ax.set_xlabel("generation")
    ax.set_ylabel("members")
    ax.set_title(f"NEAT species sizes per generation ({len(keys)} species in all)")
    ax.margins(x=0)
    if 0 < len(keys) <= MAX_LEGEND:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    fig.tight_layout()
    return fig

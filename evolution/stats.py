"""Statistics for comparing search methods over a few seeds, in the
manner of rliable (Agarwal et al. 2021, "Deep reinforcement learning at
the edge of the statistical precipice"): the interquartile mean and the
median with bootstrap confidence intervals, the probability that one
method's run beats another's, and performance profiles.

A comparison has one task, so the stratified bootstrap of rliable (runs
resampled within each task) resamples the runs of each method; two
methods are resampled independently of each other. The arithmetic is
scipy's (`stats.trim_mean`, `stats.bootstrap`) and numpy's (the pairs),
each resampling with a generator of its own seed: the same scores give
the same intervals.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

CONFIDENCE = 0.95
RESAMPLES = 2000


def _scipy_stats():
    # Importing scipy.stats takes a second and a half: a command that
    # refuses its input or prints its help should not wait for it.
    from scipy import stats
    return stats


def iqm(values: Sequence[float], axis: int | None = None) -> float | np.ndarray:
    """The interquartile mean: the mean of the middle half of the values
    (25% trimmed from each end, as scipy's `trim_mean` cuts them)."""
    return _scipy_stats().trim_mean(np.asarray(values, dtype=np.float64), 0.25, axis=axis)


def median(values: Sequence[float], axis: int | None = None) -> float | np.ndarray:
    return np.median(np.asarray(values, dtype=np.float64), axis=axis)


def interval(samples: Sequence[Sequence[float]], statistic: Callable,
             seed: int = 0) -> tuple[float, float]:
    """The 95% percentile bootstrap interval of `statistic` over one or
    more independent samples (each resampled within itself). The statistic
    takes `axis`, as numpy's do: all resamples are one call. A sample of
    one value, or of equal values, has nothing to resample: the interval
    is the statistic itself."""
    data = tuple(np.asarray(s, dtype=np.float64) for s in samples)
    value = float(statistic(*data))
    if any(len(s) < 2 for s in data) or all(np.ptp(s) == 0 for s in data):
        return value, value
    result = _scipy_stats().bootstrap(data, statistic, n_resamples=RESAMPLES,
                             confidence_level=CONFIDENCE, method="percentile",
                             vectorized=True, paired=False,
                             rng=np.random.default_rng(seed))
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def probability_of_improvement(x: Sequence[float], y: Sequence[float],
                               axis: int = -1) -> float | np.ndarray:
    """P(X > Y) + P(X = Y) / 2 for a run X of one method and a run Y of
    another: the Mann-Whitney U statistic of x over the number of pairs,
    counted over every pair at once (so a batch of resamples, along the
    other axes, is one call)."""
    x = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)[..., :, None]
    y = np.moveaxis(np.asarray(y, dtype=np.float64), axis, -1)[..., None, :]
    p = ((x > y) + 0.5 * (x == y)).mean(axis=(-2, -1))
    return float(p) if p.ndim == 0 else p


def performance_profile(values: Sequence[float], thresholds: Sequence[float]) -> np.ndarray:
    """The fraction of runs whose score is above each threshold."""
    v = np.asarray(values, dtype=np.float64)
    return np.array([(v > t).mean() for t in thresholds])


def summarise(values: Sequence[float], seed: int = 0) -> dict:
    """The scores of one method's runs: each value, the median and the
    IQM, each with its interval."""
    v = [float(x) for x in values]
    return {"values": v,
            "median": float(median(v)), "median_ci": interval([v], median, seed),
            "iqm": float(iqm(v)), "iqm_ci": interval([v], iqm, seed)}


def improvement_table(scores: dict[str, Sequence[float]], seed: int = 0) -> dict:
    """For each ordered pair of methods (a, b): the probability that a run
    of a beats a run of b, with its interval, as {a: {b: {...}}}."""
    out: dict = {}
    for a, x in scores.items():
        for b, y in scores.items():
            if a != b:
                p = probability_of_improvement(x, y)
                out.setdefault(a, {})[b] = {
                    "probability": p,
                    "ci": interval([x, y], probability_of_improvement, seed)}
    return out

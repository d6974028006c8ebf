"""The comparison's statistics on fixed inputs, against hand-worked values
and the definitions they come from."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from evolution.stats import (
    CONFIDENCE,
    improvement_table,
    interval,
    iqm,
    median,
    performance_profile,
    probability_of_improvement,
    summarise,
)


def test_iqm_is_the_mean_of_the_middle_half():
    assert iqm([1, 2, 3, 4, 5, 6, 7, 8]) == pytest.approx(4.5)       # (3+4+5+6)/4
    assert iqm([8, 1, 7, 2, 6, 3, 5, 4]) == pytest.approx(4.5)
    assert iqm([0, 0, 0, 100]) == pytest.approx(0.0)                 # one outlier cut
    assert iqm([0.2, 0.5, 0.6, 0.9, 0.95]) == pytest.approx((0.5 + 0.6 + 0.9) / 3)


def test_probability_of_improvement_counts_pairs_and_half_the_ties():
    assert probability_of_improvement([1, 2, 3], [2, 2, 2]) == pytest.approx(4.5 / 9)
    assert probability_of_improvement([5, 6], [1, 2]) == 1.0
    rng = np.random.default_rng(3)
    x, y = rng.integers(0, 5, 7), rng.integers(0, 5, 6)
    pairs = [(a > b) + 0.5 * (a == b) for a, b in itertools.product(x, y)]
    assert probability_of_improvement(x, y) == pytest.approx(np.mean(pairs))
    assert probability_of_improvement(x, y) + probability_of_improvement(y, x) == \
        pytest.approx(1.0)
    # A batch of samples along the first axis is each sample's value.
    xs, ys = rng.integers(0, 5, (4, 7)), rng.integers(0, 5, (4, 6))
    assert probability_of_improvement(xs, ys).tolist() == \
        [probability_of_improvement(a, b) for a, b in zip(xs, ys)]


def test_batched_intervals_are_those_of_one_resample_at_a_time(monkeypatch):
    # The interval of the pairs' statistic, all resamples in one call, is
    # scipy's bootstrap of the definition (Mann-Whitney's U over the pairs)
    # called once per resample, with the same generator (fewer resamples
    # than a comparison's: one at a time is what is slow).
    from scipy import stats

    from evolution import stats as stats_module

    monkeypatch.setattr(stats_module, "RESAMPLES", 300)
    x, y = [0.2, 0.5, 0.6, 0.9, 0.95], [0.1, 0.5, 0.7, 0.3, 0.2]

    def one_at_a_time(a, b):
        return stats.mannwhitneyu(a, b).statistic / (len(a) * len(b))

    slow = stats.bootstrap((np.array(x), np.array(y)), one_at_a_time, n_resamples=300,
                           confidence_level=CONFIDENCE, method="percentile", vectorized=False,
                           paired=False, rng=np.random.default_rng(3)).confidence_interval
    assert interval([x, y], probability_of_improvement, seed=3) == (slow.low, slow.high)


def test_performance_profile_is_the_fraction_above_each_threshold():
    assert performance_profile([0.1, 0.5, 0.9], [0.0, 0.5, 1.0]).tolist() == \
        pytest.approx([1.0, 1 / 3, 0.0])


def test_intervals_hold_the_statistic_and_repeat_with_the_seed():
    values = [0.2, 0.5, 0.6, 0.9, 0.95, 0.3]
    low, high = interval([values], iqm, seed=4)
    assert low <= iqm(values) <= high and low < high
    assert interval([values], iqm, seed=4) == (low, high)
    assert min(values) <= low and high <= max(values)
    # Nothing to resample: the statistic itself.
    assert interval([[0.7]], median) == (0.7, 0.7)
    assert interval([[0.5, 0.5, 0.5]], iqm) == (0.5, 0.5)


def test_summary_and_improvement_table_of_two_methods():
    a, b = [1, 2, 3, 4, 5], [0, 1, 1, 2, 2]
    s = summarise(a)
    assert s["values"] == a and s["median"] == 3 and s["iqm"] == pytest.approx(3.0)
    assert s["median_ci"][0] <= 3 <= s["median_ci"][1]
    table = improvement_table({"a": a, "b": b})
    # 1 beats 0 and ties 1, 1; 2 beats 0, 1, 1 and ties 2, 2; 3, 4, 5 beat all.
    assert table["a"]["b"]["probability"] == pytest.approx(
        ((1 + 0.5 * 2) + (3 + 0.5 * 2) + 15) / 25)
    assert table["b"]["a"]["probability"] == pytest.approx(1 - table["a"]["b"]["probability"])
    low, high = table["a"]["b"]["ci"]
    assert low <= table["a"]["b"]["probability"] <= high <= 1.0

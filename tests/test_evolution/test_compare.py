"""`python -m evolution.compare`: methods on one task under an equal frame
budget, summarised by median and interquartile mean with bootstrap
intervals, and drawn against frames played."""
from __future__ import annotations

import json

import numpy as np
import pytest

from evolution import compare


def test_iqm_is_the_mean_of_the_middle_half():
    assert compare.iqm([1, 2, 3, 4, 100, -50, 5, 6]) == 3.5
    assert compare.iqm([1.0, 2.0, 6.0]) == 3.0    # too few to trim


def test_bootstrap_intervals_hold_the_statistic_and_repeat():
    values = [0.2, 0.5, 0.9, 0.4, 0.6]
    low, high = compare.bootstrap_interval(values, np.median)
    assert low <= np.median(values) <= high and low >= 0.2 and high <= 0.9
    assert compare.bootstrap_interval(values, np.median) == (low, high)
    assert compare.bootstrap_interval([0.5] * 4, compare.iqm) == (0.5, 0.5)


def test_a_comparison_runs_each_method_and_seed_to_the_budget(tmp_path, capsys):
    out = tmp_path / "cmp"
    task = ["--stage", "hillside", "--test-stage", "gen:easy:100-101", "--population", "6",
            "--max-steps", "400", "--workers", "1"]
    assert compare.main(["--methods", "ga", "openai-es", "--seeds", "0", "1", "--frames",
                         "8000", "--out", str(out), "--jobs", "2", "--", *task]) == 0
    printed = capsys.readouterr().out
    assert "| ga | 2 |" in printed and "| openai-es | 2 |" in printed
    data = json.loads((out / "compare.json").read_text())
    for name, run in data["runs"].items():
        assert run["frames"][-1] >= 8000 > run["frames"][-2], name
        assert run["held_out"] is not None
    assert data["methods"]["ga"]["fitness"]["values"] == [
        data["runs"]["ga-seed0"]["fitness"], data["runs"]["ga-seed1"]["fitness"]]
    assert (out / "compare.png").read_bytes()[:4] == b"\x89PNG"
    # Run again, a finished run is resumed, not redone: the same numbers.
    assert compare.run_one(task, "ga", 1, 8000, out)[0] == 0
    assert compare.read_run(out / "ga-seed1") == data["runs"]["ga-seed1"]


def test_options_the_comparison_sets_are_refused_in_the_task(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        compare.main(["--methods", "ga", "--frames", "10", "--out", str(tmp_path), "--",
                      "--seed", "3"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--seed" in err[0]

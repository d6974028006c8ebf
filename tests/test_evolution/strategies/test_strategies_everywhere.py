"""Every registered search strategy gives the same run with one worker,
with two, and on a local Dask cluster. (The cluster runs in processes of
its own, as `--scheduler local` starts it: a scheduler inside the test's
process would draw from the run's own `random` generator.)"""
from __future__ import annotations

import csv

import pytest

from evolution.config import EvolutionConfig
from evolution.loop.evolve import evolve
from evolution.strategies.registry import STRATEGIES
from sweeps import sweep


def rows(run_dir):
    with open(run_dir / "logbook.csv", newline="") as f:
        return [{k: v for k, v in r.items() if k != "seconds"} for r in csv.DictReader(f)]


@pytest.mark.parametrize("algorithm", sweep(sorted(STRATEGIES)))
def test_the_same_run_with_one_or_two_workers_and_on_a_cluster(algorithm, tmp_path):
    if STRATEGIES[algorithm].missing():
        pytest.fail(STRATEGIES[algorithm].missing())
    settings = dict(algorithm=algorithm, population=8, generations=3, seed=6,
                    stages=("hillside", "gen:easy:0-2"), stages_per_generation=2,
                    max_steps=500, test_stages=("gen:easy:60",), test_every=2)
    outcomes = []
    for name, where in (("one", dict(workers=1)), ("two", dict(workers=2)),
                        ("cluster", dict(workers=2, scheduler="local"))):
        out = tmp_path / name
        evolve(EvolutionConfig(**settings, **where), out)
        outcomes.append((rows(out), (out / "best.json").read_text().split('"seed"')[0]))
    assert outcomes[0] == outcomes[1] == outcomes[2]

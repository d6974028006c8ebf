"""Runs of every search, policy and observation give what they gave when
the fixture was recorded: straight through, resumed, and on the readable
engine (see reference_runs.py)."""
from __future__ import annotations

import json

import pytest

from evolution.evolve import evolve
from reference_runs import FIXTURE, RUNS, config_of, digest, run

RECORDED = json.loads(FIXTURE.read_text())


@pytest.mark.parametrize("name", sorted(RUNS))
def test_run_gives_the_recorded_result(name, tmp_path):
    assert run(name, tmp_path / name) == RECORDED[name]


@pytest.mark.parametrize("name", sorted(RUNS))
def test_resumed_run_gives_the_recorded_result(name, tmp_path):
    out = tmp_path / name
    # Stopped on a tested generation: the last generation of a run is
    # always tested, so stopping elsewhere adds a test the fixture lacks.
    evolve(config_of(name, generations=RUNS[name]["test_every"]), out)
    evolve(config_of(name), out, resume=True)
    assert digest(out) == RECORDED[name]


@pytest.mark.parametrize("name", ["ga-mlp-terrain", "cmaes-linear-terrain"])
def test_readable_engine_gives_the_recorded_result(name, tmp_path):
    out = tmp_path / name
    evolve(config_of(name, engine="python"), out)
    assert digest(out) == RECORDED[name]

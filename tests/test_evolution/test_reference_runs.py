"""Runs of every search, policy and observation give what they gave when
the fixture was recorded: straight through, resumed, and on the readable
engine (see reference_runs.py). They run in one fresh interpreter with the
defaults, which pin the numeric kernels, so the fixture holds whatever CPU
runs the tests."""
from __future__ import annotations

import json

import pytest

from reference_runs import FIXTURE, READABLE_RUNS, RUNS, fresh

RECORDED = json.loads(FIXTURE.read_text())


@pytest.fixture(scope="module")
def now(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("reference") / "now.json"
    done = fresh(["--check", str(out)])
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())


@pytest.mark.parametrize("name", sorted(RUNS))
def test_run_gives_the_recorded_result(name, now):
    assert now["run"][name] == RECORDED[name]


@pytest.mark.parametrize("name", sorted(RUNS))
def test_resumed_run_gives_the_recorded_result(name, now):
    assert now["resumed"][name] == RECORDED[name]


@pytest.mark.parametrize("name", READABLE_RUNS)
def test_readable_engine_gives_the_recorded_result(name, now):
    assert now["readable"][name] == RECORDED[name]


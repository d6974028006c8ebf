"""The record of certified expert draws that runs keep between processes
(`speednik.stages.certified_draws`): a later run takes its draws from it
instead of running the planner, and nothing else is ever taken from it."""
from __future__ import annotations

import concurrent.futures
import json

import pytest

from speednik.stages import certification, certified_draws

SEEDS = [91101, 91102, 91103]


class NoPool:
    def __init__(self, *args, **kwargs):
        raise AssertionError("the planner ran again")


def _certified_here(monkeypatch) -> dict[int, int]:
    monkeypatch.setattr(certification, "_CERTIFIED_DRAW", {})
    for seed in SEEDS:
        certification.certified_expert(seed)
    return dict(certification._CERTIFIED_DRAW)


def test_a_later_run_takes_the_recorded_draws_without_planning(monkeypatch):
    draws = _certified_here(monkeypatch)
    monkeypatch.setattr(certification, "_CERTIFIED_DRAW", {})
    certification.certify_in_parallel(SEEDS, workers=2)
    assert certification._CERTIFIED_DRAW == draws
    assert certified_draws.read_draws() == draws
    # A later process: nothing in memory, and no planner may run.
    monkeypatch.setattr(certification, "_CERTIFIED_DRAW", {})
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", NoPool)
    certification.certify_in_parallel(SEEDS, workers=2)
    assert certification._CERTIFIED_DRAW == draws
    # Only the seeds asked for are taken.
    monkeypatch.setattr(certification, "_CERTIFIED_DRAW", {})
    certification.certify_in_parallel(SEEDS[:1], workers=2)
    assert certification._CERTIFIED_DRAW == {SEEDS[0]: draws[SEEDS[0]]}


def test_a_record_of_other_sources_is_not_read(monkeypatch):
    certified_draws.remember_draws({SEEDS[0]: 3})
    assert certified_draws.read_draws() == {SEEDS[0]: 3}
    monkeypatch.setattr(certified_draws, "_digest", lambda: "other sources")
    assert certified_draws.read_draws() == {}
    monkeypatch.setattr(certification, "_CERTIFIED_DRAW", {})
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", NoPool)
    with pytest.raises(AssertionError, match="the planner ran again"):
        certification.certify_in_parallel(SEEDS, workers=2)


@pytest.mark.parametrize("text", ["", "{not json", "[1, 2]", '{"format": "x"}',
                                  '{"format": "speednik-certified-expert-draws-2", '
                                  '"sources": "%s", "draws": {"expert": {"a": 1}}}',
                                  '{"format": "speednik-certified-expert-draws-2", '
                                  '"sources": "%s", "draws": {"expert": [1]}}'])
def test_an_unreadable_record_is_ignored_and_replaced(text):
    path = certified_draws.RECORD_DIR / certified_draws.RECORD_NAME
    path.write_text(text.replace("%s", certified_draws._digest()))
    assert certified_draws.read_draws() == {}
    certified_draws.remember_draws({SEEDS[1]: 0})
    assert certified_draws.read_draws() == {SEEDS[1]: 0}
    assert json.loads(path.read_text())["draws"] == {"expert": {str(SEEDS[1]): 0}}
    # Nothing half-written is left beside it.
    assert [p.name for p in path.parent.iterdir()] == [certified_draws.RECORD_NAME]


def test_draws_are_added_to_the_record():
    certified_draws.remember_draws({SEEDS[0]: 1})
    certified_draws.remember_draws({SEEDS[1]: 0})
    assert certified_draws.read_draws() == {SEEDS[0]: 1, SEEDS[1]: 0}


def test_a_record_that_cannot_be_written_is_not_written(tmp_path, monkeypatch):
    blocker = tmp_path / "a file"
    blocker.write_text("")
    monkeypatch.setattr(certified_draws, "RECORD_DIR", blocker / "cache")
    certified_draws.remember_draws({SEEDS[0]: 0})
    assert certified_draws.read_draws() == {}


def test_without_remember_the_record_is_neither_read_nor_written(monkeypatch):
    certified_draws.remember_draws({SEEDS[0]: 5, SEEDS[1]: 5})
    monkeypatch.setattr(certification, "_CERTIFIED_DRAW", {})
    certification.certify_in_parallel(SEEDS[:2], workers=2, remember=False)
    assert certification._CERTIFIED_DRAW != {SEEDS[0]: 5, SEEDS[1]: 5}
    assert certified_draws.read_draws() == {SEEDS[0]: 5, SEEDS[1]: 5}

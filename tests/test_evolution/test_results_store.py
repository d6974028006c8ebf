"""benchmarks/results_store.py: what the figures' tables need of finished
runs and tunings, kept without checkpoints, and put back so that another
machine reads the finished runs and continues the tunings."""
from __future__ import annotations

import json

import pytest

from commands import call
from paths import benchmark_module
from evolution import tune as tune_module
from evolution.loop.outputs import run_complete
from evolution.tune_storage import StudyLock

TASK = ["--stage", "gen:easy:0-3", "--validation-stage", "gen:easy:2000-2005",
        "--population", "16", "--workers", "1"]


@pytest.fixture(scope="module")
def store_module():
    return benchmark_module("results_store")


def trials_of(out):
    import optuna

    study = optuna.load_study(study_name="tune", storage=f"sqlite:///{out / 'study.db'}")
    return study.get_trials()


def test_a_finished_run_is_kept_without_its_checkpoint_and_put_back(store_module, tmp_path):
    work, store = tmp_path / "work", tmp_path / "store"
    from evolution import run as run_command

    for name, frames in (("done", 6000), ("playing", 6000)):
        done = call(run_command.main, "--stage", "hillside", "--population", "6",
                    "--max-steps", "300", "--max-frames", str(frames), "--generations",
                    "1000", "--quiet", "--no-plots", "--out", work / "compare" / name)
        assert done.returncode == 0, done.stderr
    # A run still short of its budget is not kept.
    playing = work / "compare" / "playing"
    lines = (playing / "logbook.csv").read_text().splitlines()
    (playing / "logbook.csv").write_text("\n".join(lines[:-1]) + "\n")

    written = store_module.keep(work, store)
    kept = store / "compare" / "done"
    assert sorted(p.name for p in kept.iterdir()) == [
        "best.json", "config.json", "config.toml", "logbook.csv"]
    assert not (store / "compare" / "playing").exists()
    assert sorted(written) == sorted(kept.iterdir())
    assert store_module.keep(work, store) == []          # nothing changed, nothing written

    elsewhere = tmp_path / "elsewhere"
    store_module.restore(store, elsewhere)
    assert run_complete(elsewhere / "compare" / "done")
    assert (elsewhere / "compare" / "done" / "best.json").read_bytes() == \
        (work / "compare" / "done" / "best.json").read_bytes()


def test_a_study_is_kept_with_its_trials_in_play_queued_again(store_module, tmp_path,
                                                              monkeypatch):
    # A tuning with one trial being played (by a process still alive, for
    # the tuning on this machine) when its study is kept.
    monkeypatch.setattr(tune_module, "_RUNNING", {"other"})
    out = tmp_path / "work" / "tuning" / "tune-openai-es"
    out.mkdir(parents=True)
    lock = StudyLock(out)
    try:
        study = tune_module.open_study(out, "openai-es", 20000,
                                       tune_module.check_task("openai-es", TASK), 0, lock)
        trial, _ = tune_module.draw(study, out, lock, 1,
                                    tune_module.get_strategy("openai-es").tuning, 0, "other")
    finally:
        lock.close()
    store = tmp_path / "store"
    store_module.keep(tmp_path / "work", store)
    # The study kept is unchanged where it is played.
    assert [t.state.name for t in trials_of(out)] == ["RUNNING"]
    kept = trials_of(store / "tuning" / "tune-openai-es")
    assert [t.state.name for t in kept] == ["FAIL", "WAITING"]
    assert kept[1].system_attrs["fixed_params"] == trial.params

    # Another machine plays the trial again, with its settings.
    elsewhere = tmp_path / "elsewhere"
    store_module.restore(store, elsewhere)
    monkeypatch.setattr(tune_module, "_RUNNING", set())
    done = call(tune_module.main, "--method", "openai-es", "--trials", "1", "--frames",
                "20000", "--out", elsewhere / "tuning" / "tune-openai-es", "--", *TASK)
    assert done.returncode == 0, done.stderr
    complete = [t for t in trials_of(elsewhere / "tuning" / "tune-openai-es")
                if t.state.name == "COMPLETE"]
    assert [t.params for t in complete] == [trial.params]
    best = json.loads((elsewhere / "tuning" / "tune-openai-es" / "best.json").read_text())
    assert store_module.keep(elsewhere, store)              # the study and best.json
    assert json.loads((store / "tuning" / "tune-openai-es" / "best.json").read_text()) == best

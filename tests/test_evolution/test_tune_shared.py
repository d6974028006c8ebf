"""Several `evolution.tune` processes on one --out: started together on a
new folder they make one study, and exactly --trials trials complete in
all, each with settings of its own."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from commands import call
from evolution import tune as tune_module
from evolution.tune_storage import StudyLock

TASK = ["--stage", "gen:easy:0-3", "--validation-stage", "gen:easy:2000-2005",
        "--population", "16", "--workers", "1"]


def trials_of(out: Path) -> list:
    import optuna

    study = optuna.load_study(study_name="tune", storage=f"sqlite:///{out / 'study.db'}")
    return study.get_trials()


@pytest.mark.slow
def test_processes_started_together_share_one_study_and_play_exactly_n_trials(tmp_path):
    out = tmp_path / "shared"
    line = [sys.executable, "-m", "evolution.tune", "--method", "openai-es", "--trials",
            "4", "--frames", "20000", "--out", str(out), "--", *TASK]
    procs = [subprocess.Popen(line, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    try:
        # Generous: a first start on a busy machine compiles the engine.
        ended = [p.communicate(timeout=900) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for p, (stdout, stderr) in zip(procs, ended):
        assert p.returncode == 0, stderr
        assert stderr == ""
    trials = trials_of(out)
    assert [t.state.name for t in trials] == ["COMPLETE"] * 4
    assert len({json.dumps(t.params, sort_keys=True) for t in trials}) == 4
    assert sorted(p.name for p in (out / "trials").iterdir()) == [
        "0000", "0001", "0002", "0003"]
    # Every trial printed once, by the process that played it.
    played = [ln for stdout, _ in ended for ln in stdout.splitlines()
              if ln.startswith("trial ")]
    assert sorted(ln.split()[1] for ln in played) == ["1/4", "2/4", "3/4", "4/4"]


def test_trials_being_played_count_and_are_drawn_apart(tmp_path, monkeypatch):
    # Two tunings' draws, in one process: a trial drawn while another is
    # being played is the next of the --trials and has its own settings;
    # none is drawn once --trials are being played.
    monkeypatch.setattr(tune_module, "_RUNNING", {"a", "b"})
    out = tmp_path / "draws"
    base = tune_module.check_task("openai-es", TASK)
    out.mkdir()
    lock = StudyLock(out)
    try:
        study = tune_module.open_study(out, "openai-es", 20000, base, 0, lock)
        tuning = tune_module.get_strategy("openai-es").tuning
        first, second = (tune_module.draw(study, out, lock, 2, tuning, 0, token)
                         for token in ("a", "b"))
        assert (first[1], second[1]) == (0, 1)
        assert first[0].params != second[0].params
        assert tune_module.draw(study, out, lock, 2, tuning, 0, "a") is None
        # The first ended, the second is still played: still none to draw.
        study.tell(first[0], 0.5)
        assert tune_module.draw(study, out, lock, 2, tuning, 0, "a") is None
        # Once a third is asked for, it is drawn from its own seed, as the
        # third trial of a single process.
        third = tune_module.draw(study, out, lock, 3, tuning, 0, "a")
        assert third[1] == 2
    finally:
        lock.close()
    alone = tmp_path / "alone"
    done = call(tune_module.main, "--method", "openai-es", "--trials", "3", "--frames",
                "20000", "--out", alone, "--", *TASK)
    assert done.returncode == 0, done.stderr
    assert [t.params for t in trials_of(alone)] == [
        first[0].params, second[0].params, third[0].params]


def test_a_process_finding_every_trial_being_played_says_so_and_ends(tmp_path, monkeypatch):
    monkeypatch.setattr(tune_module, "_RUNNING", {"other"})
    out = tmp_path / "all-played"
    out.mkdir()
    lock = StudyLock(out)
    try:
        study = tune_module.open_study(out, "openai-es", 20000,
                                       tune_module.check_task("openai-es", TASK), 0, lock)
        tune_module.draw(study, out, lock, 1, tune_module.get_strategy("openai-es").tuning,
                         0, "other")
    finally:
        lock.close()
    done = call(tune_module.main, "--method", "openai-es", "--trials", "1", "--frames",
                "20000", "--out", out, "--", *TASK)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.startswith("no trial complete yet: all 1 of --trials are being played")
    assert not (out / "trials").exists()

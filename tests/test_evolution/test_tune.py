"""`python -m evolution.tune`: Optuna studies of a method's own settings,
reproducible from their seed, resumed from their SQLite file after a kill,
scored on validation stages and never on test stages; the settings file
it writes and `evolution.run --settings`."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from commands import call, one_line
from evolution import tune as tune_module
from evolution.cli.settings_file import expand_settings, read_settings, write_settings

TASK = ["--stage", "gen:easy:0-3", "--validation-stage", "gen:easy:2000-2005",
        "--population", "16", "--workers", "1"]


def completed(out: Path) -> list[tuple[dict, float]]:
    import optuna
    from optuna.trial import TrialState

    study = optuna.load_study(study_name="tune", storage=f"sqlite:///{out / 'study.db'}")
    trials = sorted(study.get_trials(states=(TrialState.COMPLETE,)),
                    key=lambda t: t.datetime_complete)
    return [(t.params, t.value) for t in trials]


@pytest.fixture(scope="module")
def straight(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tune") / "straight"
    done = call(tune_module.main, "--method", "openai-es", "--trials", "3", "--frames",
                "150000", "--out", out, "--", *TASK)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 4       # one line per trial, then the best
    return out


def test_the_same_study_with_the_same_seed_gives_the_same_trials(straight, tmp_path):
    again = tmp_path / "again"
    assert call(tune_module.main, "--method", "openai-es", "--trials", "3", "--frames",
                "150000", "--out", again, "--", *TASK).returncode == 0
    assert completed(again) == completed(straight)
    assert len({json.dumps(p, sort_keys=True) for p, _ in completed(straight)}) == 3
    other = tmp_path / "other-seed"
    assert call(tune_module.main, "--method", "openai-es", "--trials", "1", "--frames",
                "150000", "--out", other, "--seed", "1", "--", *TASK).returncode == 0
    assert completed(other)[0] != completed(straight)[0]


def test_a_stopped_tuning_goes_on_to_the_same_trials(straight, tmp_path):
    out = tmp_path / "stopped"
    args = ["--method", "openai-es", "--frames", "150000", "--out", out, "--", *TASK]
    assert call(tune_module.main, "--trials", "1", *args).returncode == 0
    assert call(tune_module.main, "--trials", "3", *args).returncode == 0
    assert completed(out) == completed(straight)
    # Nothing more to do: the best is printed again.
    done = call(tune_module.main, "--trials", "3", *args)
    assert done.returncode == 0 and done.stdout.startswith("best settings")


@pytest.mark.slow
def test_a_killed_tuning_resumes_from_its_study_file(tmp_path):
    out = tmp_path / "killed"
    line = [sys.executable, "-m", "evolution.tune", "--method", "cmaes", "--trials", "3",
            "--frames", "1500000", "--out", str(out), "--", *TASK]
    proc = subprocess.Popen(line, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    # Killed during its second trial.
    while not (out / "trials" / "0001").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert len(completed(out)) == 1
    done = subprocess.run(line, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "(#2)" in done.stdout              # the killed trial, played again
    straight = tmp_path / "straight"
    at = line.index(str(out))
    assert subprocess.run([*line[:at], str(straight), *line[at + 1:]],
                          capture_output=True).returncode == 0
    assert completed(out) == completed(straight)


def test_trials_play_no_test_stage(tmp_path):
    out = tmp_path / "no-test"
    done = call(tune_module.main, "--method", "cmaes", "--trials", "2", "--frames", "100000",
                "--out", out, "--", *TASK, "--test-stage", "gen:hard:7000-7001")
    assert done.returncode == 0, done.stderr
    for run in (out / "trials").iterdir():
        config = json.loads((run / "config.json").read_text())
        assert config["settings"]["test_stages"] == []
        assert "test_goals" not in (run / "logbook.csv").read_text().splitlines()[1]


def test_refusals_are_one_line(tmp_path, monkeypatch):
    out = tmp_path / "refused"
    done = call(tune_module.main, "--method", "cmaes", "--trials", "2", "--frames", "1000",
                "--out", out, "--", "--stage", "gen:easy:0-3")
    assert "no --validation-stage" in one_line(done)
    done = call(tune_module.main, "--method", "cmaes", "--trials", "2", "--frames", "1000",
                "--out", out, "--", *TASK, "--max-frames", "5")
    assert "--max-frames are set by the tuning" in one_line(done)
    entry = tune_module.get_strategy("cmaes")
    from dataclasses import replace
    from evolution.strategies import registry as strategy

    monkeypatch.setitem(strategy.STRATEGIES, "cmaes", replace(entry, tuning=()))
    done = call(tune_module.main, "--method", "cmaes", "--trials", "2", "--frames", "1000",
                "--out", out, "--", *TASK)
    assert "--method cmaes has no tunable settings" in one_line(done)
    assert not (out / "study.db").exists()


def test_another_task_in_the_same_directory_is_refused(straight):
    done = call(tune_module.main, "--method", "openai-es", "--trials", "3", "--frames",
                "150000", "--out", straight, "--", *TASK[:-2], "--population", "20")
    assert "population 20 (recorded: 16)" in one_line(done)
    # The number of workers changes no result: accepted.
    done = call(tune_module.main, "--method", "openai-es", "--trials", "3", "--frames",
                "150000", "--out", straight, "--", *TASK[:-1], "2")
    assert done.returncode == 0, done.stderr


def test_the_task_s_values_of_tuned_settings_make_no_other_tuning(straight, tmp_path):
    # Every trial sets the learning rate itself, so a task that gives one
    # (or a method whose default changed) is the same tuning.
    done = call(tune_module.main, "--method", "openai-es", "--trials", "3", "--frames",
                "150000", "--out", straight, "--", *TASK, "--es-lr", "0.3")
    assert done.returncode == 0, done.stderr
    # A study recorded with the task's values of its tuned settings in its
    # identity (as studies were) is still this tuning.
    import optuna

    study = optuna.load_study(study_name="tune", storage=f"sqlite:///{straight / 'study.db'}")
    held = study.user_attrs["identity"]
    copy = tmp_path / "older"
    copy.mkdir()
    (copy / "study.db").write_bytes((straight / "study.db").read_bytes())
    older = optuna.load_study(study_name="tune", storage=f"sqlite:///{copy / 'study.db'}")
    task = dict(held["task"], options={"es_sigma": 0.1, "es_lr": 0.1, "es_weight_decay": 0.005})
    older.set_user_attr("identity", dict(held, task=task))
    done = call(tune_module.main, "--method", "openai-es", "--trials", "3", "--frames",
                "150000", "--out", copy, "--", *TASK)
    assert done.returncode == 0, done.stderr
    # A setting no trial sets still makes another tuning.
    done = call(tune_module.main, "--method", "openai-es", "--trials", "3", "--frames",
                "150000", "--out", copy, "--", *TASK, "--max-steps", "500")
    assert "max_steps 500" in one_line(done)


def test_the_settings_file_equals_the_settings_typed(straight, tmp_path):
    from evolution.run import main as run

    method, settings = read_settings(straight / "best.json")
    assert method == "openai-es" and set(settings) == {"es_sigma", "es_lr", "es_weight_decay"}
    common = ["--stage", "gen:easy:0-3", "--generations", "3", "--population", "16",
              "--no-plots", "--quiet", "--workers", "1"]
    assert call(run, "--settings", straight / "best.json", *common, "--out",
                tmp_path / "file").returncode == 0
    typed = [w for k, v in settings.items() for w in ("--" + k.replace("_", "-"), repr(v))]
    assert call(run, "--algorithm", "openai-es", *typed, *common, "--out",
                tmp_path / "typed").returncode == 0
    assert (tmp_path / "file" / "best.json").read_bytes() == \
        (tmp_path / "typed" / "best.json").read_bytes()
    file_config = json.loads((tmp_path / "file" / "config.json").read_text())["settings"]
    assert file_config["options"] == settings


def test_settings_expand_where_given_and_refuse_another_method(tmp_path):
    path = tmp_path / "s.json"
    write_settings(path, "openai-es", {"es_lr": 0.25, "es_sigma": 0.5})
    assert expand_settings(["--settings", str(path), "--es-lr", "0.5"]) == [
        "--algorithm", "openai-es", "--es-lr", "0.25", "--es-sigma", "0.5", "--es-lr", "0.5"]
    with pytest.raises(ValueError, match="of --algorithm openai-es, not of --algorithm ga"):
        expand_settings(["--algorithm", "ga", f"--settings={path}"])
    path.write_text('{"format": "speednik-evolve-settings", "method": "ga", '
                    '"settings": {"mut_sigma": "big"}}')
    with pytest.raises(ValueError, match="mut_sigma must be a number"):
        read_settings(path)

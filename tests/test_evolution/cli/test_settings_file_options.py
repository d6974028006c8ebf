"""A settings file sets only what its method declares (its own settings
and its tuning space, in the strategy registry), each of its kind. A run
option (out, stage, seed), another method's setting, an unknown key or a
value of the wrong kind is refused with one line naming it and what is
accepted, before any run starts, by `evolution.run --settings` and by
`evolution.compare --settings`, and nothing is written."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evolution import compare
from evolution.cli.settings_file import (SETTINGS_FORMAT, SettingsFileError, expand_settings,
                                         read_settings)
from evolution.strategies.registry import STRATEGIES
from paths import REPO_ROOT

FAST = ["--population", "6", "--max-steps", "100", "--workers", "1", "--quiet",
        "--generations", "1", "--no-plots"]


def settings_file(tmp_path: Path, method: str, settings: dict) -> Path:
    path = tmp_path / "best.json"
    path.write_text(json.dumps({"format": SETTINGS_FORMAT, "method": method,
                                "settings": settings}))
    return path


def written(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


REFUSED = [
    ("ga", {"out": 3}, "'out' is not a setting of --algorithm ga"),
    ("ga", {"stage": 1}, "'stage' is not a setting of --algorithm ga"),
    ("ga", {"seed": 7}, "'seed' is not a setting of --algorithm ga"),
    ("ga", {"population": 20}, "'population' is not a setting of --algorithm ga"),
    ("openai-es", {"es_lr": 0.25, "qd_bins": 8},
     "'qd_bins' is not a setting of --algorithm openai-es"),
    ("cmaes", {"no_such_thing": 1.0}, "'no_such_thing' is not a setting of --algorithm cmaes"),
    ("ga", {"tournament": 2.5}, "tournament must be a whole number"),
    ("ga", {"mut_sigma": "big"}, "mut_sigma must be a number"),
    ("ga", {"cx_prob": True}, "cx_prob must be a number"),
    ("ga", {"cx_prob": 2.0}, "cx_prob must be a number from 0 to 1, got 2.0"),
    ("ga", {"mut_sigma": [0.1]}, "mut_sigma must be a number"),
    ("cmaes", {"population": 20.5}, "population must be a whole number, got 20.5"),
    ("cmaes", {"population": "many"}, "population must be a whole number"),
    ("no-such-method", {}, "unknown algorithm 'no-such-method'; accepted: ga, cmaes"),
]


@pytest.mark.parametrize("method, settings, expected", REFUSED)
def test_read_settings_refuses_what_the_method_does_not_declare(tmp_path, method, settings,
                                                                expected):
    path = settings_file(tmp_path, method, settings)
    with pytest.raises(SettingsFileError) as refused:
        read_settings(path)
    message = str(refused.value)
    assert message.startswith(f"{path}: ") and expected in message
    assert "\n" not in message
    if "is not a setting" in expected:
        accepted = message.split("accepted: ", 1)[1].split(", ")
        entry = STRATEGIES[method]
        assert set(accepted) == ({s.name for s in entry.settings}
                                 | {t.name for t in entry.tuning})


@pytest.mark.parametrize("method", list(STRATEGIES))
def test_every_declared_setting_and_tuned_number_is_accepted(tmp_path, method):
    entry = STRATEGIES[method]
    settings = {t.name: (int(t.low) if t.whole else t.low) for t in entry.tuning}
    settings.update({s.name: (int(s.default) if s.whole else s.default)
                     for s in entry.settings})
    assert read_settings(settings_file(tmp_path, method, settings)) == (method, settings)


def test_an_accepted_file_still_expands_where_given(tmp_path):
    path = settings_file(tmp_path, "cmaes", {"init_sigma": 0.5, "population": 20})
    assert expand_settings(["--settings", str(path), "--seed", "1"]) == [
        "--algorithm", "cmaes", "--init-sigma", "0.5", "--population", "20", "--seed", "1"]


@pytest.mark.parametrize("settings, expected", [
    ({"out": 3}, "'out' is not a setting of --algorithm ga"),
    ({"stage": 1}, "'stage' is not a setting of --algorithm ga"),
    ({"mut_sigma": "big"}, "mut_sigma must be a number"),
])
def test_run_refuses_a_settings_file_before_the_run_starts(tmp_path, settings, expected):
    here = tmp_path / "here"
    here.mkdir()
    path = settings_file(tmp_path, "ga", settings)
    proc = subprocess.run(
        [sys.executable, "-m", "evolution.run", "--settings", str(path), *FAST,
         "--out", str(here / "run")],
        capture_output=True, text=True, cwd=here,
        env=dict(os.environ, PYTHONPATH=str(REPO_ROOT)), timeout=180)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert lines[0].startswith("evolution.run: error: ") and expected in lines[0]
    assert written(here) == set()


@pytest.mark.parametrize("settings, expected", [
    ({"out": 3}, "'out' is not a setting of --algorithm ga"),
    ({"seed": 1}, "'seed' is not a setting of --algorithm ga"),
    ({"tournament": 2.5}, "tournament must be a whole number"),
])
def test_compare_refuses_a_settings_file_before_any_run(tmp_path, capsys, settings,
                                                        expected):
    here = tmp_path / "here"
    here.mkdir()
    path = settings_file(tmp_path, "ga", settings)
    cwd = Path.cwd()
    os.chdir(here)
    try:
        with pytest.raises(SystemExit) as stop:
            compare.main(["--methods", "ga", "--seeds", "0", "--frames", "2000",
                          "--out", str(here / "cmp"), "--settings", str(path), "--",
                          "--stage", "hillside", "--population", "6", "--max-steps", "100",
                          "--workers", "1"])
    finally:
        os.chdir(cwd)
    assert stop.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert expected in lines[0]
    assert written(here) == set()

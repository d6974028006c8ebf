"""The command line's strategy options and validation stages: given,
recorded, checked in one line, and compared on --resume."""
from __future__ import annotations

import json

import pytest

from evolution import run
from evolution.strategies.registry import get_strategy

FAST = ["--population", "6", "--max-steps", "300", "--workers", "1", "--quiet",
        "--stage", "hillside", "--no-plots"]


def one_line_error(capsys, argv) -> str:
    assert run.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0]
    return err[0]


def test_an_es_run_records_its_options_and_resumes_with_them(tmp_path, capsys):
    out = tmp_path / "es"
    argv = [*FAST, "--algorithm", "openai-es", "--es-lr", "0.2",
            "--validation-stage", "gen:easy:7", "--out", str(out)]
    assert run.main([*argv, "--generations", "1"]) == 0
    config = json.loads((out / "config.json").read_text())["settings"]
    defaults = {s.name: s.default for s in get_strategy("openai-es").settings}
    assert config["options"] == {**defaults, "es_lr": 0.2}
    assert config["validation_stages"] == ["gen:easy:7"]
    # The same line again with --resume (a requeued job) continues.
    assert run.main([*argv, "--generations", "2", "--resume", str(out)]) == 0
    assert json.loads((out / "best.json").read_text())["found_in_generation"] <= 2
    line = one_line_error(capsys, ["--resume", str(out), "--es-lr", "0.3",
                                   "--generations", "3"])
    assert "--es-lr 0.3 (recorded: 0.2)" in line


def test_options_of_another_strategy_are_one_line(tmp_path, capsys):
    line = one_line_error(capsys, [*FAST, "--es-sigma", "0.5", "--out", str(tmp_path / "x")])
    assert ("--es-sigma (noise standard deviation) is a setting of --algorithm openai-es, "
            "not of --algorithm ga" in line)
    line = one_line_error(capsys, [*FAST, "--algorithm", "openai-es", "--population", "7",
                                   "--out", str(tmp_path / "y")])
    assert "multiple of 2, got 7" in line
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


@pytest.mark.parametrize("stage", ["hillside", "gen:easy:40"])
def test_validation_stages_may_not_be_training_or_test_stages(tmp_path, capsys, stage):
    line = one_line_error(capsys, [*FAST, "--test-stage", "gen:easy:40",
                                   "--validation-stage", stage, "--out", str(tmp_path / "v")])
    assert f"'{stage}' is both a" in line

"""A stall limit of the search's own (`training_stall_frames`): its
episodes stall later, validation and test keep `stall_frames`, best.json
says which limit its fitness was measured at, and replay plays it so."""
from __future__ import annotations

import json

import numpy as np
import pytest

from commands import evolution_run, one_line
from evolution.cli.run_options import build_parser, config_from_args
from evolution.config import ConfigError, EvolutionConfig
from evolution.config_file import ConfigFileError, read_config_file
from evolution.loop import evaluate
from evolution.loop.evaluate import GenomeEvaluator
from evolution.loop.evolve import evolve
from runners import replay
from runners.genome_file import GenomeFileError, load_genome_file

TRAINING, VALIDATION, TEST = ("gen:easy:0-2",), ("gen:easy:20",), ("gen:easy:30",)


def config(**changes) -> EvolutionConfig:
    settings = dict(stages=TRAINING, population=6, generations=2, seed=1, max_steps=900,
                    workers=1, observation="reach", policy="mlp", hidden=4,
                    algorithm="cmaes", action_repeat=2, stall_frames=60,
                    training_stall_frames=150, validation_stages=VALIDATION,
                    test_stages=TEST, test_every=1)
    settings.update(changes)
    return EvolutionConfig(**settings)


def test_a_genome_that_stands_still_stalls_at_the_limit_of_what_it_is_scored_for():
    # All-zero weights: the MLP picks the first action, noop, every time.
    c = config()
    standing = np.zeros(c.genome_size())
    evaluator = GenomeEvaluator(c)
    (_, trained), = evaluator([standing], ["hillside"], training=True)
    (_, judged), = evaluator([standing], ["hillside"])
    assert trained["results"]["hillside"]["done_reason"] == "stalled"
    assert trained["results"]["hillside"]["steps"] == 150
    assert judged["results"]["hillside"]["steps"] == 60
    # Without a limit of its own the search stalls as validation does.
    (_, plain), = GenomeEvaluator(config(training_stall_frames=None))(
        [standing], ["hillside"], training=True)
    assert plain["results"]["hillside"]["steps"] == 60


def test_the_search_plays_at_its_own_limit_and_validation_and_test_at_stall_frames(
        tmp_path, monkeypatch):
    limits: dict[str, set] = {"training": set(), "validation": set(), "test": set()}
    real = evaluate.run_episodes

    def spy(items, runner_config, **kwargs):
        stages = {stage for _, stage in items}
        kind = ("validation" if stages <= {"gen:easy:20"} else
                "test" if stages <= {"gen:easy:30"} else "training")
        limits[kind].add(runner_config.stall_frames)
        return real(items, runner_config, **kwargs)

    monkeypatch.setattr(evaluate, "run_episodes", spy)
    evolve(config(), tmp_path / "run")
    assert limits == {"training": {150}, "validation": {60}, "test": {60}}


def test_best_json_records_both_limits_and_replays_its_fitness_at_the_search_s(
        tmp_path, capsys):
    evolve(config(), tmp_path / "run")
    best = json.loads((tmp_path / "run" / "best.json").read_text())
    assert (best["stall_frames"], best["training_stall_frames"]) == (60, 150)
    assert load_genome_file(tmp_path / "run").training_stall_frames == 150
    capsys.readouterr()
    assert replay.main([str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    assert "stall_frames 150 (the search's own limit" in out and ": matches" in out
    # Other stages are played as validation and test play them.
    assert replay.main([str(tmp_path / "run"), "--stage", "gen:easy:20"]) == 0
    assert "stall_frames 60, deciding" in capsys.readouterr().out
    # Another limit asked for is played, and its fitness is not compared.
    assert replay.main([str(tmp_path / "run"), "--stall-frames", "60"]) == 0
    assert "not comparable with the recorded one: --stall-frames 60 differs from the 150" \
        in capsys.readouterr().out


def test_a_run_without_one_writes_no_such_key(tmp_path):
    evolve(config(training_stall_frames=None, generations=1), tmp_path / "run")
    assert "training_stall_frames" not in json.loads(
        (tmp_path / "run" / "best.json").read_text())
    assert load_genome_file(tmp_path / "run").training_stall_frames is None


@pytest.mark.parametrize("value", ["many", 0, 1.5, True])
def test_a_genome_file_with_a_bad_training_limit_is_refused(tmp_path, value):
    evolve(config(generations=0), tmp_path / "run")
    best = tmp_path / "run" / "best.json"
    data = json.loads(best.read_text())
    data["training_stall_frames"] = value
    best.write_text(json.dumps(data))
    with pytest.raises(GenomeFileError, match="'training_stall_frames' is .*accepted: a "
                                              "whole number >= 1, or null"):
        load_genome_file(best)


@pytest.mark.parametrize("changes, message", [
    (dict(training_stall_frames=60), "must be longer than stall_frames \\(60\\)"),
    (dict(training_stall_frames=30), "must be longer than stall_frames"),
    (dict(training_stall_frames=0), "must be a whole number >= 1"),
    (dict(training_stall_frames=2.5), "must be a whole number >= 1"),
    (dict(stall_frames=None), "stall_frames is never"),
])
def test_a_training_limit_that_cannot_lengthen_the_stall_limit_is_refused(changes, message):
    with pytest.raises(ConfigError, match=message) as caught:
        config(**changes)
    assert "accepted" in str(caught.value) or "or none" in str(caught.value)


def test_the_setting_is_a_task_key_of_a_file_and_an_option_of_the_command_line(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('[task]\nstages = ["gen:easy:0-1"]\nstall_frames = 240\n'
                    'training_stall_frames = 480\n')
    assert read_config_file(path)["training_stall_frames"] == 480

    def config_of(*argv):
        return config_from_args(build_parser().parse_args([str(a) for a in argv]))

    assert config_of("--config", path).training_stall() == 480
    assert config_of("--config", path, "--training-stall-frames", "600").training_stall() == 600
    assert config_of("--stage", "hillside").training_stall() == 240
    bad = tmp_path / "bad.toml"
    bad.write_text('[task]\ntraining_stall_frames = "long"\n')
    with pytest.raises(ConfigFileError, match="training_stall_frames in \\[task\\]"):
        read_config_file(bad)


def test_the_command_line_refuses_a_short_one_on_one_line(tmp_path):
    proc = evolution_run("--stage", "hillside", "--training-stall-frames", "100",
                         "--out", tmp_path / "run")
    assert "must be longer than stall_frames (240)" in one_line(proc)
    assert not (tmp_path / "run").exists()

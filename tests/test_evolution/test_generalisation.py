"""Training on generated sets, drawing stages per generation, and held-out
testing during evolution."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from commands import evolution_run, replay
from evolution.config import ConfigError, EvolutionConfig
from evolution.loop.stage_draw import uniform_draw
from evolution.loop.evolve import evolve
from evolution.loop.outputs import read_logbook, read_logbook_columns
from evolution.cli.run_stages import check_stages_load

TRAINING_COLUMNS = ("gen", "evals", "min", "mean", "max", "std", "best_progress",
                    "completions")
SMALL = dict(population=8, max_steps=500, stall_frames=120, stages=("gen:medium:0-3",),
             observation="terrain", checkpoint_every=1, seed=5, workers=2, generations=3)


def small(**changes) -> EvolutionConfig:
    return EvolutionConfig(**{**SMALL, **changes})


def training(rows):
    return [{k: r[k] for k in TRAINING_COLUMNS} for r in rows]


def best(run_dir: Path) -> dict:
    return json.loads((run_dir / "best.json").read_text())


def test_test_stages_never_change_the_evolution(tmp_path):
    plain = evolve(small(), tmp_path / "plain")
    tested = evolve(small(test_stages=("gen:medium:100-105",), test_every=2),
                    tmp_path / "tested")
    assert training(plain.logbook) == training(tested.logbook)
    assert best(tmp_path / "plain")["genome"] == best(tmp_path / "tested")["genome"]
    # The test ran at generations 0, 2 and the last (3), and only then.
    tests = [r["test_goals"] for r in tested.logbook]
    assert [t is not None for t in tests] == [True, False, True, True]
    assert all(r["test_goals"] is None for r in plain.logbook)
    held = best(tmp_path / "tested")["held_out"]
    assert held["count"] == 6 and held["stages"] == ["gen:medium:100-105"]
    assert held["by_set"] == {"gen:medium:100-105": [held["goals"], 6]}
    assert sorted(held["results"]) == [f"gen:medium:{s}" for s in range(100, 106)]
    assert held["goals"] == tested.logbook[-1]["test_goals"] == tested.held_out["goals"]
    # The logbook on disk keeps the empty test cells as empty.
    assert read_logbook(tmp_path / "tested") == [
        {**r, "seconds": pytest.approx(r["seconds"], abs=1e-3)} for r in tested.logbook]
    assert read_logbook_columns(tmp_path / "tested")["test_goals"][1] != \
        read_logbook_columns(tmp_path / "tested")["test_goals"][1]   # NaN


def test_stage_draws_are_a_function_of_seed_and_generation():
    config = small(stages=("gen:hard:0-31",), stages_per_generation=4)
    draws = [uniform_draw(config, g) for g in range(6)]
    assert all(len(d) == 4 and len(set(d)) == 4 for d in draws)
    assert len({tuple(d) for d in draws}) > 1
    assert draws == [uniform_draw(config, g) for g in range(6)]
    assert uniform_draw(small(stages=("gen:hard:0-31",)), 3) == \
        [f"gen:hard:{s}" for s in range(32)]


def test_a_run_on_drawn_stages_is_reproducible_and_resumes_exactly(tmp_path):
    config = small(stages=("gen:medium:0-7",), stages_per_generation=3, generations=4)
    a = evolve(config, tmp_path / "a")
    b = evolve(config, tmp_path / "b")
    assert training(a.logbook) == training(b.logbook)
    evolve(config.replace(generations=2), tmp_path / "split")
    resumed = evolve(config, tmp_path / "split", resume=True)
    assert training(resumed.logbook) == training(a.logbook)
    assert best(tmp_path / "split")["genome"] == best(tmp_path / "a")["genome"]
    # Each generation scored all its genomes anew on the stages it drew,
    # elites included, so the hall of fame's fitness is of one draw.
    ckpt_best = best(tmp_path / "a")
    scored = [r["total_reward"] for r in ckpt_best["results"].values()]
    assert ckpt_best["fitness"] == pytest.approx(sum(scored) / len(scored), abs=1e-12)
    record = best(tmp_path / "a")
    assert len(record["fitness_stages"]) == 3
    # Replaying the genome checks the fitness on the stages it was scored on.
    out = replay(tmp_path / "a")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "over 3 stages" in out.stdout and "matches" in out.stdout
    assert "completed" in out.stdout


@pytest.mark.parametrize("changes, words", [
    (dict(test_stages=("gen:medium:3-5",)), "both a training and a test stage"),
    (dict(stages_per_generation=5), "exceeds the 4 training stage(s)"),
    (dict(stages_per_generation=0), "stages_per_generation must be"),
    (dict(test_every=0), "test_every must be"),
    (dict(stage_draw="hardest"), "accepted: uniform, failures"),
    (dict(stage_draw="failures"), "needs stages_per_generation"),
    (dict(test_stages=("gen:medium:9-1",)), "runs backwards"),
])
def test_bad_generalisation_settings_are_named(changes, words):
    with pytest.raises(ConfigError, match=None) as info:
        small(**changes)
    assert words in str(info.value)


def test_the_cli_reports_held_out_results(tmp_path):
    out = evolution_run(
        "--stage", "gen:easy:0-1", "--test-stage", "gen:easy:50-52", "gen:medium:60",
        "--test-every", "1", "--population", "6", "--generations", "1", "--max-steps",
        "400", "--observation", "terrain", "--no-plots", "--out", tmp_path / "run")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("held-out ") == 2
    assert "held-out: completed" in out.stdout and "of 4 test stages" in out.stdout
    assert "  gen:easy:50-52: " in out.stdout and "  gen:medium:60: " in out.stdout
    settings = json.loads((tmp_path / "run" / "config.json").read_text())["settings"]
    assert settings["stages"] == ["gen:easy:0-1"]
    assert settings["test_stages"] == ["gen:easy:50-52", "gen:medium:60"]
    resumed = evolution_run("--resume", tmp_path / "run", "--generations", "2",
                            "--no-plots")
    assert resumed.returncode == 0, resumed.stderr
    assert "held-out: completed" in resumed.stdout


def test_a_run_on_drawn_stages_stopped_mid_generation_resumes_exactly(tmp_path):
    # Tested every generation: the test runs after the generation's stages
    # were drawn and the hall of fame scored anew on them, so stopping
    # there stops a generation whose hall of fame has changed.
    config = small(stages=("gen:easy:0-5",), stages_per_generation=2, generations=5,
                   engine="python", workers=1, max_steps=300,
                   test_stages=("gen:easy:50",), test_every=1)
    straight = evolve(config, tmp_path / "straight")
    calls = {"training": 0}

    def stop_after_generation_3_is_scored(fn, jobs):
        testing = all(job[4] == "gen:easy:50" for job in jobs)
        if calls["training"] == 4:   # generation 3 scored: stop at the next call
            raise KeyboardInterrupt
        calls["training"] += not testing
        return [fn(job) for job in jobs]

    stopped = evolve(config, tmp_path / "split", map_fn=stop_after_generation_3_is_scored)
    assert stopped.interrupted
    resumed = evolve(config, tmp_path / "split", resume=True)
    assert training(resumed.logbook) == training(straight.logbook)
    assert best(tmp_path / "split") == best(tmp_path / "straight")


@pytest.mark.parametrize("checked_first", [False, True])
def test_a_run_builds_each_of_its_stages_once(tmp_path, monkeypatch, checked_first):
    """Training, drawn and test stages outnumber the cache of recent stages
    many times over, yet each is built once: the run keeps its own."""
    from collections import OrderedDict

    from speednik import stages

    monkeypatch.setattr(stages, "_KEPT", {})
    monkeypatch.setattr(stages, "_HOLDERS", {})
    monkeypatch.setattr(stages, "_RECENT", OrderedDict())
    monkeypatch.setattr(stages, "CACHE_SIZE", 2)
    built: list[str] = []
    real = stages.build_stage
    monkeypatch.setattr(stages, "build_stage",
                        lambda profile: built.append(profile.stage.name) or real(profile))
    config = small(stages=("gen:easy:7000-7011",), stages_per_generation=4,
                   test_stages=("gen:hard:7100-7109", "gen:medium:7200-7204"),
                   test_every=2, generations=4, population=4, workers=1,
                   max_steps=200, algorithm="cmaes")
    names = sorted(f"generated-{d}-{s}" for d, seeds in (
        ("easy", range(7000, 7012)), ("hard", range(7100, 7110)),
        ("medium", range(7200, 7205))) for s in seeds)
    kept = check_stages_load(config, quiet=True) if checked_first else None
    outcome = evolve(config, tmp_path / "run")
    assert sorted(built) == names
    assert outcome.held_out["count"] == 15
    if kept is not None:
        assert stages.kept_stage_count()[0] == 27
        kept.release()
    assert stages.kept_stage_count() == (0, 2)


def test_the_benchmark_s_help_says_whole_sentences():
    import subprocess
    import sys

    from paths import REPO_ROOT

    done = subprocess.run([sys.executable, str(REPO_ROOT / "benchmarks" / "generalization.py"),
                           "--help"], capture_output=True, text=True, check=True)
    # argparse wraps the text, also after a hyphen.
    description = done.stdout.split("\n\n")[1].replace("-\n", "-")
    assert " ".join(description.split()).endswith("hold-right and jump-runner baselines.")


def test_the_readme_shows_the_recipe_the_benchmark_runs():
    """The README's recipe, as its preset file and as the long command
    beside it, is the benchmark's recipe."""
    import re
    import shlex

    from evolution.cli.run_options import build_parser, config_from_args
    from paths import REPO_ROOT, benchmark_module

    bench = benchmark_module("generalization")
    text = (REPO_ROOT / "README.md").read_text()
    section = text[text.index("## Policies that play stages they have never seen"):]
    short, long = (shlex.split(block.replace("\\\n", " "))
                   for block in re.findall(r"```sh\n(.*?)```", section, re.S)[:2])
    for shown in (short, long):
        assert shown[:3] == [".venv/bin/python", "-m", "evolution.run"]
    assert "--config" in short

    def options(words):
        out, key = {}, None
        for w in words:
            if w.startswith("--"):
                key = w
                out[key] = []
            else:
                out[key].append(w)
        return out

    def config_of(words):
        return config_from_args(build_parser().parse_args(words))

    assert options(long[3:]) == options([*bench.RECIPE, "--seed", "0"])
    cwd = os.getcwd()
    try:
        os.chdir(REPO_ROOT)  # the README's paths are the repository's
        assert config_of(short[3:]) == config_of([*bench.RECIPE, "--seed", "0"])
    finally:
        os.chdir(cwd)


def test_the_benchmark_takes_seeds_as_numbers_and_ranges():
    import argparse
    from paths import benchmark_module

    module = benchmark_module("generalization")
    assert module.seeds_of("0-4") == [0, 1, 2, 3, 4]
    assert module.seeds_of("3") == [3]
    for bad in ("4-0", "x", "1-", "-2", "1-2-3"):
        with pytest.raises(argparse.ArgumentTypeError, match="0-4"):
            module.seeds_of(bad)


def test_the_benchmark_refuses_an_unknown_variant_on_one_line_naming_the_presets(capsys):
    from paths import benchmark_module

    module = benchmark_module("generalization")
    with pytest.raises(SystemExit) as done:
        module.main(["--variant", "turnbak", "--seeds", "0"])
    err = capsys.readouterr().err
    assert done.value.code == 2 and err.count("\n") == 1
    assert "'turnbak'" in err and "'recipe'" in err and "'reach'" in err

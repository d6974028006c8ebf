"""Evolution's guarantees, on small populations and few generations."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from commands import evolution_run, one_line
from evolution.loop.checkpoint import load_checkpoint
from evolution.config import ConfigError, EvolutionConfig
from evolution.loop.evolve import evolve
from evolution.loop.outputs import read_logbook
from runners import EpisodeRunner
from runners.linear import LinearPolicy, genome_size
from runners.result import ending
from paths import REPO_ROOT

ROOT = REPO_ROOT
SMALL = dict(population=8, max_steps=400, stall_frames=120, stages=("hillside",),
             observation="terrain", checkpoint_every=1, seed=3)


def small(**changes) -> EvolutionConfig:
    return EvolutionConfig(**{**SMALL, "generations": 3, "workers": 1, **changes})


def without_time(rows):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def best_genome(run_dir: Path) -> list[float]:
    return json.loads((run_dir / "best.json").read_text())["genome"]


def test_same_seed_same_result_with_one_or_two_workers(tmp_path):
    a = evolve(small(workers=1), tmp_path / "a")
    b = evolve(small(workers=2), tmp_path / "b")
    assert without_time(a.logbook) == without_time(b.logbook)
    assert best_genome(tmp_path / "a") == best_genome(tmp_path / "b")
    # And the logbook on disk is the one in memory.
    assert without_time(read_logbook(tmp_path / "a" / "logbook.csv")) == \
        without_time(a.logbook)


def test_both_engines_give_the_same_run(tmp_path):
    runs = {}
    for engine in ("python", "compiled"):
        for workers in (1, 2):
            name = f"{engine}-{workers}"
            out = evolve(small(engine=engine, workers=workers, stages=("hillside", "skybridge")),
                         tmp_path / name)
            runs[name] = (without_time(out.logbook), best_genome(tmp_path / name))
    first = runs["python-1"]
    assert all(run == first for run in runs.values())
    settings = json.loads((tmp_path / "compiled-1" / "config.json").read_text())["settings"]
    assert settings["engine"] == "compiled"


def test_a_run_resumed_on_the_other_engine_ends_the_same(tmp_path):
    straight = evolve(small(generations=4, engine="compiled"), tmp_path / "straight")
    evolve(small(generations=2, engine="python"), tmp_path / "split")
    resumed = evolve(small(generations=4, engine="compiled"), tmp_path / "split", resume=True)
    assert without_time(resumed.logbook) == without_time(straight.logbook)
    assert best_genome(tmp_path / "split") == best_genome(tmp_path / "straight")


def test_another_seed_gives_another_run(tmp_path):
    a = evolve(small(seed=1), tmp_path / "a")
    b = evolve(small(seed=2), tmp_path / "b")
    assert best_genome(tmp_path / "a") != best_genome(tmp_path / "b")
    assert without_time(a.logbook) != without_time(b.logbook)


def test_resumed_run_ends_like_the_uninterrupted_one(tmp_path):
    straight = evolve(small(generations=4), tmp_path / "straight")
    evolve(small(generations=2), tmp_path / "split")
    assert load_checkpoint(tmp_path / "split").generation == 2
    resumed = evolve(small(generations=4), tmp_path / "split", resume=True)
    assert without_time(resumed.logbook) == without_time(straight.logbook)
    assert best_genome(tmp_path / "split") == best_genome(tmp_path / "straight")


def test_best_json_replays_to_the_recorded_fitness(tmp_path):
    evolve(small(stages=("hillside", "skybridge")), tmp_path / "r")
    best = json.loads((tmp_path / "r" / "best.json").read_text())
    assert best["obs_dim"] == 28 and best["num_actions"] == 8
    assert len(best["genome"]) == genome_size(best["obs_dim"])
    rewards = []
    for stage in best["stages"]:
        runner = EpisodeRunner(stage, observation=best["observation"],
                               max_steps=best["max_steps"],
                               stall_frames=best["stall_frames"])
        result = runner.run_episode(LinearPolicy(best["genome"], best["observation"]))
        assert result.to_dict() == best["results"][stage]
        rewards.append(result.total_reward)
    assert float(np.mean(rewards)) == best["fitness"]


def test_fitness_improves_or_holds_with_elitism(tmp_path):
    out = evolve(small(generations=5), tmp_path / "e")
    best = [r["max"] for r in out.logbook]
    assert all(b2 >= b1 for b1, b2 in zip(best, best[1:]))
    assert best[-1] > best[0], "five generations find something better"


@pytest.mark.parametrize("changes, word", [
    ({"population": 1}, "population"),
    ({"options": {"elite": 8}}, "elite"),
    ({"options": {"elite": 3}}, "--hall-of-fame 3 or more"),
    ({"options": {"cx_prob": 1.5}}, "cx_prob"),
    ({"options": {"mut_sigma": 0.0}}, "mut_sigma"),
    ({"options": {"tournament": 99}}, "--tournament 99 cannot exceed the population"),
    ({"hall_of_fame": 0}, "hall_of_fame"),
    ({"stages": ("nowhere",)}, "nowhere"),
    ({"observation": "pixels"}, "pixels"),
    ({"stages": ("hillside", "hillside")}, "twice"),
])
def test_bad_settings_are_named(changes, word):
    with pytest.raises(ConfigError, match=word):
        small(**changes)


@pytest.mark.parametrize("args, word", [
    (["--stage", "moonbase"], "moonbase"),
    (["--observation", "pixels"], "pixels"),
    (["--population", "0"], "population"),
    (["--generations", "-3"], "generations"),
    (["--resume", "/nonexistent/run"], "/nonexistent/run"),
    (["--tournament", "abc"], "--tournament"),
    (["--mut-prob", "2"], "mut_prob"),
    (["--action-repeat", "0"], "action_repeat must be a whole number >= 1, got 0"),
])
def test_cli_errors_are_one_line(args, word, tmp_path):
    out = [] if "--resume" in args else ["--out", str(tmp_path / "x")]
    assert word in one_line(evolution_run(*args, *out), 2)


@pytest.mark.parametrize("args, word", [
    (["--algorithm", "cmaes", "--elite", "0"], "--elite"),
    (["--algorithm", "neat", "--mut-sigma", "0.9"], "--mut-sigma"),
    (["--algorithm", "openai-es", "--tournament", "7"], "--tournament"),
    (["--algorithm", "map-elites", "--init-sigma", "0.2"], "--algorithm ga, cmaes"),
])
def test_a_strategy_setting_given_to_another_strategy_is_refused(args, word, tmp_path):
    line = one_line(evolution_run(*args, "--out", str(tmp_path / "x")), 2)
    assert word in line and "would do nothing" in line


def test_settings_of_an_earlier_version_are_read_as_the_strategies_own():
    earlier = small().to_dict()
    del earlier["hall_of_fame"]
    ga = dict(earlier, algorithm="ga", options={}, cx_prob=0.7, mut_prob=0.4, mut_sigma=0.3,
              mut_indpb=0.15, tournament=3, elite=0, init_sigma=0.8)
    config = EvolutionConfig.from_dict(ga)
    assert config.options["cx_prob"] == 0.7 and config.options["init_sigma"] == 0.8
    assert config.options["elite"] == 0 and config.hall_of_fame == 1
    cmaes = EvolutionConfig.from_dict(dict(ga, algorithm="cmaes"))
    # The settings CMA-ES gained since take the defaults that run as it ran.
    assert cmaes.options == {"init_sigma": 0.8, "cma_eigen_every": 1, "cma_diagonal": 0,
                             "cma_validate_mean": 0}
    assert cmaes.hall_of_fame == 1


def test_cli_refuses_a_foreign_resume_directory(tmp_path):
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "config.json").write_text('{"hello": 1}')
    (foreign / "checkpoint.npz").write_bytes(b"not a pickle")
    assert "checkpoint" in one_line(evolution_run("--resume", foreign), 2)


def test_cli_run_prints_each_generation_and_where_things_went(tmp_path):
    out = tmp_path / "cli"
    proc = evolution_run("--generations", "2", "--population", "6", "--max-steps", "300",
                         "--workers", "1", "--seed", "5", "--out", out)
    assert proc.returncode == 0, proc.stderr
    gen_lines = [l for l in proc.stdout.splitlines() if l.startswith("gen ")]
    assert len(gen_lines) == 3
    assert "left" in gen_lines[-1] and "goals" in gen_lines[-1]
    assert str(out) in proc.stdout and "runners.replay" in proc.stdout
    assert f"fitness curves: {out / 'fitness.png'}" in proc.stdout
    for name in ("config.json", "logbook.csv", "checkpoint.npz", "best.json", "fitness.png"):
        assert (out / name).is_file()
    config = json.loads((out / "config.json").read_text())
    assert config["seed"] == 5 and config["settings"]["population"] == 6
    # The summary says how each of the best genome's episodes ended, as
    # best.json records it (a death by its cause).
    best = json.loads((out / "best.json").read_text())
    for stage, r in best["results"].items():
        assert "death_cause" in r["metrics"]
        assert f"  {stage}: {ending(r['done_reason'], r['metrics'])}, progress" in proc.stdout
    assert "deap" in config["versions"] and "numpy" in config["versions"]
    # A second run into the same directory is refused, not overwritten.
    again = evolution_run("--generations", "2", "--out", out)
    assert again.returncode == 2 and "--resume" in again.stderr


def _start(out: Path, generations: int, workers: int = 1) -> subprocess.Popen:
    # Its own session, so a signal can go to the whole group as a
    # terminal's Ctrl-C does, pool workers included.
    return subprocess.Popen(
        [sys.executable, "-m", "evolution.run", "--generations", str(generations),
         "--population", "8", "--max-steps", "300", "--workers", str(workers),
         "--checkpoint-every", "1", "--out", str(out), "--quiet", "--no-plots"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)


def _wait_for(path: Path, proc: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.time() + seconds
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline, f"{path} never appeared"
        time.sleep(0.05)


@pytest.mark.slow
def test_killed_at_any_moment_the_checkpoint_loads(tmp_path):
    # Checkpoints are written every generation, so a kill lands during a
    # write now and then; whatever the moment, the file must load. The
    # five runs start together, each killed its delay after its own first
    # checkpoint appeared.
    delays = (0.0, 0.13, 0.31, 0.52, 0.77)
    outs = [tmp_path / f"killed{n}" for n in range(len(delays))]
    procs = [_start(out, 500) for out in outs]
    try:
        kill_at: dict[int, float] = {}
        deadline = time.monotonic() + 120   # five interpreters starting at once
        while len(kill_at) < len(procs) or any(p.poll() is None for p in procs):
            now = time.monotonic()
            for n, (out, proc) in enumerate(zip(outs, procs)):
                if n not in kill_at:
                    if (out / "checkpoint.npz").exists():
                        kill_at[n] = now + delays[n]
                    else:
                        assert proc.poll() is None, proc.communicate()
                        assert now < deadline, f"{out / 'checkpoint.npz'} never appeared"
                elif now >= kill_at[n] and proc.poll() is None:
                    proc.kill()
            time.sleep(0.005)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.communicate()
    for out, proc in zip(outs, procs):
        assert proc.returncode == -signal.SIGKILL, "killed, not finished"
        ckpt = load_checkpoint(out)
        assert ckpt.generation >= 0 and len(ckpt.population) == 8


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_checkpoints_and_resumes(tmp_path, workers):
    out = tmp_path / "int"
    proc = _start(out, 500, workers)
    _wait_for(out / "checkpoint.npz", proc)
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "--resume" in stdout
    ckpt = load_checkpoint(out)
    resumed = evolution_run("--resume", out, "--generations", ckpt.generation + 1,
                            "--quiet", "--no-plots")
    assert resumed.returncode == 0, resumed.stderr
    assert load_checkpoint(out).generation == ckpt.generation + 1


def test_array_crossover_gives_deaps_result_exactly():
    import random

    from deap import tools

    from evolution.strategies.ga import cx_blend, make_individual

    rng = np.random.default_rng(5)
    for trial in range(50):
        a, b = rng.normal(size=(2, 104)) * 3
        ours = [make_individual(a), make_individual(b)]
        theirs = [make_individual(a), make_individual(b)]
        random.seed(trial)
        cx_blend(*ours, alpha=0.5)
        after_ours = random.random()
        random.seed(trial)
        tools.cxBlend(*theirs, alpha=0.5)
        assert random.random() == after_ours
        for x, y in zip(ours, theirs):
            assert np.array_equal(x, y)
        assert not np.array_equal(ours[0], a)

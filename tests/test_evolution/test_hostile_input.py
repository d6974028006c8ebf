"""Input an adversary (or bad luck) brings: names, profiles and run files
beyond what a parser holds, damaged checkpoints, two runs into one
directory, a run killed before its first checkpoint, stage sets at their
limit. Each is one clear line and nothing written before is lost."""
from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from evolution.loop.checkpoint import CHECKPOINT_NAME, load_checkpoint, save_checkpoint
from evolution.config import EvolutionConfig
from evolution.cli.run_dir import RunDirLock
from evolution.cli.run_memory import STAGE_BYTES, memory_estimate, stages_held
from speednik.stages import StageSetError, parse_stage_set
from speednik.stages.profile import StageError, parse_profile
from commands import evolution_run, one_line
from paths import REPO_ROOT

ROOT = REPO_ROOT
PROFILES = ROOT / "speednik" / "stages" / "profiles"
FAST = ["--population", "6", "--max-steps", "200", "--workers", "1", "--quiet", "--no-plots"]
HUGE = "9" * 5000        # more digits than Python converts to an int


def run_cli(*args):
    return evolution_run(*args, cwd=ROOT)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    """A finished GA run and a finished CMA-ES run, to copy and damage."""
    root = tmp_path_factory.mktemp("runs")
    for name, extra in (("ga", []), ("cmaes", ["--algorithm", "cmaes"])):
        proc = run_cli("--generations", "1", *FAST, *extra, "--out", root / name)
        assert proc.returncode == 0, proc.stderr
    return root


def copy_of(runs: Path, name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(runs / name, tmp_path / name))


# -- beyond what a parser holds -------------------------------------------------------

def test_a_seed_of_thousands_of_digits_is_refused_as_a_seed():
    for name in (f"gen:easy:{HUGE}", f"gen:easy:0-{HUGE}", f"gen:hard:{HUGE},1"):
        with pytest.raises(StageSetError, match="too large"):
            parse_stage_set(name)
    line = one_line(run_cli("--stage", f"gen:easy:{HUGE}", "--generations", "0"))
    assert "too large" in line and "accepted" in line


@pytest.mark.parametrize("text, why", [
    ("x = " + "[" * 20000 + "]" * 20000, "nested too deeply"),
    (f"x = {HUGE}", "4300 digits"),
])
def test_a_profile_beyond_the_parser_is_a_stage_error_naming_the_file(text, why):
    with pytest.raises(StageError, match=f"^mine.toml: cannot be read as a profile.*{why}"):
        parse_profile(text, source="mine.toml")


@pytest.mark.parametrize("damage", ["config.json", "checkpoint"])
def test_run_files_nested_too_deeply_are_one_line(runs, tmp_path, damage):
    run = copy_of(runs, "ga", tmp_path)
    deep = "[" * 100000 + "]" * 100000
    if damage == "config.json":
        (run / "config.json").write_text(deep)
    else:
        with np.load(run / CHECKPOINT_NAME) as npz:
            arrays = {k: npz[k] for k in npz.files}
        arrays["meta"] = np.array(deep)
        with open(run / CHECKPOINT_NAME, "wb") as f:
            np.savez(f, **arrays)
    line = one_line(run_cli("--resume", run, "--generations", "2"))
    assert "nested too deeply" in line


@pytest.mark.parametrize("where", ["population_fitness", "hall_of_fame_fitness"])
def test_a_checkpoint_whose_fitness_holds_nan_is_refused(runs, tmp_path, where):
    run = copy_of(runs, "ga", tmp_path)
    with np.load(run / CHECKPOINT_NAME) as npz:
        arrays = {k: npz[k] for k in npz.files}
    arrays[where] = arrays[where].copy()
    arrays[where][0] = np.nan
    with open(run / CHECKPOINT_NAME, "wb") as f:
        np.savez(f, **arrays)
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    line = one_line(run_cli("--resume", run, "--generations", "2"))
    assert f"{where} holds nan, not a finite fitness" in line
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before


def test_a_checkpoint_that_is_no_archive_says_so_not_pickle(runs, tmp_path):
    run = copy_of(runs, "ga", tmp_path)
    (run / CHECKPOINT_NAME).write_text("not a checkpoint at all\n")
    line = one_line(run_cli("--resume", run, "--generations", "2"))
    assert "not a .npz archive" in line and "pickle" not in line


# -- checkpoints that are not what their settings make ----------------------------------

@pytest.mark.parametrize("name, damage, expected", [
    ("cmaes", lambda c: setattr(c, "search", None), "no CMA-ES state"),
    ("cmaes", lambda c: c.search["arrays"].update(centroid=np.zeros(3)), "centroid"),
    ("ga", lambda c: setattr(c, "population", c.population[:3]),
     "3 genomes where its settings say 6 (--algorithm ga, --population 6)"),
    ("ga", lambda c: setattr(c, "hall_of_fame", [(g[:-1], f) for g, f in c.hall_of_fame]),
     "needs a genome of 104 numbers"),
    ("ga", lambda c: setattr(c, "logbook", c.logbook[:1]), "1 logbook rows for generation 1"),
])
def test_a_damaged_checkpoint_is_refused_before_anything_runs(runs, tmp_path, name, damage,
                                                               expected):
    run = copy_of(runs, name, tmp_path)
    ckpt = load_checkpoint(run)
    damage(ckpt)
    save_checkpoint(run, ckpt)
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    line = one_line(run_cli("--resume", run, "--generations", "3"))
    assert "damaged checkpoint" in line and expected in line
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before


# -- one run at a time in a directory ---------------------------------------------------

@pytest.mark.slow
def test_two_runs_started_into_one_directory_at_once_do_not_mix(tmp_path):
    out = tmp_path / "run"
    args = ["--generations", "30", *FAST, "--out", out]
    procs = [subprocess.Popen([sys.executable, "-m", "evolution.run", *map(str, args),
                               "--seed", str(seed)], cwd=ROOT, text=True,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for seed in (1, 2)]
    done = [(p.wait(180), p.stderr.read()) for p in procs]
    assert sorted(status for status, _ in done) == [0, 2], done
    refused = next(err for status, err in done if status == 2)
    assert "already holds a run" in refused or "another run is writing" in refused
    winner = 1 + [status for status, _ in done].index(0)
    assert load_checkpoint(out).config["seed"] == winner


def test_a_directory_another_run_writes_into_is_refused(runs, tmp_path, monkeypatch):
    # Held here, the lock is never let go: the run's wait for it ends sooner.
    monkeypatch.setattr(RunDirLock, "WAIT_SECONDS", 0.3)
    run = copy_of(runs, "ga", tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    held = [os.open(d, os.O_RDONLY) for d in (run, empty)]
    try:
        for fd in held:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        for argv in (["--resume", run, "--generations", "2"],
                     ["--generations", "1", *FAST, "--out", empty]):
            assert "another run is writing into it" in one_line(run_cli(*argv))
    finally:
        for fd in held:
            os.close(fd)
    assert load_checkpoint(run).generation == 1 and os.listdir(empty) == []


def test_a_run_killed_before_its_first_checkpoint_can_start_again(runs, tmp_path):
    """What a run writes after generation 0 but before its checkpoint
    (config.json, logbook.csv, best.json, method.jsonl, archive.npz) holds nothing to
    resume: a new run in the directory starts anew, saying so; anything
    else there is still refused."""
    run = copy_of(runs, "ga", tmp_path)
    (run / CHECKPOINT_NAME).unlink()
    # As a CMA-ES run leaves it (its numbers are saved before the checkpoint).
    (run / "method.jsonl").write_text('{"gen": 0, "sigma": 0.5, "condition": 1.0}\n')
    # As a MAP-Elites run leaves it (its archive too).
    (run / "archive.npz").write_bytes(b"PK\x05\x06" + bytes(18))
    (run / "notes.txt").write_text("mine")
    line = one_line(run_cli("--generations", "1", *FAST, "--out", run))
    assert "not empty" in line and (run / "notes.txt").read_text() == "mine"
    (run / "notes.txt").unlink()
    again = run_cli("--generations", "1", *FAST, "--seed", "7", "--out", run)
    assert again.returncode == 0, again.stderr
    assert "stopped before its first checkpoint" in again.stderr
    assert load_checkpoint(run).config["seed"] == 7
    assert not (run / "method.jsonl").exists()      # a GA run writes none
    assert not (run / "archive.npz").exists()


# -- stage sets at their limit ---------------------------------------------------------

def test_the_stages_a_run_keeps_count_in_its_memory(monkeypatch, tmp_path, capsys):
    from evolution.cli import run_memory

    # Every stage a run plays is built once and kept to its end.
    many = EvolutionConfig(stages=("gen:easy:0-9999",), population=4)
    few = EvolutionConfig(stages=("gen:easy:0-7",), population=4)
    assert stages_held(many) == 10_000 and stages_held(few) == 8
    assert memory_estimate(many, 104) - memory_estimate(few, 104) >= 9_000 * STAGE_BYTES
    tested = few.replace(test_stages=("gen:hard:0-499",), validation_stages=("gen:hard:500",))
    assert stages_held(tested) == 509
    monkeypatch.setattr(run_memory, "available_memory", lambda: 200 * 2**20)
    from evolution import run

    code = run.main(["--stage", "gen:easy:0-99", "--generations", "0", *FAST,
                     "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2 and "100 stages, each built once and kept for the run" in err
    assert "fewer training, validation or test stages" in err
    assert not (tmp_path / "r").exists()


def test_replay_builds_each_generated_stage_as_it_plays_it(monkeypatch, capsys):
    """A set of thousands of stages does not fit in memory at once."""
    from runners import replay

    events: list[str] = []
    build, play = replay.resolve_stage, replay.replay_episode

    def resolve(ref):
        events.append("build")
        return build(ref)

    def episode(*args, **kwargs):
        events.append("play")
        return play(*args, **kwargs)

    monkeypatch.setattr(replay, "resolve_stage", resolve)
    monkeypatch.setattr(replay, "replay_episode", episode)
    assert replay.main(["--agent", "idle", "--stage", "gen:easy:0-3", "--max-steps", "5"]) == 0
    assert events == ["build", "play"] * 4
    assert "completed 0 of 4 stages" in capsys.readouterr().out

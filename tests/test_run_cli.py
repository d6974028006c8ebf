"""`python -m evolution.run` as users and their schedulers drive it:
signals, dead workers, run directories, resume and limits. Every failure
is one line on stderr, never a traceback."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evolution.checkpoint import CHECKPOINT_NAME, load_checkpoint
from evolution.outputs import read_logbook

ROOT = Path(__file__).resolve().parent.parent
PROFILES = ROOT / "speednik" / "stages" / "profiles"
FAST = ["--population", "6", "--max-steps", "300", "--workers", "1", "--quiet"]


def env() -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT))


def run_cli(*args, cwd=ROOT, timeout=180, module="evolution.run"):
    return subprocess.run([sys.executable, "-m", module, *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, env=env(),
                          timeout=timeout)


def one_line(proc, status: int = 2) -> str:
    assert proc.returncode == status, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def without_time(rows):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def start(*args, workers: int = 1, engine: str = "python") -> subprocess.Popen:
    """A run in the background; the python engine by default, whose worker
    processes these tests are about."""
    return subprocess.Popen(
        [sys.executable, "-m", "evolution.run", "--population", "8", "--max-steps", "600",
         "--stall-frames", "0", "--workers", str(workers), "--checkpoint-every", "1",
         "--engine", engine, "--quiet", *map(str, args)],
        cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)


def wait_for(path: Path, proc: subprocess.Popen, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def is_worker(pid: int) -> bool:
    try:
        return "resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_text()
    except FileNotFoundError:
        return False


# -- faults ------------------------------------------------------------------------------

def test_a_worker_killed_mid_run_costs_nothing(tmp_path):
    out = tmp_path / "killed"
    proc = start("--generations", "12", "--out", out, workers=2)
    try:
        wait_for(out / CHECKPOINT_NAME, proc)
        deadline = time.monotonic() + 30
        while not (workers := [p for p in children(proc.pid) if is_worker(p)]):
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.02)
        os.kill(workers[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    straight = tmp_path / "straight"
    assert run_cli("--generations", "12", "--population", "8", "--max-steps", "600",
                   "--stall-frames", "0", "--workers", "1", "--quiet",
                   "--out", straight).returncode == 0
    assert without_time(read_logbook(out)) == without_time(read_logbook(straight))


def test_sigterm_stops_a_compiled_run_between_generations(tmp_path):
    out = tmp_path / "term"
    proc = start("--generations", "100000", "--out", out, workers=2, engine="compiled")
    wait_for(out / CHECKPOINT_NAME, proc)
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 143, stderr
    assert "Traceback" not in stderr and "--resume" in stdout
    ckpt = load_checkpoint(out)
    assert 0 < ckpt.generation < 100000
    assert without_time(read_logbook(out))[-1]["gen"] == ckpt.generation


def test_sigterm_checkpoints_and_exits_143(tmp_path):
    out = tmp_path / "term"
    proc = start("--generations", "500", "--out", out, workers=2)
    wait_for(out / CHECKPOINT_NAME, proc)
    time.sleep(0.3)
    os.killpg(proc.pid, signal.SIGTERM)   # as timeout and Slurm send it
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 143, stderr
    assert "Traceback" not in stderr and "--resume" in stdout
    ckpt = load_checkpoint(out)
    assert len(read_logbook(out)) == ckpt.generation + 1
    resumed = run_cli("--resume", out, "--generations", ckpt.generation + 1, "--quiet")
    assert resumed.returncode == 0, resumed.stderr


@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_during_generation_0_ends_cleanly(tmp_path, sig, status):
    out = tmp_path / "early"
    proc = subprocess.Popen(
        # A generation 0 of 20000 episodes takes far longer than a second.
        [sys.executable, "-m", "evolution.run", "--population", "20000", "--max-steps",
         "3000", "--workers", "2", "--out", str(out)],
        cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)
    assert proc.stdout.readline().startswith("starting")
    time.sleep(1.0)
    os.killpg(proc.pid, sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    assert "Traceback" not in err and "nothing was saved" in err
    assert err.count("\n") == 1
    assert not out.exists(), "an empty run directory is not left behind"


def test_temporaries_of_an_interrupted_write_are_removed_at_the_next_start(tmp_path):
    out = tmp_path / "r"
    assert run_cli("--generations", "1", *FAST, "--out", out).returncode == 0
    stale = out / f".{CHECKPOINT_NAME}.0123456789ab.tmp"
    stale.write_bytes(b"half a checkpoint")
    assert run_cli("--resume", out, "--generations", "2", "--quiet").returncode == 0
    assert not stale.exists()
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == []


# -- run directories ----------------------------------------------------------------------

def test_a_non_empty_out_directory_is_refused_untouched(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "config.json").write_text("precious")
    line = one_line(run_cli("--generations", "1", *FAST, "--out", out))
    assert "not empty" in line and "--resume" in line
    assert (out / "config.json").read_text() == "precious"
    assert os.listdir(out) == ["config.json"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_cli("--generations", "0", *FAST, "--out", empty).returncode == 0


@pytest.mark.parametrize("where, word", [
    ("", "--out is empty"),
    ("{tmp}/file/run", "cannot be written"),
    ("{tmp}/file", "not a directory"),
    ("/proc/speednik-run", "cannot be written"),
])
def test_bad_out_paths_are_one_line(tmp_path, where, word):
    (tmp_path / "file").write_text("x")
    line = one_line(run_cli("--generations", "1", *FAST, "--out",
                            where.format(tmp=tmp_path)))
    assert word in line


@pytest.mark.parametrize("option", [["--population", "8"], ["--stage", "pipeworks"],
                                    ["--observation", "terrain"], ["--seed", "1"],
                                    ["--out", "elsewhere"], ["--max-steps", "600"]])
def test_settings_a_checkpoint_fixes_are_refused_on_resume(tmp_path, option):
    out = tmp_path / "r"
    assert run_cli("--generations", "1", *FAST, "--out", out).returncode == 0
    line = one_line(run_cli("--resume", out, "--generations", "2", *option))
    assert option[0] in line and "cannot be given with --resume" in line


def test_a_requeued_command_line_resumes(tmp_path):
    """A batch system (Slurm --requeue, docker restart) runs the same command
    again with --resume added: every setting it repeats equals the
    checkpoint's, as the run records it, and the run continues exactly."""
    work = tmp_path / "work"
    (work / "levels").mkdir(parents=True)
    shutil.copy(PROFILES / "skybridge.toml", work / "levels" / "sky.toml")
    settings = [*FAST, "--seed", "3", "--stall-frames", "0",
                "--stage", "levels/sky.toml", "gen:easy:0-1", "--out", "run"]
    first = run_cli("--generations", "1", *settings, cwd=work)
    assert first.returncode == 0, first.stderr
    # The same line again: a relative --out naming the run, its stages
    # written as the set or one by one.
    requeued = run_cli("--generations", "2", *settings, "--resume", work / "run", cwd=work)
    assert requeued.returncode == 0, requeued.stderr
    spelled_out = [*settings[:-4], "levels/sky.toml", "gen:easy:0", "gen:easy:1",
                   "--out", "run"]
    requeued = run_cli("--generations", "3", *spelled_out, "--resume", "run", cwd=work)
    assert requeued.returncode == 0, requeued.stderr
    straight = run_cli("--generations", "3", *settings[:-1], "straight", cwd=work)
    assert straight.returncode == 0, straight.stderr
    assert without_time(read_logbook(work / "run")) == \
        without_time(read_logbook(work / "straight"))


def test_resume_names_each_setting_that_differs_and_its_recorded_value(tmp_path):
    out = tmp_path / "r"
    assert run_cli("--generations", "1", *FAST, "--out", out).returncode == 0
    line = one_line(run_cli("--resume", out, "--population", "8", "--max-steps", "300",
                            "--seed", "1", "--stage", "hillside", "--stall-frames", "0",
                            "--out", out))
    assert "--population 8 (recorded: 6)" in line
    assert "--seed 1 (recorded: 0)" in line
    assert "--stall-frames 0 (recorded: 240)" in line
    assert "--max-steps" not in line.split(";")[0] and "--stage" not in line
    assert "--out" not in line.split(";")[0]
    assert load_checkpoint(out).generation == 1


def test_resume_trusts_only_the_checkpoint(tmp_path):
    out = tmp_path / "r"
    assert run_cli("--generations", "1", *FAST, "--seed", "4", "--out", out).returncode == 0
    good = (out / "config.json").read_text()
    data = json.loads(good)
    data["settings"]["population"] = 50
    (out / "config.json").write_text(json.dumps(data))
    line = one_line(run_cli("--resume", out, "--generations", "2"))
    assert "disagrees with the checkpoint on population" in line
    (out / "config.json").write_text("[1, 2]")
    assert "not a run configuration" in one_line(run_cli("--resume", out))
    (out / "config.json").write_text(good)
    resumed = run_cli("--resume", out, "--generations", "3", "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    config = json.loads((out / "config.json").read_text())
    assert config["settings"]["generations"] == 3 and config["seed"] == 4
    assert load_checkpoint(out).generation == 3


def test_a_relative_stage_path_works_from_anywhere(tmp_path):
    work = tmp_path / "work"
    (work / "levels").mkdir(parents=True)
    shutil.copy(PROFILES / "skybridge.toml", work / "levels" / "sky.toml")
    proc = run_cli("--generations", "1", *FAST, "--stage", "levels/sky.toml",
                   "--out", "run", cwd=work)
    assert proc.returncode == 0, proc.stderr
    run = work / "run"
    assert (run / "stages" / "sky.toml").read_bytes() == (PROFILES / "skybridge.toml").read_bytes()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    replay = run_cli(run, cwd=elsewhere, module="runners.replay")
    assert replay.returncode == 0 and "matches" in replay.stdout, replay.stderr
    resumed = run_cli("--resume", run, "--generations", "2", "--quiet", cwd=elsewhere)
    assert resumed.returncode == 0, resumed.stderr
    # With the original gone, the copy in the run directory is used.
    shutil.rmtree(work / "levels")
    replay = run_cli(run, cwd=elsewhere, module="runners.replay")
    assert replay.returncode == 0 and "matches" in replay.stdout, replay.stderr
    resumed = run_cli("--resume", run, "--generations", "3", "--quiet", cwd=elsewhere)
    assert resumed.returncode == 0, resumed.stderr


def test_the_first_compile_time_is_said_in_one_place(capsys, monkeypatch):
    """The notice before loading the engine says how long a first compile
    takes; the README refers to it instead of giving a figure of its own."""
    import speednik.engine as engine
    from evolution import run

    monkeypatch.setattr(engine, "warm_up", lambda: None)
    run._prepare_engine(quiet=False)
    assert engine.FIRST_COMPILE in capsys.readouterr().out
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    paragraph = next(p for p in readme.split("\n\n")
                     if "first use on a machine compiles" in p)
    assert "announced" in paragraph
    assert not re.search(r"\d+\s*s\b|minute", paragraph), paragraph


# -- limits checked before anything runs -------------------------------------------------

@pytest.mark.parametrize("option, value", [
    ("--init-sigma", "inf"), ("--init-sigma", "nan"), ("--mut-sigma", "inf"),
    ("--mut-sigma", "1e9"), ("--init-sigma", "-1"),
])
def test_sigmas_must_be_finite_and_sane(tmp_path, option, value):
    line = one_line(run_cli("--generations", "1", *FAST, option, value,
                            "--out", tmp_path / "x"))
    assert option.lstrip("-").replace("-", "_") in line and "at most 1000" in line
    assert not (tmp_path / "x").exists()


def test_workers_are_capped_with_a_note(tmp_path):
    proc = run_cli("--generations", "0", "--population", "3", "--max-steps", "50",
                   "--workers", "100000", "--out", tmp_path / "w")
    assert proc.returncode == 0, proc.stderr
    note = one_line(proc, 0)
    assert note.startswith("evolution.run: note: --workers 100000") and "using 3" in note
    assert "3 worker(s)" in proc.stdout


def test_a_population_that_cannot_fit_is_refused_up_front(tmp_path):
    line = one_line(run_cli("--population", str(10**12), "--out", tmp_path / "big"))
    assert "--population 1000000000000" in line and "memory" in line
    assert not (tmp_path / "big").exists()


def test_ctrl_c_while_the_summary_is_written_is_one_line(tmp_path, monkeypatch, capsys):
    import evolution.run as run

    def interrupted(seconds):
        raise KeyboardInterrupt

    monkeypatch.setattr(run, "format_time", interrupted)
    code = run.main(["--generations", "1", *FAST, "--out", str(tmp_path / "r")])
    assert code == 130
    err = capsys.readouterr().err
    assert err == "evolution.run: interrupted\n"
    assert load_checkpoint(tmp_path / "r").generation == 1


def test_ctrl_c_while_a_picture_is_drawn_is_one_line(tmp_path, monkeypatch, capsys):
    import plots.fitness
    from plots import __main__ as plots_cli

    out = tmp_path / "r"
    assert run_cli("--generations", "1", *FAST, "--out", out).returncode == 0
    (out / "fitness.png").unlink()      # the run drew it; draw it again

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(plots.fitness, "plot_fitness", interrupted)
    assert plots_cli.main(["fitness", str(out)]) == 130
    assert capsys.readouterr().err == "plots: interrupted\n"
    assert not (out / "fitness.png").exists()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_a_compiled_batch_is_held_then_acted_on(monkeypatch, sig):
    """Numba swallows or converts an exception raised inside its own steps
    (loading cached code, unboxing a typed list): a signal landing there
    must not be lost. It is held until the batch ends, then handled."""
    import numpy as np

    from evolution import run as run_module
    from speednik.engine import batch as engine_batch
    from speednik.stages import load_stage

    real = engine_batch.run_batch
    seen = []

    def interrupted_batch(*args):
        os.kill(os.getpid(), sig)
        real(*args)
        seen.append("the batch finished")

    monkeypatch.setattr(engine_batch, "run_batch", interrupted_batch)
    signals = run_module._Signals()
    with signals, pytest.raises(KeyboardInterrupt):
        engine_batch.run_policy_batch([load_stage("hillside")], [0], [0],
                                      np.zeros((1, 104)), max_steps=5)
    assert seen == ["the batch finished"]
    assert signals.terminated == (sig == signal.SIGTERM)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler

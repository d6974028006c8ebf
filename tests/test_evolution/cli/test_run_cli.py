"""`python -m evolution.run` as users and their schedulers drive it:
signals, dead workers, run directories, resume and limits. Every failure
is one line on stderr, never a traceback.

What only a real process shows (signals, killed workers, exit statuses)
runs one; argument and directory logic calls the command's `main` in this
process (see `commands`), and the tests that only read a finished run
share one."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from commands import copy_run, evolution_run, one_line, replay
from evolution.loop.checkpoint import CHECKPOINT_NAME, load_checkpoint
from evolution.loop.outputs import read_logbook
from paths import REPO_ROOT

ROOT = REPO_ROOT
PROFILES = ROOT / "speednik" / "stages" / "profiles"
FAST = ["--population", "6", "--max-steps", "300", "--workers", "1", "--quiet",
        "--no-plots"]


def env() -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT))


def run_cli(*args, timeout=180):
    """`python -m evolution.run` in a process of its own."""
    return subprocess.run([sys.executable, "-m", "evolution.run", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, env=env(),
                          timeout=timeout)


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """One generation of a small run, seed 4: read by the tests that only
    look at a run, copied by those that change it."""
    out = tmp_path_factory.mktemp("finished") / "r"
    proc = evolution_run("--generations", "1", *FAST, "--seed", "4", "--out", out)
    assert proc.returncode == 0, proc.stderr
    return out


def without_time(rows):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def start(*args, workers: int = 1, engine: str = "python") -> subprocess.Popen:
    """A run in the background; the python engine by default, whose worker
    processes these tests are about."""
    return subprocess.Popen(
        [sys.executable, "-m", "evolution.run", "--population", "8", "--max-steps", "600",
         "--stall-frames", "0", "--workers", str(workers), "--checkpoint-every", "1",
         "--engine", engine, "--quiet", "--no-plots", *map(str, args)],
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
    assert evolution_run("--generations", "12", "--population", "8", "--max-steps", "600",
                         "--stall-frames", "0", "--workers", "1", "--quiet", "--no-plots",
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
    resumed = evolution_run("--resume", out, "--generations", ckpt.generation + 1,
                            "--quiet", "--no-plots")
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
    line = proc.stdout.readline()
    while line.startswith("building stages"):   # printed when building is slow
        line = proc.stdout.readline()
    assert line.startswith("starting")
    time.sleep(1.0)
    os.killpg(proc.pid, sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    assert "Traceback" not in err and "nothing was saved" in err
    assert err.count("\n") == 1
    assert not out.exists(), "an empty run directory is not left behind"


def test_temporaries_of_an_interrupted_write_are_removed_at_the_next_start(
        finished_run, tmp_path):
    out = copy_run(finished_run, tmp_path / "r")
    stale = out / f".{CHECKPOINT_NAME}.0123456789ab.tmp"
    stale.write_bytes(b"half a checkpoint")
    assert evolution_run("--resume", out, "--generations", "2", "--quiet",
                         "--no-plots").returncode == 0
    assert not stale.exists()
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize("args, word", [
    (["--tournament", "abc"], "--tournament"),        # refused by the parser
    (["--population", "0"], "population"),            # refused by the settings' checks
])
def test_a_refusal_is_exit_status_2_and_one_line_from_a_shell(tmp_path, args, word):
    proc = run_cli(*args, "--out", tmp_path / "x", timeout=60)
    assert word in one_line(proc, 2)
    assert proc.stdout == "" and not (tmp_path / "x").exists()


# -- run directories ----------------------------------------------------------------------

def test_a_non_empty_out_directory_is_refused_untouched(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "config.json").write_text("precious")
    line = one_line(evolution_run("--generations", "1", *FAST, "--out", out))
    assert "not empty" in line and "--resume" in line
    assert (out / "config.json").read_text() == "precious"
    assert os.listdir(out) == ["config.json"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert evolution_run("--generations", "0", *FAST, "--out", empty).returncode == 0


def test_an_out_holding_a_run_is_refused_before_any_stage_is_built(finished_run, tmp_path):
    """Building and certifying many stages takes a minute: a run started
    into the directory of another learns it is refused first (here the
    stage named would fail to build, and is never reached)."""
    before = sorted(os.listdir(finished_run))
    line = one_line(evolution_run("--generations", "1", *FAST, "--stage",
                                  tmp_path / "missing.toml", "--out", finished_run))
    assert "already holds a run" in line and f"--resume {finished_run}" in line
    assert sorted(os.listdir(finished_run)) == before


@pytest.mark.parametrize("where, word", [
    ("", "--out is empty"),
    ("{tmp}/file/run", "cannot be written"),
    ("{tmp}/file", "not a directory"),
    ("/proc/speednik-run", "cannot be written"),
])
def test_bad_out_paths_are_one_line(tmp_path, where, word):
    (tmp_path / "file").write_text("x")
    line = one_line(evolution_run("--generations", "1", *FAST, "--out",
                                  where.format(tmp=tmp_path)))
    assert word in line


@pytest.mark.parametrize("option", [["--population", "8"], ["--stage", "pipeworks"],
                                    ["--observation", "terrain"], ["--seed", "1"],
                                    ["--out", "elsewhere"], ["--max-steps", "600"],
                                    ["--action-repeat", "2"]])
def test_settings_a_checkpoint_fixes_are_refused_on_resume(finished_run, option):
    before = {p.name: p.read_bytes() for p in finished_run.iterdir() if p.is_file()}
    line = one_line(evolution_run("--resume", finished_run, "--generations", "2", *option))
    assert option[0] in line and "cannot be given with --resume" in line
    # Refused before anything is touched.
    assert {p.name: p.read_bytes() for p in finished_run.iterdir() if p.is_file()} == before


def test_resume_trusts_only_the_checkpoint(finished_run, tmp_path):
    out = copy_run(finished_run, tmp_path / "r")
    good = (out / "config.json").read_text()
    data = json.loads(good)
    data["settings"]["population"] = 50
    (out / "config.json").write_text(json.dumps(data))
    line = one_line(evolution_run("--resume", out, "--generations", "2"))
    assert "disagrees with the checkpoint on population" in line
    (out / "config.json").write_text("[1, 2]")
    assert "not a run configuration" in one_line(evolution_run("--resume", out))
    (out / "config.json").write_text(good)
    resumed = evolution_run("--resume", out, "--generations", "3", "--quiet", "--no-plots")
    assert resumed.returncode == 0, resumed.stderr
    config = json.loads((out / "config.json").read_text())
    assert config["settings"]["generations"] == 3 and config["seed"] == 4
    assert load_checkpoint(out).generation == 3


@pytest.mark.parametrize("option, said", [
    (["--generations", "0"], "--generations 0 is below the generation the run has reached (1)"),
    (["--max-frames", "100"], "--max-frames 100 is no more than the"),
])
def test_a_new_total_the_run_has_already_reached_is_refused(finished_run, option, said):
    before = {p.name: p.read_bytes() for p in finished_run.iterdir() if p.is_file()}
    line = one_line(evolution_run("--resume", finished_run, *option))
    assert said in line
    # config.json is not rewritten with the refused value.
    assert {p.name: p.read_bytes() for p in finished_run.iterdir() if p.is_file()} == before


def test_an_edited_profile_is_refused_on_resume(tmp_path):
    levels = tmp_path / "levels"
    levels.mkdir()
    shutil.copy(PROFILES / "hillside.toml", levels / "hill.toml")
    run = tmp_path / "run"
    proc = evolution_run("--generations", "1", *FAST, "--stage", levels / "hill.toml",
                         "--out", run)
    assert proc.returncode == 0, proc.stderr
    text = (levels / "hill.toml").read_text()
    (levels / "hill.toml").write_text(text.replace("# ", "#  ", 1) + "\n# edited\n")
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    line = one_line(evolution_run("--resume", run, "--generations", "2"))
    assert "differs from the profile the run started with" in line
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before
    (levels / "hill.toml").write_text(text)
    resumed = evolution_run("--resume", run, "--generations", "2", "--quiet", "--no-plots")
    assert resumed.returncode == 0, resumed.stderr


def test_a_relative_stage_path_works_from_anywhere(tmp_path):
    work = tmp_path / "work"
    (work / "levels").mkdir(parents=True)
    shutil.copy(PROFILES / "skybridge.toml", work / "levels" / "sky.toml")
    proc = evolution_run("--generations", "1", *FAST, "--stage", "levels/sky.toml",
                         "--out", "run", cwd=work)
    assert proc.returncode == 0, proc.stderr
    run = work / "run"
    assert (run / "stages" / "sky.toml").read_bytes() == (PROFILES / "skybridge.toml").read_bytes()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    replayed = replay(run, cwd=elsewhere)
    assert replayed.returncode == 0 and "matches" in replayed.stdout, replayed.stderr
    resumed = evolution_run("--resume", run, "--generations", "2", "--quiet", "--no-plots",
                            cwd=elsewhere)
    assert resumed.returncode == 0, resumed.stderr
    # With the original gone, the copy in the run directory is used.
    shutil.rmtree(work / "levels")
    replayed = replay(run, cwd=elsewhere)
    assert replayed.returncode == 0 and "matches" in replayed.stdout, replayed.stderr
    resumed = evolution_run("--resume", run, "--generations", "3", "--quiet", "--no-plots",
                            cwd=elsewhere)
    assert resumed.returncode == 0, resumed.stderr


# -- limits checked before anything runs -------------------------------------------------

@pytest.mark.parametrize("option, value", [
    ("--init-sigma", "inf"), ("--init-sigma", "nan"), ("--mut-sigma", "inf"),
    ("--mut-sigma", "1e9"), ("--init-sigma", "-1"),
])
def test_sigmas_must_be_finite_and_sane(tmp_path, option, value):
    line = one_line(evolution_run("--generations", "1", *FAST, option, value,
                                  "--out", tmp_path / "x"))
    assert option.lstrip("-").replace("-", "_") in line and "to 1000" in line
    assert not (tmp_path / "x").exists()


def test_workers_are_capped_with_a_note(tmp_path):
    proc = evolution_run("--generations", "0", "--population", "3", "--max-steps", "50",
                         "--workers", "100000", "--no-plots", "--out", tmp_path / "w")
    assert proc.returncode == 0, proc.stderr
    note = one_line(proc, 0)
    assert note.startswith("evolution.run: note: --workers 100000") and "using 3" in note
    assert "3 worker(s)" in proc.stdout


def test_a_population_that_cannot_fit_is_refused_up_front(tmp_path):
    line = one_line(evolution_run("--population", str(10**12), "--out", tmp_path / "big"))
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


def test_no_plots_leaves_the_picture_out_and_says_how_to_draw_it(tmp_path):
    from plots import __main__ as plots_cli

    out = tmp_path / "r"
    proc = evolution_run("--generations", "0", "--population", "4", "--max-steps", "60",
                         "--workers", "1", "--no-plots", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert not (out / "fitness.png").exists()
    last = proc.stdout.strip().splitlines()[-1]
    assert last.startswith("fitness.png not drawn (--no-plots); draw it with: ")
    command = last.split("draw it with: ")[1].split()
    assert command[1:4] == ["-m", "plots", "fitness"] and command[4] == str(out)
    assert plots_cli.main(command[3:]) == 0
    assert (out / "fitness.png").is_file()


def test_ctrl_c_while_a_picture_is_drawn_is_one_line(finished_run, tmp_path, monkeypatch,
                                                    capsys):
    import plots.fitness
    from plots import __main__ as plots_cli

    out = copy_run(finished_run, tmp_path / "r")
    assert not (out / "fitness.png").exists()      # the run was told not to draw it

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

    real = engine_batch.batch_runner
    seen = []

    def interrupted_runner(obs_kind):
        def interrupted_batch(*args):
            os.kill(os.getpid(), sig)
            real(obs_kind)(*args)
            seen.append("the batch finished")
        return interrupted_batch

    monkeypatch.setattr(engine_batch, "batch_runner", interrupted_runner)
    signals = run_module._Signals()
    with signals, pytest.raises(KeyboardInterrupt):
        engine_batch.run_policy_batch([load_stage("hillside")], [0], [0],
                                      np.zeros((1, 104)), max_steps=5)
    assert seen == ["the batch finished"]
    assert signals.terminated == (sig == signal.SIGTERM)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.parametrize("args, said", [
    (["--policy", "linear", "--hidden", "4"],
     "--hidden (hidden tanh units) is a setting of --policy mlp and rnn, not of --policy linear"),
    (["--algorithm", "cmaes", "--hidden", "7"], "not of --policy linear; it would do nothing"),
    (["--stall-frames", "-1"], "or none (--stall-frames 0: never), got -1"),
])
def test_settings_that_would_do_nothing_or_are_out_of_range_are_one_line(tmp_path, args, said):
    line = one_line(evolution_run("--generations", "1", *FAST, *args, "--out", tmp_path / "x"))
    assert said in line
    assert not (tmp_path / "x").exists()



def test_an_interrupt_while_generation_0_is_written_leaves_a_resumable_run(tmp_path,
                                                                        monkeypatch):
    from evolution.config import EvolutionConfig
    from evolution.loop import evolve as loop

    calls = []
    real = loop.keep_stage_copies

    def interrupted_once(*args):
        calls.append(args)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(loop, "keep_stage_copies", interrupted_once)
    config = EvolutionConfig(generations=3, population=6, max_steps=300, workers=1, seed=2)
    outcome = loop.evolve(config, tmp_path / "run")
    assert outcome.interrupted and outcome.generations == 0
    assert load_checkpoint(tmp_path / "run").generation == 0
    resumed = evolution_run("--resume", tmp_path / "run", "--quiet", "--no-plots")
    assert resumed.returncode == 0, resumed.stderr
    assert load_checkpoint(tmp_path / "run").generation == 3


def test_an_interrupt_just_after_generation_0_is_saved_points_to_resume(tmp_path,
                                                                       monkeypatch, capsys):
    # Between generation 0's save and the loop (its report), a signal
    # leaves a whole checkpoint: the line must say so, not that nothing
    # was saved.
    from evolution import run as run_module
    from evolution.loop.run_state import RunState

    def interrupted(self, record):
        raise KeyboardInterrupt

    monkeypatch.setattr(RunState, "report_generation", interrupted)
    out = tmp_path / "run"
    status = run_module.main(["--generations", "3", *FAST, "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 130, err
    assert "nothing was saved" not in err and "generation 0 is checkpointed" in err
    assert f"--resume {out}" in err and err.count("\n") == 1
    monkeypatch.undo()
    resumed = evolution_run("--resume", out, "--quiet", "--no-plots")
    assert resumed.returncode == 0, resumed.stderr
    assert load_checkpoint(out).generation == 3


@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_as_the_first_files_appear_leaves_a_resumable_run_or_nothing(tmp_path,
                                                                            signum, status):
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "evolution.run", "--generations", "50",
                             *FAST, "--out", str(out)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env())
    deadline = time.monotonic() + 120
    while not (out / "logbook.csv").exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.002)
    os.kill(proc.pid, signum)
    said = "".join(proc.communicate(timeout=120))
    assert proc.returncode == status, said
    if (out / "checkpoint.npz").exists():
        assert "nothing was saved" not in said and "--resume" in said
        # On a loaded machine the run may have saved a few generations
        # before the signal landed: resume to two past the last.
        last = load_checkpoint(out).generation
        resumed = evolution_run("--resume", out, "--generations", str(last + 2), "--quiet",
                                "--no-plots")
        assert resumed.returncode == 0, resumed.stderr
        assert load_checkpoint(out).generation == last + 2
    else:
        assert not out.exists() or not any(out.iterdir()), list(out.iterdir())

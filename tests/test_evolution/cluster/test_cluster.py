"""`python -m evolution.run --scheduler`: generations evaluated on a Dask
cluster give the run of the same seed without one; a worker lost mid
generation changes nothing; a scheduler that is missing or lost ends the
run with one line, its last finished generation checkpointed.

Everything listens on 127.0.0.1 only; every process a test starts is
stopped by it. One `dask scheduler` and its workers serve the whole module;
the tests that kill a worker or the scheduler start their own. Runs whose
process is not what a test is about call `evolution.run`'s main in this
process (the Dask client lives in a helper process either way)."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from commands import evolution_run, one_line
from evolution.loop.checkpoint import load_checkpoint
from evolution.cluster import (
    MIN_EPISODES_PER_TASK,
    TASKS_PER_THREAD,
    check_scheduler,
    chunk_sizes,
    evaluate_chunk,
    pack_results,
    stage_payload,
    unpack_results,
)
from evolution.cluster.task import _worker_stage
from evolution.loop.outputs import read_logbook
from runners import RunnerConfig, run_episodes
from runners.linear import genome_size
from paths import REPO_ROOT

ROOT = REPO_ROOT
DASK = Path(sys.executable).with_name("dask")
# A run long enough for a generation to be caught in flight.
SETTINGS = ["--population", "16", "--generations", "3", "--stage", "hillside",
            "pipeworks", "--max-steps", "2500", "--stall-frames", "0", "--seed", "3",
            "--checkpoint-every", "1", "--quiet", "--no-plots"]


def env() -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT))


def outcome(run_dir: Path) -> tuple:
    """What must not change: the logbook (its timings aside) and the best
    genome with its fitness and episodes."""
    rows = [{k: v for k, v in r.items() if k != "seconds"} for r in read_logbook(run_dir)]
    best = json.loads((run_dir / "best.json").read_text())
    best.pop("config", None)
    return rows, best


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(proc: subprocess.Popen) -> None:
    """The process and everything it started (its own session)."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(10)


class CommandLineCluster:
    """`dask scheduler` and `dask worker --nworkers N --nthreads 1` (N: 2
    unless asked otherwise), as a user starts them, on 127.0.0.1."""

    def __init__(self, workers: int = 2) -> None:
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.workers = workers
        self.procs: list[subprocess.Popen] = []

    def start(self) -> CommandLineCluster:
        self.scheduler = self._spawn(
            "scheduler", "--host", "127.0.0.1", "--port", str(self.port),
            "--no-dashboard")
        self.worker = self._spawn(
            "worker", self.address, "--nworkers", str(self.workers), "--nthreads", "1",
            "--host", "127.0.0.1", "--no-dashboard", "--death-timeout", "30")
        with self.client() as client:
            client.wait_for_workers(self.workers, timeout=90)
        return self

    def _spawn(self, *args) -> subprocess.Popen:
        proc = subprocess.Popen([str(DASK), *args], cwd=ROOT, env=env(),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        self.procs.append(proc)
        return proc

    def client(self):
        from distributed import Client

        return Client(self.address, timeout=30, set_as_default=False)

    def stop(self) -> None:
        for proc in reversed(self.procs):
            stop(proc)


@pytest.fixture(scope="module")
def shared_cluster():
    """A cluster for the tests that leave it as they found it."""
    cluster = CommandLineCluster()
    try:
        yield cluster.start()
    finally:
        cluster.stop()


@pytest.fixture
def own_cluster(request):
    """A cluster for a test that kills part of it; `workers` (indirect
    parametrisation) how many worker processes, 2 unless given."""
    cluster = CommandLineCluster(getattr(request, "param", 2))
    try:
        yield cluster.start()
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple:
    """The run without a cluster."""
    run_dir = tmp_path_factory.mktemp("ref") / "run"
    proc = evolution_run(*SETTINGS, "--workers", "1", "--out", run_dir)
    assert proc.returncode == 0, proc.stderr
    return outcome(run_dir)


# -- the pieces ---------------------------------------------------------------------

def test_dask_is_not_imported_without_a_scheduler():
    code = ("import sys, evolution, evolution.run, evolution.loop.evolve\n"
            "try:\n    evolution.run.main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print('LOADED', sorted(m for m in sys.modules "
            "if m.split('.')[0] in ('dask', 'distributed')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, env=env(), timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "--scheduler" in proc.stdout
    assert proc.stdout.strip().splitlines()[-1] == "LOADED []"


@pytest.mark.parametrize("value", ["local", "tcp://127.0.0.1:8786", "10.0.0.5:8786",
                                   "tls://head.cluster:8786"])
def test_accepted_scheduler_addresses(value):
    assert check_scheduler(value) == value


@pytest.mark.parametrize("value", ["", "127.0.0.1", "http://x:1", "tcp://x:0", "loc al"])
def test_other_scheduler_values_are_refused_naming_the_accepted(value):
    with pytest.raises(ValueError, match="accepted: 'local'"):
        check_scheduler(value)


@pytest.mark.parametrize("genomes,stages,threads", [
    (200, 8, 2), (200, 8, 16), (7, 1, 4), (1000, 1, 3), (1, 3, 0), (60, 3, 64)])
def test_chunks_cover_every_genome_and_are_not_too_small(genomes, stages, threads):
    sizes = chunk_sizes(genomes, stages, threads)
    assert sum(sizes) == genomes and all(s > 0 for s in sizes)
    assert all(s * stages >= MIN_EPISODES_PER_TASK for s in sizes[:-1])
    assert len(sizes) <= max(1, threads) * TASKS_PER_THREAD


def test_a_chunk_on_a_worker_gives_the_in_process_results(tmp_path):
    profile = tmp_path / "mine.toml"
    profile.write_text((ROOT / "speednik/stages/profiles/pipeworks.toml").read_text())
    stages = ["hillside", str(profile)]
    rows = np.random.default_rng(1).normal(size=(5, genome_size(12)))
    config = RunnerConfig(max_steps=500, stall_frames=120)
    payload = [stage_payload(s) for s in stages]
    assert payload[1][0] == "profile"   # sent as text: workers need no copy
    got = evaluate_chunk(rows, payload, {"observation": "basic", "reward": None,
                                         "max_steps": 500, "stall_frames": 120,
                                         "action_repeat": 1, "record": False})
    want = run_episodes([(("linear", ("basic", r)), s) for r in rows for s in stages],
                        config, engine="compiled")
    assert unpack_results(got) == [r.to_dict() for r in want]
    # Built once per worker process and kept.
    assert _worker_stage(payload[1]) is _worker_stage(stage_payload(str(profile)))


def test_packed_results_come_back_equal_types_included():
    rows = [{"a": 0.1 + i, "b": {"c": i, "d": i % 2 == 0, "e": None if i else 3},
             "s": "x", "m": 1 if i else 1.0} for i in range(4)]
    back = unpack_results(pack_results(rows))
    assert back == rows
    assert [type(r["m"]) for r in back] == [float, int, int, int]
    assert type(back[0]["b"]["c"]) is int and type(back[0]["b"]["d"]) is bool
    assert unpack_results(pack_results([])) == []
    odd = [{"a": 1.0}, {"b": 2.0}]
    assert unpack_results(pack_results(odd)) == odd


# -- whole runs ---------------------------------------------------------------------

def test_a_local_cluster_gives_the_same_run(reference, tmp_path):
    run_dir = tmp_path / "run"
    proc = evolution_run(*SETTINGS, "--scheduler", "local", "--workers", "2",
                         "--out", run_dir)
    assert proc.returncode == 0, proc.stderr
    assert outcome(run_dir) == reference
    settings = json.loads((run_dir / "config.json").read_text())["settings"]
    assert settings["scheduler"] == "local"


@pytest.mark.broad
def test_a_cluster_runs_drawn_stages_mlp_and_held_out_tests_the_same(shared_cluster,
                                                                     tmp_path):
    """A generation scored on stages drawn from a set, an MLP policy,
    held-out tests, a stall limit of the search's own and a switch of the
    action repeat after generation 0: the cluster evaluates what each
    call asks for."""
    wider = ["--population", "6", "--max-steps", "300", "--stall-frames", "120",
             "--training-stall-frames", "200",
             "--generations", "2", "--seed", "2", "--quiet", "--no-plots", "--policy",
             "mlp", "--hidden", "4", "--stage", "gen:easy:0-3",
             "--stages-per-generation", "2", "--test-stage", "gen:easy:50-51",
             "--test-every", "1", "--action-repeat", "2", "--final-action-repeat", "1",
             "--max-frames", "1000000000", "--final-frames", "999999999"]
    runs = {}
    for name, extra in (("alone", ["--workers", "1"]),
                        ("cluster", ["--scheduler", shared_cluster.address])):
        run_dir = tmp_path / name
        proc = evolution_run(*wider, *extra, "--out", run_dir)
        assert proc.returncode == 0, proc.stderr
        runs[name] = outcome(run_dir)
        assert json.loads((run_dir / "best.json").read_text())["action_repeat"] == 1
    assert runs["cluster"] == runs["alone"]


@pytest.mark.slow
def test_a_command_line_cluster_gives_the_same_run_and_resumes_without(
        reference, shared_cluster, tmp_path):
    run_dir = tmp_path / "run"
    cut = list(SETTINGS)
    cut[cut.index("--generations") + 1] = "1"
    proc = evolution_run(*cut, "--scheduler", shared_cluster.address, "--out", run_dir)
    assert proc.returncode == 0, proc.stderr
    settings = json.loads((run_dir / "config.json").read_text())["settings"]
    assert settings["scheduler"] == shared_cluster.address
    # The rest of the run in this process, then the whole of it again on
    # the cluster: the same as the run that never used one.
    proc = evolution_run("--resume", run_dir, "--generations", "2", "--quiet", "--no-plots")
    assert proc.returncode == 0, proc.stderr
    assert json.loads((run_dir / "config.json").read_text())["settings"]["scheduler"] is None
    # The last generation on the readable simulation, on the workers.
    proc = evolution_run("--resume", run_dir, "--generations", "3", "--quiet", "--no-plots",
                         "--scheduler", shared_cluster.address, "--engine", "python")
    assert proc.returncode == 0, proc.stderr
    assert outcome(run_dir) == reference


@pytest.mark.slow
def test_a_worker_killed_during_a_generation_changes_nothing(reference, own_cluster,
                                                             tmp_path):
    run_dir = tmp_path / "run"
    run = subprocess.Popen(
        [sys.executable, "-m", "evolution.run", *SETTINGS, "--scheduler",
         own_cluster.address, "--out", str(run_dir)],
        cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)
    try:
        with own_cluster.client() as client:
            pids = client.run(os.getpid)
            deadline = time.monotonic() + 120
            victim = None
            # The first worker seen running a chunk of generation 1 or later.
            while victim is None:
                assert run.poll() is None, run.communicate()
                assert time.monotonic() < deadline, "no chunk was ever seen running"
                busy = [w for w, keys in client.processing().items()
                        if any("evaluate_chunk" in str(k) for k in keys)]
                if busy and (run_dir / "checkpoint.npz").exists():
                    victim = busy[0]
                else:
                    time.sleep(0.005)
            os.kill(pids[victim], signal.SIGKILL)
        out, err = run.communicate(timeout=180)
    finally:
        stop(run)
    assert run.returncode == 0, err
    assert outcome(run_dir) == reference


# What is lost is the scheduler: one worker is enough.
@pytest.mark.slow
@pytest.mark.parametrize("own_cluster", [1], indirect=True, ids=["one-worker"])
def test_a_lost_scheduler_checkpoints_the_last_generation(reference, own_cluster,
                                                          tmp_path):
    run_dir = tmp_path / "run"
    run = subprocess.Popen(
        [sys.executable, "-m", "evolution.run", *SETTINGS, "--scheduler",
         own_cluster.address, "--out", str(run_dir)],
        cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not (run_dir / "checkpoint.npz").exists():
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline, "generation 0 never finished"
            time.sleep(0.01)
        os.killpg(own_cluster.scheduler.pid, signal.SIGKILL)
        out, err = run.communicate(timeout=60)
    finally:
        stop(run)
    line = one_line(subprocess.CompletedProcess(run.args, run.returncode, out, err), 1)
    assert "lost the Dask scheduler" in line and "--resume" in line
    saved = load_checkpoint(run_dir).generation
    assert 0 <= saved < 3
    proc = evolution_run("--resume", run_dir, "--quiet", "--no-plots")
    assert proc.returncode == 0, proc.stderr
    assert outcome(run_dir) == reference


def test_no_scheduler_at_the_address_is_one_line(tmp_path, monkeypatch):
    from evolution.cluster import session

    # A second to wait, not a run's five: nothing is listening there.
    monkeypatch.setattr(session, "CONNECT_SECONDS", 1.0)
    address = f"tcp://127.0.0.1:{free_port()}"
    proc = evolution_run("--population", "6", "--generations", "1", "--quiet",
                         "--no-plots", "--scheduler", address, "--out", tmp_path / "run")
    line = one_line(proc, 1)
    assert f"no Dask scheduler answers at {address}" in line
    assert "nothing was saved" in line
    assert not (tmp_path / "run").exists()


def session_processes(sid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[3]) == sid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


@pytest.mark.slow
def test_sigterm_on_a_local_cluster_checkpoints_and_leaves_no_process(tmp_path):
    run_dir = tmp_path / "run"
    run = subprocess.Popen(
        [sys.executable, "-m", "evolution.run", *SETTINGS, "--generations", "50",
         "--scheduler", "local", "--workers", "2", "--out", str(run_dir)],
        cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not (run_dir / "checkpoint.npz").exists():
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline, "generation 0 never finished"
            time.sleep(0.01)
        run.send_signal(signal.SIGTERM)
        out, err = run.communicate(timeout=60)
        # The helper process and the cluster's workers went with the run.
        deadline = time.monotonic() + 30
        while session_processes(run.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert session_processes(run.pid) == []
    finally:
        stop(run)
    assert run.returncode == 143, err
    assert "Traceback" not in err
    assert load_checkpoint(run_dir).generation < 50

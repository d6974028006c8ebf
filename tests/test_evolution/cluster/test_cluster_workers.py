"""The workers of a Dask cluster as a run sees them: how many there are
when it connects, a line every so often while there are none, and a run
whose workers keep dying stopped after a stated number of deaths in all.

Everything listens on 127.0.0.1 only; every process a test starts is
stopped by it."""
from __future__ import annotations

import functools
import hashlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import evolution.cluster.session as cluster
from evolution.cluster import ClusterError, DaskSession, Stopped, evaluate_chunk
from runners.linear import genome_size
from paths import REPO_ROOT

ROOT = REPO_ROOT
DASK = Path(sys.executable).with_name("dask")
SETTINGS = {"observation": "basic", "reward": None, "max_steps": 120,
            "stall_frames": None, "action_repeat": 1, "record": False}


def env() -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT))


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def genomes(seed: int, n: int = 4) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, genome_size(12)))


def dies_once_per_chunk(markers: str, rows, *args):
    """evaluate_chunk, but the first worker to get a chunk is killed
    (SIGKILL) as the out-of-memory killer would; it runs again elsewhere."""
    marker = Path(markers) / hashlib.sha1(np.asarray(rows).tobytes()).hexdigest()
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return evaluate_chunk(rows, *args)
    os.close(fd)
    os.kill(os.getpid(), signal.SIGKILL)


@pytest.fixture
def by_value():
    """This module's functions travel to Dask workers by value: the
    workers cannot import a test module."""
    import cloudpickle

    module = sys.modules[dies_once_per_chunk.__module__]
    cloudpickle.register_pickle_by_value(module)
    yield
    cloudpickle.unregister_pickle_by_value(module)


@pytest.mark.slow
def test_workers_dying_in_every_generation_stop_the_run_at_the_limit(
        tmp_path, monkeypatch, by_value):
    """Each generation loses one worker and completes on its replacement;
    the deaths add up over the run and it stops at the limit, where a
    count per generation would go on for ever."""
    monkeypatch.setattr(cluster, "evaluate_chunk",
                        functools.partial(dies_once_per_chunk, str(tmp_path)))
    with DaskSession("local", ["hillside"], SETTINGS, workers=1) as session:
        session.max_deaths = 2
        assert len(session.run(genomes(0))) == 1
        assert session.deaths == 1
        with pytest.raises(ClusterError, match=r"died 2 times.*the limit: 2 deaths in all"):
            session.run(genomes(1))
    assert cluster.MAX_WORKER_DEATHS >= 2


def test_a_cluster_without_workers_says_so_every_so_often(monkeypatch):
    monkeypatch.setattr(cluster, "NO_WORKERS_NOTICE_SECONDS", 0.5)
    lines: list[str] = []
    with DaskSession("local", ["hillside"], SETTINGS, workers=0,
                     notify=lines.append) as session:
        assert ", 0 worker(s)" in session.describe()
        stop = threading.Event()
        outcome: list = []

        def generation() -> None:
            try:
                session.run(genomes(0), stop=stop.is_set)
            except BaseException as exc:
                outcome.append(exc)

        waiting = threading.Thread(target=generation)
        waiting.start()
        deadline = time.monotonic() + 30
        while len(lines) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        stop.set()
        waiting.join(30)
    assert len(lines) >= 2, lines
    assert all("waiting for workers" in line and session.address in line
               and "dask worker" in line for line in lines)
    assert len(outcome) == 1 and isinstance(outcome[0], Stopped)


@pytest.mark.slow
def test_the_run_says_how_many_workers_it_connected_to(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "evolution.run", "--scheduler", "local", "--workers", "2",
         "--generations", "0", "--population", "4", "--max-steps", "60",
         "--out", str(tmp_path / "run")],
        capture_output=True, text=True, cwd=ROOT, env=env(), timeout=240)
    assert proc.returncode == 0, proc.stderr
    assert "connected to a local cluster at tcp://127.0.0.1:" in proc.stdout
    assert ", 2 worker(s), 2 thread(s)" in proc.stdout


def lines_of(stream) -> list[str]:
    """The lines of `stream` so far, read by a thread (reading in the test
    would block for ever on a run that says nothing)."""
    lines: list[str] = []

    def read() -> None:
        for line in stream:
            lines.append(line)

    threading.Thread(target=read, daemon=True).start()
    return lines


@pytest.mark.slow
def test_a_scheduler_without_workers_is_said_at_once_and_the_run_waits(tmp_path):
    address = f"tcp://127.0.0.1:{free_port()}"
    scheduler = subprocess.Popen(
        [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1],
         "--no-dashboard"], cwd=ROOT, env=env(), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True)
    run = None
    try:
        run = subprocess.Popen(
            [sys.executable, "-m", "evolution.run", "--scheduler", address,
             "--generations", "1", "--population", "4", "--max-steps", "60",
             "--out", str(tmp_path / "run")],
            cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, start_new_session=True)
        out, err = lines_of(run.stdout), lines_of(run.stderr)
        connected = f"connected to the Dask scheduler at {address}, 0 worker(s)"
        deadline = time.monotonic() + 120
        # Each stream has its own reader thread: on a loaded machine the
        # waiting line can be read before the connected line written first.
        while not (any("waiting" in line for line in err)
                   and any(connected in line for line in out)):
            assert time.monotonic() < deadline, (out, err)
            assert run.poll() is None, (out, err)
            time.sleep(0.1)
        waiting = next(line for line in err if "waiting" in line)
        assert f"dask worker {address}" in waiting
        time.sleep(1)
        assert run.poll() is None
        run.send_signal(signal.SIGTERM)
        run.wait(60)
        assert run.returncode == 143
        assert not any("Traceback" in line for line in err)
    finally:
        for proc in (run, scheduler):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)

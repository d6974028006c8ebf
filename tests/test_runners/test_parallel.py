"""Parallel evaluation: same results as a serial run, in order, on any
map; plain data across processes; clear errors, no hangs."""
from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest

import runners.parallel as parallel
from runners import (
    BaseAgent,
    EpisodeError,
    EpisodePool,
    EpisodeRunner,
    EpisodeTask,
    RunnerConfig,
    WorkerDiedError,
    make_baseline,
    register_agent_factory,
    run_episodes,
)
from speednik.actions import NUM_ACTIONS
from speednik.observation import OBS_DIM
from paths import TESTS_DIR

SHORT = RunnerConfig(max_steps=240)
MIXED = [("jump-runner", "hillside"), ("hold-right", "pipeworks"),
         ("idle", "skybridge"), ("spindash", "pipeworks"),
         ("jump-runner", "skybridge"), ("hold-right", "hillside")]


# Agents built in worker processes from plain data. The factories are
# module-level, so workers started with `spawn` import them from here.

class LinearAgent(BaseAgent):
    """argmax(W @ obs + b) from a flat genome, as evolution sends it."""

    observation = "basic"

    def __init__(self, genome) -> None:
        g = np.asarray(genome, np.float64)
        self.w = g[:NUM_ACTIONS * OBS_DIM].reshape(NUM_ACTIONS, OBS_DIM)
        self.b = g[NUM_ACTIONS * OBS_DIM:]

    def get_action(self, obs) -> int:
        return int(np.argmax(self.w @ obs + self.b))

    def reset(self) -> None:
        pass


class Failing(BaseAgent):
    def __init__(self, how: str) -> None:
        self.how = how
        self.n = 0

    def get_action(self, obs) -> int:
        self.n += 1
        if self.n == 10:
            if self.how == "raise":
                raise RuntimeError("kaboom")
            if self.how == "exit":
                os._exit(3)
        return 2

    def reset(self) -> None:
        self.n = 0


def make_linear(genome) -> LinearAgent:
    return LinearAgent(genome)


def make_failing(how: str) -> BaseAgent:
    return Failing(how)


def make_killed_once(marker: str) -> BaseAgent:
    """The first worker to build this agent is killed (SIGKILL), as the
    out-of-memory killer or a user would; later ones run normally."""
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return make_baseline("hold-right")
    os.close(fd)
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("not reached")


# A result far larger than a pipe's buffer (64 KiB), so that writing it
# back takes many rounds of the parent reading.
HUGE_RESULT = 64 << 20


def _in_a_large_write(thread: int) -> bool:
    """Whether `thread` of this process is inside write(2) of over 1 MiB."""
    try:
        fields = Path(f"/proc/self/task/{thread}/syscall").read_text().split()
    except OSError:
        return False
    return fields[0] == "1" and int(fields[3], 16) > 1 << 20


def huge_result_killed_once(marker: str) -> bytes:
    """HUGE_RESULT bytes; the first worker to run this is killed (SIGKILL)
    while it writes them back to the parent, part of them in the pipe."""
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return b"y" * HUGE_RESULT
    os.close(fd)
    writer = threading.get_native_id()

    def kill_mid_write() -> None:
        deadline = time.monotonic() + 30.0
        while not _in_a_large_write(writer) and time.monotonic() < deadline:
            time.sleep(0.0001)
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=kill_mid_write, daemon=True).start()
    return b"x" * HUGE_RESULT


register_agent_factory("test-linear", make_linear)
register_agent_factory("test-failing", make_failing)
register_agent_factory("test-killed-once", make_killed_once)


def genome(seed: int) -> np.ndarray:
    g = np.random.default_rng(seed).normal(size=NUM_ACTIONS * (OBS_DIM + 1))
    g[NUM_ACTIONS * OBS_DIM + 2] += 3.0     # a bias toward running right
    return g


def dicts(results):
    return [r.to_dict() for r in results]


def serial(items, config=SHORT):
    return [config.build(stage).run_episode(
        LinearAgent(spec[1]) if isinstance(spec, tuple) else make_baseline(spec))
        for spec, stage in items]


def assert_no_children():
    deadline = time.monotonic() + 5.0
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []


# -- results --------------------------------------------------------------------------------

def test_in_process_matches_direct_runs():
    assert dicts(run_episodes(MIXED, SHORT)) == dicts(serial(MIXED))


def test_pool_gives_the_serial_results_in_order():
    results = run_episodes(MIXED, SHORT, workers=2)
    assert dicts(results) == dicts(serial(MIXED))
    assert [r.metrics["stage"] for r in results] == [s for _, s in MIXED]
    assert_no_children()


def test_spawned_workers_build_registered_agents_from_genomes():
    items = [(("test-linear", genome(i)), stage)
             for i, stage in enumerate(["hillside", "pipeworks", "skybridge", "hillside"])]
    results = run_episodes(items, SHORT, workers=2, start_method="spawn")
    assert dicts(results) == dicts(serial(items))
    assert_no_children()


def test_any_map_function():
    calls = []

    def recording_map(func, iterable):
        jobs = list(iterable)
        calls.append(len(jobs))
        return map(func, jobs)

    expected = dicts(serial(MIXED))
    assert dicts(run_episodes(MIXED, SHORT, map_fn=recording_map)) == expected
    assert calls == [len(MIXED)]
    assert dicts(run_episodes(MIXED, SHORT, map_fn=map)) == expected


def test_pool_kept_across_batches():
    with EpisodePool(2) as pool:
        first = pool.run(MIXED[:4], SHORT)
        again = run_episodes(MIXED[:4], SHORT, map_fn=pool.map)
        assert dicts(first) == dicts(again) == dicts(serial(MIXED[:4]))
    with pytest.raises(RuntimeError, match="closed"):
        pool.map(len, ["a"])
    assert_no_children()


@pytest.mark.parametrize("chunksize", [1, 4])
def test_chunks_keep_the_order(chunksize):
    items = [(("test-linear", genome(i)), "hillside") for i in range(7)]
    with EpisodePool(2, chunksize=chunksize) as pool:
        assert dicts(pool.run(items, SHORT)) == dicts(serial(items))


def test_tasks_carry_their_own_config():
    tasks = [EpisodeTask("hold-right", "hillside", RunnerConfig(max_steps=50)),
             EpisodeTask("hold-right", "hillside", RunnerConfig(max_steps=80)),
             ("hold-right", "hillside")]
    results = run_episodes(tasks, RunnerConfig(max_steps=30), workers=2)
    assert [r.steps for r in results] == [50, 80, 30]


def test_agent_instances_and_stage_objects_in_process():
    runner = EpisodeRunner("hillside", max_steps=100)
    [result] = run_episodes([(make_baseline("jump-runner"), runner.stage)],
                            RunnerConfig(max_steps=100))
    assert result.to_dict() == runner.run_episode(make_baseline("jump-runner")).to_dict()


# -- one runner per worker -------------------------------------------------------------------

def test_each_process_builds_a_runner_once(monkeypatch):
    import runners.jobs as jobs

    monkeypatch.setattr(jobs, "_RUNNERS", OrderedDict())
    builds = []
    real = RunnerConfig.build
    monkeypatch.setattr(RunnerConfig, "build",
                        lambda self, stage: builds.append((stage, self)) or real(self, stage))
    run_episodes([("idle", "hillside")] * 3 + [("idle", "pipeworks")] * 2, SHORT)
    run_episodes([("hold-right", "hillside")] * 2, SHORT)
    assert [s for s, _ in builds] == ["hillside", "pipeworks"]
    run_episodes([("idle", "hillside")], RunnerConfig(max_steps=241))
    assert len(builds) == 3


def test_runner_config_is_plain_hashable_data():
    a = RunnerConfig(reward={"progress": 10.0, "time": 0.001}, max_steps=100)
    b = RunnerConfig(reward=(("progress", 10), ("time", 0.001)), max_steps=100)
    assert a == b and hash(a) == hash(b)
    assert a.reward == (("progress", 10.0), ("time", 0.001))
    runner = a.build("hillside")
    assert runner.max_steps == 100
    assert list(runner.run_episode(make_baseline("idle")).metrics["reward_components"]) == [
        "progress", "time"]
    with pytest.raises(ValueError, match="basic"):
        RunnerConfig(observation="pixels")
    with pytest.raises(ValueError, match="max_steps"):
        RunnerConfig(max_steps=0)
    with pytest.raises(ValueError, match="action_repeat"):
        RunnerConfig(action_repeat=-1)


# -- errors ---------------------------------------------------------------------------------

@pytest.mark.parametrize("workers", [1, 2])
def test_an_episode_error_names_the_item(workers):
    items = [("idle", "hillside")] * 2 + [(("test-failing", "raise"), "pipeworks")] + [
        ("idle", "hillside")] * 3
    with pytest.raises(EpisodeError) as info:
        run_episodes(items, SHORT, workers=workers)
    err = info.value
    assert err.index == 2 and err.label == "test-failing('raise') on pipeworks"
    assert "episode 2" in str(err) and "RuntimeError: kaboom" in str(err)
    assert_no_children()


def test_a_dead_worker_raises_instead_of_hanging():
    items = [("idle", "hillside")] * 3 + [(("test-failing", "exit"), "hillside")] + [
        ("idle", "hillside")] * 3
    start = time.monotonic()
    with pytest.raises(WorkerDiedError, match="died"):
        run_episodes(items, SHORT, workers=2)
    assert time.monotonic() - start < 30.0
    assert_no_children()


def test_bad_items_fail_before_any_work():
    with pytest.raises(ValueError, match="'baseline'.*'test-linear'"):
        run_episodes([("idle", "hillside"), (("no-such-kind", 1), "hillside")])
    with pytest.raises(ValueError, match="item 0.*jump-runner"):
        run_episodes([("jumper", "hillside")])
    with pytest.raises(TypeError, match="item 1"):
        run_episodes([("idle", "hillside"), "idle"])


def test_local_factories_cannot_reach_workers():
    register_agent_factory("test-local", lambda params: make_baseline("idle"))
    items = [(("test-local", None), "hillside")] * 2
    # In process they work; sent to workers they cannot.
    assert len(run_episodes(items, SHORT)) == 2
    with pytest.raises(ValueError, match="module-level"):
        run_episodes(items, SHORT, workers=2)
    assert_no_children()


def test_ctrl_c_stops_the_workers(tmp_path):
    pids = tmp_path / "pids"
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(TESTS_DIR)!r})
        from runners import BaseAgent, RunnerConfig, register_agent_factory, run_episodes

        class Slow(BaseAgent):
            def get_action(self, obs):
                return 0
            def reset(self):
                pass

        def make_slow(params):
            with open({str(pids)!r}, "a") as f:
                f.write(f"{{os.getpid()}}\\n")
            return Slow()

        register_agent_factory("slow", make_slow)
        print("ready", flush=True)
        run_episodes([(("slow", i), "hillside") for i in range(40)],
                     RunnerConfig(max_steps=10_000_000, stall_frames=None), workers=2)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 30.0
        while not (pids.exists() and len(pids.read_text().split()) >= 2):
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
    for pid in map(int, pids.read_text().split()):
        status = Path(f"/proc/{pid}/status")
        if status.exists():
            state = [ln for ln in status.read_text().splitlines() if ln.startswith("State:")]
            assert state and "Z" in state[0], f"worker {pid} still running"


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_a_killed_worker_has_its_batch_run_again(tmp_path, start_method):
    marker = str(tmp_path / "killed")
    items = [(("test-linear", genome(i)), "hillside") for i in range(5)]
    items.insert(3, (("test-killed-once", marker), "hillside"))
    with EpisodePool(2, start_method=start_method) as pool:
        results = pool.run(items, SHORT)
        assert pool.restarts == 1
        # The pool goes on working for the next batch.
        assert dicts(pool.run(items[:2], SHORT)) == dicts(results[:2])
    expected = serial(items[:3]) + [SHORT.build("hillside").run_episode(
        make_baseline("hold-right"))] + serial(items[4:])
    assert dicts(results) == dicts(expected)
    assert_no_children()


def test_a_pool_stops_at_its_number_of_worker_deaths_in_all(tmp_path):
    """Deaths are counted over the life of the pool (a whole evolution
    run), not per batch: batches that each lose one worker go on until the
    stated number of deaths, then stop."""
    items = [(("test-linear", genome(i)), "hillside") for i in range(3)]
    with EpisodePool(2, start_method="fork") as pool:
        for death in range(1, parallel.MAX_WORKER_DEATHS):
            killed = [(("test-killed-once", str(tmp_path / f"killed-{death}")), "hillside")]
            assert len(pool.run(items + killed, SHORT)) == 4
            assert pool.restarts == death
        last = [(("test-killed-once", str(tmp_path / "killed-last")), "hillside")]
        with pytest.raises(WorkerDiedError,
                           match=f"died {parallel.MAX_WORKER_DEATHS} times.*"
                                 f"limit: {parallel.MAX_WORKER_DEATHS} deaths"):
            pool.run(items + last, SHORT)
    assert_no_children()


@pytest.mark.slow
@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_a_worker_killed_while_sending_a_large_result_does_not_hang(tmp_path, start_method):
    """Part of the result is left in the pipe, which the pool's result
    thread would wait on forever; the batch runs again instead. A hang
    fails the test by its timeout."""
    script = textwrap.dedent(f"""
        import sys, threading
        sys.path[:0] = [{str(Path(__file__).resolve().parent)!r}, {str(TESTS_DIR)!r},
                        {str(TESTS_DIR / "helpers")!r}]
        from runners import EpisodePool
        from test_parallel import HUGE_RESULT, huge_result_killed_once
        with EpisodePool(2, start_method={start_method!r}) as pool:
            result = pool.map(huge_result_killed_once, [{str(tmp_path / "killed")!r}])
            print(pool.restarts, len(result[0]), result[0][:1].decode())
        stuck = [t for t in threading.enumerate()
                 if type(t).__name__ == "_ExecutorManagerThread"]
        for t in stuck:
            t.join(10)
        print(sum(t.is_alive() for t in stuck))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["1", str(HUGE_RESULT), "y", "0"]


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def test_workers_leave_quietly_when_their_parent_is_killed():
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(TESTS_DIR)!r})
        from runners import RunnerConfig, run_episodes
        print("ready", flush=True)
        run_episodes([("hold-right", "hillside")] * 200,
                     RunnerConfig(max_steps=1_000_000, stall_frames=None), workers=2)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 30.0
        while len(workers := _children(proc.pid)) < 2:
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
        time.sleep(0.5)
        proc.kill()
        proc.wait()
        # stderr reaches EOF only when every worker (which shares it) is gone.
        err = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert err == ""
    deadline = time.monotonic() + 10.0
    while alive := [pid for pid in workers if _running(pid)]:
        assert time.monotonic() < deadline, f"workers {alive} still running"
        time.sleep(0.05)


def _running(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "State:\tZ" not in status

"""Many episodes at once, in order, across processes.

    results = run_episodes(
        [("jump-runner", "hillside"), (("linear", genome), "pipeworks")],
        RunnerConfig(max_steps=3600), workers=4)

Each item is an `(agent_spec, stage)` pair (or an `EpisodeTask`, which also
carries its own config). Everything that crosses a process boundary is
plain data: the agent spec (a baseline name or a `(kind, params)` pair
whose params are numbers, lists or numpy arrays, see `runners.agents`), a
stage reference (name, .toml path or (seed, difficulty)), a frozen
`RunnerConfig` of primitives, and an `EpisodeResult` back. The factory of a
registered kind is resolved in the calling process and sent by reference,
so it must be a module-level function; worker processes started with
`spawn` then import it and need no registration of their own.

Each process builds one `EpisodeRunner` per (stage, config) and keeps it,
so a stage is built once per worker, not once per episode. The simulation
is deterministic, so the results are identical however many workers run
them and in whatever order they finish.

Where the work runs:
- `workers=1` (and no `map_fn`): in this process, no pool;
- `workers=N`: a temporary `EpisodePool` of N processes;
- `map_fn=f`: any ordered `f(func, iterable)` - the builtin `map`,
  `EpisodePool.map` (a pool kept across calls, as an evolution run
  wants), `concurrent.futures.Executor.map`, or a cluster engine's map.

Errors: an exception in an episode is raised here as `EpisodeError` naming
the item's index and a short description of it. A worker process that
dies has its batch run again on fresh workers (`RESTARTS` times, then
`WorkerDiedError`). Ctrl-C (KeyboardInterrupt) and any other error stop
the pool's processes at once; nothing is left running and nothing hangs.
Workers ignore SIGINT and SIGTERM (their parent handles them) and leave
quietly if their parent is killed.
"""
from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import threading
import time
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, Iterable, Mapping, Sequence

from speednik.constants import DEFAULT_MAX_STEPS
from speednik.observation import get_observation
from speednik.stages import Stage

from runners.agents import AgentSpec, describe_agent_spec, resolve_agent_spec
from runners.compiled import check_engine, run_compiled, runs_compiled
from runners.episode import DEFAULT_STALL_FRAMES, EpisodeRunner, StageRef, _positive_int
from runners.errors import EpisodeError, WorkerDiedError
from runners.result import EpisodeResult

# Runners kept per process; more than a batch ever mixes.
RUNNER_CACHE_SIZE = 16
# How often a worker checks that its parent process is alive, s.
POLL_SECONDS = 0.2
CHUNKS_PER_WORKER = 4

MapFn = Callable[[Callable[[Any], Any], Iterable[Any]], Iterable[Any]]


@dataclass(frozen=True, slots=True)
class RunnerConfig:
    """How to run episodes, as plain, hashable data: the arguments of
    `EpisodeRunner` other than the stage. `reward` is None (the default
    reward) or component weights, given as a mapping or as (name, weight)
    pairs; it is stored as pairs."""

    observation: str = "basic"
    reward: tuple[tuple[str, float], ...] | None = None
    max_steps: int = DEFAULT_MAX_STEPS
    stall_frames: int | None = DEFAULT_STALL_FRAMES
    action_repeat: int = 1
    record: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.observation, str):
            raise TypeError(
                f"RunnerConfig.observation is an encoder name, not "
                f"{type(self.observation).__name__}")
        get_observation(self.observation)
        if self.reward is not None:
            pairs = (self.reward.items() if isinstance(self.reward, Mapping)
                     else self.reward)
            object.__setattr__(
                self, "reward", tuple((str(k), float(w)) for k, w in pairs))
        _positive_int(self.max_steps, "max_steps")
        if self.stall_frames is not None:
            _positive_int(self.stall_frames, "stall_frames")
        _positive_int(self.action_repeat, "action_repeat")

    def build(self, stage: StageRef) -> EpisodeRunner:
        """A runner of `stage` with these settings."""
        return EpisodeRunner(
            stage, observation=self.observation,
            reward=None if self.reward is None else dict(self.reward),
            max_steps=self.max_steps, stall_frames=self.stall_frames,
            action_repeat=self.action_repeat, record=self.record)


@dataclass(frozen=True, slots=True)
class EpisodeTask:
    """One episode to run: an agent spec, a stage reference and a config."""

    agent: AgentSpec
    stage: StageRef
    config: RunnerConfig = field(default_factory=RunnerConfig)


# -- the work, as it runs in a worker ------------------------------------------------

# (index, label, factory, params, stage, config): a tuple pickles fastest.
_Job = tuple

_RUNNERS: OrderedDict[Any, EpisodeRunner] = OrderedDict()


def _stage_key(stage: StageRef) -> Any:
    if isinstance(stage, Stage):
        return ("object", id(stage))
    if isinstance(stage, os.PathLike):
        return ("path", os.fspath(stage))
    return stage


def runner_for(stage: StageRef, config: RunnerConfig) -> EpisodeRunner:
    """This process's runner for (stage, config), built on first use."""
    key = (_stage_key(stage), config)
    runner = _RUNNERS.get(key)
    # A Stage is keyed by identity: make sure the id was not reused.
    if runner is not None and (not isinstance(stage, Stage) or runner.stage is stage):
        _RUNNERS.move_to_end(key)
        return runner
    runner = config.build(stage)
    _RUNNERS[key] = runner
    if len(_RUNNERS) > RUNNER_CACHE_SIZE:
        _RUNNERS.popitem(last=False)
    return runner


def run_job(job: _Job) -> EpisodeResult:
    """Run one prepared job (see `prepare_jobs`); module-level so that any
    map can send it to another process."""
    index, label, factory, params, stage, config = job
    try:
        runner = runner_for(stage, config)
        agent = params if factory is None else factory(params)
        return runner.run_episode(agent)
    except Exception as e:
        raise EpisodeError(index, label, f"{type(e).__name__}: {e}") from e


def _stage_label(stage: StageRef) -> str:
    if isinstance(stage, Stage):
        return stage.name
    if isinstance(stage, tuple):
        return "generated " + ":".join(map(str, stage))
    return os.fspath(stage) if isinstance(stage, os.PathLike) else str(stage)


def prepare_jobs(items: Iterable[Any], config: RunnerConfig | None = None) -> list[_Job]:
    """Turn `(agent_spec, stage)` pairs or `EpisodeTask`s into jobs for
    `run_job`, resolving agent kinds here (bad specs fail now, naming the
    item)."""
    default = RunnerConfig() if config is None else config
    if not isinstance(default, RunnerConfig):
        raise TypeError(f"config must be a RunnerConfig, not {type(default).__name__}")
    jobs: list[_Job] = []
    for index, item in enumerate(items):
        if isinstance(item, EpisodeTask):
            spec, stage, cfg = item.agent, item.stage, item.config
        elif isinstance(item, (tuple, list)) and len(item) == 2:
            (spec, stage), cfg = item, default
        else:
            raise TypeError(
                f"item {index} must be an (agent_spec, stage) pair or an "
                f"EpisodeTask, not {type(item).__name__}")
        label = f"{describe_agent_spec(spec)} on {_stage_label(stage)}"
        try:
            factory, params = resolve_agent_spec(spec)
        except (TypeError, ValueError) as e:
            raise type(e)(f"item {index} ({label}): {e}") from None
        jobs.append((index, label, factory, params, stage, cfg))
    return jobs


def _check_picklable(jobs: Sequence[_Job]) -> None:
    """Fail before starting a pool if a factory cannot reach a worker."""
    seen: set[int] = set()
    for index, label, factory, params, _, _ in jobs:
        if factory is None or id(factory) in seen:
            continue
        seen.add(id(factory))
        try:
            pickle.dumps(factory)
        except Exception as e:
            raise ValueError(
                f"item {index} ({label}): its agent factory "
                f"{getattr(factory, '__qualname__', factory)!r} cannot be sent to a "
                f"worker process ({e}); register a module-level function") from None


# -- the pool ---------------------------------------------------------------------------

# Times a batch is run again on fresh workers after a worker process died
# (killed by a user or the out-of-memory killer); then WorkerDiedError.
RESTARTS = 2


def serve_parent() -> None:
    """Make this child process its parent's: Ctrl-C and SIGTERM are the
    parent's to handle (a terminal, `timeout` or Slurm signal the whole
    process group), and it stops its children itself; a parent killed
    outright (SIGKILL) cannot, so the child leaves quietly, without a
    traceback, once its parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(POLL_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _init_worker() -> None:
    serve_parent()


class EpisodePool:
    """A pool of worker processes (a `concurrent.futures.ProcessPoolExecutor`)
    that keeps its workers, and their built runners, across batches. Use it
    as a context manager; `map(func, items)` is an ordered map usable as
    `run_episodes(map_fn=pool.map)`, `run(items, config)` runs a batch of
    episodes.

    A worker that dies mid-batch breaks the executor (`BrokenProcessPool`);
    the batch then runs again on fresh workers, up to `RESTARTS` times,
    before `WorkerDiedError`. Results are the same either way: episodes are
    deterministic. An episode's own error (`EpisodeError`), Ctrl-C or any
    other exception stops the workers at once and is raised.

    `start_method` is a multiprocessing start method ("fork", "spawn",
    "forkserver"; None: the platform's default).
    """

    def __init__(self, workers: int | None = None, start_method: str | None = None,
                 chunksize: int | None = None) -> None:
        if workers is None:
            workers = os.cpu_count() or 1
        self.workers = _positive_int(workers, "workers")
        self.chunksize = None if chunksize is None else _positive_int(chunksize, "chunksize")
        self._context = multiprocessing.get_context(start_method)
        self.start_method = self._context.get_start_method()
        self.restarts = 0
        self._executor: ProcessPoolExecutor | None = self._new_executor()

    def _new_executor(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(self.workers, mp_context=self._context,
                                   initializer=_init_worker)

    def map(self, func: Callable[[Any], Any], iterable: Iterable[Any]) -> list[Any]:
        """`[func(x) for x in iterable]`, computed by the workers."""
        if self._executor is None:
            raise RuntimeError("the episode pool is closed")
        items = list(iterable)
        cs = self.chunksize or _auto_chunksize(len(items), self.workers)
        chunks = [items[i:i + cs] for i in range(0, len(items), cs)]
        try:
            for attempt in range(RESTARTS + 1):
                done: list[Any] = []
                try:
                    futures = [self._executor.submit(_map_chunk, func, c) for c in chunks]
                    for future in futures:
                        done.extend(future.result())
                    return done
                except BrokenProcessPool:
                    self._stop_workers()
                    if attempt == RESTARTS:
                        raise WorkerDiedError(
                            f"a worker process died while running episodes, "
                            f"{RESTARTS + 1} times in a row; the first unfinished is "
                            f"{_describe(items, len(done))}") from None
                    self.restarts += 1
                    self._executor = self._new_executor()
        except BaseException:
            # Ctrl-C, an episode's error or dead workers: stop everything.
            self.terminate()
            raise
        raise AssertionError("unreachable")

    def run(self, items: Iterable[Any], config: RunnerConfig | None = None) -> list[EpisodeResult]:
        """Run a batch of episodes (see `run_episodes`)."""
        jobs = prepare_jobs(items, config)
        _check_picklable(jobs)
        return self.map(run_job, jobs)

    def close(self) -> None:
        """Let the workers finish and exit."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None

    def terminate(self) -> None:
        """Stop the workers now, whatever they are running."""
        self._stop_workers()

    def _stop_workers(self) -> None:
        executor, self._executor = self._executor, None
        if executor is None:
            return
        # shutdown() waits for running episodes (possibly long ones); the
        # workers are killed instead, as ProcessPoolExecutor.kill_workers
        # (Python 3.14) does. SIGKILL, since they ignore SIGTERM.
        kill = getattr(executor, "kill_workers", None)
        if kill is not None:
            kill()
            return
        processes = list((getattr(executor, "_processes", None) or {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.kill()
        for process in processes:
            process.join()

    def __enter__(self) -> EpisodePool:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.terminate()

    def __del__(self) -> None:
        if getattr(self, "_executor", None) is not None:
            self._stop_workers()


def _auto_chunksize(n: int, workers: int) -> int:
    # A task costs the pool ~0.1 ms of bookkeeping, a short episode a few
    # ms: a few chunks per worker keep both that cost and the idle tail
    # at the end of a batch small.
    return max(1, -(-n // (CHUNKS_PER_WORKER * workers)))


def _map_chunk(func: Callable[[Any], Any], chunk: Sequence[Any]) -> list[Any]:
    return [func(x) for x in chunk]


def _describe(items: Sequence[Any], i: int) -> str:
    item = items[i] if i < len(items) else None
    if isinstance(item, tuple) and len(item) == 6 and isinstance(item[1], str):
        return f"episode {item[0]} ({item[1]})"
    return f"item {i}"


def run_episodes(items: Iterable[Any], config: RunnerConfig | None = None, *,
                 workers: int = 1, map_fn: MapFn | None = None,
                 start_method: str | None = None,
                 engine: str = "python") -> list[EpisodeResult]:
    """The `EpisodeResult` of every item, in the items' order.

    `items` are `(agent_spec, stage)` pairs, run with `config` (default:
    `RunnerConfig()`), or `EpisodeTask`s. See the module docstring for
    `workers`, `map_fn` and `start_method`.

    `engine="compiled"` runs every linear-policy item that records no
    trajectory on the compiled engine, in this process on `workers`
    threads, with results equal to the readable runner's; the other items
    run as with `engine="python"`.
    """
    jobs = prepare_jobs(items, config)
    if check_engine(engine) == "compiled":
        fast = [i for i, job in enumerate(jobs) if runs_compiled(job)]
        if fast:
            results: list[Any] = [None] * len(jobs)
            for i, r in zip(fast, run_compiled([jobs[i] for i in fast],
                                               threads=_positive_int(workers, "workers"))):
                results[i] = r
            chosen = set(fast)
            rest = [i for i in range(len(jobs)) if i not in chosen]
            if rest:
                for i, r in zip(rest, _run_jobs([jobs[i] for i in rest], workers,
                                                map_fn, start_method)):
                    results[i] = r
            return results
    return _run_jobs(jobs, workers, map_fn, start_method)


def _run_jobs(jobs: list[_Job], workers: int, map_fn: MapFn | None,
              start_method: str | None) -> list[EpisodeResult]:
    if map_fn is not None:
        return list(map_fn(run_job, jobs))
    workers = _positive_int(workers, "workers")
    if workers == 1 or len(jobs) <= 1:
        return [run_job(job) for job in jobs]
    _check_picklable(jobs)
    with EpisodePool(min(workers, len(jobs)), start_method) as pool:
        return pool.map(run_job, jobs)

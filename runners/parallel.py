"""Many episodes at once, in order, across processes.

    results = run_episodes(
        [("jump-runner", "hillside"), (("linear", ("basic", genome)), "pipeworks")],
        RunnerConfig(max_steps=3600), workers=4)

Each item is an `(agent_spec, stage)` pair (or an `EpisodeTask`, which also
carries its own config). Everything that crosses a process boundary is
plain data: the agent spec (a baseline name or a `(kind, params)` pair
whose params are numbers, lists or numpy arrays, see `runners.specs`), a
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
dies has its batch run again on fresh workers; the `MAX_WORKER_DEATHS`-th
death in the life of a pool (an evolution run keeps one for the whole
run) raises `WorkerDiedError` instead. A worker killed while it sends a
result back is a death like any other, whatever the result's size. Ctrl-C (KeyboardInterrupt) and any other error stop
the pool's processes at once; nothing is left running and nothing hangs.
Workers ignore SIGINT and SIGTERM (their parent handles them) and leave
quietly if their parent is killed.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from runners.compiled import check_engine, compiled_jobs, run_compiled
from runners.episode import _positive_int
from runners.errors import EpisodeError, WorkerDiedError
from runners.jobs import Job, check_picklable, prepare_jobs, run_job
from runners.pool import MAX_WORKER_DEATHS, EpisodePool
from runners.result import EpisodeResult
from runners.runner_config import EpisodeTask, RunnerConfig


__all__ = ["run_episodes", "RunnerConfig", "EpisodeTask", "EpisodePool", "EpisodeError",
           "WorkerDiedError", "MAX_WORKER_DEATHS", "MapFn"]


MapFn = Callable[[Callable[[Any], Any], Iterable[Any]], Iterable[Any]]


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
        fast = compiled_jobs(jobs)
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


def _run_jobs(jobs: list[Job], workers: int, map_fn: MapFn | None,
              start_method: str | None) -> list[EpisodeResult]:
    if map_fn is not None:
        return list(map_fn(run_job, jobs))
    workers = _positive_int(workers, "workers")
    if workers == 1 or len(jobs) <= 1:
        return [run_job(job) for job in jobs]
    check_picklable(jobs)
    with EpisodePool(min(workers, len(jobs)), start_method) as pool:
        return pool.map(run_job, jobs)

"""`EpisodePool`: worker processes that play batches of jobs in order, run
a batch again when a worker dies (up to `MAX_WORKER_DEATHS` deaths in the
pool's life), and stop at once on Ctrl-C or any error."""
from __future__ import annotations

import multiprocessing
import os
import time
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Iterable, Sequence

from runners.episode import _positive_int
from runners.errors import WorkerDiedError
from runners.jobs import check_picklable, describe_item, prepare_jobs, run_job
from runners.parent import POLL_SECONDS, serve_parent
from runners.result import EpisodeResult
from runners.runner_config import RunnerConfig


CHUNKS_PER_WORKER = 4


# A pool stops at this many deaths of its worker processes (killed by a
# user or the out-of-memory killer), counted over its whole life, not per
# batch: before that each batch a death interrupted runs again on fresh
# workers; a run whose workers keep dying stops instead of going on forever.
MAX_WORKER_DEATHS = 5


# A worker killed while writing a result larger than the pipe's buffer
# leaves a part of it in the pipe, and the executor's result thread then
# waits forever for the rest instead of seeing the death. A worker gone
# this long (s) without the executor saying so is such a death.
UNNOTICED_DEATH_SECONDS = 2.0


def _init_worker() -> None:
    serve_parent()


class EpisodePool:
    """A pool of worker processes (a `concurrent.futures.ProcessPoolExecutor`)
    that keeps its workers, and their built runners, across batches. Use it
    as a context manager; `map(func, items)` is an ordered map usable as
    `run_episodes(map_fn=pool.map)`, `run(items, config)` runs a batch of
    episodes.

    A worker that dies mid-batch breaks the executor (`BrokenProcessPool`);
    the batch then runs again on fresh workers, until the pool has seen
    `max_deaths` deaths in all (`MAX_WORKER_DEATHS`): then
    `WorkerDiedError`. Results are the same either way: episodes are
    deterministic. An episode's own error (`EpisodeError`), Ctrl-C or any
    other exception stops the workers at once and is raised.

    `start_method` is a multiprocessing start method ("fork", "spawn",
    "forkserver"; None: the platform's default).
    """

    def __init__(self, workers: int | None = None, start_method: str | None = None,
                 chunksize: int | None = None,
                 max_deaths: int = MAX_WORKER_DEATHS) -> None:
        if workers is None:
            workers = os.cpu_count() or 1
        self.workers = _positive_int(workers, "workers")
        self.chunksize = None if chunksize is None else _positive_int(chunksize, "chunksize")
        self._context = multiprocessing.get_context(start_method)
        self.start_method = self._context.get_start_method()
        self.max_deaths = _positive_int(max_deaths, "max_deaths")
        # Deaths of worker processes so far, each one a restart of the pool.
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
            while True:
                done: list[Any] = []
                try:
                    futures = [self._executor.submit(_map_chunk, func, c) for c in chunks]
                    self._wait_for(futures)
                    for future in futures:
                        done.extend(future.result())
                    return done
                except BrokenProcessPool:
                    self._stop_workers()
                    if self.restarts + 1 >= self.max_deaths:
                        raise WorkerDiedError(
                            f"worker processes died {self.restarts + 1} times while "
                            f"running episodes (the limit: {self.max_deaths} deaths in "
                            f"all); the first unfinished is "
                            f"{describe_item(items, len(done))}") from None
                    self.restarts += 1
                    self._executor = self._new_executor()
        except BaseException:
            # Ctrl-C, an episode's error or dead workers: stop everything.
            self.terminate()
            raise
        raise AssertionError("unreachable")

    def _wait_for(self, futures: list) -> None:
        """Until every future is done or one failed; `BrokenProcessPool`
        when a worker is gone and the executor has not noticed it in
        UNNOTICED_DEATH_SECONDS (see there)."""
        gone_since = None
        while True:
            finished, pending = wait_futures(futures, timeout=POLL_SECONDS,
                                             return_when=FIRST_EXCEPTION)
            if not pending or any(f.exception() is not None for f in finished):
                return
            processes = (getattr(self._executor, "_processes", None) or {}).values()
            if not any(p.exitcode is not None for p in list(processes)):
                gone_since = None
            elif gone_since is None:
                gone_since = time.monotonic()
            elif time.monotonic() - gone_since > UNNOTICED_DEATH_SECONDS:
                raise BrokenProcessPool("a worker process died while sending a result")

    def run(self, items: Iterable[Any], config: RunnerConfig | None = None) -> list[EpisodeResult]:
        """Run a batch of episodes (see `run_episodes`)."""
        jobs = prepare_jobs(items, config)
        check_picklable(jobs)
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
        results = getattr(executor, "_result_queue", None)
        kill = getattr(executor, "kill_workers", None)
        if kill is not None:
            kill()
        else:
            processes = list((getattr(executor, "_processes", None) or {}).values())
            executor.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                if process.is_alive():
                    process.kill()
            for process in processes:
                process.join()
        # The executor's thread may be waiting for the rest of a result a
        # killed worker never finished writing: closing this process's end
        # of the pipe lets it see the end once the workers are gone.
        writer = getattr(results, "_writer", None)
        if writer is not None:
            writer.close()

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

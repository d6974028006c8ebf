"""The client side of a cluster: a Dask session that sends a generation
in chunks and puts the results back in order, counting workers lost."""
from __future__ import annotations

import logging
import math
import threading
import time
import uuid
from typing import Any, Sequence

import numpy as np

from runners.pool import MAX_WORKER_DEATHS

from evolution.cluster.errors import ClusterError, Stopped
from evolution.cluster.task import DEFAULT_POLICY, evaluate_chunk, prepare_worker, stage_payload
from evolution.numeric_env import differences, numeric_environment
from evolution.scheduler_address import LOCAL, check_scheduler

log = logging.getLogger("evolution.cluster")

# Seconds to reach the scheduler at the start.
CONNECT_SECONDS = 5.0
# How often a waiting generation looks at the connection, s.
POLL_SECONDS = 0.2
# How often a generation that makes no progress looks for workers, and
# says so while there are none, s.
NO_WORKERS_NOTICE_SECONDS = 20.0
# Chunks per worker thread: enough that a slow or lost worker leaves others
# work to take over and episodes of unequal length even out, few enough that
# the cost of a task stays small.
TASKS_PER_THREAD = 2
# Fewest episodes in a task. A task costs about 20-30 ms of latency on top of
# its work (Dask's own round trip is about 12 ms on a 2-core machine; then
# the chunk, and its results back as columns); an episode of a random genome
# takes about 0.15 ms, a full 3,600-frame one about 1 ms. With 400 episodes
# a task is 60-400 ms of work; benchmarks/bench_cluster.py measures it.
MIN_EPISODES_PER_TASK = 400

def chunk_sizes(genomes: int, stages: int, threads: int) -> list[int]:
    """How many genomes each task gets: about TASKS_PER_THREAD tasks per
    worker thread, none smaller than MIN_EPISODES_PER_TASK episodes (the
    last one aside)."""
    if genomes <= 0:
        return []
    tasks = max(1, threads) * TASKS_PER_THREAD
    size = max(math.ceil(genomes / tasks), math.ceil(MIN_EPISODES_PER_TASK / max(stages, 1)))
    sizes = [size] * (genomes // size)
    if genomes % size:
        sizes.append(genomes % size)
    return sizes


class DaskSession:
    """A Dask client (and, for 'local', its cluster) for the length of a
    run; use it as a context manager. `run(rows)` evaluates a generation
    and returns each episode's result as a dict. It lives in the helper
    process of `ClusterEvaluation`."""

    def __init__(self, scheduler: str, stages: Sequence[Any], settings: dict,
                 workers: int = 1, engine: str = "compiled", notify=None) -> None:
        self.scheduler = check_scheduler(scheduler)
        self.stages = tuple(stages)
        self.settings = settings
        self.workers = workers
        self.engine = engine
        self.cluster = None
        self.client = None
        self.address: str | None = None
        # Said while waiting (no workers); a callable of one line.
        self.notify = notify or log.warning
        # Workers that died running this session's chunks, and the chunks
        # of the generation under way (the scheduler's events name them).
        self.deaths = 0
        self.max_deaths = MAX_WORKER_DEATHS
        self._keys: frozenset = frozenset()

    # -- connection

    def __enter__(self) -> DaskSession:
        try:
            self._connect()
            self._payload = [stage_payload(s) for s in self.stages]
            self._prepare_workers()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _connect(self) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ClusterError(
                "--scheduler needs Dask distributed, which is not installed; "
                "install it with: pip install 'speednik-evolve[cluster]'") from None
        if self.scheduler == LOCAL:
            try:
                self.cluster = LocalCluster(
                    n_workers=self.workers, threads_per_worker=1, processes=True,
                    host="127.0.0.1", scheduler_port=0, dashboard_address=None,
                    worker_dashboard_address=None, silence_logs=logging.CRITICAL)
                self.client = Client(self.cluster, timeout=CONNECT_SECONDS,
                                     set_as_default=False)
            except Exception as exc:
                raise ClusterError(f"cannot start a local Dask cluster: "
                                   f"{type(exc).__name__}: {exc}") from None
        else:
            try:
                self.client = Client(self.scheduler, timeout=CONNECT_SECONDS,
                                     set_as_default=False)
            except (OSError, TimeoutError) as exc:
                raise ClusterError(
                    f"no Dask scheduler answers at {self.scheduler} (waited "
                    f"{CONNECT_SECONDS:g} s: {exc}); start one with `dask scheduler` "
                    f"and workers with `python -m evolution.cluster.worker ADDRESS`, or use --scheduler local"
                ) from None
            except Exception as exc:
                raise ClusterError(f"cannot connect to the Dask scheduler at "
                                   f"{self.scheduler}: {type(exc).__name__}: {exc}") from None
        self.address = self.client.scheduler.address
        self.client.subscribe_topic("all", self._on_event)

    def _on_event(self, event) -> None:
        """A scheduler event: a worker that left unexpectedly while running
        chunks of this session died (killed, out of memory, its node lost)."""
        _, message = event
        if (isinstance(message, dict) and message.get("action") == "remove-worker"
                and not message.get("expected", False)
                and self._keys.intersection(message.get("processing-tasks") or ())):
            self.deaths += 1

    def _check_deaths(self) -> None:
        if self.deaths >= self.max_deaths:
            raise ClusterError(
                f"Dask workers died {self.deaths} times while running this run's "
                f"chunks (the limit: {self.max_deaths} deaths in all); are they "
                f"running out of memory, or stopped by their batch system?")

    def _prepare_workers(self) -> None:
        try:
            environments = self.client.run(prepare_worker,
                                           self.settings.get("observation", "basic"))
        except (ImportError, AttributeError) as exc:
            raise ClusterError(
                f"a Dask worker of {self.address} cannot import this project "
                f"({type(exc).__name__}: {exc}); install speednik-evolve on every "
                f"machine of the cluster") from None
        except (OSError, TimeoutError) as exc:
            raise self._lost(exc) from None
        except Exception as exc:
            raise ClusterError(
                f"the Dask workers of {self.address} cannot load the engine "
                f"({type(exc).__name__}: {exc}); is speednik-evolve, the same version, "
                f"installed on every machine of the cluster?") from None
        self._compare_numeric(environments)

    def _compare_numeric(self, environments: dict[str, dict]) -> None:
        """One line if a worker computes with other numeric kernels or
        versions than this process: the episodes do not depend on them,
        but whatever numpy arithmetic a worker does would."""
        here = numeric_environment()
        for worker, there in sorted(environments.items()):
            changed = differences(here, there)
            if changed:
                self.notify(
                    f"the Dask worker {worker} computes with other numeric kernels or "
                    f"versions than this run ({'; '.join(changed)}); start workers with "
                    f"`python -m evolution.cluster.worker ADDRESS` to pin them as a run is")
                return

    def __exit__(self, *exc) -> None:
        if self.client is not None:
            try:
                self.client.unsubscribe_topic("all")
            except Exception:
                pass
        for closing in (self.client, self.cluster):
            if closing is not None:
                try:
                    closing.close(timeout=CONNECT_SECONDS)
                except Exception:
                    pass   # a scheduler already gone has nothing to close
        self.client = self.cluster = None

    def threads(self) -> int:
        """Worker threads of the cluster now (0 while it has no workers)."""
        return sum(self.client.nthreads().values())

    def describe(self) -> str:
        threads = self.threads()
        where = "a local cluster" if self.scheduler == LOCAL else "the Dask scheduler"
        return (f"{where} at {self.address}, {len(self.client.nthreads())} worker(s), "
                f"{threads} thread(s)")

    def _lost(self, exc: BaseException) -> ClusterError:
        reason = getattr(exc, "reason", None)   # a cancelled future's
        what = (f"the connection closed: {reason}" if reason
                else f"{type(exc).__name__}{': ' + str(exc) if str(exc) else ''}")
        return ClusterError(f"lost the Dask scheduler at "
                            f"{self.address or self.scheduler} ({what})")

    # -- a generation

    def run(self, rows: np.ndarray | list, stop=None,
            stages: Sequence[Any] | None = None,
            policy: dict = DEFAULT_POLICY, changed: dict | None = None) -> list[dict]:
        """Every genome (a row) on every stage (default: the session's),
        with the session's runner settings, those in `changed` replaced,
        genome-major, as `EpisodeResult.to_dict()`s packed by chunk
        (`pack_results`), in chunk order. `stop()`, asked while waiting, may
        call the generation off (`Stopped`)."""
        from distributed.client import FutureCancelledError

        from runners import EpisodeError

        if self.client is None:
            raise ClusterError("the cluster connection is closed")
        if stages is None:
            payload = self._payload
        else:
            payload = [self._payload[self.stages.index(s)] if s in self.stages
                       else stage_payload(s) for s in stages]
        n = len(payload)
        settings = {**self.settings, **(changed or {})}
        self._check_deaths()
        sizes = chunk_sizes(len(rows), n, self._threads_or_zero())
        futures: list = []
        # The keys are known before the chunks go, so that a worker dying
        # at once on one is counted.
        keys = [f"evaluate_chunk-{uuid.uuid4().hex}" for _ in sizes]
        self._keys = frozenset(keys)
        try:
            starts, at = [], 0
            for size, key in zip(sizes, keys):
                futures.append(self.client.submit(
                    evaluate_chunk, rows[at:at + size], payload, settings,
                    self.engine, policy, key=key, pure=False))
                starts.append(at)
                at += size
            self._wait(futures, stop)
            out: list = []
            for future, start in zip(futures, starts):
                try:
                    chunk = future.result()
                except (EpisodeError, FutureCancelledError, ClusterError, OSError):
                    raise
                except Exception as exc:
                    if type(exc).__name__ == "KilledWorker":
                        raise ClusterError(
                            f"the Dask cluster gave up on a chunk after losing the "
                            f"workers running it several times ({exc})") from None
                    raise ClusterError(
                        f"a chunk failed on a Dask worker of {self.address}: "
                        f"{type(exc).__name__}: {exc} (is speednik-evolve, the same "
                        f"version, installed on every machine of the cluster?)") from None
                out.append(chunk)
            return out
        except EpisodeError as e:
            self._cancel(futures)
            # The index within its chunk, as the whole batch's.
            start = starts[next(k for k, f in enumerate(futures) if f.status == "error")]
            raise EpisodeError(start * n + e.index, e.label, e.message) from None
        except ClusterError:
            self._cancel(futures)
            raise
        except (FutureCancelledError, OSError) as exc:
            self._cancel(futures)
            raise self._lost(exc) from None
        except BaseException:
            # Ctrl-C: the cluster stops working on this generation.
            self._cancel(futures)
            raise

    def _wait(self, futures: list, stop=None) -> None:
        """Until every future is done (a lost connection cancels them all),
        looking at the connection every POLL_SECONDS."""
        remaining = len(futures)
        changed = threading.Condition()

        def done(_future) -> None:
            nonlocal remaining
            with changed:
                remaining -= 1
                changed.notify()

        for future in futures:
            future.add_done_callback(done)
        progress = looked = time.monotonic()
        with changed:
            while remaining:
                if changed.wait(POLL_SECONDS):
                    progress = looked = time.monotonic()
                    continue
                if self.client.status not in ("running", "newly-created"):
                    raise self._lost(ConnectionError(f"client {self.client.status}"))
                if stop is not None and stop():
                    raise Stopped
                self._check_deaths()
                if time.monotonic() - looked >= NO_WORKERS_NOTICE_SECONDS:
                    looked = time.monotonic()
                    self._say_if_no_workers(looked - progress)
        self._check_deaths()

    def _say_if_no_workers(self, waited: float) -> None:
        if self._threads_or_zero() == 0:
            self.notify(f"waiting for workers ({waited:.0f} s so far): the Dask scheduler "
                        f"at {self.address} has none; start some with: dask worker "
                        f"{self.address}")

    def _threads_or_zero(self) -> int:
        try:
            return self.threads()
        except Exception as exc:
            raise self._lost(exc) from None

    def _cancel(self, futures: list) -> None:
        if futures and self.client is not None and self.client.status == "running":
            try:
                self.client.cancel(futures)
            except Exception:
                pass



"""Evaluation of genomes on a Dask distributed cluster (`--scheduler`).

    with ClusterEvaluation("tcp://10.0.0.5:8786", stages, runner_config) as cluster:
        results = cluster.run(genomes)     # [EpisodeResult], genome-major

`"local"` starts a `LocalCluster` of worker processes on this machine,
bound to 127.0.0.1, with its dashboard off: the way to try it without a
cluster. Any other value is the address of a running scheduler
(`dask scheduler`, dask-jobqueue, dask-kubernetes).

A task is a chunk of genomes, a 2-D float64 array (a list of arrays for
genomes of different sizes, a NEAT run's), sent with the run's
stages and episode settings as plain values; `evaluate_chunk` runs it on
the worker through the compiled engine and returns each episode's
`EpisodeResult.to_dict()`. Results are put back in chunk order, never in
the order they finish, and every episode is deterministic: the results are
the same whatever the number of workers and whichever worker ran what. A
worker lost mid-generation has its chunks run again elsewhere (Dask does
that), until workers running the run's chunks have died
`MAX_WORKER_DEATHS` times in all, which raises `ClusterError`, as does a
scheduler that cannot be reached, or is lost, within seconds.

What the cluster has to say goes to the `evolution.cluster` logger: whom
it connected to and how many workers it has (INFO), and while it has none,
a line every NO_WORKERS_NOTICE_SECONDS (WARNING): a run waits for workers
as long as it takes, but not in silence.

Dask is imported only when a cluster is used: `import evolution` and
`python -m evolution.run --help` never load it.
"""
from __future__ import annotations

import logging
import math
import re
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import fields
from typing import Any, Sequence

import numpy as np

from runners.parallel import MAX_WORKER_DEATHS

log = logging.getLogger(__name__)

LOCAL = "local"
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

ADDRESS = re.compile(r"^(?:(tcp|tls|ws|wss)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$")
ACCEPTED = ("'local' (a cluster of --workers processes on this machine) or the address "
            "of a Dask scheduler, tcp://HOST:PORT")


class Stopped(Exception):
    """The run called the generation off (Ctrl-C, SIGTERM, an error)."""


class ClusterError(RuntimeError):
    """The Dask scheduler cannot be reached or was lost, or the cluster gave
    up on a task; the message (one line) says which and what to do."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))


def check_scheduler(value: object) -> str | None:
    """`value` if it is None, 'local' or a scheduler address; ValueError
    naming the accepted forms otherwise."""
    if value is None or value == LOCAL:
        return value
    if not isinstance(value, str) or not ADDRESS.match(value.strip()):
        raise ValueError(f"scheduler {value!r} is not understood; accepted: {ACCEPTED}")
    if not 0 < int(ADDRESS.match(value.strip()).group(3)) < 65536:
        raise ValueError(f"scheduler {value!r}: the port must be 1-65535; "
                         f"accepted: {ACCEPTED}")
    return value.strip()


# -- the work, as it runs on a worker -------------------------------------------------

# A stage sent as profile text, built once per worker process and kept.
_PROFILE_STAGES: OrderedDict[tuple[str, str], Any] = OrderedDict()
PROFILE_CACHE_SIZE = 64
# One batch at a time per worker process: a batch already spreads over the
# worker's threads, and some of Numba's threading layers may not be
# entered from two threads at once.
_ENGINE_LOCK = threading.Lock()


def stage_payload(stage: Any) -> Any:
    """What to send for a stage reference: a .toml profile as its text (a
    worker needs no copy of the file), anything else as it is."""
    if isinstance(stage, str) and stage.endswith(".toml"):
        from pathlib import Path

        return ("profile", stage, Path(stage).read_text(encoding="utf-8"))
    return stage


def _worker_stage(payload: Any) -> Any:
    if isinstance(payload, tuple) and len(payload) == 3 and payload[0] == "profile":
        _, path, text = payload
        key = (path, text)
        stage = _PROFILE_STAGES.get(key)
        if stage is None:
            from speednik.stages import build_stage, parse_profile

            stage = build_stage(parse_profile(text, source=path.rsplit("/", 1)[-1],
                                              path=path))
            _PROFILE_STAGES[key] = stage
            while len(_PROFILE_STAGES) > PROFILE_CACHE_SIZE:
                _PROFILE_STAGES.popitem(last=False)
        return stage
    # Built-in names and (seed, difficulty) pairs: speednik keeps every
    # stage it builds for the life of the process.
    return payload


def pack_results(results: Sequence[dict]) -> dict:
    """Episode result dicts as columns: {"n", "keys": [path, ...], "columns":
    [...]}, a path being a key tuple into the nested dicts. A column whose
    values are all floats, all whole numbers or all booleans travels as one
    numpy array; any other as a list. Far cheaper to send than thousands of
    dicts; `unpack_results` gives back equal dicts, the same types included."""
    def leaves(d: dict, prefix: tuple) -> list:
        out = []
        for k, v in d.items():
            if isinstance(v, dict):
                out += leaves(v, prefix + (k,))
            else:
                out.append((prefix + (k,), v))
        return out

    if not results:
        return {"n": 0, "keys": [], "columns": []}
    flat = [leaves(r, ()) for r in results]
    keys = [k for k, _ in flat[0]]
    if any([k for k, _ in row] != keys for row in flat):
        # Results of different shapes: sent as they are.
        return {"n": len(results), "keys": None, "columns": list(results)}
    columns = []
    for j in range(len(keys)):
        values = [row[j][1] for row in flat]
        kinds = {type(v) for v in values}
        if kinds == {float}:
            columns.append(np.array(values, dtype=np.float64))
        elif kinds == {bool}:
            columns.append(np.array(values, dtype=np.bool_))
        elif kinds == {int} and all(-2**63 <= v < 2**63 for v in values):
            columns.append(np.array(values, dtype=np.int64))
        else:
            columns.append(values)
    return {"n": len(results), "keys": keys, "columns": columns}


def unpack_results(packed: dict) -> list[dict]:
    """The dicts `pack_results` was given."""
    if packed["keys"] is None:
        return list(packed["columns"])
    columns = [c.tolist() if isinstance(c, np.ndarray) else c for c in packed["columns"]]
    out = []
    for i in range(packed["n"]):
        row: dict = {}
        for path, column in zip(packed["keys"], columns):
            d = row
            for k in path[:-1]:
                d = d.setdefault(k, {})
            d[path[-1]] = column[i]
        out.append(row)
    return out


def _worker_threads() -> int:
    try:
        from distributed import get_worker

        return max(1, int(get_worker().state.nthreads))
    except (ImportError, ValueError, AttributeError):
        return 1


DEFAULT_POLICY = {"policy": "linear"}


def evaluate_chunk(genomes: np.ndarray, stages: Sequence[Any], settings: dict,
                   engine: str = "compiled", policy: dict = DEFAULT_POLICY) -> dict:
    """Every genome of a chunk (rows of a float64 array, or a list of
    arrays for genomes of different sizes) on every stage,
    genome-major, as `EpisodeResult.to_dict()`s packed in columns
    (`pack_results`). `stages` are stage
    payloads (see `stage_payload`), `settings` the fields of a
    `RunnerConfig`. Runs on a worker; module-level so any worker can import
    it."""
    from runners import Policy, RunnerConfig, run_episodes

    config = RunnerConfig(**settings)
    built = [_worker_stage(s) for s in stages]
    observation = config.observation
    spec = Policy.from_json(policy, observation).spec
    items = [(spec(np.asarray(row, dtype=np.float64)), stage)
             for row in genomes for stage in built]
    # The readable runner runs in the task's own thread: no process pool
    # inside a worker.
    threads = _worker_threads() if engine == "compiled" else 1
    with _ENGINE_LOCK:
        results = run_episodes(items, config, workers=threads, engine=engine)
    return pack_results([r.to_dict() for r in results])


def prepare_worker() -> int:
    """Load the compiled engine on a worker (compile it if its machine has
    no cache yet), so the first generation is not slowed; its process id."""
    import os

    from speednik.engine import warm_up

    warm_up()
    return os.getpid()


# -- the client side -------------------------------------------------------------------

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
                    f"and workers with `dask worker ADDRESS`, or use --scheduler local"
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
            self.client.run(prepare_worker)
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
            policy: dict = DEFAULT_POLICY) -> list[dict]:
        """Every genome (a row) on every stage (default: the session's),
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
                    evaluate_chunk, rows[at:at + size], payload, self.settings,
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


# -- the helper process ------------------------------------------------------------------
#
# Dask's client, its scheduler (for 'local') and their event loop draw from
# Python's global `random` on their own threads (back-off jitter, sampling
# for compression and sizes, picking workers), and the GA's random stream is
# that same global one (DEAP's operators use it). So the client lives in a
# process of its own: the run's process never runs any Dask code, and its
# random stream is the same as without a cluster.

START_SECONDS = 120.0   # to start the helper and reach the cluster


def _serve(conn, scheduler: str, stages: tuple, settings: dict, workers: int,
           engine: str) -> None:
    """The helper process: a DaskSession answering `("run", rows)` with
    `("ok", results)` and `("close",)` by leaving."""
    from runners.parallel import serve_parent

    # The run handles signals and tells this process to stop; a run killed
    # outright leaves no helper behind.
    serve_parent()
    # Dask reports a lost connection through its loggers, as tracebacks and
    # retries; the run reports it as one line instead.
    logging.disable(logging.CRITICAL)
    from runners import EpisodeError

    try:
        with DaskSession(scheduler, stages, settings, workers, engine,
                         notify=lambda line: conn.send(("note", line))) as session:
            conn.send(("ready", session.address, session.describe(),
                       session._threads_or_zero()))
            while True:
                try:
                    message = conn.recv()
                except EOFError:
                    return
                if message[0] != "run":
                    return
                try:
                    conn.send(("ok", session.run(message[1], stop=conn.poll,
                                                 stages=message[2], policy=message[3])))
                except Stopped:
                    return
                except EpisodeError as e:
                    conn.send(("episode", (e.index, e.label, e.message)))
                except ClusterError as e:
                    conn.send(("cluster", str(e)))
                    return
    except ClusterError as e:
        _send_quietly(conn, ("cluster", str(e)))
    except Exception as e:
        _send_quietly(conn, ("cluster", f"the Dask client failed: {type(e).__name__}: {e}"))


def _send_quietly(conn, message) -> None:
    try:
        conn.send(message)
    except OSError:
        pass


class ClusterEvaluation:
    """Evaluation of generations on a Dask cluster for the length of a run;
    use it as a context manager. `run(genomes)` gives the `EpisodeResult`s
    of every genome on every stage, genome-major, as the in-process
    runners give them. The Dask client runs in a helper process (see
    above)."""

    def __init__(self, scheduler: str, stages: Sequence[Any], runner_config: Any,
                 workers: int = 1, engine: str = "compiled") -> None:
        self.scheduler = check_scheduler(scheduler)
        self.stages = tuple(stages)
        self.settings = {f.name: getattr(runner_config, f.name)
                         for f in fields(runner_config)}
        self.workers = workers
        self.engine = engine
        self.address: str | None = None
        self.description = ""
        self._process = None
        self._conn = None

    def __enter__(self) -> ClusterEvaluation:
        import multiprocessing

        try:
            import distributed  # noqa: F401  (only whether it is there)
        except ImportError:
            raise ClusterError(
                "--scheduler needs Dask distributed, which is not installed; "
                "install it with: pip install 'speednik-evolve[cluster]'") from None
        context = multiprocessing.get_context("spawn")
        mine, theirs = context.Pipe()
        self._conn = mine
        self._process = context.Process(
            target=_serve, name="dask-client",
            args=(theirs, self.scheduler, self.stages, self.settings, self.workers,
                  self.engine))
        try:
            self._process.start()
            theirs.close()
            reply = self._receive(START_SECONDS)
            if reply[0] != "ready":
                self._raise(reply)
            _, self.address, self.description, threads = reply
            log.info(f"connected to {self.description}")
            if not threads:
                log.warning(f"waiting: the Dask scheduler at {self.address} has no "
                            f"workers yet; start some with: dask worker {self.address}")
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        if self._conn is not None:
            _send_quietly(self._conn, ("close",))
        if self._process is not None:
            # It calls off what it is waiting for and closes its cluster.
            self._process.join(CONNECT_SECONDS + 10)
            if self._process.is_alive():
                self._process.kill()
                self._process.join(5)
        if self._conn is not None:
            self._conn.close()
        self._process = self._conn = None

    def run(self, genomes: Sequence[np.ndarray], stages: Sequence[Any] | None = None,
            policy: dict = DEFAULT_POLICY) -> list:
        """`EpisodeResult`s of every genome on every stage (default: the
        run's training stages), genome-major; `policy` is a policy's JSON
        form (`runners.policies.Policy.to_json`)."""
        from runners import EpisodeResult

        if self._conn is None:
            raise ClusterError("the cluster connection is closed")
        rows = [np.asarray(g, dtype=np.float64) for g in genomes]
        if len({len(r) for r in rows}) <= 1:
            rows = np.asarray(rows)     # one size: one array, sent whole
        try:
            self._conn.send(("run", rows, None if stages is None else tuple(stages),
                             dict(policy)))
        except OSError:
            raise ClusterError("the process holding the Dask client ended") from None
        reply = self._receive(None)
        if reply[0] != "ok":
            self._raise(reply)
        return [EpisodeResult.from_dict(d) for packed in reply[1]
                for d in unpack_results(packed)]

    def _receive(self, seconds: float | None):
        """The helper's next message, its notes said on the way (see
        `log`); ClusterError if it ends first (or, with `seconds`, does not
        answer in time)."""
        deadline = None if seconds is None else time.monotonic() + seconds
        while True:
            while not self._conn.poll(POLL_SECONDS):
                if not self._process.is_alive() and not self._conn.poll(0):
                    raise ClusterError("the process holding the Dask client ended "
                                       f"(exit status {self._process.exitcode})")
                if deadline is not None and time.monotonic() > deadline:
                    raise ClusterError(f"the Dask cluster at {self.scheduler} was not "
                                       f"ready within {seconds:g} s")
            try:
                message = self._conn.recv()
            except (EOFError, OSError):
                raise ClusterError("the process holding the Dask client ended") from None
            if message[0] != "note":
                return message
            log.warning(message[1])

    @staticmethod
    def _raise(reply) -> None:
        from runners import EpisodeError

        if reply[0] == "episode":
            raise EpisodeError(*reply[1])
        raise ClusterError(reply[1])

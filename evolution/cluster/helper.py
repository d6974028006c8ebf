"""The process that holds the Dask client for a run, and the pipe the run
talks to it through: Dask's threads and signal handling stay out of the
run's own process."""
from __future__ import annotations

import logging
import time
from dataclasses import fields
from typing import Any, Sequence

import numpy as np

from evolution.cluster.errors import ClusterError, Stopped
from evolution.cluster.session import CONNECT_SECONDS, POLL_SECONDS, DaskSession, log
from evolution.cluster.task import DEFAULT_POLICY, unpack_results
from evolution.scheduler_address import check_scheduler

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
    from runners.parent import serve_parent

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
                                                 stages=message[2], policy=message[3],
                                                 changed=message[4])))
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
            policy: dict = DEFAULT_POLICY, action_repeat: int | None = None,
            stall_frames: int | None = None) -> list:
        """`EpisodeResult`s of every genome on every stage (default: the
        run's training stages), genome-major; `policy` is a policy's JSON
        form (`runners.policies.Policy.to_json`); `action_repeat` and
        `stall_frames`, where given, replace the runner settings' own."""
        from runners import EpisodeResult

        if self._conn is None:
            raise ClusterError("the cluster connection is closed")
        rows = [np.asarray(g, dtype=np.float64) for g in genomes]
        if len({len(r) for r in rows}) <= 1:
            rows = np.asarray(rows)     # one size: one array, sent whole
        try:
            changed = {} if action_repeat is None else {"action_repeat": int(action_repeat)}
            if stall_frames is not None:
                changed["stall_frames"] = int(stall_frames)
            self._conn.send(("run", rows, None if stages is None else tuple(stages),
                             dict(policy), changed))
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

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

from evolution.cluster.errors import ClusterError, Stopped
from evolution.cluster.helper import START_SECONDS, ClusterEvaluation
from evolution.cluster.session import (
    CONNECT_SECONDS,
    MIN_EPISODES_PER_TASK,
    NO_WORKERS_NOTICE_SECONDS,
    POLL_SECONDS,
    TASKS_PER_THREAD,
    DaskSession,
    chunk_sizes,
)
from evolution.cluster.task import (
    PROFILE_CACHE_SIZE,
    evaluate_chunk,
    pack_results,
    prepare_worker,
    stage_payload,
    unpack_results,
)
from evolution.scheduler_address import ACCEPTED, LOCAL, check_scheduler

__all__ = [
    "ClusterError", "Stopped", "ClusterEvaluation", "DaskSession", "LOCAL", "ACCEPTED",
    "check_scheduler", "chunk_sizes", "evaluate_chunk", "pack_results", "unpack_results",
    "prepare_worker", "stage_payload", "CONNECT_SECONDS", "POLL_SECONDS",
    "NO_WORKERS_NOTICE_SECONDS", "TASKS_PER_THREAD", "MIN_EPISODES_PER_TASK",
    "PROFILE_CACHE_SIZE", "START_SECONDS",
]

"""What goes wrong with a cluster, as the run sees it."""
from __future__ import annotations


class Stopped(Exception):
    """The run called the generation off (Ctrl-C, SIGTERM, an error)."""


class ClusterError(RuntimeError):
    """The Dask scheduler cannot be reached or was lost, or the cluster gave
    up on a task; the message (one line) says which and what to do."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))

"""Following the parent: a worker process (of a pool, or the one holding a
Dask client) leaves quietly when the process that started it is gone."""
from __future__ import annotations

import os
import signal
import threading
import time


# How often a worker checks that its parent process is alive, s.
POLL_SECONDS = 0.2


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

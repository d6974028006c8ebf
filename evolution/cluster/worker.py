"""`python -m evolution.cluster.worker SCHEDULER [dask worker options]`:
`dask worker` with the numeric kernels pinned as a run pins them
(`evolution.numeric_env`), so that the workers compute as the run does
whatever machine they are on. It takes every option `dask worker` takes."""
from __future__ import annotations

# Importing evolution pins the kernels before Dask imports numpy; the
# worker processes a nanny starts inherit the setting.
import evolution  # noqa: F401

PROG = "python -m evolution.cluster.worker"


def dask_worker_command():
    """Dask's own `dask worker` command (a click command)."""
    from distributed.cli.dask_worker import main as command

    return command


def main() -> None:
    dask_worker_command()(prog_name=PROG)


if __name__ == "__main__":
    main()

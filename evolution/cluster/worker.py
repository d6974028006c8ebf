"""`python -m evolution.cluster.worker SCHEDULER [dask worker options]`:
`dask worker` with the numeric kernels pinned as a run pins them
(`evolution.numeric_env`), so that the workers compute as the run does
whatever machine they are on. It takes every option `dask worker` takes."""
from __future__ import annotations

# Importing evolution pins the kernels before Dask imports numpy; the
# worker processes a nanny starts inherit the setting.
import evolution  # noqa: F401


def main() -> None:
    from distributed.cli.dask_worker import main as dask_worker

    dask_worker(prog_name="python -m evolution.cluster.worker")


if __name__ == "__main__":
    main()

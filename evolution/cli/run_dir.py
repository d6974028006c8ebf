"""A run's directory: a new one chosen or checked (new or empty), one run
at a time in it (a lock), and what a run killed before its first
checkpoint left there."""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

from evolution.loop.checkpoint import (
    CHECKPOINT_NAME,
    LEGACY_NAME,
    CheckpointError,
    load_checkpoint,
)
from evolution.config import ConfigError, EvolutionConfig
from evolution.config_file import CONFIG_TOML_NAME
from evolution.loop.method_file import METHOD_NAME
from evolution.loop.outputs import (
    BEST_NAME,
    CONFIG_NAME,
    LOGBOOK_NAME,
    RunFileError,
    read_config_data,
)
from runners.archive_file import ARCHIVE_NAME
from runners.atomic import remove_stale_temporaries
from runners.genome_file import STAGE_COPIES


def refuse_a_saved_run(run_dir: Path, entries: list[str]) -> None:
    if CHECKPOINT_NAME in entries or LEGACY_NAME in entries:
        raise ConfigError(
            f"{run_dir} already holds a run; continue it with --resume {run_dir} "
            f"or choose another --out")


def out_holds_no_run(args: argparse.Namespace) -> None:
    """Refuse an --out that already holds a saved run before anything
    slow (building and certifying the stages) is done; it changes nothing
    on disk. `new_run_dir` checks the directory in full afterwards."""
    if args.out is None or not args.out.strip():
        return
    run_dir = Path(args.out)
    try:
        entries = os.listdir(run_dir) if run_dir.is_dir() else []
    except OSError:
        return   # new_run_dir says what is wrong with it
    refuse_a_saved_run(run_dir, entries)


def new_run_dir(args: argparse.Namespace, config: EvolutionConfig,
                lock: RunDirLock) -> Path:
    """The directory of a new run: --out, which must be new or empty and
    creatable, or a fresh default one. Created here, and locked before it
    is looked into, so that of two runs started into it at once one
    writes and the other is refused."""
    if args.out is None:
        run_dir = default_run_dir(config)
    elif not args.out.strip():
        raise ConfigError("--out is empty; accepted: a path to a new or empty directory")
    else:
        run_dir = Path(args.out)
    if run_dir.exists() and not run_dir.is_dir():
        raise ConfigError(f"--out {run_dir}: exists and is not a directory; accepted: "
                          f"a path to a new or empty directory")
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        probe = run_dir / f".write-test-{os.getpid()}"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise ConfigError(
            f"--out {run_dir}: cannot be written ({exc.strerror or exc}); accepted: a "
            f"path to a new or empty directory that can be written") from None
    lock.take(run_dir)
    remove_stale_temporaries(run_dir)
    try:
        entries = sorted(os.listdir(run_dir))
    except OSError as exc:
        raise ConfigError(f"--out {run_dir}: cannot be read ({exc.strerror})") from None
    refuse_a_saved_run(run_dir, entries)
    if entries and is_unsaved_start(run_dir, entries):
        clear_unsaved_start(run_dir, entries)
    elif entries:
        raise ConfigError(
            f"--out {run_dir}: not empty (holds {', '.join(entries[:3])}"
            f"{', ...' if len(entries) > 3 else ''}); a run writes only into a new "
            f"or empty directory: choose another --out, or --resume a run")
    return run_dir


# What a run writes once its generation 0 is done, before its first
# checkpoint: a run killed (SIGKILL, a node lost) in between leaves these
# and nothing to resume.
UNSAVED_START = {CONFIG_NAME, CONFIG_TOML_NAME, LOGBOOK_NAME, BEST_NAME, STAGE_COPIES,
                 METHOD_NAME, ARCHIVE_NAME}


def is_unsaved_start(run_dir: Path, entries: list[str]) -> bool:
    """Whether `entries` of `run_dir` are only what a run killed before
    its first checkpoint leaves, its config.json this tool's."""
    if CONFIG_NAME not in entries or not set(entries) <= UNSAVED_START:
        return False
    try:
        read_config_data(run_dir)
    except RunFileError:
        return False
    return True


def clear_unsaved_start(run_dir: Path, entries: list[str]) -> None:
    """Remove the files of a run that never saved a generation, saying so:
    without a checkpoint there is nothing to continue, and a requeued
    command (which adds --resume only once there is a checkpoint) must be
    able to start again."""
    for name in entries:
        path = run_dir / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    print(f"evolution.run: note: {run_dir} held only {', '.join(entries)} of a run "
          f"stopped before its first checkpoint (nothing to resume); starting anew",
          file=sys.stderr)


class RunDirLock:
    """One run at a time in a run directory: two would mix their files. An
    exclusive flock on the directory for the life of the command; the
    system drops it however the process ends (SIGKILL included), so it
    never goes stale. Worker processes forked by the run share it until
    they notice the run is gone (within a fraction of a second), which
    `take` waits out."""

    WAIT_SECONDS = 3.0

    def __init__(self) -> None:
        self._fd: int | None = None

    def take(self, run_dir: Path) -> None:
        try:
            import fcntl
        except ImportError:   # no flock on this system: unguarded
            return
        fd = os.open(run_dir, os.O_RDONLY)
        deadline = time.monotonic() + self.WAIT_SECONDS
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if time.monotonic() > deadline:
                    os.close(fd)
                    raise ConfigError(
                        f"{run_dir}: another run is writing into it; accepted: one run "
                        f"at a time in a directory (wait for it to end, or choose "
                        f"another --out)") from None
                time.sleep(0.05)
        self.release()
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RunDirLock:
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def default_run_dir(config: EvolutionConfig) -> Path:
    """runs/<stage>-seed<seed>, numbered on when that is taken, so running
    the same command twice never collides with (or overwrites) a run."""
    stage = Path(config.stages[0]).stem.replace(":", "-")
    more = f"+{len(config.stages) - 1}" if len(config.stages) > 1 else ""
    base = Path("runs") / f"{stage}{more}-seed{config.seed}"
    path, n = base, 1
    while path.exists():
        n += 1
        path = base.with_name(f"{base.name}-{n}")
    return path


def remove_if_empty(run_dir: Path) -> None:
    try:
        remove_stale_temporaries(run_dir)
        run_dir.rmdir()
    except OSError:
        pass


def saved_generation(run_dir: Path) -> int | None:
    try:
        return load_checkpoint(run_dir).generation
    except CheckpointError:
        return None

"""Where a tuning keeps its Optuna study: OUT/study.db (SQLite), shared by
any number of `evolution.tune` processes.

- `check_out` refuses, before anything is written, an OUT that cannot
  hold a study: a file, a path under a file, a folder that cannot be
  created or written, a study.db that is not an SQLite file of Optuna's
  (read holding `StudyLock`, so never half made by another process), or
  one another program keeps locked for longer than `LOCK_WAIT_SECONDS`.
- `StudyLock` serialises what must not interleave between processes:
  creating the tables and the study (SQLAlchemy's `create_all` is not safe
  when two processes race on a new file), and counting the trials in play
  then asking for the next one (so exactly `--trials` complete in all, and
  each trial is drawn from its own seed). It is an exclusive flock on OUT
  itself, taken for a few database calls at a time, never for a trial:
  nothing is written for it, and the system drops it however the process
  ends.
- `open_storage` opens the study file with a busy timeout of
  `LOCK_WAIT_SECONDS`, so a process waits for another's write instead of
  failing at once.
"""
from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from urllib.parse import quote

STUDY_NAME = "study.db"
# How long a process waits for the study file while another program
# holds it locked, before it gives up with one line.
LOCK_WAIT_SECONDS = 30.0
SQLITE_HEADER = b"SQLite format 3\x00"
# Tables an Optuna study file always has.
OPTUNA_TABLES = {"studies", "trials", "alembic_version"}


class StudyFileError(ValueError):
    """OUT or its study.db cannot hold a tuning; the message says why and
    what is accepted."""


def check_out(out: Path) -> None:
    """Refuses an OUT that cannot hold a study (see the module's notes);
    writes nothing."""
    if out.exists() and not out.is_dir():
        raise StudyFileError(f"--out {out} is a file; accepted: a folder, new or one "
                             f"evolution.tune wrote")
    if not out.exists():
        above = out.absolute().parent
        while not above.exists():
            above = above.parent
        if not above.is_dir():
            raise StudyFileError(f"--out {out} cannot be made: {above} is a file; "
                                 f"accepted: a path in a writable folder")
        if not os.access(above, os.W_OK | os.X_OK):
            raise StudyFileError(f"--out {out} cannot be made: {above} is not writable; "
                                 f"accepted: a path in a writable folder")
        return
    if not os.access(out, os.W_OK | os.X_OK):
        raise StudyFileError(f"--out {out} is not writable; accepted: a writable folder")
    study = out / STUDY_NAME
    if study.exists() or study.is_symlink():
        # A process started at the same moment may be creating the study's
        # tables, holding the lock: the file is read once they are made.
        lock = StudyLock(out)
        try:
            with lock:
                check_study_file(study)
        finally:
            lock.close()


def make_out(out: Path) -> None:
    """Creates OUT (and the folders above it) after `check_out`."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StudyFileError(f"--out {out} cannot be made ({exc.strerror or exc}); "
                             f"accepted: a path in a writable folder") from None


def check_study_file(path: Path) -> None:
    """A study file that exists is an SQLite file (empty or Optuna's) that
    can be read within `LOCK_WAIT_SECONDS`; read only, nothing written."""
    accepted = ("accepted: the study.db that evolution.tune wrote there (move this "
                "file away, or choose another --out)")
    if not path.is_file():
        raise StudyFileError(f"{path} is not a file; {accepted}")
    try:
        with path.open("rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise StudyFileError(f"{path} cannot be read ({exc.strerror or exc}); "
                             f"{accepted}") from None
    if not head:
        return          # an empty file: SQLite's empty database
    if head != SQLITE_HEADER:
        raise StudyFileError(f"{path} is not an SQLite database; {accepted}")
    tables = _tables(path, accepted)
    if tables and not OPTUNA_TABLES <= tables:
        raise StudyFileError(f"{path} is an SQLite database but not an Optuna study "
                             f"(its tables: {', '.join(sorted(tables))}); {accepted}")


def _tables(path: Path, accepted: str) -> set[str]:
    uri = f"file:{quote(str(path.absolute()))}?mode=ro"
    start = time.monotonic()
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=LOCK_WAIT_SECONDS)
        try:
            rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            return {r[0] for r in rows.fetchall()}
        finally:
            conn.close()
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc):
            raise StudyFileError(locked_message(path, time.monotonic() - start)) from None
        raise StudyFileError(f"{path} cannot be read ({exc}); {accepted}") from None
    except sqlite3.DatabaseError as exc:
        raise StudyFileError(f"{path} is damaged ({exc}); {accepted}") from None


def locked_message(path: Path, waited: float) -> str:
    return (f"{path} is locked by another program (waited {round(waited, 1):g} s); accepted: "
            f"a study no other program holds locked (end that program, or choose "
            f"another --out)")


def open_storage(out: Path):
    """The Optuna storage of OUT/study.db, its tables created if new; call
    it holding `StudyLock`."""
    import optuna
    import sqlalchemy.exc

    path = (out / STUDY_NAME).resolve()
    start = time.monotonic()
    try:
        return optuna.storages.RDBStorage(
            f"sqlite:///{path}",
            engine_kwargs={"connect_args": {"timeout": LOCK_WAIT_SECONDS}})
    except sqlalchemy.exc.OperationalError as exc:
        raise storage_error(exc, path, time.monotonic() - start) from None
    except (sqlalchemy.exc.SQLAlchemyError, RuntimeError) as exc:
        # RuntimeError: a study file of another Optuna version's schema.
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise StudyFileError(f"{path} cannot be opened as an Optuna study ({first}); "
                             f"accepted: the study.db that evolution.tune wrote there with "
                             f"this Optuna, or another --out") from None


def database_error(exc: BaseException) -> BaseException | None:
    """The database's own error behind `exc` (Optuna wraps some in its
    StorageInternalError), or None when it is no database error."""
    import sqlalchemy.exc

    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, (sqlalchemy.exc.SQLAlchemyError, sqlite3.Error)):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def storage_error(exc: Exception, path: Path, waited: float) -> StudyFileError:
    """One line for a database error met while reading or writing the study."""
    orig = getattr(exc, "orig", None) or exc
    text = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
    if "locked" in text:
        return StudyFileError(locked_message(path, waited))
    return StudyFileError(f"{path} cannot be used ({text}); accepted: a study file in a "
                          f"writable folder, as evolution.tune writes it")


class StudyLock:
    """An exclusive flock on OUT, for a few database calls at a time:

        with lock:
            ...

    Each instance opens OUT once; two instances (two processes, or two
    threads) exclude each other. Where the system has no flock, it guards
    nothing."""

    def __init__(self, out: Path) -> None:
        self._fd: int | None = None
        try:
            import fcntl
        except ImportError:
            self._fcntl = None
            return
        self._fcntl = fcntl
        self._out = out
        self._fd = os.open(out, os.O_RDONLY)

    def __enter__(self) -> StudyLock:
        if self._fd is not None:
            try:
                self._fcntl.flock(self._fd, self._fcntl.LOCK_EX)
            except OSError as exc:
                raise StudyFileError(
                    f"--out {self._out} cannot be locked ({exc.strerror or exc}), so "
                    f"processes sharing it could play a trial twice; accepted: a folder "
                    f"on a file system with flock (a local disk)") from None
        return self

    def __exit__(self, *exc) -> None:
        if self._fd is not None:
            self._fcntl.flock(self._fd, self._fcntl.LOCK_UN)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

"""The runs under a directory as the dashboard lists them: one row per run
directory (nested ones included), read from the files the runs already
write (config.json, logbook.csv, checkpoint.npz) and never written to.

A directory is a run when it holds a config.json or a logbook.csv. A run
whose files cannot be read still gets a row, saying what is wrong. Rows
are cached by the files' modification times and sizes, so a RUNS_DIR of
hundreds of runs is read once and then only what changed; a running run
is read again when its files change or its lock is given back, and of its
logbook (which the run writes whole at each generation, the rows before
unchanged) only the rows added since the last reading are parsed.
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evolution.loop.checkpoint import CHECKPOINT_NAME
from evolution.loop.outputs import CONFIG_NAME, LOGBOOK_NAME
from evolution.tune_storage import STUDY_NAME as STUDY_FILE
from plots.methods import COMPARE_NAME
from speednik.stages import StageSetError, expand_stages

# Columns of the runs table, in order.
COLUMNS = ("name", "method", "policy", "stages", "generation", "best", "held_out",
           "validation", "frames", "status", "updated")
STATUSES = ("running", "finished", "stopped", "failed", "damaged")


@dataclass
class Run:
    """One run directory as the dashboard shows it."""

    path: Path
    name: str
    settings: dict[str, Any] = field(default_factory=dict)
    logbook: dict[str, list[float]] = field(default_factory=dict)
    status: str = "damaged"
    problem: str = ""
    updated: float = 0.0
    # The row, made once (a run whose files change is read again, anew).
    made: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    reading: "LogbookReading | None" = field(default=None, repr=False, compare=False)

    def row(self) -> dict[str, Any]:
        if self.made is None:
            self.made = self.make_row()
        return dict(self.made)

    def make_row(self) -> dict[str, Any]:
        s, log = self.settings, self.logbook
        last = {k: v[-1] for k, v in log.items() if v}
        return {
            "name": self.name,
            "method": s.get("algorithm") or "",
            "policy": f"{s.get('policy') or ''} / {s.get('observation') or ''}".strip(" /"),
            "stages": _short_stages(s.get("stages") or []),
            "generation": progress(s, log),
            "best": best_fitness(log),
            "held_out": _share(log.get("test_goals"), stage_count(s.get("test_stages"))),
            "validation": _share(log.get("val_goals"), stage_count(s.get("validation_stages"))),
            "frames": last.get("frames", math.nan),
            "status": self.status if not self.problem else f"{self.status}: {self.problem}",
            "updated": self.updated,
        }


def progress(settings: dict[str, Any], log: dict[str, list[float]]) -> str:
    """How far a run has come: generations of its total, or, for a run
    with a frame budget (`max_frames`), its generation and the share of
    the budget played ("598 (100% of 720 M frames)"): the frames
    themselves have their own column."""
    gens, frames = log.get("gen", []), log.get("frames", [])
    budget = settings.get("max_frames")
    if budget is not None:
        played = frames[-1] if frames and math.isfinite(frames[-1]) else None
        if played is None or not gens:
            return "-"
        # A run's last generation may pass the budget by a few frames.
        share = min(played / budget, 1.0) if budget > 0 else 1.0
        size = f"{budget / 1e6:g} M" if budget >= 10 ** 6 else f"{budget:,}"
        return f"{int(gens[-1])} ({share:.0%} of {size} frames)"
    if not gens:
        return "-"
    return f"{int(gens[-1])} of {settings.get('generations', '?')}"


def best_curve(log: dict[str, list[float]]) -> list[float]:
    """The run's best fitness per generation: the logbook's `best` column
    (the fitness of the genome the run would hand back then) where it has
    one, else the running maximum of the population's `max`."""
    best = log.get("best")
    if best and any(math.isfinite(v) for v in best):
        return list(best)
    out, top = [], -math.inf
    for v in log.get("max", []):
        if math.isfinite(v):
            top = max(top, v)
        out.append(top if math.isfinite(top) else math.nan)
    return out


def best_fitness(log: dict[str, list[float]]) -> float:
    """The last best fitness of `best_curve`, or NaN."""
    finite = [v for v in best_curve(log) if math.isfinite(v)]
    return finite[-1] if finite else math.nan


def _short_stages(stages: list[str]) -> str:
    names = [Path(s).stem if s.endswith(".toml") else s for s in stages]
    return ", ".join(names[:3]) + (f" (+{len(names) - 3})" if len(names) > 3 else "")


def stage_count(stages: list[str] | None) -> int:
    if not stages:
        return 0
    try:
        return len(expand_stages(stages))
    except (StageSetError, ValueError):
        return 0


def _share(goals: list[float] | None, count: int) -> float:
    """The last tested completion, as a fraction, or NaN."""
    if not goals or not count:
        return math.nan
    tested = [g for g in goals if not math.isnan(g)]
    return tested[-1] / count if tested else math.nan


@dataclass
class LogbookReading:
    """What was read of a logbook: its columns, and where the reading
    stopped (the bytes up to the end of the last whole line, that line's
    bytes, and its line number), so that a longer file whose read part is
    the same is read on from there."""

    table: dict[str, list[float]]
    header: bytes
    consumed: int
    last_line: bytes
    lines: int


def read_logbook_table(path: Path) -> dict[str, list[float]]:
    """Every column of a logbook.csv as floats (NaN where a generation left
    one empty); ValueError naming the file for anything else."""
    return read_logbook(path).table


def read_logbook(path: Path, before: LogbookReading | None = None) -> LogbookReading:
    """`read_logbook_table`'s reading of `path`, parsing only the lines
    after `before`'s when the file still begins with what it read and
    ends with a whole line."""
    try:
        with open(path, "rb") as f:
            if before is not None and before.consumed > 0:
                start = before.consumed - len(before.last_line)
                head = f.read(len(before.header))
                f.seek(start)
                tail = f.read()
                if (head == before.header and tail.startswith(before.last_line)
                        and tail.endswith(b"\n")):
                    return _parse(path, tail[len(before.last_line):], before)
                f.seek(0)
            data = f.read()
    except OSError as exc:
        raise ValueError(f"{path.name} not readable ({exc})") from None
    return _parse(path, data, None)


def _parse(path: Path, data: bytes, before: LogbookReading | None) -> LogbookReading:
    try:
        rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    except (csv.Error, UnicodeDecodeError) as exc:
        raise ValueError(f"{path.name} not readable ({exc})") from None
    if before is None:
        header = rows[0] if rows else []
        if "gen" not in header or "max" not in header:
            raise ValueError(f"{path.name} has no gen and max columns")
        out: dict[str, list[float]] = {name: [] for name in header}
        rows, first_line = rows[1:], 2
        head_bytes, base = data.split(b"\n", 1)[0] + b"\n", 0
    else:
        header = list(before.table)
        out = {name: list(values) for name, values in before.table.items()}
        first_line, head_bytes, base = before.lines + 1, before.header, before.consumed
    for i, row in enumerate(rows, first_line):
        if not row:
            continue                        # a blank line, as csv.DictReader skips
        for k, name in enumerate(header):
            text = row[k] if k < len(row) else ""
            try:
                out[name].append(float(text) if text != "" else math.nan)
            except ValueError:
                raise ValueError(f"{path.name} line {i}: {name} is {text!r}") from None
    lines = first_line - 1 + len(rows)
    if before is not None and not data:
        return LogbookReading(out, head_bytes, base, before.last_line, lines)
    if not data.endswith(b"\n"):
        return LogbookReading(out, head_bytes, 0, b"", lines)     # read whole next time
    last = data[:-1].rsplit(b"\n", 1)[-1] + b"\n"
    return LogbookReading(out, head_bytes, base + len(data), last, lines)


def is_running(path: Path) -> bool:
    """Whether a run holds the directory's lock (`evolution.cli.run_dir`):
    a shared lock taken for an instant and given back, which writes
    nothing."""
    try:
        import fcntl
    except ImportError:
        return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


def read_run(path: Path, name: str, before: LogbookReading | None = None) -> Run:
    """The run in `path`; a run with a `problem` when its files say
    something wrong. `before`: the last reading of its logbook, read on
    from where it stopped (`read_logbook`)."""
    run = Run(path, name)
    stamps = [p.stat().st_mtime for p in (path / CONFIG_NAME, path / LOGBOOK_NAME)
              if p.exists()]
    run.updated = max(stamps, default=0.0)
    try:
        if (path / CONFIG_NAME).exists():
            data = json.loads((path / CONFIG_NAME).read_text(encoding="utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("settings"), dict):
                raise ValueError("config.json is not a run configuration")
            check_settings(data["settings"])
            run.settings = data["settings"]
        if (path / LOGBOOK_NAME).exists():
            run.reading = read_logbook(path / LOGBOOK_NAME, before)
            run.logbook = run.reading.table
    except (OSError, ValueError, RecursionError) as exc:
        run.status, run.problem = "damaged", str(exc) or type(exc).__name__
        return run
    try:
        run.status = status_of(run)
        run.row()
    except Exception as exc:    # noqa: BLE001 (one run's files never take the page down)
        run.settings, run.logbook = {}, {}
        run.status, run.problem = "damaged", f"not readable: {type(exc).__name__}: {exc}"
    return run


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _text(v: Any) -> bool:
    return isinstance(v, str)


def _stage_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(s, str) for s in v)


# What the dashboard reads of a run's settings, and the types it takes:
# (check, accepted, may be null).
SETTING_TYPES = {
    "algorithm": (_text, "a method name (text)", False),
    "policy": (_text, "a policy name (text)", True),
    "observation": (_text, "an observation name (text)", False),
    "generations": (_whole, "a whole number", True),
    "max_frames": (_whole, "a whole number or null", True),
    "stages": (_stage_list, "a list of stage names", False),
    "test_stages": (_stage_list, "a list of stage names", True),
    "validation_stages": (_stage_list, "a list of stage names", True),
    "options": (lambda v: isinstance(v, dict), "an object of the method's settings", False),
}


def check_settings(settings: dict[str, Any]) -> None:
    """ValueError naming the first setting the dashboard reads whose type
    it cannot take, and what it accepts."""
    for key, (ok, accepted, nullable) in SETTING_TYPES.items():
        if key not in settings:
            continue
        value = settings[key]
        if (value is None and nullable) or (value is not None and ok(value)):
            continue
        shown = json.dumps(value)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        raise ValueError(f"config.json: settings.{key} is {shown} "
                         f"({type(value).__name__}); accepted: {accepted}")


def status_of(run: Run) -> str:
    if is_running(run.path):
        return "running"
    gens, frames = run.logbook.get("gen", []), run.logbook.get("frames", [])
    total, budget = run.settings.get("generations"), run.settings.get("max_frames")
    if gens and (gens[-1] >= (total if total is not None else math.inf)
                 or (budget is not None and frames and frames[-1] >= budget)):
        return "finished"
    if (run.path / CHECKPOINT_NAME).exists():
        return "stopped"
    return "failed"


class RunsDir:
    """The runs under `root`, read again only where their files changed."""

    def __init__(self, root: Path, reuse_seconds: float = 0.0) -> None:
        self.root = root
        # `runs()` asked again within this many seconds answers what it
        # read last (pages open at once share a reading).
        self.reuse_seconds = reuse_seconds
        self._last: tuple[float, list[Run]] | None = None
        self._cache: dict[Path, tuple[tuple, Run]] = {}
        self._paths: dict[str, Path] = {}
        # The `evolution.compare` and `evolution.tune` output directories
        # the last walk found.
        self.comparisons: list[Path] = []
        self.studies: list[Path] = []

    def run_dirs(self) -> list[Path]:
        return [self._path(folder) for folder, _ in self._walk()]

    def _path(self, folder: str) -> Path:
        path = self._paths.get(folder)
        if path is None:
            path = self._paths[folder] = Path(folder)
        return path

    def _walk(self) -> list[tuple[str, list[str]]]:
        """Each run directory (as a string) with the names of the files it
        holds; the comparison and study directories kept aside."""
        found, comparisons, studies = [], [], []
        for folder, dirs, files in os.walk(self.root):
            dirs.sort()
            if CONFIG_NAME in files or LOGBOOK_NAME in files:
                found.append((folder, files))
            if COMPARE_NAME in files:
                comparisons.append(self._path(folder))
            if STUDY_FILE in files:
                studies.append(self._path(folder))
        self.comparisons, self.studies = comparisons, studies
        return found

    def runs(self) -> list[Run]:
        """Every run, the Run of one whose files and status have not
        changed being the one given before. (Called every second for
        every open page: strings and os.stat here, not pathlib, and no
        stat of a file the directory listing says is not there.)"""
        now = time.monotonic()
        if self._last is not None and now - self._last[0] < self.reuse_seconds:
            return list(self._last[1])
        out = []
        for folder, files in self._walk():
            key = tuple(_stamp(folder, n) if n in files else (0, -1) for n in RUN_FILES)
            path = self._path(folder)
            held = self._cache.get(path)
            if (held is None or held[0] != key
                    or (held[1].status == "running" and not is_running(path))):
                name = str(path.relative_to(self.root)) if path != self.root else path.name
                # The logbook read on from the last reading when only it grew.
                before = (held[1].reading if held is not None and held[0][0] == key[0]
                          and held[1].reading is not None else None)
                held = (key, read_run(path, name, before))
                self._cache[path] = held
            out.append(held[1])
        self._last = (now, out)
        return list(out)

    def rows(self, runs: list[Run] | None = None) -> list[dict[str, Any]]:
        """The table's rows of `runs` (by default, of `runs()` now)."""
        now = time.time()
        rows = []
        for run in self.runs() if runs is None else runs:
            row = run.row()
            row["updated"] = _age(now - run.updated) if run.updated else "-"
            rows.append(row)
        return rows


# The files whose changes make a run read again.
RUN_FILES = (CONFIG_NAME, LOGBOOK_NAME, CHECKPOINT_NAME)


def _stamp(folder: str, name: str) -> tuple[float, int]:
    try:
        st = os.stat(os.path.join(folder, name))
        return st.st_mtime_ns, st.st_size
    except OSError:
        return 0, -1


def file_stamp(path: Path) -> tuple[float, int]:
    try:
        st = path.stat()
        return st.st_mtime_ns, st.st_size
    except OSError:
        return 0, -1


def _age(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s ago"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min ago"
    return f"{seconds / 3600:.1f} h ago"

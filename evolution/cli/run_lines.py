"""What a run prints as it goes: the per-generation line, the words for
its policy and where it runs, and the cluster's own lines."""
from __future__ import annotations

import logging
import sys
from pathlib import Path

from evolution.config import EvolutionConfig


def this_python() -> str:
    """How to call this interpreter again, in a command printed for the
    user: the project's venv by its relative path when that is what runs,
    else plain `python`."""
    exe = Path(sys.executable)
    try:
        rel = exe.relative_to(Path.cwd())
    except ValueError:
        return "python"
    return str(rel)


def format_time(seconds: float) -> str:
    seconds = int(round(seconds))
    m, s = divmod(seconds, 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def time_left(record: dict, config: EvolutionConfig, elapsed: float) -> float:
    """Seconds until the first budget to run out, at the pace so far: the
    generations, or the frames when --max-frames ends the run first (a
    learner's run is a frame budget with generations set beyond reach)."""
    gen = record["gen"]
    if not gen:
        return 0.0
    left = elapsed / gen * (config.generations - gen)
    frames = record.get("frames")
    if config.max_frames and frames:
        left = min(left, elapsed / frames * (config.max_frames - frames))
    return max(left, 0.0)


def make_reporter(quiet: bool):
    def report(record: dict, config: EvolutionConfig, elapsed: float) -> None:
        if quiet:
            return
        gen = record["gen"]
        left = time_left(record, config, elapsed)
        # best: the fitness of the genome the run would give now (best.json's);
        # pop max and pop mean: this generation's population.
        best = record.get("best")
        individuals = config.individuals()
        print(f"gen {gen:4d}  best {record['max'] if best is None else best:8.3f}"
              f"  pop max {record['max']:8.3f}  pop mean {record['mean']:8.3f}"
              f"  progress {100 * record['best_progress']:5.1f}%"
              f"  goals {record['completions']:3d}/{individuals}"
              + (f"  held-out {record['test_goals']}/{len(config.held_out_stages())}"
                 f" ({100 * record['test_progress']:.1f}%)"
                 if record.get("test_goals") is not None else "")
              + (f"  validation {record['val_goals']}/{len(config.validation_stage_names())}"
                 if record.get("val_goals") is not None else "")
              + (f"  qd-score {record['qd_score']:.1f}  coverage "
                 f"{100 * record['coverage']:.1f}%" if "qd_score" in record else "")
              + (f"  species {record['species']}  connections "
                 f"{record['connections']:.1f}" if "species" in record else "")
              # Counted from 1 here, as a reader counts starts.
              + (f"  start {record['start'] + 1}/{config.starts}"
                 if "start" in record else "")
              + (f" (ends: its best validates {record['start_val_goals']}/"
                 f"{len(config.validation_stage_names())})"
                 if record.get("start_val_goals") is not None else "")
              + f"  elapsed {format_time(elapsed)}  left {format_time(left)}",
              flush=True)
    return report


def policy_words(config: EvolutionConfig) -> str:
    """`policy mlp (16 hidden)`: the family and its settings."""
    settings = config.policy_spec().settings
    extra = ", ".join(f"{value} {name}" for name, value in settings)
    return f"policy {config.policy}{f' ({extra})' if extra else ''}"


def where_it_runs(config: EvolutionConfig) -> str:
    if config.scheduler is None:
        return f"{config.workers} worker(s)"
    if config.scheduler == "local":
        return f"a local Dask cluster of {config.workers} worker(s)"
    return f"the Dask cluster at {config.scheduler}"


class ClusterLines(logging.Handler):
    """What the cluster says (`evolution.cluster`'s logger) as lines of this
    command, while a run goes on: whom it connected to and how many workers
    it has on stdout (not with --quiet), a wait for workers on stderr
    (always: a run must not wait in silence)."""

    def __init__(self, quiet: bool) -> None:
        super().__init__(logging.INFO)
        self.quiet = quiet
        self.logger = logging.getLogger("evolution.cluster")

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING:
            print(f"evolution.run: {record.getMessage()}", file=sys.stderr, flush=True)
        elif not self.quiet:
            print(record.getMessage(), flush=True)

    def __enter__(self) -> ClusterLines:
        self._before = (self.logger.level, self.logger.propagate)
        self.logger.setLevel(logging.INFO)
        self.logger.propagate = False
        self.logger.addHandler(self)
        return self

    def __exit__(self, *exc) -> None:
        self.logger.removeHandler(self)
        self.logger.setLevel(self._before[0])
        self.logger.propagate = self._before[1]

"""What a run tells the world, one reporter a job, called by the loop at
named moments (the way neat-python's `ReporterSet` tells its reporters,
its checkpointer among them):

- `columns(run, gen)`: a generation was scored; the reporter may add
  columns to its logbook row (the held-out test adds its results);
- `generation(run, record)`: the generation is finished and current (the
  console line; the logbook file following the run);
- `save(run)`: a save point: every `checkpoint_every` generations, the
  last one, and when the run is stopped or fails (the logbook, best.json
  and the checkpoint, durably).

The search method's own numbers go to `method.jsonl` (`MethodLog`) the
way the logbook goes to logbook.csv.

A reporter reads the run's state and never changes it, so a run evolves
the same with any reporters.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import numpy as np

from evolution.loop.checkpoint import Checkpoint, save_checkpoint
from evolution.config import EvolutionConfig
from evolution.loop.evaluate import GenomeEvaluator, held_out_report
from evolution.loop.method_file import method_record, read_method_file, write_method_file
from evolution.loop.outputs import write_best, write_logbook
from evolution.loop.run_state import Reporter, RunState, reporters_state
from runners.archive_file import ARCHIVE_NAME, write_archive_file


class HeldOut(Reporter):
    """The best genome's results on the test stages, every `test_every`
    generations and at the last one. Played apart from the run: nothing
    here touches the population, the hall of fame or the random state."""

    def __init__(self, config: EvolutionConfig, evaluator: GenomeEvaluator) -> None:
        self.config = config
        self.evaluator = evaluator
        self.stages = config.held_out_stages()
        self._last: tuple[bytes, dict] | None = None

    def known(self, genome: np.ndarray) -> dict | None:
        """The held-out report of `genome` if it was tested."""
        if self._last is not None and self._last[0] == np.asarray(genome).tobytes():
            return self._last[1]
        return None

    def forget(self) -> None:
        """Forget the last report (the test is played again when next due)."""
        self._last = None

    def columns(self, run: RunState, gen: int) -> dict:
        """The logbook's test columns for generation `gen` (None when not
        tested this generation)."""
        if not self.stages or not run.tested(gen):
            return {"test_goals": None, "test_progress": None}
        best, _, _ = run.best(gen)
        report = self.known(best)
        if report is None:
            evaluated = self.evaluator([np.asarray(best)], self.stages)[0]
            report = held_out_report(self.config, evaluated)
            self._last = (np.asarray(best).tobytes(), report)
        return {"test_goals": report["goals"], "test_progress": report["progress"]}


class Console(Reporter):
    """Hands each finished generation's row to a callback (the command
    line's per-generation line)."""

    def __init__(self, callback: Callable[[dict, EvolutionConfig, float], None]) -> None:
        self.callback = callback

    def generation(self, run: RunState, record: dict) -> None:
        self.callback(record, run.config, run.elapsed)


# Between save points logbook.csv is rewritten at most this often (s): a
# compiled generation can take milliseconds, and rewriting the whole file
# after each cost a 200-generation run a fifth of its time.
LOGBOOK_SECONDS = 1.0


class LogbookFollower(Reporter):
    """logbook.csv follows the run between save points, without waiting
    for the disk (the checkpoint holds the logbook durably)."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.written = time.perf_counter()

    def generation(self, run: RunState, record: dict) -> None:
        if time.perf_counter() - self.written >= LOGBOOK_SECONDS:
            write_logbook(self.run_dir, list(run.logbook), durable=False)
            self.written = time.perf_counter()

    def save(self, run: RunState) -> None:
        self.written = time.perf_counter()


class MethodLog(Reporter):
    """method.jsonl: the strategy's own numbers of each finished
    generation, following the run as logbook.csv does (at most once a
    second between save points, durably at each). It must save before the
    checkpoint is written: a run killed in between then finds lines beyond
    its checkpoint, which resuming drops, never a line missing."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.records: list[dict] = []
        self.written = time.perf_counter()

    def resume(self, gen: int) -> None:
        """Continue from the checkpoint of generation `gen`: keep the
        file's lines up to it (later ones are played again). A run
        directory from before the file existed has none to keep."""
        self.records = [r for r in read_method_file(self.run_dir) if r["gen"] <= gen]

    def _take(self, run: RunState) -> None:
        numbers = run.done.method
        if numbers and (not self.records or self.records[-1]["gen"] < run.gen):
            self.records.append(method_record(run.gen, numbers))

    def _write(self, durable: bool) -> None:
        if self.records:
            write_method_file(self.run_dir, self.records, durable)
        self.written = time.perf_counter()

    def generation(self, run: RunState, record: dict) -> None:
        self._take(run)
        if time.perf_counter() - self.written >= LOGBOOK_SECONDS:
            self._write(durable=False)

    def save(self, run: RunState) -> None:
        self._take(run)
        self._write(durable=True)


class RunFiles(Reporter):
    """At each save point: logbook.csv, best.json (with the held-out
    results of the genome when it was tested) and checkpoint.npz."""

    def __init__(self, run_dir: Path, held_out: HeldOut) -> None:
        self.run_dir = run_dir
        self.held_out = held_out

    def save(self, run: RunState) -> None:
        write_logbook(self.run_dir, list(run.logbook))
        archive = run.strategy.archive()
        if archive is not None:
            write_archive_file(self.run_dir / ARCHIVE_NAME, archive)
        best, fitness, summary = run.best(run.gen)
        write_best(self.run_dir, run.config, best, fitness, summary, run.found_in(fitness),
                   self.held_out.known(best),
                   None if run.validation is None else run.validation.origin(),
                   action_repeat=self.held_out.evaluator.action_repeat)
        keep = list(run.population) + list(run.hall_of_fame)
        known = run.evaluations.known
        summaries = {np.asarray(k).tobytes(): known[np.asarray(k).tobytes()] for k in keep}
        save_checkpoint(self.run_dir, Checkpoint(
            generation=run.gen,
            population=[(np.asarray(i), i.fitness.values[0]) for i in run.population],
            hall_of_fame=[(np.asarray(i), i.fitness.values[0]) for i in run.hall_of_fame],
            logbook=list(run.logbook),
            random_state=run.random_state,
            summaries=summaries,
            config=run.config.to_dict(),
            elapsed=run.elapsed,
            search=run.search_state,
            reporters=reporters_state(run.reporters),
        ))

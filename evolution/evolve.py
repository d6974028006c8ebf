"""The generational loop: evaluate, record, checkpoint, vary, repeat.

`evolve` runs (or continues) a run in a directory. Same seed and settings
give the same logbook and best genome whether run with one worker or
several, and whether run straight through or stopped and resumed.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from evolution.checkpoint import (
    Checkpoint,
    CheckpointError,
    load_checkpoint,
    save_checkpoint,
)
from evolution.cluster import ClusterError
from evolution.cmaes import CMAES
from evolution.config import EvolutionConfig
from evolution.evaluate import GenomeEvaluator, held_out_report, stages_for_generation
from evolution.ga import (
    Evaluations,
    build_statistics,
    build_toolbox,
    generation_record,
    make_individual,
    new_hall_of_fame,
    new_logbook,
    next_generation,
)
from evolution.outputs import keep_stage_copies, write_best, write_config, write_logbook
from runners.atomic import remove_stale_temporaries
from runners.parallel import EpisodeError, WorkerDiedError
from speednik.stages import keep_stages


@dataclass
class RunOutcome:
    run_dir: Path
    generations: int
    best_fitness: float
    best_summary: dict
    logbook: list[dict]
    interrupted: bool = False
    held_out: dict | None = None


Reporter = Callable[[dict, EvolutionConfig, float], None]

# Between checkpoints logbook.csv is rewritten at most this often (s): a
# compiled generation can take milliseconds, and rewriting the whole file
# after each cost a 200-generation run a fifth of its time.
LOGBOOK_SECONDS = 1.0


def evolve(config: EvolutionConfig, run_dir: str | Path, resume: bool = False,
           report: Reporter | None = None, map_fn=None) -> RunOutcome:
    run_dir = Path(run_dir)
    size = config.genome_size()
    toolbox = build_toolbox(config, size)
    search = None
    stats = build_statistics()
    hof = new_hall_of_fame(max(config.elite, 1))
    logbook = new_logbook()

    # What an interrupted write left behind goes first.
    remove_stale_temporaries(run_dir)
    # Every stage the run plays is built once (if `check_stages_load` has
    # not built it already) and kept until the run ends, before any worker
    # process starts (a forked one starts with them).
    with keep_stages(config.run_stages()), \
            GenomeEvaluator(config, map_fn=map_fn) as evaluator:
        # The generation being scored picks its stages (all of them unless
        # stages_per_generation is set); a draw of stages makes every
        # genome of the generation be scored anew on it.
        scoring = {"gen": 0}
        subsets = config.stages_scored() < len(config.training_stages())
        evaluations = Evaluations(
            lambda genomes: evaluator(genomes, stages_for_generation(config, scoring["gen"])))
        tests = HeldOut(config, evaluator)
        if resume:
            ckpt = load_checkpoint(run_dir)
            write_config(run_dir, config)  # the new generation total
            gen = ckpt.generation
            population = []
            for genome, fit in ckpt.population:
                ind = make_individual(genome)
                ind.fitness.values = (fit,)
                population.append(ind)
            # The hall of fame is rebuilt in its saved order. `insert` puts
            # an entry ahead of those of equal fitness, so inserting from
            # the last to the first gives back the exact order, ties
            # included; elitism and selection then pick as they would have.
            for genome, fit in reversed(ckpt.hall_of_fame):
                ind = make_individual(genome)
                ind.fitness.values = (fit,)
                hof.insert(ind)
            logbook.extend(ckpt.logbook)
            evaluations.known = dict(ckpt.summaries)
            random.setstate(ckpt.random_state)
            if config.algorithm == "cmaes":
                if ckpt.search is None:
                    raise CheckpointError(f"{run_dir}: the checkpoint holds no CMA-ES state")
                search = CMAES.from_state(config, size, ckpt.search)
            elapsed_before = ckpt.elapsed
            rng_state = ckpt.random_state
            search_state = ckpt.search
        else:
            run_dir.mkdir(parents=True, exist_ok=True)
            random.seed(config.seed)
            t0 = time.perf_counter()
            if config.algorithm == "cmaes":
                search = CMAES(config, size)
                population = search.ask()
            else:
                population = toolbox.population(n=config.population)
            evals = evaluations.assign(population)
            hof.update(population)
            if search is not None:
                search.tell(population)
            gen = 0
            record = generation_record(0, population, evals, evaluations,
                                       stats, time.perf_counter() - t0)
            record.update(tests.record(0, hof[0]))
            logbook.record(**record)
            elapsed_before = record["seconds"]
            rng_state = random.getstate()
            search_state = None if search is None else search.state()
            # Written once generation 0 is done: a run interrupted before
            # leaves nothing (and its directory empty).
            write_config(run_dir, config)
            keep_stage_copies(run_dir, config)
            _write_outputs(run_dir, config, population, hof, logbook,
                           evaluations, gen, elapsed_before, rng_state, tests, search_state)
            if report:
                report(record, config, elapsed_before)

        start = time.perf_counter() - elapsed_before
        logbook_written = time.perf_counter()
        interrupted = False
        # The last finished generation is what gets checkpointed when the
        # loop is stopped. A signal can land anywhere, so a generation is
        # worked out aside and made current by one tuple assignment (no
        # signal handler runs inside it); what was touched before that
        # (the hall of fame, the logbook) is put back from it.
        done_hof, last_record = list(hof), None

        def back_to_last_finished() -> None:
            hof.clear()
            for ind in reversed(done_hof):  # insert() puts ties ahead
                hof.insert(ind)
            if len(logbook) < gen + 1:
                logbook.record(**last_record)
            del logbook[gen + 1:]

        try:
            while gen < config.generations:
                t0 = time.perf_counter()
                if search is not None:
                    offspring = search.ask()
                else:
                    offspring = next_generation(population, hof, toolbox, config)
                scoring["gen"] = gen + 1
                evals = evaluations.assign(offspring, fresh=subsets)
                if subsets:
                    rescore_hall_of_fame(hof, evaluations)
                hof.update(offspring)
                if search is not None:
                    search.tell(offspring)
                record = generation_record(gen + 1, offspring, evals, evaluations,
                                           stats, time.perf_counter() - t0)
                record.update(tests.record(gen + 1, hof[0]))
                finished = (offspring, gen + 1, random.getstate(), list(hof), record,
                            None if search is None else search.state())
                population, gen, rng_state, done_hof, last_record, search_state = finished
                logbook.record(**record)
                evaluations.forget_all_but(list(population) + list(hof))
                elapsed = time.perf_counter() - start
                last = gen == config.generations
                if last or gen % config.checkpoint_every == 0:
                    _write_outputs(run_dir, config, population, hof, logbook,
                                   evaluations, gen, elapsed, rng_state, tests, search_state)
                    logbook_written = time.perf_counter()
                elif time.perf_counter() - logbook_written >= LOGBOOK_SECONDS:
                    # Between checkpoints, which hold the logbook durably,
                    # the file follows the run without waiting for the disk.
                    write_logbook(run_dir, list(logbook), durable=False)
                    logbook_written = time.perf_counter()
                if report:
                    report(record, config, elapsed)
        except (WorkerDiedError, EpisodeError, ClusterError):
            # The batch failed for good, or the cluster is gone: keep the
            # last finished generation.
            back_to_last_finished()
            _write_outputs(run_dir, config, population, hof, logbook,
                           evaluations, gen, time.perf_counter() - start,
                           rng_state, tests, search_state)
            raise
        except KeyboardInterrupt:
            interrupted = True
            # Checkpoint the last finished generation with the random state
            # it ended with, so --resume continues exactly from there.
            back_to_last_finished()
            _write_outputs(run_dir, config, population, hof, logbook,
                           evaluations, gen, time.perf_counter() - start,
                           rng_state, tests, search_state)

    best = hof[0]
    return RunOutcome(run_dir, gen, best.fitness.values[0],
                      evaluations.summary(best), list(logbook), interrupted,
                      tests.known(best))


class HeldOut:
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

    def record(self, gen: int, best: np.ndarray) -> dict:
        """The logbook's test columns for generation `gen` (None when not
        tested this generation)."""
        if not self.stages or not (gen % self.config.test_every == 0
                                   or gen == self.config.generations):
            return {"test_goals": None, "test_progress": None}
        report = self.known(best)
        if report is None:
            evaluated = self.evaluator([np.asarray(best)], self.stages)[0]
            report = held_out_report(self.config, evaluated)
            self._last = (np.asarray(best).tobytes(), report)
        return {"test_goals": report["goals"], "test_progress": report["progress"]}


def rescore_hall_of_fame(hof, evaluations: Evaluations) -> None:
    """Give the hall of fame's genomes that were just scored anew (on a
    new draw of stages) their new fitness, and put it back in order, so
    each entry's fitness and summary come from the same stages."""
    items = []
    changed = False
    for ind in hof:
        known = evaluations.known.get(ind.tobytes())
        if known is not None and known[0] != ind.fitness.values[0]:
            # A new individual: the old one may still be the last finished
            # generation's, which an interrupted run checkpoints.
            ind = make_individual(ind)
            ind.fitness.values = (known[0],)
            changed = True
        items.append(ind)
    if changed:
        items.sort(key=lambda ind: ind.fitness.values[0], reverse=True)
        hof.clear()
        for ind in reversed(items):   # insert() puts ties ahead
            hof.insert(ind)


def _write_outputs(run_dir: Path, config: EvolutionConfig, population, hof,
                   logbook, evaluations: Evaluations, gen: int,
                   elapsed: float, rng_state, tests: HeldOut,
                   search_state: dict | None = None) -> None:
    write_logbook(run_dir, list(logbook))
    best = hof[0]
    found = next((r["gen"] for r in logbook
                  if r["max"] >= best.fitness.values[0]), gen)
    write_best(run_dir, config, best, best.fitness.values[0],
               evaluations.summary(best), found, tests.known(best))
    keep = list(population) + list(hof)
    summaries = {np.asarray(k).tobytes(): evaluations.known[np.asarray(k).tobytes()]
                 for k in keep}
    save_checkpoint(run_dir, Checkpoint(
        generation=gen,
        population=[(np.asarray(i), i.fitness.values[0]) for i in population],
        hall_of_fame=[(np.asarray(i), i.fitness.values[0]) for i in hof],
        logbook=list(logbook),
        random_state=rng_state,
        summaries=summaries,
        config=config.to_dict(),
        elapsed=elapsed,
        search=search_state,
    ))

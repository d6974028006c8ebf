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

from evolution.checkpoint import Checkpoint, load_checkpoint, save_checkpoint
from evolution.cluster import ClusterError
from evolution.config import EvolutionConfig
from evolution.evaluate import GenomeEvaluator
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
from runners.linear import genome_size
from speednik.observation import get_observation


@dataclass
class RunOutcome:
    run_dir: Path
    generations: int
    best_fitness: float
    best_summary: dict
    logbook: list[dict]
    interrupted: bool = False


Reporter = Callable[[dict, EvolutionConfig, float], None]

# Between checkpoints logbook.csv is rewritten at most this often (s): a
# compiled generation can take milliseconds, and rewriting the whole file
# after each cost a 200-generation run a fifth of its time.
LOGBOOK_SECONDS = 1.0


def evolve(config: EvolutionConfig, run_dir: str | Path, resume: bool = False,
           report: Reporter | None = None, map_fn=None) -> RunOutcome:
    run_dir = Path(run_dir)
    obs_dim = get_observation(config.observation).size
    toolbox = build_toolbox(config, genome_size(obs_dim))
    stats = build_statistics()
    hof = new_hall_of_fame(max(config.elite, 1))
    logbook = new_logbook()

    # What an interrupted write left behind goes first.
    remove_stale_temporaries(run_dir)
    with GenomeEvaluator(config, map_fn=map_fn) as evaluator:
        evaluations = Evaluations(evaluator)
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
            elapsed_before = ckpt.elapsed
            rng_state = ckpt.random_state
        else:
            run_dir.mkdir(parents=True, exist_ok=True)
            random.seed(config.seed)
            t0 = time.perf_counter()
            population = toolbox.population(n=config.population)
            evals = evaluations.assign(population)
            hof.update(population)
            gen = 0
            record = generation_record(0, population, evals, evaluations,
                                       stats, time.perf_counter() - t0)
            logbook.record(**record)
            elapsed_before = record["seconds"]
            rng_state = random.getstate()
            # Written once generation 0 is done: a run interrupted before
            # leaves nothing (and its directory empty).
            write_config(run_dir, config)
            keep_stage_copies(run_dir, config)
            _write_outputs(run_dir, config, population, hof, logbook,
                           evaluations, gen, elapsed_before, rng_state)
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
                offspring = next_generation(population, hof, toolbox, config)
                evals = evaluations.assign(offspring)
                hof.update(offspring)
                record = generation_record(gen + 1, offspring, evals, evaluations,
                                           stats, time.perf_counter() - t0)
                finished = (offspring, gen + 1, random.getstate(), list(hof), record)
                population, gen, rng_state, done_hof, last_record = finished
                logbook.record(**record)
                evaluations.forget_all_but(list(population) + list(hof))
                elapsed = time.perf_counter() - start
                last = gen == config.generations
                if last or gen % config.checkpoint_every == 0:
                    _write_outputs(run_dir, config, population, hof, logbook,
                                   evaluations, gen, elapsed, rng_state)
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
                           rng_state)
            raise
        except KeyboardInterrupt:
            interrupted = True
            # Checkpoint the last finished generation with the random state
            # it ended with, so --resume continues exactly from there.
            back_to_last_finished()
            _write_outputs(run_dir, config, population, hof, logbook,
                           evaluations, gen, time.perf_counter() - start,
                           rng_state)

    best = hof[0]
    return RunOutcome(run_dir, gen, best.fitness.values[0],
                      evaluations.summary(best), list(logbook), interrupted)


def _write_outputs(run_dir: Path, config: EvolutionConfig, population, hof,
                   logbook, evaluations: Evaluations, gen: int,
                   elapsed: float, rng_state) -> None:
    write_logbook(run_dir, list(logbook))
    best = hof[0]
    found = next((r["gen"] for r in logbook
                  if r["max"] >= best.fitness.values[0]), gen)
    write_best(run_dir, config, best, best.fitness.values[0],
               evaluations.summary(best), found)
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
    ))

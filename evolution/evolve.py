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
from evolution.outputs import best_record, write_best, write_config, write_logbook
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


def evolve(config: EvolutionConfig, run_dir: str | Path, resume: bool = False,
           report: Reporter | None = None, map_fn=None) -> RunOutcome:
    run_dir = Path(run_dir)
    obs_dim = get_observation(config.observation).size
    toolbox = build_toolbox(config, genome_size(obs_dim))
    stats = build_statistics()
    hof = new_hall_of_fame(max(config.elite, 1))
    logbook = new_logbook()

    with GenomeEvaluator(config, map_fn=map_fn) as evaluator:
        evaluations = Evaluations(evaluator)
        if resume:
            ckpt = load_checkpoint(run_dir)
            gen = ckpt.generation
            population = []
            for genome, fit in ckpt.population:
                ind = make_individual(genome)
                ind.fitness.values = (fit,)
                population.append(ind)
            for genome, fit in ckpt.hall_of_fame:
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
            write_config(run_dir, config)
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
            _write_outputs(run_dir, config, population, hof, logbook,
                           evaluations, gen, elapsed_before, rng_state)
            if report:
                report(record, config, elapsed_before)

        start = time.perf_counter() - elapsed_before
        interrupted = False
        try:
            while gen < config.generations:
                t0 = time.perf_counter()
                offspring = next_generation(population, hof, toolbox, config)
                evals = evaluations.assign(offspring)
                population = offspring
                hof.update(population)
                gen += 1
                record = generation_record(gen, population, evals, evaluations,
                                           stats, time.perf_counter() - t0)
                logbook.record(**record)
                evaluations.forget_all_but(list(population) + list(hof))
                rng_state = random.getstate()
                elapsed = time.perf_counter() - start
                last = gen == config.generations
                if last or gen % config.checkpoint_every == 0:
                    _write_outputs(run_dir, config, population, hof, logbook,
                                   evaluations, gen, elapsed, rng_state)
                else:
                    write_logbook(run_dir, list(logbook))
                if report:
                    report(record, config, elapsed)
        except KeyboardInterrupt:
            interrupted = True
            # Checkpoint the last finished generation with the random state
            # it ended with, so --resume continues exactly from there.
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
    write_best(run_dir, best_record(config, best, best.fitness.values[0],
                                    evaluations.summary(best), found))
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

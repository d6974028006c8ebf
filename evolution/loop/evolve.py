"""The generational loop: ask the strategy, score, record, report,
repeat.

`evolve` runs (or continues) a run in a directory. It names no search
algorithm and writes no file itself: the strategy (`evolution.strategies.registry`)
proposes genomes, and reporters (`evolution.loop.reporters`) print the lines,
test on held-out stages and write the logbook, best.json and checkpoint.
Same seed and settings give the same logbook and best genome whether run
with one worker or several, and whether run straight through or stopped
and resumed.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from evolution.loop.checkpoint import CheckpointError, load_checkpoint
from evolution.cluster import ClusterError
from evolution.config import EvolutionConfig
from evolution.individual import refill_hall_of_fame, scored_individual
from evolution.loop.evaluate import GenomeEvaluator
from evolution.loop.final_repeat import FinalRepeat
from evolution.loop.generation import (
    Evaluations,
    build_statistics,
    generation_record,
    new_hall_of_fame,
    new_logbook,
)
from evolution.loop.outputs import (
    CANDIDATES_DIR,
    keep_stage_copies,
    read_config_data,
    write_config,
)
from evolution.loop.reporters import Console, HeldOut, LogbookFollower, MethodLog, RunFiles
from evolution.imitation.start import imitation_start
from evolution.loop.run_state import Finished, Reporter, RunState
from evolution.loop.stage_draw import StageDraw
from evolution.loop.starts import Starts, new_strategy
from evolution.strategies.base import Strategy
from evolution.strategies.registry import get_strategy
from evolution.loop.validation import Validation
from runners.atomic import remove_stale_temporaries
from runners.errors import EpisodeError, WorkerDiedError
from speednik.signals import signals_held
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


Report = Callable[[dict, EvolutionConfig, float], None]


def evolve(config: EvolutionConfig, run_dir: str | Path, resume: bool = False,
           report: Report | None = None, map_fn=None,
           notes: Callable[[str], None] | None = None) -> RunOutcome:
    """Run (or resume) the search `config` describes in `run_dir`;
    `report` is given each generation's record, `notes` a line for each
    step before the first generation that takes a while."""
    run_dir = Path(run_dir)
    size = config.genome_size()
    strategy_class = get_strategy(config.algorithm).load()
    stats = build_statistics()

    # What an interrupted write left behind goes first.
    remove_stale_temporaries(run_dir)
    remove_stale_temporaries(run_dir / CANDIDATES_DIR)
    first_mean = imitation_start(config, run_dir, resume, notes)
    # Every stage the run plays is built once (if `check_stages_load` has
    # not built it already) and kept until the run ends, before any worker
    # process starts (a forked one starts with them).
    with keep_stages(config.run_stages()), \
            GenomeEvaluator(config, map_fn=map_fn) as evaluator:
        # The generation being scored picks its stages (all of them unless
        # stages_per_generation is set: `StageDraw`); a draw of stages makes every
        # genome of the generation be scored anew on it.
        scoring = {"gen": 0}
        subsets = (config.stages_scored() < len(config.training_stages())
                   or bool(config.start_shift))
        draw = StageDraw(config)
        evaluations = Evaluations(
            lambda genomes: evaluator(genomes, draw.stages(scoring["gen"]), training=True))
        held_out = HeldOut(config, evaluator)
        follower = LogbookFollower(run_dir)
        method_log = MethodLog(run_dir)
        validation = Validation(config, evaluator, run_dir)
        final_repeat = FinalRepeat(config, evaluator, held_out)
        starts = Starts(config, strategy_class, size, first_mean)
        # Validation first: the held-out test plays the genome it chose, and
        # the starts compare what it found. The method's numbers are saved
        # before the checkpoint (see MethodLog).
        reporters: list[Reporter] = [draw, validation, starts, held_out, final_repeat,
                                     method_log, RunFiles(run_dir, held_out), follower]
        if report:
            reporters.append(Console(report))
        run = RunState(config, new_strategy(strategy_class, config, size, first_mean),
                       new_hall_of_fame(config.hall_of_fame), new_logbook(),
                       evaluations, reporters=reporters,
                       scorer=lambda genome, gen: evaluator(
                           [np.asarray(genome)], draw.stages(gen), training=True)[0],
                       validation=validation if validation.active() else None,
                       starts=starts if starts.active() else None)
        if resume:
            _restore(run, run_dir, strategy_class, size, starts)
            final_repeat.resume(run.logbook[-1])
            method_log.resume(run.gen)
        else:
            run_dir.mkdir(parents=True, exist_ok=True)
            random.seed(config.seed)
            t0 = time.perf_counter()
            population = run.strategy.initial()
            evals = evaluations.assign(population)
            run.hall_of_fame.update(population)
            run.strategy.tell(population, [evaluations.summary(i) for i in population])
            draw.learn(0, [evaluations.summary(i) for i in population])
            score_recommendation(run, 0)
            record = generation_record(0, population, evals, evaluations,
                                       stats, time.perf_counter() - t0)
            record.update(run.strategy.columns())
            record.update(run.columns(0))
            record["best"] = float(run.best(0)[1])
            run.logbook.record(**record)
            run.elapsed = record["seconds"]
            run.finish(0, population, record)
            # Written once generation 0 is done: a run interrupted before
            # leaves nothing (and its directory empty); one interrupted
            # while they are written writes them all, so that it can be
            # resumed from generation 0.
            try:
                _save_first_generation(run, run_dir)
            except KeyboardInterrupt:
                _save_first_generation(run, run_dir)
                best, fitness, summary = run.best(0)
                return RunOutcome(run_dir, 0, fitness, summary, list(run.logbook), True,
                                  held_out.known(best))
            run.report_generation(record)

        start = time.perf_counter() - run.elapsed
        follower.written = time.perf_counter()
        interrupted = False
        try:
            while run.gen < config.generations and not config.budget_spent(evaluations.frames):
                t0 = time.perf_counter()
                gen = run.gen + 1
                scoring["gen"] = gen
                final_repeat.before(run, gen)
                # A new start's first generation is its initial one.
                offspring = (run.strategy.initial() if starts.fresh()
                             else run.strategy.ask(run.population, run.hall_of_fame))
                evaluations.frames += run.strategy.played_frames()
                evals = evaluations.assign(offspring, fresh=subsets)
                if subsets:
                    rescore_hall_of_fame(run.hall_of_fame, evaluations)
                run.hall_of_fame.update(offspring)
                run.strategy.tell(offspring, [evaluations.summary(i) for i in offspring])
                draw.learn(gen, [evaluations.summary(i) for i in offspring])
                score_recommendation(run, gen)
                record = generation_record(gen, offspring, evals, evaluations,
                                           stats, time.perf_counter() - t0)
                record.update(run.strategy.columns())
                record.update(run.columns(gen))
                record["best"] = float(run.best(gen)[1])
                run.finish(gen, offspring, record)
                run.logbook.record(**record)
                # The next start, or the best one, may take the search over;
                # a Ctrl-C waits until it has, so a checkpoint never holds
                # half of each.
                with signals_held():
                    switched = starts.after(run)
                evaluations.forget_all_but(list(run.population) + list(run.hall_of_fame))
                run.elapsed = time.perf_counter() - start
                last = (gen == config.generations
                        or config.budget_spent(evaluations.frames))
                if last or switched or gen % config.checkpoint_every == 0:
                    run.save()
                run.report_generation(record)
        except (WorkerDiedError, EpisodeError, ClusterError):
            # The batch failed for good, or the cluster is gone: keep the
            # last finished generation.
            run.back_to_last_finished()
            run.elapsed = time.perf_counter() - start
            run.save()
            raise
        except KeyboardInterrupt:
            interrupted = True
            # Checkpoint the last finished generation with the random state
            # it ended with, so --resume continues exactly from there.
            run.back_to_last_finished()
            run.elapsed = time.perf_counter() - start
            run.save()

    best, fitness, summary = run.best(run.gen)
    return RunOutcome(run_dir, run.gen, fitness, summary, list(run.logbook), interrupted,
                      held_out.known(best))


def score_recommendation(run: RunState, gen: int) -> None:
    """Score the strategy's recommendation (when it has one) on generation
    `gen`'s stages before the generation's row is made: its frames are
    then in the row's `frames` and in the budget every reporter sees, and
    the row's `best` (`RunState.best`) is its fitness unless validation
    chose another genome. The game has no randomness and nothing here
    draws a random number, so the search goes on exactly as without it."""
    if run.strategy.recommend() is not None:
        run.recommended(gen)


def _save_first_generation(run: RunState, run_dir: Path) -> None:
    write_config(run_dir, run.config)
    keep_stage_copies(run_dir, run.config)
    run.save()


def _restore(run: RunState, run_dir: Path, strategy_class: type[Strategy],
             size: int, starts: Starts) -> None:
    """The run as its checkpoint left it."""
    ckpt = load_checkpoint(run_dir)
    # The new generation total, and the numeric environment of the start.
    write_config(run_dir, run.config, read_config_data(run_dir).get("numeric"))
    population = [scored_individual(genome, fit) for genome, fit in ckpt.population]
    # The hall of fame in its saved order.
    refill_hall_of_fame(run.hall_of_fame,
                        [scored_individual(genome, fit) for genome, fit in ckpt.hall_of_fame])
    run.logbook.extend(ckpt.logbook)
    run.evaluations.known = dict(ckpt.summaries)
    run.evaluations.frames = int((ckpt.logbook[-1].get("frames") if ckpt.logbook else 0) or 0)
    random.setstate(ckpt.random_state)
    try:
        # Where the starts stand first: the search is the current start's.
        for reporter in run.reporters:
            reporter.restore(ckpt.reporters)
        if starts.fresh():
            run.strategy = starts.build()
        else:
            run.strategy = strategy_class.from_state(
                run.config.for_start(starts.start) if starts.active() else run.config,
                size, ckpt.search)
    except CheckpointError as exc:
        raise CheckpointError(f"{run_dir}: {exc}") from None
    run.elapsed = ckpt.elapsed
    last = ckpt.logbook[-1] if ckpt.logbook else {}
    run.done = Finished(ckpt.generation, population, ckpt.random_state,
                        list(run.hall_of_fame), last, ckpt.search)


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
            ind = scored_individual(ind, known[0])
            changed = True
        items.append(ind)
    if changed:
        items.sort(key=lambda ind: ind.fitness.values[0], reverse=True)
        refill_hall_of_fame(hof, items)

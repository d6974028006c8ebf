"""The genetic algorithm, with DEAP used as designed: `creator` classes, one
`toolbox` registration, `tools.Statistics`, `tools.Logbook` and
`tools.HallOfFame` (elitism draws from it).

Individuals are numpy arrays, as DEAP's notes on numpy describe: the hall
of fame compares them with `numpy.array_equal`, and the crossover works
element by element so no slice is ever a view shared by two individuals.
Every random draw goes through Python's `random` module, seeded once, so a
run is reproducible and its random state can be checkpointed.
"""
from __future__ import annotations

import random
from typing import Callable, Sequence

import numpy as np
from deap import algorithms, base, creator, tools

from evolution.config import EvolutionConfig

if not hasattr(creator, "SpeednikFitness"):
    creator.create("SpeednikFitness", base.Fitness, weights=(1.0,))
if not hasattr(creator, "SpeednikIndividual"):
    creator.create("SpeednikIndividual", np.ndarray,
                   fitness=creator.SpeednikFitness)

Individual = creator.SpeednikIndividual

# What evaluating a batch of genomes returns for each: its fitness and a
# plain-dict summary (mean progress, goals reached, per-stage results).
Evaluation = tuple[float, dict]
BatchEvaluator = Callable[[Sequence[np.ndarray]], list[Evaluation]]


def make_individual(genome: Sequence[float]) -> Individual:
    return Individual(np.asarray(genome, dtype=np.float64))


def random_genome(size: int, sigma: float) -> Individual:
    return make_individual([random.gauss(0.0, sigma) for _ in range(size)])


# DEAP's blend crossover, on whole arrays. DEAP's own walks the genome in
# Python one number at a time, and with episodes compiled it cost a run
# more than selection and mutation together. This draws the same random
# numbers in the same order and does the same arithmetic on each number,
# so it gives DEAP's result exactly (a test compares them).

def cx_blend(ind1: np.ndarray, ind2: np.ndarray, alpha: float):
    """`deap.tools.cxBlend`, element for element."""
    gamma = np.array([(1. + 2. * alpha) * random.random() - alpha
                      for _ in range(len(ind1))])
    x1, x2 = np.array(ind1), np.array(ind2)
    ind1[:] = (1. - gamma) * x1 + gamma * x2
    ind2[:] = gamma * x1 + (1. - gamma) * x2
    return ind1, ind2


def build_toolbox(config: EvolutionConfig, genome_size: int) -> base.Toolbox:
    tb = base.Toolbox()
    tb.register("individual", random_genome, genome_size, config.init_sigma)
    tb.register("population", tools.initRepeat, list, tb.individual)
    tb.register("mate", cx_blend, alpha=0.5)
    tb.register("mutate", tools.mutGaussian, mu=0.0, sigma=config.mut_sigma,
                indpb=config.mut_indpb)
    tb.register("select", tools.selTournament, tournsize=config.tournament)
    return tb


def build_statistics() -> tools.Statistics:
    stats = tools.Statistics(lambda ind: ind.fitness.values[0])
    stats.register("min", np.min)
    stats.register("mean", np.mean)
    stats.register("max", np.max)
    stats.register("std", np.std)
    return stats


LOGBOOK_HEADER = ("gen", "evals", "min", "mean", "max", "std",
                  "best_progress", "completions", "seconds", "test_goals", "test_progress")
# Columns left empty in generations without a held-out test.
OPTIONAL_COLUMNS = ("test_goals", "test_progress")


def new_logbook() -> tools.Logbook:
    log = tools.Logbook()
    log.header = list(LOGBOOK_HEADER)
    return log


def new_hall_of_fame(size: int) -> tools.HallOfFame:
    return tools.HallOfFame(max(1, size), similar=np.array_equal)


class Evaluations:
    """Fitness and summaries of genomes, remembered by their bytes so that
    unchanged individuals (elites, uncrossed clones) are not run again."""

    def __init__(self, evaluate: BatchEvaluator) -> None:
        self.evaluate = evaluate
        self.known: dict[bytes, Evaluation] = {}

    def assign(self, individuals: Sequence[Individual], fresh: bool = False) -> int:
        """Give every individual without a valid fitness one (with
        `fresh`, every individual: the stages changed); returns how many
        genomes were evaluated."""
        todo: dict[bytes, Individual] = {}
        for ind in individuals:
            key = ind.tobytes()
            if (fresh or key not in self.known) and key not in todo:
                todo[key] = ind
        if todo:
            results = self.evaluate([np.asarray(ind) for ind in todo.values()])
            for key, result in zip(todo, results):
                self.known[key] = result
        for ind in individuals:
            ind.fitness.values = (self.known[ind.tobytes()][0],)
        return len(todo)

    def summary(self, ind: np.ndarray) -> dict:
        return self.known[np.asarray(ind).tobytes()][1]

    def forget_all_but(self, keep: Sequence[np.ndarray]) -> None:
        keys = {np.asarray(k).tobytes() for k in keep}
        self.known = {k: v for k, v in self.known.items() if k in keys}


def next_generation(population: list, hof: tools.HallOfFame,
                    toolbox: base.Toolbox, config: EvolutionConfig) -> list:
    """Selection, variation and elitism: the elite best ever found come
    back unchanged; the rest are tournament winners, blended and
    mutated."""
    n_elite = min(config.elite, len(hof))
    chosen = toolbox.select(population, len(population) - n_elite)
    offspring = [toolbox.clone(ind) for ind in chosen]
    offspring = algorithms.varAnd(offspring, toolbox, config.cx_prob,
                                  config.mut_prob)
    elites = [toolbox.clone(ind) for ind in hof[:n_elite]]
    return elites + offspring


def generation_record(gen: int, population: list, evals: int,
                      evaluations: Evaluations, stats: tools.Statistics,
                      seconds: float) -> dict:
    summaries = [evaluations.summary(ind) for ind in population]
    record = stats.compile(population)
    record = {k: float(v) for k, v in record.items()}
    record.update(
        gen=gen, evals=evals,
        best_progress=float(max(s["progress"] for s in summaries)),
        completions=int(sum(1 for s in summaries if s["all_goals"])),
        seconds=round(seconds, 3))
    return record

"""The genetic algorithm, with DEAP used as designed: one `toolbox`
registration, tournament selection, blend crossover, Gaussian mutation,
and elitism drawn from the run's hall of fame.

Every random draw goes through Python's `random` module, seeded once by the
run, so a run is reproducible; the population, the hall of fame and that
random state, all checkpointed by the run, are the whole of its state.
"""
from __future__ import annotations

import random

import numpy as np
from deap import algorithms, base, tools

from evolution.individual import Individual, make_individual
from evolution.strategies.base import SearchSettings, Strategy



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


def build_toolbox(config: SearchSettings, genome_size: int) -> base.Toolbox:
    tb = base.Toolbox()
    o = config.options
    tb.register("individual", random_genome, genome_size, o["init_sigma"])
    tb.register("population", tools.initRepeat, list, tb.individual)
    tb.register("mate", cx_blend, alpha=0.5)
    tb.register("mutate", tools.mutGaussian, mu=0.0, sigma=o["mut_sigma"],
                indpb=o["mut_indpb"])
    tb.register("select", tools.selTournament, tournsize=o["tournament"])
    return tb


def next_generation(population: list, hof: tools.HallOfFame,
                    toolbox: base.Toolbox, config: SearchSettings) -> list:
    """Selection, variation and elitism: the elite best ever found come
    back unchanged; the rest are tournament winners, blended and
    mutated."""
    n_elite = min(config.options["elite"], len(hof))
    chosen = toolbox.select(population, len(population) - n_elite)
    offspring = [toolbox.clone(ind) for ind in chosen]
    offspring = algorithms.varAnd(offspring, toolbox, config.options["cx_prob"],
                                  config.options["mut_prob"])
    elites = [toolbox.clone(ind) for ind in hof[:n_elite]]
    return elites + offspring


class GeneticAlgorithm(Strategy):
    """Random Gaussian genomes first; then each generation is the elite of
    the hall of fame unchanged and tournament winners blended and mutated."""

    def __init__(self, config: SearchSettings, size: int) -> None:
        super().__init__(config, size)
        self.toolbox = build_toolbox(config, size)

    def initial(self) -> list:
        return self.toolbox.population(n=self.config.population)

    def ask(self, population: list, hall_of_fame: tools.HallOfFame) -> list:
        return next_generation(population, hall_of_fame, self.toolbox, self.config)

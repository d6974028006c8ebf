"""Individuals: numpy genomes with a DEAP fitness, as the search
strategies make them (`ask`) and the loop scores them.

The strategies and the loop both import this module, which imports
neither: a strategy never reaches into the loop that drives it.

Individuals are numpy arrays, as DEAP's notes on numpy describe: the hall
of fame compares them with `numpy.array_equal`. DEAP's `creator` classes
exist only in the process that created them, so an individual never
crosses a process boundary; its genome does, as a float array.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from deap import base, creator

if not hasattr(creator, "SpeednikFitness"):
    creator.create("SpeednikFitness", base.Fitness, weights=(1.0,))
if not hasattr(creator, "SpeednikIndividual"):
    creator.create("SpeednikIndividual", np.ndarray,
                   fitness=creator.SpeednikFitness)

Individual = creator.SpeednikIndividual

__all__ = ["Individual", "make_individual", "scored_individual", "refill_hall_of_fame"]


def make_individual(genome: Sequence[float]) -> Individual:
    """The genome as a float64 individual without a fitness yet."""
    return Individual(np.asarray(genome, dtype=np.float64))


def scored_individual(genome: Sequence[float], fitness: float) -> Individual:
    """The genome as an individual with its fitness (read back from a
    checkpoint, or scored anew)."""
    ind = make_individual(genome)
    ind.fitness.values = (fitness,)
    return ind


def refill_hall_of_fame(hall_of_fame, individuals: Sequence[Individual]) -> None:
    """Empty the hall of fame and put `individuals` back in it in their
    order. DEAP's `insert` puts an entry ahead of those of equal fitness,
    so inserting from the last to the first gives back the exact order,
    ties included; elitism and selection then pick as they would have."""
    hall_of_fame.clear()
    for ind in reversed(individuals):
        hall_of_fame.insert(ind)

"""The interface every search method implements: a small ask/tell
`Strategy`, the shape of DEAP's `cma.Strategy` (generate/update), pyribs
and evosax, and what of a run's settings it reads (`SearchSettings`).

    strategy = get_strategy("cmaes").load()(config, genome_size)
    population = strategy.initial()          # individuals (numpy genomes)
    ... the run scores them and updates its hall of fame ...
    strategy.tell(population, summaries)     # their fitness is set
    strategy.numbers()                       # its own numbers, for method.jsonl
    offspring = strategy.ask(population, hall_of_fame)
    state = strategy.state()                 # data for the checkpoint

The run owns what every search shares: the population last scored, the
hall of fame (the best genomes ever scored, ties in their order), Python's
`random` state and the remembered evaluations, all checkpointed. A
strategy's `state()` holds the rest of what continues it exactly, as
`{"arrays": name -> ndarray, "meta": JSON-ready dict}` (never a pickle),
or None when it has nothing more.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Protocol

import numpy as np


class SearchSettings(Protocol):
    """What a strategy reads of a run's settings; `EvolutionConfig` is one.
    Declared here, not imported, so that the run's settings may ask the
    registry below without an import circle. A strategy's own settings
    are in `options`, by the names its registry entry declares."""

    population: int
    seed: int
    hall_of_fame: int
    options: dict[str, float]

    def policy_spec(self) -> Any: ...


class Strategy(ABC):
    """A search over genomes of `size` numbers for a run of `config` (None:
    genomes of the strategy's own family, whose sizes vary)."""

    def __init__(self, config: SearchSettings, size: int | None,
                 start=None) -> None:
        self.config = config
        self.size = size
        # The genome a search around a mean starts from (None: all zeros);
        # only strategies whose registry entry has_mean are given one.
        self.start = start

    def first_mean(self):
        """The mean a search around one starts from: `start`, or zeros."""
        if self.start is None:
            return np.zeros(self.size)
        return np.array(self.start, dtype=np.float64)

    @abstractmethod
    def initial(self) -> list:
        """The first generation: `config.population` individuals."""

    @abstractmethod
    def ask(self, population: list, hall_of_fame) -> list:
        """The next generation, from the last one scored (fitness set)
        and the run's hall of fame."""

    def tell(self, individuals: list, summaries: list[dict]) -> None:
        """Learn from a generation just scored: each individual has its
        fitness, and `summaries[i]` is individual i's episode summary
        (per-stage results), for strategies that look at behaviour."""

    def columns(self) -> dict[str, float]:
        """Logbook columns of the strategy's own (a QD-score, say), for
        the generation just told; none by default."""
        return {}

    def numbers(self) -> dict[str, Any]:
        """The strategy's own numbers for the generation just told (a step
        size, a learning rate, species sizes), which the run writes to
        `method.jsonl` each generation so that they can be drawn against
        generations; the checkpoint keeps only the latest state. Each is a
        float, or a dict of str -> int. Reads the state, never changes it
        and draws no random number: a run is the same whether or not
        anything asks. Nothing (an empty dict) by default.
        """
        return {}

    def played_frames(self) -> int:
        """Frames the strategy played itself since it was last asked, for
        a method that learns from episodes of its own (PPO's rollouts):
        they count in the run's frames and budget beside those of the
        genomes the run scores. None (0) by default."""
        return 0

    def archive(self) -> dict | None:
        """An archive of elites by cell, as arrays, for `archive.npz`
        (see `runners.archive_file`); None for strategies without one."""
        return None

    def recommend(self):
        """The genome the strategy believes best, when it is not simply
        the best one scored (the hall of fame's first): an ES's mean, say.
        None: the hall of fame's first."""
        return None

    def candidates(self) -> list:
        """Genomes, beyond the hall of fame and the recommendation, worth
        playing on the validation stages; never scored by the search, so
        asking changes nothing. Nothing by default; CMA-ES's mean with
        --cma-validate-mean 1."""
        return []

    def state(self) -> dict[str, Any] | None:
        """What, beyond the run's own checkpoint, continues the search
        exactly; None when nothing does."""
        return None

    @classmethod
    def from_state(cls, config: SearchSettings, size: int | None,
                   state: dict[str, Any] | None) -> Strategy:
        """The strategy as it was when `state()` gave `state`."""
        return cls(config, size)

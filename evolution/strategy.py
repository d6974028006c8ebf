"""Search strategies: one small interface, and the registry the run asks.

A strategy proposes genomes and learns from their fitness, the ask/tell
shape of DEAP's `cma.Strategy` (generate/update), pyribs and evosax:

    strategy = get_strategy("cmaes").load()(config, genome_size)
    population = strategy.initial()          # individuals (numpy genomes)
    ... the run scores them and updates its hall of fame ...
    strategy.tell(population)                # their fitness is set
    offspring = strategy.ask(population, hall_of_fame)
    state = strategy.state()                 # data for the checkpoint

The run owns what every search shares: the population last scored, the
hall of fame (the best genomes ever scored, ties in their order), Python's
`random` state and the remembered evaluations, all checkpointed. A
strategy's `state()` holds the rest of what continues it exactly, as
`{"arrays": name -> ndarray, "meta": JSON-ready dict}` (never a pickle),
or None when it has nothing more.

To add one: a module with a `Strategy` subclass, and one `STRATEGIES` line
below (the entry names its class by "module:Class", so the command line
lists the strategies without importing them).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evolution.config import EvolutionConfig


class Strategy(ABC):
    """A search over genomes of `size` numbers for a run of `config`."""

    def __init__(self, config: EvolutionConfig, size: int) -> None:
        self.config = config
        self.size = size

    @abstractmethod
    def initial(self) -> list:
        """The first generation: `config.population` individuals."""

    @abstractmethod
    def ask(self, population: list, hall_of_fame) -> list:
        """The next generation, from the last one scored (fitness set)
        and the run's hall of fame."""

    def tell(self, individuals: list) -> None:
        """Learn from a generation just scored (each has its fitness)."""

    def state(self) -> dict[str, Any] | None:
        """What, beyond the run's own checkpoint, continues the search
        exactly; None when nothing does."""
        return None

    @classmethod
    def from_state(cls, config: EvolutionConfig, size: int,
                   state: dict[str, Any] | None) -> Strategy:
        """The strategy as it was when `state()` gave `state`."""
        return cls(config, size)


@dataclass(frozen=True)
class StrategyEntry:
    name: str
    summary: str
    target: str     # "module:Class"

    def load(self) -> type[Strategy]:
        module, _, cls = self.target.partition(":")
        return getattr(import_module(module), cls)


STRATEGIES: dict[str, StrategyEntry] = {
    "ga": StrategyEntry(
        "ga", "tournament selection, blend crossover, Gaussian mutation, elitism "
              "(--tournament, --cx-prob, --mut-prob, --mut-sigma, --mut-indpb, --elite)",
        "evolution.ga:GeneticAlgorithm"),
    "cmaes": StrategyEntry(
        "cmaes", "DEAP's CMA-ES: --population samples a generation, --init-sigma "
                 "is its first step size", "evolution.cmaes:CMAES"),
}


def list_strategies() -> tuple[str, ...]:
    return tuple(STRATEGIES)


def get_strategy(name: object) -> StrategyEntry:
    """The strategy registered as `name`; ValueError naming the accepted ones."""
    entry = STRATEGIES.get(name) if isinstance(name, str) else None
    if entry is None:
        raise ValueError(f"unknown algorithm {name!r}; accepted: "
                         f"{', '.join(STRATEGIES)}")
    return entry

"""What a run is between two generations (`RunState`), and the interface
of the reporters it calls after each one: the loop (`evolution.loop.evolve`),
the reporters (`evolution.loop.reporters`) and validation
(`evolution.loop.validation`) all import this module, and it imports none of
them.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

import numpy as np
from deap import tools

from evolution.config import EvolutionConfig
from evolution.individual import refill_hall_of_fame
from evolution.loop.generation import Evaluations
from evolution.strategies.base import Strategy
from speednik.signals import signals_held


class Reporter:
    """Called by the loop after each generation: columns of its own for the
    logbook, the generation done, and a save point (a checkpoint)."""

    def columns(self, run: RunState, gen: int) -> dict:
        return {}

    def generation(self, run: RunState, record: dict) -> None:
        pass

    def save(self, run: RunState) -> None:
        pass

    def state(self) -> dict | None:
        """What this reporter keeps across a resume, as {"arrays": ...,
        "meta": ...} (names shared by all reporters), or None."""
        return None

    def restore(self, state: dict | None) -> None:
        """Take back what `state()` gave (all reporters' state merged)."""


def reporters_state(reporters: list[Reporter]) -> dict | None:
    arrays: dict = {}
    meta: dict = {}
    for reporter in reporters:
        state = reporter.state()
        if state is not None:
            arrays.update(state["arrays"])
            meta.update(state["meta"])
    return {"arrays": arrays, "meta": meta} if (arrays or meta) else None


class GenomeChooser(Protocol):
    """Chooses the run's genome apart from the search (on validation
    stages): `chosen` is (genome, fitness, summary, ...) or None."""

    chosen: tuple | None

    def ranks(self, gen: int) -> list[tuple[tuple, int, dict]]:
        """Each candidate's rank, validation stages completed and origin,
        for generation `gen` when it played them; else none."""

    def origin(self) -> dict | None:
        """Which candidate `chosen` was, and the generation it was chosen
        in; None before any choice."""


@dataclass(frozen=True)
class Finished:
    """A finished generation: what a save point checkpoints. Made current
    by one assignment, so a signal landing anywhere in the loop finds
    either the previous generation or this one, never half of each."""

    gen: int
    population: list
    random_state: Any
    hall_of_fame: list
    record: dict
    search_state: dict | None
    # The strategy's own numbers for this generation (`Strategy.numbers`);
    # None for the generation a resumed run starts from, whose numbers the
    # run's method.jsonl already holds.
    method: dict | None = None


@dataclass
class RunState:
    """Everything a run is between two generations."""

    config: EvolutionConfig
    strategy: Strategy
    hall_of_fame: tools.HallOfFame
    logbook: tools.Logbook
    evaluations: Evaluations
    done: Finished | None = None
    elapsed: float = 0.0
    reporters: list[Reporter] = field(default_factory=list)
    # Scores a genome on generation `gen`'s stages: the strategy's own
    # recommendation and other candidates, when it has them, are scored with this.
    scorer: Callable[[Any, int], tuple[float, dict]] | None = None
    # Chooses the run's genome on validation stages, when it has some.
    validation: GenomeChooser | None = None
    # The run's several starts (`evolution.loop.starts.Starts`), when it
    # has them: `.start`, the one playing, and `.ends(frames)`.
    starts: Any = None
    # The genomes scored by `scored`, by their bytes, and the generation
    # whose stages scored them.
    _scored_gen: int = -1
    _scored: dict[bytes, tuple[float, dict]] = field(default_factory=dict)

    def best(self, gen: int) -> tuple[Any, float, dict]:
        """The genome the run would give now, its fitness and summary: the
        one chosen on the validation stages; without them, the strategy's
        recommendation or else the hall of fame's first (for MAP-Elites,
        the best elite of its archive). Its fitness is the run's "best"
        everywhere: the logbook's `best` column, the console's line,
        best.json, the pictures and the comparison."""
        if self.validation is not None and self.validation.chosen is not None:
            return self.validation.chosen[:3]
        if self.strategy.recommend() is not None:
            return self.recommended(gen)
        first = self.hall_of_fame[0]
        return first, first.fitness.values[0], self.evaluations.summary(first)

    def found_in(self, fitness: float) -> int:
        """The generation that made the genome `best` gives now: the one
        validation chose it in; for a strategy's recommendation (an ES's
        mean, remade every generation) the last; else the first whose
        population reached `fitness`."""
        if self.validation is not None and self.validation.chosen is not None:
            origin = self.validation.origin() or {}
            if "generation" in origin:
                return int(origin["generation"])
        elif self.strategy.recommend() is not None:
            return self.gen
        return next((r["gen"] for r in self.logbook if r["max"] >= fitness), self.gen)

    def recommended(self, gen: int) -> tuple[Any, float, dict]:
        """The strategy's recommendation, scored on generation `gen`'s
        stages. The loop scores it every generation (for the logbook's
        `best`), and its frames count in those the search played: a frame
        budget pays for them."""
        return self.scored(self.strategy.recommend(), gen, counted=True)

    def forget_scores(self) -> None:
        """Forget the genomes `scored` has scored (they are scored again
        when next asked for)."""
        self._scored_gen, self._scored = -1, {}

    def scored(self, genome: Any, gen: int,
               counted: bool = False) -> tuple[Any, float, dict]:
        """`genome` with its fitness and summary on generation `gen`'s
        stages, scored once per genome and generation; with `counted`, the
        frames of its episodes count in the search's (when played here)."""
        if self._scored_gen != gen:
            self._scored_gen, self._scored = gen, {}
        key = np.asarray(genome, dtype=np.float64).tobytes()
        if key not in self._scored:
            self._scored[key] = self.scorer(genome, gen)
            if counted:
                self.evaluations.count(self._scored[key][1])
        fitness, summary = self._scored[key]
        return genome, fitness, summary

    @property
    def start(self) -> int:
        """The start playing (0 without several)."""
        return 0 if self.starts is None else self.starts.start

    def tested(self, gen: int) -> bool:
        """Whether generation `gen` is one that validation and the held-out
        test play: `EvolutionConfig.tested`, and the last of each start."""
        frames = self.evaluations.frames
        return (self.config.tested(gen, frames)
                or (self.starts is not None and self.starts.ends(frames)))

    @property
    def gen(self) -> int:
        return self.done.gen

    @property
    def population(self) -> list:
        return self.done.population

    @property
    def random_state(self) -> Any:
        return self.done.random_state

    @property
    def search_state(self) -> dict | None:
        return self.done.search_state

    def finish(self, gen: int, population: list, record: dict) -> None:
        self.done = Finished(gen, population, random.getstate(), list(self.hall_of_fame),
                             record, self.strategy.state(), self.strategy.numbers())

    def back_to_last_finished(self) -> None:
        """Undo what an unfinished generation did to the hall of fame and
        the logbook."""
        refill_hall_of_fame(self.hall_of_fame, self.done.hall_of_fame)
        if len(self.logbook) < self.gen + 1:
            self.logbook.record(**self.done.record)
        del self.logbook[self.gen + 1:]

    def columns(self, gen: int) -> dict:
        out: dict = {}
        for reporter in self.reporters:
            out.update(reporter.columns(self, gen))
        return out

    def report_generation(self, record: dict) -> None:
        for reporter in self.reporters:
            reporter.generation(self, record)

    def save(self) -> None:
        # A Ctrl-C or SIGTERM landing inside a write would leave the files
        # of one save point from two generations, or raise from inside
        # numpy's zip writer as another error that skips the interrupted
        # run's own checkpoint: it is acted on once every file is written.
        with signals_held():
            for reporter in self.reporters:
                reporter.save(self)

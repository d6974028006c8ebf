"""Several starts of one search, and the one that goes on.

With `starts` K above 1 a run plays K searches one after the other, each
from a seed of its own (`EvolutionConfig.start_seed`; the first is the
run's seed) for `start_frames` frames. Each start's last generation is
validated, and a start counts for the best validation result any of its
genomes had (`Validation.ranks`). Once all K have played, the best start
(the earlier on a tie) goes on alone from where it stopped until
`max_frames`; every start's frames count in that budget. The genome the
run gives is chosen on validation across all starts, as without starts.

The reason is robustness: a search from one seed may settle on a
plateau that another seed's leaves, and a short start already shows most
of the difference on validation stages, at a fraction of the budget.

While the starts play, the run keeps the leading start's search as it
stopped (its strategy state, population, hall of fame and their episode
summaries) beside the current one; the checkpoint holds both, so a run
stopped anywhere resumes exactly. The hall of fame and population are a
start's own; the stage draw (`StageDraw`) and Python's random state are
the run's and go on across starts.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace

import numpy as np

from evolution.config import EvolutionConfig
from evolution.individual import refill_hall_of_fame, scored_individual
from evolution.loop.checkpoint import genome_arrays, stored_genomes
from evolution.loop.run_state import Reporter, RunState
from evolution.search_state import CheckpointError
from evolution.strategies.base import Strategy

# The names this reporter's arrays and meta have in the checkpoint.
PREFIX = "starts_"
SEARCH = PREFIX + "search_"


def new_strategy(strategy_class: type[Strategy], config: EvolutionConfig,
                 size: int | None, first_mean: np.ndarray | None) -> Strategy:
    """A search before its first generation, from `first_mean` where given
    (only a strategy with a mean is given one)."""
    if first_mean is None:
        return strategy_class(config, size)
    return strategy_class(config, size, start=first_mean)


@dataclass
class Paused:
    """A start's search as it stopped, to go on with if it wins."""

    start: int
    score: list[float]
    search: dict | None
    population: list[tuple[np.ndarray, float]]
    hall_of_fame: list[tuple[np.ndarray, float]]
    # Episode summaries of the population, then of the hall of fame.
    summaries: list[tuple[float, dict]]


class Starts(Reporter):
    """Runs the starts one after the other and sends the best on; a
    reporter so that the checkpoint keeps where the starts stand. The loop
    asks `fresh()` (a new start's first generation is `initial()`, not
    `ask()`) and calls `after(run)` once a generation is finished."""

    def __init__(self, config: EvolutionConfig, strategy_class: type[Strategy],
                 size: int | None, first_mean: np.ndarray | None = None) -> None:
        self.config = config
        self.strategy_class = strategy_class
        self.size = size
        # Where every start's search begins (None: the strategy's own).
        self.first_mean = first_mean
        self.start = 0
        # Frames played when the current start began.
        self.began = 0
        # The current start's best validation rank so far (None: none
        # yet), and the validation stages that genome completed.
        self.score: list[float] | None = None
        self.goals = 0
        # Whether the current start has yet to play its first generation.
        self.new = False
        self.racing = config.starts > 1
        self.leader: Paused | None = None

    def active(self) -> bool:
        return self.config.starts > 1

    def fresh(self) -> bool:
        return self.new

    def ends(self, frames: int) -> bool:
        """Whether the generation that brought the run to `frames` frames
        is the current start's last before the next one (or the winner)."""
        return self.racing and frames - self.began >= self.config.start_frames

    def columns(self, run: RunState, gen: int) -> dict:
        if not self.active():
            return {}
        # Validation (a reporter before this one) has just ranked this
        # generation's candidates, when it was one it plays.
        if self.racing and run.validation is not None:
            for rank, goals, origin in run.validation.ranks(gen):
                if origin.get("start") == self.start and (
                        self.score is None or list(rank) > self.score):
                    self.score, self.goals = list(rank), goals
        # What the start that ends here counts for: the validation stages
        # its best genome completed (the run's `val_goals` may be another
        # start's).
        ends = self.ends(run.evaluations.frames)
        return {"start": self.start,
                "start_val_goals": self.goals if ends and self.score is not None else None}

    def after(self, run: RunState) -> bool:
        """After a finished generation: when it ended the current start,
        keep it if it leads, and put the next start, or the winner, in its
        place. Whether the run's search changed."""
        if not self.ends(run.evaluations.frames):
            self.new = False
            return False
        # Every start's last generation is validated, so a score is known;
        # the floor is for a start none of whose candidates was.
        score = self.score if self.score is not None else [-1.0, -1.0e300]
        leads = self.leader is None or score > self.leader.score
        last = self.start == self.config.starts - 1
        if last:
            self.racing = False
            if leads:
                self.leader = None
                self.new = False
                return False
            self._resume_leader(run)
            return True
        if leads:
            self.leader = self._pause(run, score)
        self.start += 1
        self.began = run.evaluations.frames
        self.score, self.goals = None, 0
        self.new = True
        # A new start is its seed alone until its first generation: the
        # checkpoint holds no search state for it, and a resumed run builds
        # it again from the random state it was built from.
        before = random.getstate()
        run.strategy = self.build()
        run.hall_of_fame.clear()
        run.evaluations.forget_all_but([])
        run.done = replace(run.done, population=[], random_state=before,
                           hall_of_fame=[], search_state=None)
        return True

    def build(self) -> Strategy:
        """The current start's search as it is before its first generation."""
        return new_strategy(self.strategy_class, self.config.for_start(self.start),
                            self.size, self.first_mean)

    def _pause(self, run: RunState, score: list[float]) -> Paused:
        known = run.evaluations.known
        kept = list(run.population) + list(run.hall_of_fame)
        return Paused(
            start=self.start, score=list(score), search=run.strategy.state(),
            population=[(np.array(i, dtype=np.float64), i.fitness.values[0])
                        for i in run.population],
            hall_of_fame=[(np.array(i, dtype=np.float64), i.fitness.values[0])
                          for i in run.hall_of_fame],
            summaries=[known[np.asarray(i, dtype=np.float64).tobytes()] for i in kept])

    def _resume_leader(self, run: RunState) -> None:
        leader, self.leader = self.leader, None
        self.start = leader.start
        self.new = False
        before = random.getstate()
        try:
            run.strategy = self.strategy_class.from_state(
                self.config.for_start(leader.start), self.size, leader.search)
        except CheckpointError as exc:
            raise CheckpointError(f"start {leader.start}'s search: {exc}") from None
        population = [scored_individual(g, f) for g, f in leader.population]
        refill_hall_of_fame(run.hall_of_fame,
                            [scored_individual(g, f) for g, f in leader.hall_of_fame])
        genomes = [g for g, _ in leader.population] + [g for g, _ in leader.hall_of_fame]
        run.evaluations.forget_all_but([])
        for genome, summary in zip(genomes, leader.summaries):
            run.evaluations.known[np.asarray(genome, dtype=np.float64).tobytes()] = summary
        # The finished generation as the checkpoint keeps it, with the
        # search that plays the next one (its row and the method's numbers
        # stay those of the search that played it).
        run.done = replace(run.done, population=population, random_state=before,
                           hall_of_fame=list(run.hall_of_fame),
                           search_state=leader.search)

    # -- the checkpoint ------------------------------------------------------

    def state(self) -> dict | None:
        if not self.active():
            return None
        meta: dict = {"start": self.start, "began": self.began, "score": self.score,
                      "goals": self.goals, "new": self.new, "racing": self.racing,
                      "leader": None}
        arrays: dict = {}
        if self.leader is not None:
            lead = self.leader
            search = lead.search
            meta["leader"] = {
                "start": lead.start, "score": lead.score,
                "search": None if search is None else search["meta"],
                "population_fitness": [f for _, f in lead.population],
                "hall_of_fame_fitness": [f for _, f in lead.hall_of_fame],
                "summaries": [list(s) for s in lead.summaries]}
            if search is not None:
                arrays.update({SEARCH + name: np.asarray(a)
                               for name, a in search["arrays"].items()})
            for name, scored in (("population", lead.population),
                                 ("hall_of_fame", lead.hall_of_fame)):
                stored = genome_arrays(name, [g for g, _ in scored])
                arrays.update({PREFIX + k: v for k, v in stored.items()})
        return {"arrays": arrays, "meta": {"starts": meta}}

    def restore(self, state: dict | None) -> None:
        if not self.active():
            return
        if state is None or "starts" not in state["meta"]:
            raise CheckpointError("the checkpoint does not say where its starts stand")
        meta = state["meta"]["starts"]
        arrays = state["arrays"]
        try:
            self.start = int(meta["start"])
            self.began = int(meta["began"])
            self.score = None if meta["score"] is None else [float(x) for x in meta["score"]]
            self.goals = int(meta["goals"])
            self.new = bool(meta["new"])
            self.racing = bool(meta["racing"])
            self.leader = None if meta["leader"] is None else _paused(meta["leader"], arrays)
        except (KeyError, TypeError, ValueError) as exc:
            raise CheckpointError(f"the starts' state is damaged ({exc})") from None
        if not 0 <= self.start < self.config.starts:
            raise CheckpointError(f"the checkpoint is at start {self.start}, and the run "
                                  f"has {self.config.starts}")


def _paused(meta: dict, arrays: dict) -> Paused:
    own = {name[len(PREFIX):]: a for name, a in arrays.items()
           if name.startswith(PREFIX) and not name.startswith(SEARCH)}
    search_arrays = {name[len(SEARCH):]: a for name, a in arrays.items()
                     if name.startswith(SEARCH)}
    population = stored_genomes(own, "population")
    hall_of_fame = stored_genomes(own, "hall_of_fame")
    pop_fit = [float(f) for f in meta["population_fitness"]]
    hof_fit = [float(f) for f in meta["hall_of_fame_fitness"]]
    summaries = [(float(s[0]), s[1]) for s in meta["summaries"]]
    if (len(pop_fit) != len(population) or len(hof_fit) != len(hall_of_fame)
            or len(summaries) != len(population) + len(hall_of_fame)):
        raise ValueError("the leading start's genomes, fitness and summaries do not match")
    search = None if meta["search"] is None else {"arrays": search_arrays,
                                                  "meta": meta["search"]}
    return Paused(start=int(meta["start"]), score=[float(x) for x in meta["score"]],
                  search=search, population=list(zip(population, pop_fit)),
                  hall_of_fame=list(zip(hall_of_fame, hof_fit)), summaries=summaries)


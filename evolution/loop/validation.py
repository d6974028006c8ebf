"""Choosing the genome a run gives on validation stages.

Without validation, a run gives the best genome it scored (or its
strategy's recommendation). With `validation_stages`, every `test_every`
generations and at the last one, the candidates the run keeps (the hall
of fame, the strategy's recommendation, the strategy's own candidates
(CMA-ES's mean with --cma-validate-mean 1), and the genome chosen so far) are
played on the validation stages, and the one that completes the most of
them (with `validation_weight` "set": the highest fraction of each
validation set, averaged over the sets; then: with the highest mean
reward there; then: the earlier candidate) becomes the run's genome.
With `validation_prefer`, those sets are left out of that rank, and of
the candidates completing at most `validation_near` stages of the other
sets fewer than the best of them, the one completing the most of the
preferred sets wins (then by that rank): a few designed stages choose
only among genomes about as good as any on many generated ones. The
chosen genome is what best.json holds, with which
candidate it was and the generation it was chosen in ("chosen"), and
the held-out test plays it. Validation never reaches the search: no fitness, no
selection and no random number depends on it, so a run evolves the same
with or without it.

With `keep_candidates`, each candidate first validated in a generation is
written to the run's `candidates/` folder as a genome file, named by the
generation and the candidate (gen-0075-hall-of-fame-0.json), its
`chosen` saying what it validated: another rule of choice can then be
tried on every genome the run's rule chose among
(benchmarks/population_choice.py --candidates).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from evolution.config import EvolutionConfig
from evolution.loop.evaluate import GenomeEvaluator
from evolution.loop.outputs import write_candidate
from evolution.loop.run_state import Reporter, RunState

# What a chosen genome was among the validation candidates.
HALL_OF_FAME = "hall of fame"
RECOMMENDATION = "recommendation"
# A strategy's own candidates: CMA-ES's mean with --cma-validate-mean 1.
STRATEGY_CANDIDATE = "strategy candidate"
# A member of the last population picked by `validation_screen`.
POPULATION_MEMBER = "population member"
UNKNOWN = "unknown"


def completion_score(completed: dict[str, bool], sets: list[list[str]], weight: str) -> float:
    """What a candidate's validation counts for, by `weight`: "stage", the
    stages completed; "set", the fraction of each set completed, averaged
    over the sets. `completed` maps each validation stage's name to
    whether the candidate completed it."""
    if weight == "set":
        return sum(sum(completed[name] for name in names) / len(names)
                   for names in sets) / len(sets)
    return float(sum(completed.values()))


class Validation(Reporter):
    def __init__(self, config: EvolutionConfig, evaluator: GenomeEvaluator,
                 run_dir: Path | None = None) -> None:
        self.config = config
        self.evaluator = evaluator
        # Where candidates are written with keep_candidates.
        self.run_dir = run_dir
        self.stages = config.validation_stage_names()
        self.sets = config.validation_sets()
        # The sets `validation_prefer` names, and the others.
        self.prefer = [names for named, names in zip(config.validation_stages, self.sets)
                       if named in config.validation_prefer]
        self.others = [names for named, names in zip(config.validation_stages, self.sets)
                       if named not in config.validation_prefer]
        self.preferred_names = {name for names in self.prefer for name in names}
        self.other_names = {name for names in self.others for name in names}
        # The chosen genome, its training fitness and summary, its
        # validation result (goals, mean reward, mean progress), and where
        # it came from: {"candidate": HALL_OF_FAME, RECOMMENDATION or
        # STRATEGY_CANDIDATE, "generation": the one it was chosen in}.
        self.chosen: tuple[np.ndarray, float, dict, tuple[int, float, float], dict] | None = None
        # The last generation validated, and each candidate's rank there
        # and origin (`ranks`).
        self._ranked: tuple[int, list[tuple[tuple, int, dict]]] = (-1, [])

    def active(self) -> bool:
        return bool(self.stages)

    def columns(self, run: RunState, gen: int) -> dict:
        if not self.stages:
            return {}
        if not run.tested(gen):
            return {"val_goals": None, "val_progress": None}
        candidates = self._candidates(run, gen)
        scores = self.evaluator([c[0] for c in candidates], self.stages)
        ranked, keys, preferred, others, floored = [], [], [], [], []
        for (genome, fitness, summary, origin), (reward, result) in zip(candidates, scores):
            completed = {name: bool(r["metrics"]["goal_reached"])
                         for name, r in result["results"].items()}
            goals = sum(completed.values())
            keys.append((goals, float(reward), float(result["progress"])))
            ranked.append((self._rank(completed, float(reward)), goals, origin))
            preferred.append(sum(completed[name] for name in self.preferred_names))
            others.append(sum(completed[name] for name in self.other_names))
            floored.append(self._meets_floor(completed))
        best = self._choose(ranked, preferred, others, floored)
        genome, fitness, summary, origin = candidates[best]
        if self.config.keep_candidates and self.run_dir is not None:
            self._keep(gen, candidates, scores, ranked)
        self.chosen = (np.array(genome, dtype=np.float64), fitness, summary, keys[best], origin)
        self._ranked = (gen, ranked)
        return {"val_goals": keys[best][0], "val_progress": keys[best][2]}

    def _rank(self, completed: dict[str, bool], reward: float) -> tuple[float, float]:
        """What a candidate counts for on the validation sets not
        preferred (all of them without `validation_prefer`): its completion
        score by `validation_weight`, then its mean reward. The starts are
        compared on this."""
        return (completion_score({k: v for k, v in completed.items() if k in self.other_names},
                                 self.others, self.config.validation_weight), reward)

    def _meets_floor(self, completed: dict[str, bool]) -> bool:
        """Whether a candidate completes at least `validation_floor`'s share
        of each set not preferred (False without a floor)."""
        floor = self.config.validation_floor
        return bool(floor) and all(
            sum(completed[name] for name in names) >= share * len(names) - 1e-9
            for share, names in zip(floor, self.others))

    def _choose(self, ranked: list[tuple[tuple, int, dict]], preferred: list[int],
                others: list[int], floored: list[bool] | None = None) -> int:
        """The index of the candidate chosen: the best rank, the earlier on
        a tie; with `validation_prefer`, the most of the preferred sets
        first among those meeting `validation_floor` (`floored`), or when
        none does, among those completing at most `validation_near`
        stages of the other sets fewer than the best of them."""
        order = range(len(ranked))
        if not self.prefer:
            return max(order, key=lambda i: (ranked[i][0], -i))
        pool = [i for i in order if floored and floored[i]]
        if not pool:
            near = max(others) - self.config.validation_near
            pool = [i for i in order if others[i] >= near]
        return max(pool, key=lambda i: (preferred[i], ranked[i][0], -i))

    def _keep(self, gen: int, candidates: list, scores: list, ranked: list) -> None:
        """Write the candidates first validated in `gen` (not the genome
        chosen before, already written when it was) as genome files."""
        named: dict[str, int] = {}
        for (genome, fitness, summary, origin), (reward, result), (this, goals, _) in zip(
                candidates, scores, ranked):
            if origin.get("generation") != gen:
                continue
            kind = origin["candidate"].replace(" ", "-")
            number = named[kind] = named.get(kind, -1) + 1
            validated = dict(origin, validation_goals=goals,
                             validation_score=float(this[0]),
                             validation_reward=float(reward),
                             validation_progress=float(result["progress"]),
                             validation_completed={
                                 name: bool(r["metrics"]["goal_reached"])
                                 for name, r in result["results"].items()})
            write_candidate(self.run_dir, f"gen-{gen:04d}-{kind}-{number}", self.config,
                            np.asarray(genome, dtype=np.float64), fitness, summary,
                            validated, self.evaluator.action_repeat)

    def _candidates(self, run: RunState, gen: int) -> list[tuple[Any, float, dict, dict]]:
        """The genome chosen so far first (with where it came from), then
        the hall of fame in order, then the strategy's recommendation and
        its other candidates (CMA-ES's mean, when asked for); each genome
        once."""
        out: list[tuple[Any, float, dict, dict]] = []
        seen: set[bytes] = set()

        def add(genome, fitness: float, summary: dict, origin: dict) -> None:
            key = np.asarray(genome, dtype=np.float64).tobytes()
            if key not in seen:
                seen.add(key)
                out.append((genome, fitness, summary, origin))

        def new(candidate: str) -> dict:
            origin = {"candidate": candidate, "generation": gen}
            if run.starts is not None:
                origin["start"] = run.start
            return origin

        if self.chosen is not None:
            add(*self.chosen[:3], self.chosen[4])
        for ind in run.hall_of_fame:
            add(ind, ind.fitness.values[0], run.evaluations.summary(ind), new(HALL_OF_FAME))
        if run.strategy.recommend() is not None:
            add(*run.recommended(gen), new(RECOMMENDATION))
        for genome in run.strategy.candidates():
            add(*run.scored(genome, gen), new(STRATEGY_CANDIDATE))
        for ind in self._screened(run):
            add(ind, ind.fitness.values[0], run.evaluations.summary(ind), new(POPULATION_MEMBER))
        return out

    def _screened(self, run: RunState) -> list:
        """The `validation_screen` members of the last finished population
        that complete the most of the preferred sets, then the fittest,
        then the earlier; none that completes none of them."""
        count = self.config.validation_screen
        if not count or run.done is None or not run.population:
            return []
        members = list(run.population)
        names = sorted(self.preferred_names)
        played = self.evaluator(members, names)
        completed = [sum(bool(r["metrics"]["goal_reached"]) for r in result["results"].values())
                     for _, result in played]
        order = sorted(range(len(members)),
                       key=lambda i: (-completed[i], -members[i].fitness.values[0], i))
        return [members[i] for i in order[:count] if completed[i] > 0]

    def rescore(self, fitness: float, summary: dict) -> None:
        """Give the chosen genome a new training fitness and summary (its
        validation result is played again at the next validation)."""
        genome, _, _, key, origin = self.chosen
        self.chosen = (genome, fitness, summary, key, origin)

    def ranks(self, gen: int) -> list[tuple[tuple, int, dict]]:
        """Each candidate's rank (what `columns` compares: the completion
        score, then the mean reward), validation stages completed and
        origin, for generation `gen` when it played them; else none."""
        return list(self._ranked[1]) if self._ranked[0] == gen else []

    def origin(self) -> dict | None:
        """Which candidate the chosen genome was and the generation it was
        chosen in; None before any validation."""
        return None if self.chosen is None else dict(self.chosen[4])

    def state(self) -> dict | None:
        if self.chosen is None:
            return None
        genome, fitness, summary, key, origin = self.chosen
        return {"arrays": {"validation_genome": genome},
                "meta": {"validation": {"fitness": fitness, "summary": summary,
                                       "key": list(key), "origin": origin}}}

    def restore(self, state: dict | None) -> None:
        if not self.stages or state is None or "validation" not in state["meta"]:
            return
        meta = state["meta"]["validation"]
        genome = np.array(state["arrays"]["validation_genome"], dtype=np.float64)
        goals, reward, progress = meta["key"]
        # Checkpoints written before the origin was kept do not know it.
        origin = meta.get("origin", {"candidate": UNKNOWN, "generation": None})
        self.chosen = (genome, float(meta["fitness"]), meta["summary"],
                       (int(goals), float(reward), float(progress)), origin)

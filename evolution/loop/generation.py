"""What a generation is, whatever searched for it: the remembered
evaluations of its individuals (`evolution.individual`), DEAP's
statistics, logbook and hall of fame, and the logbook's row.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from deap import tools

from evolution.individual import Individual

# What evaluating a batch of genomes returns for each: its fitness and a
# plain-dict summary (mean progress, goals reached, per-stage results).
Evaluation = tuple[float, dict]
BatchEvaluator = Callable[[Sequence[np.ndarray]], list[Evaluation]]


def build_statistics() -> tools.Statistics:
    stats = tools.Statistics(lambda ind: ind.fitness.values[0])
    stats.register("min", np.min)
    stats.register("mean", np.mean)
    stats.register("max", np.max)
    stats.register("std", np.std)
    return stats


# min, mean, max and std are the population's statistics; `best` is the
# fitness of the genome the run would give at that generation
# (`RunState.best`): the best so far, the one number that the console,
# best.json, the pictures and the comparison all mean by "best".
LOGBOOK_HEADER = ("gen", "evals", "min", "mean", "max", "std", "best",
                  "best_progress", "completions", "seconds", "test_goals", "test_progress",
                  "frames")
# Columns left empty in generations without a held-out test, and columns
# that logbooks written before they existed lack (frames played, best).
OPTIONAL_COLUMNS = ("test_goals", "test_progress", "frames", "best")


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
        # Frames the search has played so far (its budget): every episode
        # of every genome scored, the strategy's recommendation scored
        # each generation (`RunState.recommended`) included, held-out
        # tests and validation aside.
        self.frames = 0

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
                self.count(result[1])
        for ind in individuals:
            ind.fitness.values = (self.known[ind.tobytes()][0],)
        return len(todo)

    def count(self, summary: dict) -> None:
        """Add the frames of a genome's episodes (its summary) to those played."""
        self.frames += sum(int(r["steps"]) for r in summary["results"].values())

    def summary(self, ind: np.ndarray) -> dict:
        return self.known[np.asarray(ind).tobytes()][1]

    def forget_all_but(self, keep: Sequence[np.ndarray]) -> None:
        keys = {np.asarray(k).tobytes() for k in keep}
        self.known = {k: v for k, v in self.known.items() if k in keys}


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
        seconds=round(seconds, 3), frames=evaluations.frames)
    return record

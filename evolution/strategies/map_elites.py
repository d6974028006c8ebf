"""MAP-Elites with pyribs: an archive of the best genome found for each
kind of play, and new genomes bred from its elites.

The archive is a grid over two behaviour descriptors a player would
recognise, measured from the episode results (so equally by both
engines):

- speed: how far right the player got per frame, in pixels (the mean over
  the generation's stages of (max_x - start_x) / frames);
- rings: rings held at the end of an episode, the mean over the stages.

Each cell keeps the genome of highest fitness that played that way.
Variation is the Iso+LineDD operator (Vassiliades and Mouret 2018, pyribs'
`IsoLineEmitter`): an elite plus isotropic Gaussian noise plus a step
along the line to another elite. The hall of fame's first is the best
elite, which best.json holds. QD-score (the sum over elites of fitness
minus QD_OFFSET) and coverage (the share of cells filled) are logged.

Its state is data: the elites in the archive's own order, and the random
generators of the archive and the emitter, so a resumed run breeds
exactly what a straight one would.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from evolution.individual import make_individual
from evolution.search_state import CheckpointError
from evolution.strategies.generator_state import generator_state, set_generator_state
from evolution.strategies.base import SearchSettings, Strategy


MEASURES = ("speed", "rings")
# The grid spans these; a behaviour beyond them counts in the edge cell.
RANGES = ((0.0, 8.0), (0.0, 60.0))
# Fitness below this is not expected (the reward's worst episodes lose a
# few points); QD-score counts each elite's fitness above it.
QD_OFFSET = -10.0
ARCHIVE_STREAM, EMITTER_STREAM = 0xA4C, 0xE41


def descriptors(summary: dict) -> tuple[float, float]:
    """(speed, rings) of a genome's episodes, from its summary."""
    speeds, rings = [], []
    for result in summary["results"].values():
        metrics = result["metrics"]
        frames = max(int(result["steps"]), 1)
        speeds.append((metrics["max_x"] - metrics["start_x"]) / frames)
        rings.append(float(metrics["rings"]))
    return float(np.mean(speeds)), float(np.mean(rings))


def _seed(config: SearchSettings, stream: int) -> int:
    return int(np.random.SeedSequence([config.seed & 0xFFFFFFFF, stream])
               .generate_state(1)[0])


class MapElites(Strategy):
    def __init__(self, config: SearchSettings, size: int) -> None:
        super().__init__(config, size)
        # pyribs imports torch and scikit-learn, four seconds: only a run
        # of this method pays for them.
        from ribs.archives import GridArchive
        from ribs.emitters import IsoLineEmitter
        from ribs.schedulers import Scheduler
        bins = int(config.options["qd_bins"])
        self.grid = GridArchive(solution_dim=size, dims=(bins, bins), ranges=RANGES,
                                seed=_seed(config, ARCHIVE_STREAM))
        self.emitter = IsoLineEmitter(
            self.grid, iso_sigma=float(config.options["qd_iso_sigma"]),
            line_sigma=float(config.options["qd_line_sigma"]), x0=np.zeros(size),
            batch_size=config.population, seed=_seed(config, EMITTER_STREAM))
        self.scheduler = Scheduler(self.grid, [self.emitter])

    def initial(self) -> list:
        return self._ask()

    def ask(self, population: list, hall_of_fame) -> list:
        return self._ask()

    def _ask(self) -> list:
        return [make_individual(x) for x in self.scheduler.ask()]

    def tell(self, individuals: list, summaries: list[dict] | None = None) -> None:
        fitness = np.array([ind.fitness.values[0] for ind in individuals])
        measures = np.array([descriptors(s) for s in summaries])
        self.scheduler.tell(fitness, measures)

    def columns(self) -> dict[str, float]:
        data = self.grid.data()
        objectives = np.asarray(data["objective"], dtype=np.float64)
        return {"qd_score": float(np.sum(objectives - QD_OFFSET)),
                "coverage": float(len(objectives) / self.grid.cells)}

    def archive(self) -> dict:
        data = self.grid.data()
        cells = np.array([self.grid.int_to_grid_index([i])[0] for i in data["index"]],
                         dtype=np.int64).reshape(-1, 2)
        return {"solution": np.asarray(data["solution"], dtype=np.float64),
                "objective": np.asarray(data["objective"], dtype=np.float64),
                "measures": np.asarray(data["measures"], dtype=np.float64),
                "cell": cells,
                "dims": np.array(self.grid.dims, dtype=np.int64),
                "lower": np.array([r[0] for r in RANGES]),
                "upper": np.array([r[1] for r in RANGES])}

    def state(self) -> dict[str, Any]:
        data = self.grid.data()
        return {
            "arrays": {
                "solution": np.asarray(data["solution"], dtype=np.float64).reshape(
                    -1, self.size),
                "objective": np.asarray(data["objective"], dtype=np.float64),
                "measures": np.asarray(data["measures"], dtype=np.float64).reshape(-1, 2),
            },
            # pyribs keeps each generator as `_rng` (a numpy PCG64 Generator).
            "meta": {"archive_rng": generator_state(self.grid._rng),
                     "emitter_rng": generator_state(self.emitter._rng)},
        }

    @classmethod
    def from_state(cls, config: SearchSettings, size: int,
                   state: dict | None) -> MapElites:
        if state is None:
            raise CheckpointError("the checkpoint holds no MAP-Elites archive")
        search = cls(config, size)
        arrays, meta = state["arrays"], state["meta"]
        solutions = np.asarray(arrays["solution"], dtype=np.float64)
        if solutions.ndim != 2 or solutions.shape[1:] != (size,):
            raise CheckpointError(f"the MAP-Elites archive holds genomes of shape "
                                  f"{solutions.shape[1:]}, not ({size},)")
        # One at a time, in the archive's own order, so the archive lists
        # its elites (and samples parents) as it did.
        for x, f, m in zip(solutions, arrays["objective"], arrays["measures"]):
            search.grid.add_single(x, float(f), np.asarray(m, dtype=np.float64))
        set_generator_state(search.grid._rng, meta["archive_rng"])
        set_generator_state(search.emitter._rng, meta["emitter_rng"])
        return search

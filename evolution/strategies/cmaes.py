"""CMA-ES with DEAP's `cma.Strategy`, seeded from the run's seed, as a
small ask/tell object whose whole state is data (arrays and numbers) for
the checkpoint.

DEAP decomposes the covariance matrix (an eigendecomposition, cubic in
the genome's size) after every update. For a policy of a few thousand
weights that is most of a generation's search time: 0.6 s for 2,216
weights, where a generation of the generalisation recipe plays in about
2 s. With `--cma-eigen-every K` the update here decomposes it every K
updates only, as Hansen's tutorial ("The CMA Evolution Strategy", 2016)
advises for large dimensions: the covariance learns so slowly there
(its learning rates fall with the square of the size) that samples drawn
from a decomposition K updates old differ little. K = 1 is DEAP's update,
number for number (tests).

With `--cma-diagonal 1` the covariance stays diagonal (sep-CMA-ES, Ros
and Hansen, "A Simple Modification in CMA-ES Achieving Linear Time and
Space Complexity", 2008): no decomposition at all, and learning rates
(n + 2) / 3 times larger, so each weight's own spread is learned within
a few hundred generations, where a full covariance over a thousand
weights learns next to nothing in a run (its condition number stays
below 1.4 in the generalisation recipe).

`cma.Strategy.generate` draws from numpy's global random generator; the
strategy here keeps a generator state of its own, seeded from the run's
seed, puts it in place for each draw and takes it back after, so nothing
else that uses numpy's global generator changes a run, and the state is
checkpointed with the strategy.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from deap import cma

from evolution.individual import make_individual
from evolution.search_state import SEARCH_PREFIX, CheckpointError, finite_state
from evolution.strategies.base import SearchSettings, Strategy


# The strategy's arrays and numbers that change as it learns; everything
# else it holds is computed from the dimension and population size.
ARRAYS = ("centroid", "pc", "ps", "C", "B", "diagD", "BD")
NUMBERS = ("sigma", "cond")


class LazyStrategy(cma.Strategy):
    """DEAP's strategy with an update that decomposes the covariance
    matrix every `eigen_every` updates (and in between samples and
    steers the step size with the last decomposition); with `diagonal`,
    sep-CMA-ES: a covariance kept diagonal, learned faster."""

    def __init__(self, centroid, sigma, eigen_every: int = 1, diagonal: bool = False,
                 **params) -> None:
        super().__init__(centroid, sigma, **params)
        self.eigen_every = eigen_every
        self.diagonal = diagonal
        if diagonal:
            # Ros and Hansen (2008): a diagonal has n numbers to learn, not
            # n^2 / 2, so its learning rates are (n + 2) / 3 times larger.
            faster = (self.dim + 2) / 3
            self.ccov1 = self.ccov1 * faster
            self.ccovmu = min(self.ccovmu * faster, 1 - self.ccov1)

    def update(self, population) -> None:
        population.sort(key=lambda ind: ind.fitness, reverse=True)
        before = self.centroid
        self.centroid = np.dot(self.weights, population[0:self.mu])
        step = self.centroid - before
        # Evolution paths: of the step size (in the decomposed, whitened
        # frame) and of the covariance.
        whitened = np.dot(self.B, (1. / self.diagD) * np.dot(self.B.T, step))
        self.ps = ((1 - self.cs) * self.ps
                   + np.sqrt(self.cs * (2 - self.cs) * self.mueff) / self.sigma * whitened)
        ps_norm = np.linalg.norm(self.ps)
        # hsig stalls the covariance path while the step-size path is long.
        hsig = float(ps_norm / np.sqrt(1. - (1. - self.cs) ** (2. * (self.update_count + 1.)))
                     / self.chiN < (1.4 + 2. / (self.dim + 1.)))
        self.update_count += 1
        self.pc = ((1 - self.cc) * self.pc
                   + hsig * np.sqrt(self.cc * (2 - self.cc) * self.mueff) / self.sigma * step)
        # Rank-one (the path) and rank-mu (the selected steps) updates.
        selected = population[0:self.mu] - before
        keep = 1 - self.ccov1 - self.ccovmu + (1 - hsig) * self.ccov1 * self.cc * (2 - self.cc)
        if self.diagonal:
            self.C = np.diag(keep * np.diag(self.C) + self.ccov1 * self.pc ** 2
                             + self.ccovmu * np.dot(self.weights, selected ** 2)
                             / self.sigma ** 2)
        else:
            self.C = (keep * self.C + self.ccov1 * np.outer(self.pc, self.pc)
                      + self.ccovmu * np.dot((self.weights * selected.T), selected)
                      / self.sigma ** 2)
        self.sigma *= np.exp((ps_norm / self.chiN - 1.) * self.cs / self.damps)
        if self.diagonal or self.update_count % self.eigen_every == 0:
            self.decompose()

    def decompose(self) -> None:
        """B and D from C: the axes and spreads samples are drawn along."""
        if self.diagonal:
            variances = np.diag(self.C).copy()
            self.cond = variances.max() / variances.min()
            self.diagD = variances ** 0.5
            self.B = np.identity(self.dim)
            self.BD = np.diag(self.diagD)
            return
        values, axes = np.linalg.eigh(self.C)
        order = np.argsort(values)
        self.cond = values[order[-1]] / values[order[0]]
        self.diagD = values[order] ** 0.5
        self.B = axes[:, order]
        self.BD = self.B * self.diagD


class CMAES(Strategy):
    """ask() -> a generation of individuals; tell(evaluated) updates the
    distribution; state() / from_state() for the checkpoint."""

    def __init__(self, config: SearchSettings, size: int, start=None) -> None:
        super().__init__(config, size, start)
        self.strategy = LazyStrategy(centroid=self.first_mean(), sigma=config.options["init_sigma"],
                                     eigen_every=config.options["cma_eigen_every"],
                                     diagonal=bool(config.options["cma_diagonal"]),
                                     lambda_=config.population)
        self.rng = np.random.RandomState(config.seed & 0xFFFFFFFF).get_state()

    def initial(self) -> list:
        return self._sample()

    def ask(self, population: list, hall_of_fame) -> list:
        return self._sample()

    def _sample(self) -> list:
        outside = np.random.get_state()
        np.random.set_state(self.rng)
        try:
            population = self.strategy.generate(make_individual)
            self.rng = np.random.get_state()
        finally:
            np.random.set_state(outside)
        return population

    def tell(self, population: list, summaries: list[dict] | None = None) -> None:
        self.strategy.update(population)

    def numbers(self) -> dict[str, float]:
        """The step size sigma and the condition number of the covariance
        matrix C (its largest eigenvalue over its smallest, as DEAP's
        update computes it)."""
        return {"sigma": float(self.strategy.sigma), "condition": float(self.strategy.cond)}

    def mean(self) -> np.ndarray:
        """The centre the samples spread around (a copy)."""
        return np.array(self.strategy.centroid, dtype=np.float64)

    def candidates(self) -> list:
        # A sample carries the step's noise over every weight; the mean is
        # the average the samples spread around, and over a thousand
        # weights it often plays better than any of them.
        return [self.mean()] if self.config.options["cma_validate_mean"] else []

    def state(self) -> dict[str, Any]:
        """A copy of everything that continues the search exactly:
        {"arrays": name -> ndarray, "meta": JSON-ready numbers}."""
        s = self.strategy
        kind, keys, pos, has_gauss, cached = self.rng
        arrays = {name: np.array(getattr(s, name), dtype=np.float64) for name in ARRAYS}
        arrays["rng_keys"] = np.array(keys, dtype=np.int64)
        meta = {name: float(getattr(s, name)) for name in NUMBERS}
        meta.update(update_count=int(s.update_count), rng_kind=str(kind), rng_pos=int(pos),
                    rng_has_gauss=int(has_gauss), rng_cached=float(cached))
        return {"arrays": arrays, "meta": meta}

    @classmethod
    def from_state(cls, config: SearchSettings, size: int,
                   state: dict | None) -> CMAES:
        if state is None:
            raise CheckpointError("the checkpoint holds no CMA-ES state")
        search = cls(config, size)
        s = search.strategy
        arrays, meta = state["arrays"], state["meta"]
        for name in ARRAYS:
            value = finite_state(SEARCH_PREFIX + name, arrays[name])
            if value.shape != np.shape(getattr(s, name)):
                raise ValueError(f"the CMA-ES {name} has shape {value.shape}, "
                                 f"not {np.shape(getattr(s, name))}")
            setattr(s, name, value)
        for name in NUMBERS:
            setattr(s, name, float(finite_state(f"the CMA-ES {name}", meta[name])))
        s.update_count = int(meta["update_count"])
        keys = np.array(arrays["rng_keys"], dtype=np.uint32)
        if keys.shape != (624,):
            raise ValueError("the CMA-ES random state is not 624 numbers")
        search.rng = (meta["rng_kind"], keys, int(meta["rng_pos"]),
                      int(meta["rng_has_gauss"]),
                      float(finite_state("the CMA-ES rng_cached", meta["rng_cached"])))
        return search

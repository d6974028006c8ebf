"""OpenAI's evolution strategy (Salimans, Ho, Chen, Sidor and Sutskever
2017, "Evolution Strategies as a Scalable Alternative to Reinforcement
Learning").

A Gaussian search distribution of fixed spread `es_sigma` around a mean
theta. Each generation samples population / 2 noise vectors eps and plays
theta + sigma * eps and theta - sigma * eps (antithetic pairs, which cancel
the noise's even terms); the fitness of the whole generation is replaced
by its centred rank in [-0.5, 0.5] (so a lucky outlier cannot dominate and
the scale of the reward does not matter); the gradient estimate

    g = sum_i (rank(theta + sigma eps_i) - rank(theta - sigma eps_i)) eps_i
        / (population * sigma)

is ascended with Adam, with L2 weight decay pulling theta towards zero.
The mean is the genome the strategy recommends (best.json holds it).

Adam moves each weight by about the learning rate a generation, whatever
the gradient's size, and a policy that acts by the largest of weighted
sums does the same at any scale of its weights: what a run does is set by
`es_lr` against `es_sigma` (the default is a tenth of it). Equal fitness
values share their mean rank, so a pair whose sides score the same moves
nothing. benchmarks/openai_es_reference.py checks this update against
pyribs' OpenAI-ES (docs/openai_es_reference.md): with the same noise the
means agree to rounding as long as no two fitness values tie.

Its random numbers come from a numpy generator of its own, seeded from the
run's seed, whose state is checkpointed with theta and Adam's moments.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from evolution.individual import make_individual
from evolution.search_state import SEARCH_PREFIX, CheckpointError, finite_state
from evolution.strategies.generator_state import generator_state, set_generator_state
from evolution.strategies.base import SearchSettings, Strategy


BETA1 = 0.9
BETA2 = 0.999
ADAM_EPSILON = 1e-8
# Keeps the generator apart from every other stream drawn from the seed.
STREAM = 0x0E5


def adam_rate(lr: float, t: int) -> float:
    """Adam's bias-corrected learning rate at step `t` (t >= 1)."""
    return lr * np.sqrt(1.0 - BETA2 ** t) / (1.0 - BETA1 ** t)


def centred_ranks(fitness: np.ndarray) -> np.ndarray:
    """Each value's rank scaled to [-0.5, 0.5]; equal values share the
    mean of their ranks, so a generation of equal fitness moves nothing."""
    n = len(fitness)
    _, inverse, counts = np.unique(fitness, return_inverse=True, return_counts=True)
    first = np.cumsum(counts) - counts
    ranks = (first + (counts - 1) / 2.0)[inverse]
    return ranks / max(n - 1, 1) - 0.5


class OpenAIES(Strategy):
    def __init__(self, config: SearchSettings, size: int, start=None) -> None:
        super().__init__(config, size, start)
        self.sigma = float(config.options["es_sigma"])
        self.lr = float(config.options["es_lr"])
        self.weight_decay = float(config.options["es_weight_decay"])
        self.theta = self.first_mean()
        self.m = np.zeros(size)
        self.v = np.zeros(size)
        self.t = 0
        self.rng = np.random.Generator(np.random.PCG64([config.seed & 0xFFFFFFFF, STREAM]))
        self.noise: np.ndarray | None = None

    def initial(self) -> list:
        return self._sample()

    def ask(self, population: list, hall_of_fame) -> list:
        return self._sample()

    def _sample(self) -> list:
        half = self.config.population // 2
        self.noise = self.rng.standard_normal((half, self.size))
        out = []
        for eps in self.noise:
            out.append(make_individual(self.theta + self.sigma * eps))
            out.append(make_individual(self.theta - self.sigma * eps))
        return out

    def tell(self, individuals: list, summaries: list[dict] | None = None) -> None:
        fitness = np.array([ind.fitness.values[0] for ind in individuals])
        shaped = centred_ranks(fitness)
        weights = shaped[0::2] - shaped[1::2]
        gradient = weights @ self.noise / (len(individuals) * self.sigma)
        # Adam minimises: the loss's gradient is the negated ascent
        # direction plus the weight decay's pull.
        step = -gradient + self.weight_decay * self.theta
        self.t += 1
        self.m = BETA1 * self.m + (1.0 - BETA1) * step
        self.v = BETA2 * self.v + (1.0 - BETA2) * step * step
        rate = adam_rate(self.lr, self.t)
        self.theta = self.theta - rate * self.m / (np.sqrt(self.v) + ADAM_EPSILON)

    def numbers(self) -> dict[str, float]:
        """The step just taken's learning rate (bias-corrected), the noise
        sigma, and the norms of the mean theta and of Adam's first moment
        m (how far and how fast the mean moves)."""
        return {"learning_rate": float(adam_rate(self.lr, self.t)) if self.t else 0.0,
                "noise_sigma": self.sigma,
                "mean_norm": float(np.linalg.norm(self.theta)),
                "first_moment_norm": float(np.linalg.norm(self.m))}

    def recommend(self) -> np.ndarray:
        return self.theta.copy()

    def state(self) -> dict[str, Any]:
        return {
            "arrays": {"theta": self.theta.copy(), "m": self.m.copy(), "v": self.v.copy()},
            "meta": {"t": self.t, "rng": generator_state(self.rng)},
        }

    @classmethod
    def from_state(cls, config: SearchSettings, size: int,
                   state: dict | None) -> OpenAIES:
        if state is None:
            raise CheckpointError("the checkpoint holds no OpenAI-ES state")
        es = cls(config, size)
        arrays, meta = state["arrays"], state["meta"]
        for name in ("theta", "m", "v"):
            value = finite_state(SEARCH_PREFIX + name, arrays[name])
            if value.shape != (size,):
                raise CheckpointError(f"the OpenAI-ES {name} has shape {value.shape}, "
                                      f"not ({size},)")
            setattr(es, name, value)
        es.t = int(meta["t"])
        set_generator_state(es.rng, meta["rng"])
        return es

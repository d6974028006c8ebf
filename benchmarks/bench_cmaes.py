"""What a CMA-ES generation's own work costs (sampling and the update),
by the genome's size: the 1,112 weights of a 16-unit MLP over `landing`
(the generalisation recipe's) and the 2,216 of a 32-unit one.

For each size, the strategy `evolution.run --algorithm cmaes` uses, with
its population of 40, samples and updates on a fixed quadratic: with the
covariance decomposed after every update (DEAP's, `--cma-eigen-every 1`),
every `Hansen` updates (1 / ((c1 + cmu) n 10), the interval Hansen's
tutorial gives), and kept diagonal (`--cma-diagonal 1`). Prints the mean
seconds per generation over the last 20 of 25 generations, and the
ratios to DEAP's, taken in this one run. A generation of the recipe plays
for about 2 s on 2 cores. Nothing is asserted.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from deap import base, creator

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evolution.strategies.cmaes import LazyStrategy  # noqa: E402
from runners.mlp import mlp_genome_size  # noqa: E402
from speednik.observation import get_observation  # noqa: E402

POPULATION = 40
GENERATIONS, TIMED = 25, 20


def seconds_per_generation(strategy: LazyStrategy) -> float:
    if not hasattr(creator, "BenchFitness"):
        creator.create("BenchFitness", base.Fitness, weights=(1.0,))
        creator.create("BenchIndividual", list, fitness=creator.BenchFitness)
    rng = np.random.RandomState(0)
    target = rng.normal(size=strategy.dim)
    np.random.seed(1)
    times = []
    for _ in range(GENERATIONS):
        t0 = time.perf_counter()
        population = strategy.generate(creator.BenchIndividual)
        t1 = time.perf_counter()
        for ind in population:   # not timed: the episodes' part
            ind.fitness.values = (-float(np.sum((np.asarray(ind) - target) ** 2)),)
        t2 = time.perf_counter()
        strategy.update(population)
        times.append((t1 - t0) + (time.perf_counter() - t2))
    return float(np.mean(times[-TIMED:]))


def main() -> int:
    obs = get_observation("landing").size
    for hidden in (16, 32):
        n = mlp_genome_size(obs, hidden)
        full = LazyStrategy(np.zeros(n), 0.5, lambda_=POPULATION)
        every = max(1, int(1 / ((full.ccov1 + full.ccovmu) * n * 10)))
        rows = [("decomposed every update (DEAP's)", full),
                (f"every {every} updates", LazyStrategy(np.zeros(n), 0.5, eigen_every=every,
                                                        lambda_=POPULATION)),
                ("diagonal (sep-CMA-ES)", LazyStrategy(np.zeros(n), 0.5, diagonal=True,
                                                       lambda_=POPULATION))]
        print(f"{n} weights (a {hidden}-unit MLP over landing), population {POPULATION}:")
        deaps = None
        for label, strategy in rows:
            s = seconds_per_generation(strategy)
            deaps = deaps or s
            print(f"  {label:<34s} {s:6.3f} s a generation  ({s / deaps:4.2f}x)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What GP costs.

1. Frames per second of `gp` programs beside the linear policy, on the
   compiled engine (1 thread) and the readable runner, over the same
   observations and the built-in stages: random programs of DEAP's
   ramped half-and-half (depth 2 to 6) and full trees of depth 8 (the
   default height limit, far more nodes than a run keeps), and the
   ratio GP / linear.
2. A GP run on hillside (population 50, 20 generations, compiled, one
   thread): the time the strategy itself takes (decoding rows to DEAP
   trees, selection, crossover, mutation, lowering) against the time
   spent playing episodes, and the size of its programs.

Nothing is asserted.

    python benchmarks/bench_gp.py
"""
from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from deap import gp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evolution.config import EvolutionConfig  # noqa: E402
from evolution.loop.evolve import evolve  # noqa: E402
from evolution.loop.method_file import read_method_file  # noqa: E402
from evolution.strategies.gp_strategy import GeneticProgramming, Lowering  # noqa: E402
from runners import RunnerConfig, run_episodes  # noqa: E402
from speednik import gp_program  # noqa: E402
from speednik.actions import NUM_ACTIONS  # noqa: E402
from speednik.observation import get_observation  # noqa: E402
from speednik.stages import list_stages  # noqa: E402
from strategy_time import episode_rate, time_strategy_methods  # noqa: E402

GENOMES = 20
OBSERVATIONS = ("terrain", "pits")
CONFIG = RunnerConfig(max_steps=3600, stall_frames=240)


def programs(observation: str, seed: int, full: bool) -> list:
    lowering = Lowering(get_observation(observation).feature_names)
    random.seed(seed)
    out = []
    for _ in range(GENOMES):
        tree = (gp.genFull(lowering.pset, 8, 8) if full
                else gp.genHalfAndHalf(lowering.pset, 2, 6))
        out.append(("gp", (observation, lowering.lower(gp.PrimitiveTree(tree)))))
    return out


def linear(observation: str, seed: int) -> list:
    n = get_observation(observation).size
    rng = np.random.default_rng(seed)
    return [("linear", (observation, rng.normal(size=NUM_ACTIONS * n + NUM_ACTIONS)))
            for _ in range(GENOMES)]


def rate(specs: list, **kw) -> float:
    return episode_rate(specs, list_stages(), CONFIG, **kw)


def mean_nodes(specs: list) -> float:
    return float(np.mean([gp_program.sizes(params[1])[0] for _, params in specs]))


def main() -> None:
    run_episodes([(programs("terrain", 0, False)[0], "hillside")], CONFIG, engine="compiled")
    print(f"== episodes, {GENOMES} genomes x {len(list_stages())} built-in stages, best of 2 "
          f"({os.cpu_count()} CPUs); compiled on 1 thread")
    for observation in OBSERVATIONS:
        base = rate(linear(observation, 1), engine="compiled", workers=1)
        base_readable = rate(linear(observation, 1))
        print(f"-- {observation} observation")
        print(f"{'linear':34s} compiled {base:>11,.0f} frames/s   readable "
              f"{base_readable:>9,.0f} frames/s")
        for label, full in (("gp, ramped depth 2-6", False), ("gp, full depth 8", True)):
            specs = programs(observation, 2, full)
            compiled = rate(specs, engine="compiled", workers=1)
            readable = rate(specs)
            print(f"{label + f' ({mean_nodes(specs):.0f} nodes)':34s} compiled "
                  f"{compiled:>11,.0f} frames/s   readable {readable:>9,.0f} frames/s   "
                  f"gp / linear compiled {compiled / base:.2f}, readable "
                  f"{readable / base_readable:.2f}")

    print("\n== a GP run: hillside, population 50, 20 generations, compiled, 1 thread")
    spent = time_strategy_methods(GeneticProgramming)
    config = EvolutionConfig(algorithm="gp", population=50, generations=20, seed=0,
                             stages=("hillside",), max_steps=1800, workers=1,
                             checkpoint_every=20)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        log = evolve(config, tmp).logbook
        total = time.perf_counter() - t0
        sizes = read_method_file(tmp)[-1]
    frames = sum(r["frames"] - p["frames"] for p, r in zip(log, log[1:])) + log[0]["frames"]
    print(f"whole run {total:.2f} s, {frames:,} frames; the strategy's own methods "
          f"{spent[0]:.2f} s ({100 * spent[0] / total:.0f}%)")
    print(f"best fitness {log[0]['max']:.2f} in generation 0, {log[-1]['best']:.2f} after "
          f"{len(log) - 1}; last generation's programs: mean {sizes['mean_nodes']:.0f} "
          f"nodes (most {sizes['max_nodes']:.0f}), mean depth {sizes['mean_depth']:.1f}")


if __name__ == "__main__":
    main()

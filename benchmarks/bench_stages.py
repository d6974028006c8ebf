"""How long a generated stage takes to build and lower, and what it keeps
in memory.

Per difficulty, over seeds 0..N-1, each stage built afresh (never from the
stage cache): the generator's profile, `build_stage` and `lower_stage`
(the compiled engine's arrays), in ms, median, min and max. The target is
a median of at most 10 ms per stage, building and lowering together.

Then the memory a kept stage holds, measured with tracemalloc: the built
stage, what lowering adds (its arrays and the object tables they come
from), and the lists the readable engine's sensors read, which a stage
only gets when the readable engine plays it.

    python benchmarks/bench_stages.py [--seeds N]
"""
from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc

from speednik.engine.lowering import compiled_stage, lower_stage
from speednik.stages import DIFFICULTIES, build_stage, generate_profile

TARGET_MS = 10.0
MEMORY_SEEDS = 10


def timings(difficulty: str, seeds: int) -> list[tuple[float, float]]:
    """(build, lower) seconds of each seed's stage."""
    out = []
    for seed in range(seeds):
        t0 = time.perf_counter()
        stage = build_stage(generate_profile(seed, difficulty))
        t1 = time.perf_counter()
        lower_stage(stage)
        out.append((t1 - t0, time.perf_counter() - t1))
    return out


def memory(difficulty: str) -> tuple[float, float, float]:
    """Mean bytes of (built stage, lowering, readable lists) per stage."""
    built = lowered = lists = 0
    for seed in range(MEMORY_SEEDS):
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        # The profile stays with the stage (in its meta): it counts.
        stage = build_stage(generate_profile(seed, difficulty))
        after_build = tracemalloc.get_traced_memory()[0]
        compiled_stage(stage)
        after_lower = tracemalloc.get_traced_memory()[0]
        stage.tiles.cast_down(0, 0, 0, False)   # the readable engine's first cast
        after_lists = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        built += after_build - base
        lowered += after_lower - after_build
        lists += after_lists - after_lower
    return built / MEMORY_SEEDS, lowered / MEMORY_SEEDS, lists / MEMORY_SEEDS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=60,
                        help="stages per difficulty (default 60)")
    args = parser.parse_args()
    for seed in range(5):                      # imports and first-call costs
        build_stage(generate_profile(seed, "easy"))
    print(f"{'difficulty':<11}{'build+lower median':>20}{'min':>8}{'max':>8}"
          f"{'build':>9}{'lower':>8}   (ms per stage, {args.seeds} seeds)")
    medians = []
    for difficulty in DIFFICULTIES:
        runs = timings(difficulty, args.seeds)
        total = [1e3 * (b + lo) for b, lo in runs]
        medians.append(statistics.median(total))
        print(f"{difficulty:<11}{medians[-1]:>20.1f}{min(total):>8.1f}{max(total):>8.1f}"
              f"{statistics.median(1e3 * b for b, _ in runs):>9.1f}"
              f"{statistics.median(1e3 * lo for _, lo in runs):>8.1f}")
    worst = max(medians)
    verdict = "meets" if worst <= TARGET_MS else "MISSES"
    print(f"slowest median {worst:.1f} ms {verdict} the target of {TARGET_MS:g} ms")
    print(f"\n{'difficulty':<11}{'built stage':>13}{'+ lowered':>11}{'+ readable lists':>18}"
          f"   (MB per stage, mean of {MEMORY_SEEDS})")
    for difficulty in DIFFICULTIES:
        built, lowered, lists = memory(difficulty)
        print(f"{difficulty:<11}{built / 2**20:>13.2f}{lowered / 2**20:>11.2f}"
              f"{lists / 2**20:>18.2f}")


if __name__ == "__main__":
    main()

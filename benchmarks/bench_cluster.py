"""One generation on a Dask cluster (`--scheduler local`) against the
compiled engine in this process.

A generation is 200 genomes on 8 stages (the 3 built-in ones and 5
generated ones), 1,600 episodes, evaluated the way an evolution run does:
`ClusterEvaluation.run` (chunks of genomes sent to the workers, results
back as `EpisodeResult`s) against `run_episodes(engine="compiled")` on as
many threads as the cluster has workers. Two kinds of generation:
- random genomes (a first generation): most episodes stall early, about
  0.1 ms each, the hardest case for the per-task overhead;
- the same genomes with stalling off, every episode running until it
  ends (death, goal or the 3,600-frame limit): the work of a later
  generation.

Printed per worker count: the median seconds of each, the ratio
(cluster / in process) and the overhead per generation in milliseconds
(cluster - in process); the per-task overhead (a one-task generation
against its own work); the local cluster's start-up.

    python benchmarks/bench_cluster.py                  # 2 workers
    python benchmarks/bench_cluster.py --workers 1,2,4,8,16

Each worker count needs that many cores to mean anything. No timing is
asserted; the cluster's results are checked equal to the in-process ones.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evolution.cluster import ClusterEvaluation, chunk_sizes  # noqa: E402
from runners import RunnerConfig, run_episodes  # noqa: E402
from runners.linear import genome_size  # noqa: E402
from speednik.engine import warm_up  # noqa: E402
from speednik.stages import list_stages  # noqa: E402

POPULATION = 200
STAGES = (*list_stages(), (1, "easy"), (2, "medium"), (3, "hard"), (4, "medium"),
          (5, "easy"))
REPEATS = 5
KINDS = {
    "random genomes, stall after 240 frames": RunnerConfig(max_steps=3600, stall_frames=240),
    "random genomes, no stall (full episodes)": RunnerConfig(max_steps=3600,
                                                             stall_frames=None),
}


def genomes() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.normal(size=genome_size(12)) for _ in range(POPULATION)]


def median_seconds(fn, repeats: int = REPEATS) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def in_process(population, config: RunnerConfig, threads: int):
    items = [(("linear", ("basic", g)), s) for g in population for s in STAGES]
    return run_episodes(items, config, workers=threads, engine="compiled")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="2",
                        help="comma-separated worker counts to measure (default: 2)")
    parser.add_argument("--repeats", type=int, default=REPEATS)
    args = parser.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    population = genomes()
    warm_up(["basic"], ["linear"])
    print(f"== one generation: {POPULATION} genomes x {len(STAGES)} stages "
          f"({POPULATION * len(STAGES):,} episodes), median of {args.repeats} "
          f"({os.cpu_count()} CPUs)")
    for workers in counts:
        sizes = chunk_sizes(POPULATION, len(STAGES), workers)
        print(f"\n-- {workers} worker(s): --scheduler local with {workers} worker "
              f"process(es) against the compiled engine on {workers} thread(s); "
              f"{len(sizes)} task(s) of {sizes[0]} genome(s)")
        for kind, config in KINDS.items():
            t0 = time.perf_counter()
            with ClusterEvaluation("local", STAGES, config, workers=workers) as cluster:
                start = time.perf_counter() - t0
                cluster.run(population)                        # workers build stages
                here, want = median_seconds(
                    lambda: in_process(population, config, workers), args.repeats)
                there, got = median_seconds(lambda: cluster.run(population),
                                            args.repeats)
                assert [r.to_dict() for r in got] == [r.to_dict() for r in want], \
                    "the cluster's results differ from the in-process ones"
                one = population[:1]
                alone, _ = median_seconds(lambda: in_process(one, config, 1), 10)
                trip, _ = median_seconds(lambda: cluster.run(one), 10)
            frames = sum(r.steps for r in want)
            print(f"{kind}: {frames:,} frames")
            print(f"  in process      {1000 * here:8.1f} ms")
            print(f"  local cluster   {1000 * there:8.1f} ms   ratio {there / here:5.2f}x, "
                  f"overhead {1000 * (there - here):7.1f} ms a generation")
            print(f"  one task of 1 genome x {len(STAGES)} stages: {1000 * trip:6.1f} ms "
                  f"against {1000 * alone:5.1f} ms in process: "
                  f"{1000 * (trip - alone):5.1f} ms overhead per task")
            print(f"  cluster start-up {start:5.1f} s (once per run)")


if __name__ == "__main__":
    main()

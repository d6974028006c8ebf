"""Speed of the compiled engine against the readable runner.

1. Frames per second of linear-policy episodes (random genomes, the three
   built-in stages, the default episode settings of an evolution run) on
   the readable runner and on the compiled engine with one thread, for
   the `basic` and the `terrain` observation, through `run_episodes`
   (EpisodeResults out, as evolution uses it). Targets: compiled >= 30x
   the runner with `basic`, >= 15x with `terrain`.
2. The compiled engine on two threads against one. Target: >= 1.8x.
   Measured twice: through `run_episodes`, whose per-episode Python
   bookkeeping (checks, results) runs on one thread, and for the compiled
   batch alone (`run_policy_batch`) on longer episodes (no stall limit,
   2000 frames), where only the threads' own work counts.
3. Start-up: the first compile (an empty cache) and a later start that
   loads the cache, each in a fresh process.

Every ratio is taken within this one run. Nothing is asserted.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runners import RunnerConfig, run_episodes  # noqa: E402
from runners.linear import genome_size  # noqa: E402
from speednik.engine import run_policy_batch  # noqa: E402
from speednik.stages import list_stages, load_stage  # noqa: E402

GENOMES = 40
REPEATS = 3
CONFIG = RunnerConfig(max_steps=3600, stall_frames=240)
TARGETS = {"basic": 30.0, "terrain": 15.0}
TARGET_THREADS = 1.8


def items(observation: str) -> list:
    size = genome_size(12 if observation == "basic" else 28)
    rng = np.random.default_rng(0)
    return [(("linear", (observation, rng.normal(size=size))), stage)
            for stage in list_stages() for _ in range(GENOMES)]


def frames_per_second(batch, repeats: int, **kw) -> tuple[float, int]:
    best = 0.0
    frames = 0
    for _ in range(repeats):
        t0 = time.perf_counter()
        results = run_episodes(batch, CONFIG, **kw)
        frames = sum(r.steps for r in results)
        best = max(best, frames / (time.perf_counter() - t0))
    return best, frames


def kernel_rate(observation: str, threads: int) -> float:
    stages = [load_stage(name) for name in list_stages()]
    rng = np.random.default_rng(1)
    params = rng.normal(size=(100, genome_size(12 if observation == "basic" else 28)))
    episode_stage = np.repeat(np.arange(len(stages)), len(params))
    episode_params = np.tile(np.arange(len(params)), len(stages))
    best = 0.0
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        batch = run_policy_batch(stages, episode_stage, episode_params, params,
                                 observation=observation, stall_frames=None,
                                 max_steps=2000, threads=threads)
        best = max(best, batch.steps.sum() / (time.perf_counter() - t0))
    return best


def start_up(cache_dir: str, observation: str, policy: str) -> float:
    """Seconds a fresh process takes to load (or compile) what a run of
    this observation and policy family uses."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "from speednik.engine import warm_up; "
                    f"warm_up([{observation!r}], [{policy!r}])"],
                   check=True, env=env, cwd=ROOT)
    return time.perf_counter() - t0


def main() -> None:
    run_episodes(items("terrain")[:1], CONFIG, engine="compiled")   # load the engine
    print(f"== linear-policy episodes, {GENOMES} random genomes x "
          f"{len(list_stages())} built-in stages, best of {REPEATS} "
          f"({os.cpu_count()} CPUs)")
    for observation in ("basic", "terrain"):
        batch = items(observation)
        ref, frames = frames_per_second(batch, 2)
        one, _ = frames_per_second(batch, REPEATS, engine="compiled", workers=1)
        two, _ = frames_per_second(batch, REPEATS, engine="compiled", workers=2)
        ratio, target = one / ref, TARGETS[observation]
        print(f"{observation:8s} readable runner        {ref:>12,.0f} frames/s   "
              f"({frames:,} frames a batch)")
        print(f"{observation:8s} compiled, 1 thread     {one:>12,.0f} frames/s   "
              f"{ratio:5.1f}x the runner ({'meets' if ratio >= target else 'MISSES'} "
              f"the target of {target:g}x)")
        speedup = two / one
        print(f"{observation:8s} compiled, 2 threads    {two:>12,.0f} frames/s   "
              f"{speedup:5.2f}x one thread ({'meets' if speedup >= TARGET_THREADS else 'MISSES'} "
              f"the target of {TARGET_THREADS}x)")
        k1, k2 = kernel_rate(observation, 1), kernel_rate(observation, 2)
        speedup = k2 / k1
        print(f"{observation:8s} batch alone, 1 thread  {k1:>12,.0f} frames/s")
        print(f"{observation:8s} batch alone, 2 threads {k2:>12,.0f} frames/s   "
              f"{speedup:5.2f}x one thread ({'meets' if speedup >= TARGET_THREADS else 'MISSES'} "
              f"the target of {TARGET_THREADS}x)")

    print("\n== start-up of the compiled engine, in a fresh process: what a run of one "
          "observation and policy compiles")
    for observation, policy in (("basic", "linear"), ("reach", "mlp")):
        with tempfile.TemporaryDirectory() as cache:
            cold = start_up(cache, observation, policy)
            warm = start_up(cache, observation, policy)
        what = f"{observation} + {policy}"
        print(f"{what:14s} first use (compiles, empty cache)  {cold:6.1f} s")
        print(f"{what:14s} later use (loads the cache)        {warm:6.1f} s")


if __name__ == "__main__":
    main()

"""Speed of `SpeednikVectorEnv`, the compiled batch for reinforcement
learning.

1. Frames a second of stepping with random actions (drawn beforehand, so
   drawing them is not counted) for num_envs 16, 64 and 256, on the
   generated set gen:hard:0-31 with the "basic" observation, each action
   played for one frame and for four; episodes of the default length end
   and restart (next-step autoreset) as they would in training. Target:
   >= 1 million frames a second for stepping alone.
2. The Python share of a step: the time of `step()` against the compiled
   kernel alone, called with the same arrays (one thread).
   With `threads=2` the batch is stepped as two slices at once.
3. The kernel's first compile, in a fresh process, from a copy of its
   module (so from an empty cache of its own, the rest of the engine
   loading from its cache).

Prints figures; asserts nothing.

    python benchmarks/bench_vector_env.py [--seconds S] [--no-compile]
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from speednik.vector_env import SpeednikVectorEnv  # noqa: E402

STAGES = "gen:hard:0-31"
NUM_ENVS = (16, 64, 256)
REPEATS = (1, 4)
THREADS = (1, 2)
TARGET = 1_000_000


def stepping(num_envs: int, repeat: int, threads: int, seconds: float,
             observation: str = "basic"):
    """(frames a second of env.step, of the compiled kernel alone)."""
    from speednik.engine.vector import C_STEPS

    env = SpeednikVectorEnv(num_envs, STAGES, observation=observation,
                            action_repeat=repeat, threads=threads)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = rng.integers(0, 8, (512, num_envs))
    played = env._ctrl[:, C_STEPS]   # a view: frames of each episode so far
    for k in range(20):              # warm: the kernel loaded
        env.step(actions[k])
    # The kernel's arguments, as step() passes them (the actions at 16).
    kernel_args = [env._lowered, env._start_f, env._start_s, env._ctrl, env._f, env._s,
                   env._gone, env._flights, env._rstate, env._scratch, env._events,
                   env._ids, env._weights, env._constant, env._config, True, None,
                   env._no_reset, env._obs, env._rewards, env._terminated,
                   env._truncated, env._started, env._info_f, env._info_i,
                   env._final_obs, env._final_info_f, env._final_info_i]

    def kernel(a):
        kernel_args[16] = a
        env._step_envs(*kernel_args)

    rates = []
    for call in (env.step, kernel if threads == 1 else None):
        if call is None:
            rates.append(float("nan"))
            continue
        frames, elapsed, k = 0, 0.0, 0
        while elapsed < seconds:
            before = played.copy()
            a = actions[k % 512]
            t0 = time.perf_counter()
            call(a)
            elapsed += time.perf_counter() - t0
            # A step that restarts an episode plays no frame.
            frames += int(np.maximum(played - before, 0).sum())
            k += 1
        rates.append(frames / elapsed)
    env.close()
    return rates[0], rates[1]


def first_compile() -> float:
    """Seconds a fresh process takes to compile the kernel from a copy
    of its module with no cache."""
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(ROOT / "speednik" / "engine" / "vector.py", Path(tmp) / "vector_copy.py")
        code = (
            "import sys, time; sys.path.insert(0, %r)\n"
            "import speednik.vector_env as ve\n"
            "import vector_copy\n"
            "ve.stepper = vector_copy.stepper\n"
            "env = ve.SpeednikVectorEnv(2, 'hillside')\n"
            "t0 = time.perf_counter(); env.reset(seed=0); env.step([2, 3])\n"
            "print(time.perf_counter() - t0)\n" % tmp)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             cwd=ROOT, check=True, env={**os.environ})
        return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="time spent on each measurement")
    parser.add_argument("--no-compile", action="store_true",
                        help="leave out the first-compile measurement")
    args = parser.parse_args()
    print(f"stages {STAGES}, observation basic, random actions, target "
          f"{TARGET:,} frames/s; {os.cpu_count()} CPUs")
    print(f"{'num_envs':>8} {'repeat':>6} {'threads':>7} {'step frames/s':>14} "
          f"{'kernel frames/s':>16} {'python share':>12}")
    for repeat in REPEATS:
        for threads in THREADS:
            for n in NUM_ENVS:
                step_rate, kernel_rate = stepping(n, repeat, threads, args.seconds)
                if threads == 1:
                    share = f"{max(0.0, 1.0 - step_rate / kernel_rate):.0%}"
                    kernel = f"{kernel_rate:,.0f}"
                else:
                    share = kernel = "-"
                print(f"{n:>8} {repeat:>6} {threads:>7} {step_rate:>14,.0f} {kernel:>16} "
                      f"{share:>12}")
    if not args.no_compile:
        print(f"first compile of the kernel (engine cache warm): {first_compile():.1f} s")


if __name__ == "__main__":
    main()

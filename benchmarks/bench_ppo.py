"""Speed of PPO training (`evolution.run --algorithm ppo`) against CMA-ES's
search on the same task.

The task: the comparison's training stages (configs/compare-task.toml:
gen:medium:0-15, gen:hard:0-15, gen:expert:200-263) with its observation
("pits"), action repeat 4, the MLP of 16 hidden units, one process.

1. PPO, whole: frames a second of `PPO.update()` (a rollout of
   `--population` episodes x `ppo_steps` decisions, then SB3's update),
   for 64 and 256 episodes at once; split into stepping (the vector
   environment alone, timed apart with random actions at the same batch),
   the policy (the rest of the rollout: SB3's forward pass, sampling,
   its buffer) and the update (SB3's `train()`). Targets: >= 100,000
   frames a second whole, >= 1 million for stepping alone.
2. SB3's DQN on the same environment, for comparison (not a method here).
3. CMA-ES: frames a second of a run (`evolve`) of the same task, one
   worker, population 80 (the comparison's), the frames its genomes
   played over the run's wall time.

Prints figures; asserts nothing.

    python benchmarks/bench_ppo.py [--updates N] [--generations N]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evolution.config import EvolutionConfig  # noqa: E402
from evolution.loop.evolve import evolve  # noqa: E402
from speednik.vector_env import SpeednikVectorEnv  # noqa: E402

STAGES = ("gen:medium:0-15", "gen:hard:0-15", "gen:expert:200-263")
OBSERVATION = "pits"
REPEAT = 4
HIDDEN = 16
TARGET_WHOLE = 100_000
TARGET_STEPPING = 1_000_000


def task(**changes) -> EvolutionConfig:
    settings = dict(stages=STAGES, observation=OBSERVATION, action_repeat=REPEAT,
                    hidden=HIDDEN, workers=1, seed=0)
    settings.update(changes)
    return EvolutionConfig(**settings)


def stepping_rate(num_envs: int, decisions: int) -> float:
    """Frames a second of the vector environment alone, same-step autoreset
    as PPO drives it, random actions drawn beforehand."""
    env = SpeednikVectorEnv(num_envs, list(STAGES), observation=OBSERVATION,
                            action_repeat=REPEAT, stall_frames=240,
                            autoreset_mode="SameStep")
    env.reset(seed=0)
    actions = np.random.default_rng(0).integers(0, 8, (decisions, num_envs))
    for a in actions[:10]:
        env.step(a)
    start = time.perf_counter()
    for a in actions:
        env.step(a)
    return decisions * num_envs * REPEAT / (time.perf_counter() - start)


def ppo_rates(num_envs: int, updates: int) -> dict[str, float]:
    from evolution.strategies.ppo import PPO

    config = task(algorithm="ppo", population=num_envs)
    learner = PPO(config, config.genome_size())
    learner.update()                         # warm: the kernel and torch loaded
    learner.played_frames()
    learner.model.update_seconds = 0.0
    start = time.perf_counter()
    for _ in range(updates):
        learner.update()
    whole = time.perf_counter() - start
    frames = learner.played_frames()
    update = learner.model.update_seconds
    stepping = frames / stepping_rate(num_envs, learner.steps)
    return {"frames": frames, "whole": whole, "update": update, "stepping": stepping,
            "policy": max(whole - update - stepping, 0.0)}


def dqn_rate(decisions: int) -> float:
    """Frames a second of SB3's DQN on the same environment, 64 episodes
    at once, a gradient step (minibatch 256) after each of their
    decisions: the replay ratio of DQN's usual one step of 32 per 4
    transitions (docs/ppo.md says why it is not a method here)."""
    import torch
    from stable_baselines3 import DQN
    from stable_baselines3.common.logger import Logger

    from speednik.sb3_vec_env import SB3VecEnv

    torch.set_num_threads(1)
    env = SB3VecEnv(SpeednikVectorEnv(64, list(STAGES), observation=OBSERVATION,
                                      action_repeat=REPEAT, stall_frames=240,
                                      autoreset_mode="SameStep"), seed=0)
    model = DQN("MlpPolicy", env, policy_kwargs={"net_arch": [HIDDEN]}, learning_starts=1000,
                train_freq=1, gradient_steps=1, batch_size=256, buffer_size=200_000,
                device="cpu", verbose=0)
    # Its numbers are not wanted: without a logger of its own SB3 makes a
    # folder in the system's temporary directory at every learn().
    model.set_logger(Logger(folder=None, output_formats=[]))
    model.learn(2000)
    start = time.perf_counter()
    model.learn(decisions, reset_num_timesteps=False)
    return decisions * REPEAT / (time.perf_counter() - start)


def cmaes_rate(generations: int) -> float:
    config = task(algorithm="cmaes", population=80, generations=generations)
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        outcome = evolve(config, Path(out) / "run")
        seconds = time.perf_counter() - start
    return outcome.logbook[-1]["frames"] / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=4, help="PPO updates timed")
    parser.add_argument("--generations", type=int, default=3,
                        help="CMA-ES generations timed")
    args = parser.parse_args()

    print(f"task: {', '.join(STAGES)}; observation {OBSERVATION}; action repeat {REPEAT}; "
          f"mlp {HIDDEN} hidden; one process")
    for num_envs in (64, 256):
        r = ppo_rates(num_envs, args.updates)
        total = r["whole"]
        print(f"PPO, {num_envs} episodes at once, {r['frames'] / args.updates:,.0f} frames "
              f"an update: {r['frames'] / total:,.0f} frames/s whole "
              f"(target >= {TARGET_WHOLE:,}); of its time: stepping "
              f"{100 * r['stepping'] / total:.0f}% "
              f"({r['frames'] / r['stepping']:,.0f} frames/s, target >= {TARGET_STEPPING:,}),"
              f" policy {100 * r['policy'] / total:.0f}%, update "
              f"{100 * r['update'] / total:.0f}%", flush=True)
    print(f"DQN (SB3), 64 episodes at once: {dqn_rate(64 * 200):,.0f} frames/s whole",
          flush=True)
    rate = cmaes_rate(args.generations)
    print(f"CMA-ES, population 80: {rate:,.0f} frames/s whole")


if __name__ == "__main__":
    main()

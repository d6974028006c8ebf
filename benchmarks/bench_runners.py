"""Speed of the episode runner and of parallel evaluation.

1. Frames per second of bare `sim_step` holding right on hillside, against
   `EpisodeRunner` running random linear policies (argmax(W @ obs + b) over
   the 12-value observation) on the same stage. Target: the runner keeps
   >= 75% of the bare rate. Because random policies play different frames
   from holding right, two more references show where the time goes: bare
   `sim_step` replaying the policies' own actions, and the same episodes
   written as a plain inline loop (encoder, policy, sim_step, reward) with
   no runner at all; then the per-call cost of each part.
2. Episodes per second of a batch of 40 linear-policy episodes on 1 and 2
   worker processes (a pool kept across batches, as an evolution run keeps
   it). Target: 2 workers >= 1.7x one.

Figures are the best of a few repeats. Nothing is asserted.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runners import BaseAgent, EpisodePool, EpisodeRunner, RunnerConfig  # noqa: E402
from runners.specs import register_agent_factory  # noqa: E402
from runners.linear import LinearPolicy  # noqa: E402
from runners.jobs import prepare_jobs, run_job  # noqa: E402
from speednik.actions import ACTION_RIGHT, NUM_ACTIONS, action_to_input  # noqa: E402
from speednik.observation import OBS_DIM, extract_observation  # noqa: E402
from speednik.physics import InputState  # noqa: E402
from speednik.reward import default_reward  # noqa: E402
from speednik.simulation import create_sim, sim_step  # noqa: E402

STAGE = "hillside"
FRAMES = 200_000
REPEATS = 3
BATCH = 40
TARGET_RATIO = 0.75
TARGET_SPEEDUP = 1.7
GENOME_SIZE = NUM_ACTIONS * OBS_DIM + NUM_ACTIONS


class Forward(BaseAgent):
    """Holds right for free: the runner's own cost with no policy."""

    def get_action(self, obs) -> int:
        return ACTION_RIGHT

    def reset(self) -> None:
        pass


def make_linear_agent(genome) -> LinearPolicy:
    """The policy evolution evaluates, over the 12-value observation."""
    return LinearPolicy(genome, "basic")


register_agent_factory("bench-linear", make_linear_agent)


def load_stage_or_fallback():
    try:
        from speednik.stages import load_stage
        return load_stage(STAGE), STAGE
    except Exception as e:  # the built-in stages may not build yet
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "helpers"))
        from terrain_builders import flat_stage
        print(f"({STAGE} does not load: {e}; using a flat hand-made stage)")
        return flat_stage(8192), "flat"


def genomes(n: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.normal(size=GENOME_SIZE).astype(np.float32) for _ in range(n)]


def bare_fps(stage) -> float:
    initial = create_sim(stage)
    inp = InputState(right=True)
    best = 0.0
    for _ in range(REPEATS):
        sim = initial.copy()
        t0 = time.perf_counter()
        for _ in range(FRAMES):
            sim_step(sim, inp)
            if sim.player_dead or sim.goal_reached:
                sim = initial.copy()
        best = max(best, FRAMES / (time.perf_counter() - t0))
    return best


def runner_fps(runner: EpisodeRunner, agents) -> float:
    best = 0.0
    for _ in range(REPEATS):
        frames = 0
        t0 = time.perf_counter()
        i = 0
        while frames < FRAMES:
            frames += runner.run_episode(agents[i % len(agents)]).steps
            i += 1
        best = max(best, frames / (time.perf_counter() - t0))
    return best


def replay_fps(stage, action_lists) -> float:
    """Bare sim_step over exactly the frames the policies played."""
    initial = create_sim(stage)
    inputs = []
    for actions in action_lists:
        held = False
        row = []
        for a in actions:
            inp, held = action_to_input(a, held)
            row.append(inp)
        inputs.append(row)
    frames = sum(map(len, inputs))
    best = 0.0
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        for row in inputs:
            sim = initial.copy()
            for inp in row:
                sim_step(sim, inp)
        best = max(best, frames / (time.perf_counter() - t0))
    return best


def inline_fps(stage, agents, max_steps: int = 3600, stall: int = 300) -> float:
    """The runner's episodes as a plain loop: what the work costs with no
    runner around it."""
    initial = create_sim(stage)
    reward = default_reward(max_steps)
    best = 0.0
    for _ in range(REPEATS):
        frames = 0
        t0 = time.perf_counter()
        for agent in agents:
            sim = initial.copy()
            reward.reset(sim)
            held = False
            total = 0.0
            n = last = 0
            far = sim.max_x_reached
            while True:
                inp, held = action_to_input(agent.get_action(extract_observation(sim)), held)
                total += reward.step(sim, sim_step(sim, inp))
                n += 1
                if sim.goal_reached or sim.player_dead or n >= max_steps:
                    break
                if sim.max_x_reached > far:
                    far, last = sim.max_x_reached, n
                elif n - last >= stall:
                    break
            frames += n
        best = max(best, frames / (time.perf_counter() - t0))
    return best


def per_call_us(fn, n: int = 100_000) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n * 1e6)
    return best


def batch_rate(pool: EpisodePool | None, jobs) -> tuple[float, int]:
    best = 0.0
    frames = 0
    # A batch takes a fraction of a second: more repeats steady the figure.
    for _ in range(2 * REPEATS):
        t0 = time.perf_counter()
        results = [run_job(j) for j in jobs] if pool is None else pool.map(run_job, jobs)
        best = max(best, len(jobs) / (time.perf_counter() - t0))
        frames = sum(r.steps for r in results)
    return best, frames


def main() -> None:
    stage, name = load_stage_or_fallback()
    print(f"== frames per second on {name} (best of {REPEATS})")
    bare = bare_fps(stage)
    runner = EpisodeRunner(stage)
    agents = [LinearPolicy(g) for g in genomes(64)]
    linear = runner_fps(runner, agents)
    free = runner_fps(runner, [Forward()])
    played = [runner.run_episode(a, record=True).trajectory.action for a in agents]
    replay = replay_fps(stage, played)
    inline = inline_fps(stage, agents)
    ratio = linear / bare
    print(f"bare sim_step, holding right              {bare:>10,.0f}")
    print(f"runner, random linear policies            {linear:>10,.0f}   ratio {ratio:.2f} "
          f"({'meets' if ratio >= TARGET_RATIO else 'MISSES'} the target of {TARGET_RATIO})")
    print(f"runner, hold right, policy costs nothing  {free:>10,.0f}   ratio {free / bare:.2f}")
    print(f"bare sim_step, the policies' own frames   {replay:>10,.0f}   "
          f"runner / this {linear / replay:.2f}")
    print(f"inline loop, the same episodes            {inline:>10,.0f}   "
          f"runner / this {linear / inline:.2f}")

    sim = create_sim(stage)
    for _ in range(120):
        sim_step(sim, InputState(right=True))
    obs = extract_observation(sim)
    agent = LinearPolicy(genomes(1)[0])
    reward = default_reward()
    reward.reset(sim)
    print("per frame, microseconds:")
    print(f"  sim_step (the policies' frames)  {1e6 / replay:>8.2f}")
    print(f"  observation ('basic')            {per_call_us(lambda: extract_observation(sim)):>8.2f}")
    print(f"  reward (default)                 {per_call_us(lambda: reward.step(sim, [])):>8.2f}")
    print(f"  linear policy                    {per_call_us(lambda: agent.get_action(obs)):>8.2f}")
    print(f"  runner total, linear policy      {1e6 / linear:>8.2f}")

    print(f"\n== episodes per second, a batch of {BATCH} linear-policy episodes "
          f"(max_steps 3600, best of {2 * REPEATS}; {os.cpu_count()} CPUs)")
    stage_ref = name if name != "flat" else stage
    jobs = prepare_jobs([(("bench-linear", g), stage_ref) for g in genomes(BATCH, seed=1)],
                        RunnerConfig())
    one, frames = batch_rate(None, jobs)
    print(f"1 worker (in process)   {one:>8.1f} episodes/s   ({frames:,} frames a batch)")
    with EpisodePool(1) as pool:
        pool.map(run_job, jobs[:2])      # warm up: the worker builds its runner
        pool1, _ = batch_rate(pool, jobs)
    print(f"1 worker (pool)         {pool1:>8.1f} episodes/s")
    with EpisodePool(2) as pool:
        pool.map(run_job, jobs[:4])
        two, _ = batch_rate(pool, jobs)
    speedup = two / one
    print(f"2 workers (pool)        {two:>8.1f} episodes/s   speed-up {speedup:.2f}x "
          f"({'meets' if speedup >= TARGET_SPEEDUP else 'MISSES'} the target of "
          f"{TARGET_SPEEDUP}x)")


if __name__ == "__main__":
    main()

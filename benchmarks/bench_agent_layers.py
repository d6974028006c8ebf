"""Cost of the agent-facing layers next to the bare simulation.

    python benchmarks/bench_agent_layers.py [stage]

Prints, on one stage (hillside by default):
- the cost of one observation per encoder (basic, terrain, tokens), in
  microseconds per call, over states sampled from a hold-right run;
- `sim_step` frames/s and `SpeednikEnv.step` steps/s holding right (the
  environment unwrapped, and as `gymnasium.make` wraps it), with the ratio
  of an env step's cost to a bare frame's (target: at most 1.3 for the
  12-value observation);
- the cost of one reward step and of one rendered frame.

Episodes restart when they end, so every timed frame is a live one. Each
figure is the best of a few repeats, to keep other load out of it.
"""
from __future__ import annotations

import sys
import time

from speednik.actions import ACTION_RIGHT
from speednik.env import SpeednikEnv
from speednik.observation import get_observation, list_observations
from speednik.physics import InputState
from speednik.render import render_frame
from speednik.reward import default_reward
from speednik.simulation import create_sim, sim_step
from speednik.stages import load_stage
from speednik.tokens import TokenEncoder

FRAMES = 40_000
REPEATS = 5
TARGET_RATIO = 1.3


def best_of(fn, repeats: int = REPEATS) -> float:
    """Shortest wall time of `fn()` over a few runs, in seconds."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def sample_states(stage, n: int = 400):
    """States spread along a hold-right run (restarting after an ending)."""
    right = InputState(right=True)
    sim = create_sim(stage)
    states = []
    for i in range(n * 5):
        sim_step(sim, right)
        if sim.player_dead or sim.goal_reached:
            sim = create_sim(stage)
        if i % 5 == 0:
            states.append(sim.copy())
    return states


def bare_frames(stage, frames: int) -> None:
    right = InputState(right=True)
    sim = create_sim(stage)
    for _ in range(frames):
        sim_step(sim, right)
        if sim.player_dead or sim.goal_reached:
            sim = create_sim(stage)


def env_steps(env, frames: int) -> None:
    env.reset()
    step = env.step
    reset = env.reset
    for _ in range(frames):
        _, _, terminated, truncated, _ = step(ACTION_RIGHT)
        if terminated or truncated:
            reset()


def main(argv: list[str]) -> None:
    name = argv[1] if len(argv) > 1 else "hillside"
    stage = load_stage(name)
    print(f"stage: {name} ({stage.width} x {stage.height} px)")

    states = sample_states(stage)
    print("\nobservation cost per call (us):")
    for obs_name in list_observations():
        enc = get_observation(obs_name)
        t = best_of(lambda: [enc(s) for s in states])
        print(f"  {obs_name:<10}{t / len(states) * 1e6:>9.2f}   ({enc.size} values)")
    tokens = TokenEncoder()
    t = best_of(lambda: [tokens(s) for s in states])
    print(f"  {'tokens':<10}{t / len(states) * 1e6:>9.2f}   {tokens.shape} uint8")

    reward = default_reward()
    reward.reset(states[0])
    t = best_of(lambda: [reward.step(s, ()) for s in states])
    print(f"\nreward step (us): {t / len(states) * 1e6:.2f}")

    # Interleaved, so a burst of other load hits every variant alike.
    envs = {obs: SpeednikEnv(stage, observation=obs)
            for obs in (*list_observations(), "tokens")}
    runs = {"bare sim_step": lambda: bare_frames(stage, FRAMES)}
    for obs, env in envs.items():
        runs[f"env.step {obs}"] = lambda env=env: env_steps(env, FRAMES)
    try:
        import gymnasium
        import speednik.env  # noqa: F401  (registers the ids)
        wrapped = gymnasium.make(f"speednik/{name.capitalize()}-v0")
        runs["gymnasium.make basic"] = lambda: env_steps(wrapped, FRAMES)
    except Exception as exc:   # a stage without a registered id
        print(f"(gymnasium.make not measured: {exc})")
    best = {k: float("inf") for k in runs}
    for _ in range(REPEATS):
        for k, fn in runs.items():
            best[k] = min(best[k], best_of(fn, 1) / FRAMES)
    bare = best["bare sim_step"]
    print(f"\nholding right, {FRAMES:,} frames, best of {REPEATS}:")
    for k, per in best.items():
        unit = "frames/s" if k == "bare sim_step" else "steps/s "
        print(f"  {k:<24}{1 / per:>12,.0f} {unit} {per * 1e6:7.2f} us   x{per / bare:.2f}")
    ratio = best["env.step basic"] / bare
    verdict = "meets" if ratio <= TARGET_RATIO else "misses"
    print(f"\nenv.step (basic) / sim_step = {ratio:.2f}: {verdict} the {TARGET_RATIO} target"
          f" (env overhead {(best['env.step basic'] - bare) * 1e6:.2f} us per step)")

    sim = states[len(states) // 2]
    render_frame(sim)   # builds the stage's terrain image once
    t = best_of(lambda: [render_frame(sim) for _ in range(50)])
    print(f"render_frame 320x224 (ms): {t / 50 * 1e3:.2f}")


if __name__ == "__main__":
    main(sys.argv)

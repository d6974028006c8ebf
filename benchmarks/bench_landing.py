"""What the `landing`, `room`, `footing`, `onward`, `stride`, `reach` and `stand` observations
cost beside `pits`, on expert stages.

A hand-set linear policy (run right; jump when a pit starts within a
column) plays the 50 expert validation stages `gen:expert:10000-10049` on
the compiled engine, one thread, over `pits`, `landing`, `room`,
`footing` and `onward`, with zero weights on the values the last four
add: all choose the same actions, so they play the same frames and the
difference is the observation alone (the flights played near pits, the
ground scanned past their landings, for `footing` flights played near
spikes too, followed deeper and longer, and for `onward` also on steep
ground, with five values fewer for the policy to weigh). A second hand-set policy
hops whenever it can (run right; jump when a jump can start, let go
in the air): most of its frames are in the air, where each decision
plays its flights afresh. Then both policies decide every other frame
(`--action-repeat 2`) over `onward` and `stride`, whose later flights
press jump two frames on: when a decision finds the player where the
last one's later plans ran to, their flights are its own, so fewer are
played; and over `reach`, which also plays them whenever the player is
faster than it runs (down slopes, off springs); and over `stand`, whose
flights play on past a touch of the ground until the player has stood
four frames. Prints frames per second for each, best of three, and their
ratios, taken in this one run.
Nothing is asserted.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runners.linear import genome_size  # noqa: E402
from speednik.actions import ACTION_RIGHT, ACTION_RIGHT_JUMP, NUM_ACTIONS  # noqa: E402
from speednik.engine import run_policy_batch  # noqa: E402
from speednik.observation import get_observation, index_of  # noqa: E402
from speednik.stages import expand_stages, load_stage  # noqa: E402

STAGES = "gen:expert:10000-10049"
REPEATS = 3


def right_jumper(observation: str, jump_bias: float, value: str, weight: float) -> np.ndarray:
    """A linear genome: right scores 1; right+jump scores jump_bias +
    weight x `value` (one of the "pits" values, which every observation
    timed here has)."""
    encoder = get_observation(observation)
    size = encoder.size
    genome = np.zeros(genome_size(size))
    weights = genome[:NUM_ACTIONS * size].reshape(NUM_ACTIONS, size)
    bias = genome[NUM_ACTIONS * size:]
    bias[ACTION_RIGHT] = 1.0
    bias[ACTION_RIGHT_JUMP] = jump_bias
    weights[ACTION_RIGHT_JUMP, index_of(encoder.values, value)] = weight
    return genome


def pit_jumper(observation: str) -> np.ndarray:
    """Right+jump scores 1.5 - 20 x pit_ahead_dx, which wins once the pit
    starts within 1/40 of the scan (about 10 px)."""
    return right_jumper(observation, 1.5, "pit_ahead_dx", -20.0)


def hopper(observation: str) -> np.ndarray:
    """Right+jump scores 0.5 + jump_ready, which wins whenever a jump can
    start; in the air (jump_ready 0) it lets go."""
    return right_jumper(observation, 0.5, "jump_ready", 1.0)


def rate(stages, observation: str, policy=pit_jumper, repeat: int = 1) -> tuple[float, int]:
    params = policy(observation)[None, :]
    episode_stage = np.arange(len(stages))
    episode_params = np.zeros(len(stages), np.int64)
    best, frames = 0.0, 0
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        batch = run_policy_batch(stages, episode_stage, episode_params, params,
                                 observation=observation, stall_frames=300, threads=1,
                                 action_repeat=repeat)
        frames = int(batch.steps.sum())
        best = max(best, frames / (time.perf_counter() - t0))
    return best, frames


def main() -> None:
    stages = [load_stage(name) for name in expand_stages([STAGES])]
    rate(stages[:1], "pits")          # load the engine
    for title, policy in (("a hand-set pit-jumping linear policy", pit_jumper),
                          ("a hand-set linear policy hopping whenever it can", hopper)):
        rates = {name: rate(stages, name, policy)
                 for name in ("pits", "landing", "room", "footing", "onward")}
        pits, pits_frames = rates["pits"]
        print(f"== {STAGES}, {title}, compiled, 1 thread, best of {REPEATS}")
        for name, (value, frames) in rates.items():
            same = "" if name == "pits" else f"; the same frames: {frames == pits_frames}"
            print(f"{name:<8s} {value:>12,.0f} frames/s   ({frames:,} frames{same})")
        landing, room, footing, onward = (rates[n][0] for n in
                                          ("landing", "room", "footing", "onward"))
        print(f"landing costs {pits / landing:.2f}x the time of pits per frame, "
              f"room {pits / room:.2f}x ({landing / room:.3f}x landing's), "
              f"footing {pits / footing:.2f}x ({landing / footing:.3f}x landing's), "
              f"onward {pits / onward:.2f}x ({landing / onward:.3f}x landing's)")
    for title, policy in (("the pit jumper", pit_jumper), ("the hopper", hopper)):
        rates = {name: rate(stages, name, policy, repeat=2)
                 for name in ("onward", "stride", "reach", "stand")}
        print(f"== {STAGES}, {title} deciding every other frame, compiled, 1 thread, "
              f"best of {REPEATS}")
        for name, (value, frames) in rates.items():
            print(f"{name:<8s} {value:>12,.0f} frames/s   ({frames:,} frames)")
        (onward, onward_frames), (stride, stride_frames) = rates["onward"], rates["stride"]
        print(f"stride plays a frame in {onward / stride:.2f}x the time of onward "
              f"(the same frames: {onward_frames == stride_frames})")
        reach, reach_frames = rates["reach"]
        print(f"reach plays a frame in {stride / reach:.2f}x the time of stride "
              f"(the same frames: {reach_frames == stride_frames})")
        stand, stand_frames = rates["stand"]
        print(f"stand plays a frame in {reach / stand:.2f}x the time of reach "
              f"(the same frames: {stand_frames == reach_frames})")


if __name__ == "__main__":
    main()

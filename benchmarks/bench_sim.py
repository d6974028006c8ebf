"""Frames per second of `sim_step` on each built-in stage, one process.

Two input patterns: holding right (the issue's target: >= 60,000 frames/s
on hillside) and random inputs. Episodes restart from a fresh state when
they end, so every measured frame is a live one.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "helpers"))

from fuzz_inputs import random_inputs  # noqa: E402
from speednik.physics import InputState  # noqa: E402
from speednik.simulation import create_sim, sim_step  # noqa: E402
from speednik.stages import list_stages, load_stage  # noqa: E402

FRAMES = 200_000
TARGET_HOLD_RIGHT_HILLSIDE = 60_000


def measure(stage, inputs) -> float:
    n = len(inputs)
    sim = create_sim(stage)
    best = 0.0
    for _ in range(3):
        done = 0
        t0 = time.perf_counter()
        while done < FRAMES:
            for inp in inputs:
                sim_step(sim, inp)
                if sim.player_dead or sim.goal_reached:
                    sim = create_sim(stage)
            done += n
        best = max(best, done / (time.perf_counter() - t0))
    return best


def main() -> None:
    hold = [InputState(right=True)] * 3600
    rand = random_inputs(1, 3600)
    print(f"{'stage':<12}{'hold right':>14}{'random':>14}   (frames/s, best of 3)")
    for name in list_stages():
        stage = load_stage(name)
        fh = measure(stage, hold)
        fr = measure(stage, rand)
        print(f"{name:<12}{fh:>14,.0f}{fr:>14,.0f}")
        if name == "hillside":
            verdict = "meets" if fh >= TARGET_HOLD_RIGHT_HILLSIDE else "MISSES"
            hillside = (fh, verdict)
    fh, verdict = hillside
    print(f"hillside hold-right {fh:,.0f} frames/s {verdict} the target of "
          f"{TARGET_HOLD_RIGHT_HILLSIDE:,}")


if __name__ == "__main__":
    main()

"""The planner and expert stages: how long the planner takes per stage, and
how long one certified expert stage takes to generate (drawing, building,
and the planner's search, with any redraws).

    python benchmarks/bench_planner.py

Prints the median (and slowest) planner time on the built-in stages and on
gen:DIFFICULTY:0-19 of every difficulty, then the generation time per
expert stage and how many draws the seeds needed. Runs in about a minute
on 2 cores, after the engine's first compile.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from speednik.engine import warm_up  # noqa: E402
from speednik.engine.planner import plan_stage  # noqa: E402
from speednik.stages import DIFFICULTIES, generate_stage, list_stages, load_stage  # noqa: E402
from speednik.stages.expert import certified_expert  # noqa: E402

SEEDS = range(20)


def timed(fn):
    t0 = time.perf_counter()
    value = fn()
    return time.perf_counter() - t0, value


def planner_times(stages) -> tuple[list[float], int]:
    times, found = [], 0
    for stage in stages:
        dt, plan = timed(lambda: plan_stage(stage))
        times.append(dt)
        found += plan.found
    return times, found


def line(label: str, times: list[float], found: int) -> str:
    return (f"{label:<22} planner median {statistics.median(times) * 1000:7.1f} ms  "
            f"slowest {max(times) * 1000:7.1f} ms  finished {found}/{len(times)}")


def main() -> int:
    warm_up()
    plan_stage(load_stage("hillside"))     # compiles the search once
    every: list[float] = []
    times, found = planner_times([load_stage(n) for n in list_stages()])
    every += times
    print(line("built-in stages", times, found))
    for difficulty in DIFFICULTIES:
        times, found = planner_times([generate_stage(s, difficulty) for s in SEEDS])
        every += times
        print(line(f"gen:{difficulty}:0-19", times, found))
    print(f"{'all of the above':<22} planner median {statistics.median(every) * 1000:7.1f} ms "
          f"per stage")
    gen, draws = [], []
    for seed in range(100, 100 + len(SEEDS)):
        dt, (profile, _) = timed(lambda: certified_expert(seed))
        gen.append(dt)
        draws.append(int(profile.stage.description.split("(draw ")[1].split(")")[0]) + 1)
    print(f"expert generation (seeds 100-119, certified): median "
          f"{statistics.median(gen) * 1000:.0f} ms, slowest {max(gen) * 1000:.0f} ms per "
          f"stage; draws per stage: mean {statistics.mean(draws):.2f}, most {max(draws)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

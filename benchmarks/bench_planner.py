"""The planner and expert stages: how long the planner takes per stage, and
how long one certified expert stage takes to generate (drawing, building,
and the planner's search, with any redraws).

    python benchmarks/bench_planner.py

Prints the median (and slowest) planner time on the built-in stages and on
gen:DIFFICULTY:0-19 of every difficulty, then the generation time per
expert stage and how many draws the seeds needed, then how long an
evolution run's start takes to certify 128 expert stages with one worker
and with two (`certify_in_parallel`, then the build; target: two at least 1.6x as fast
as one), and how long when an earlier run of the same sources recorded
their draws (`speednik.stages.certified_draws`). Runs in about two
minutes on 2 cores, after the engine's first compile.
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
from speednik.stages import certification  # noqa: E402
from speednik.stages.certification import certified_expert  # noqa: E402

SEEDS = range(20)
# Seeds no other line here certifies, as many as a recipe's expert training set.
PARALLEL_SEEDS = range(300, 428)
PARALLEL_TARGET = 1.6


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
    warm_up(["basic"], ["linear"])
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
    took = {}
    for workers in (1, 2):
        certification._CERTIFIED_DRAW.clear()
        if workers == 1:
            took[workers], _ = timed(lambda: [certified_expert(s) for s in PARALLEL_SEEDS])
        else:
            # ...and then built here, as a run builds them.
            took[workers], _ = timed(lambda: (
                certification.certify_in_parallel(PARALLEL_SEEDS, 2, remember=False),
                [certified_expert(s) for s in PARALLEL_SEEDS]))
    ratio = took[1] / took[2]
    verdict = "meets" if ratio >= PARALLEL_TARGET else "MISSES"
    print(f"certifying gen:expert:300-427 before a run: 1 worker {took[1]:.1f} s, "
          f"2 workers {took[2]:.1f} s, {ratio:.2f}x ({verdict} the target of "
          f"{PARALLEL_TARGET}x)")
    # A later run of the same sources reads the draws from the record.
    certification._CERTIFIED_DRAW.clear()
    certification.certify_in_parallel(PARALLEL_SEEDS, 2)
    certification._CERTIFIED_DRAW.clear()
    recorded, _ = timed(lambda: (certification.certify_in_parallel(PARALLEL_SEEDS, 2),
                                 [certified_expert(s) for s in PARALLEL_SEEDS]))
    print(f"the same, when an earlier run recorded their draws: {recorded:.1f} s "
          f"({took[2] / recorded:.0f}x faster than 2 workers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`python -m evolution.compare`: search methods side by side on one task,
each given the same budget of frames played.

    python -m evolution.compare --methods ga cmaes openai-es map-elites \\
        --seeds 0 1 2 --frames 3000000 --out runs/compare -- \\
        --stage gen:medium:0-31 --stages-per-generation 16 \\
        --test-stage gen:medium:1000-1099 --observation terrain

Everything after `--` is the task: `evolution.run` options every run
shares. Each method and seed is one `evolution.run` into OUT/METHOD-seedS,
stopped by `--max-frames`; a run directory that exists is resumed, so an
interrupted comparison continues where it stopped. The table gives, per
method, the final training fitness and the held-out completion (when the
task has `--test-stage`): the median and the interquartile mean over the
seeds, each with a 95% bootstrap interval. OUT/compare.json keeps every
number, and OUT/compare.png (drawn by `python -m plots methods OUT`) the
best fitness against frames played, the median over seeds with the
range between the lowest and highest as a band.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Sequence

import numpy as np

from evolution.loop.outputs import BEST_NAME, RunFileError, read_logbook
from evolution.strategies.registry import list_strategies
from runners.atomic import atomic_write_json
from runners.cli import OneLineParser

COMPARE_NAME = "compare.json"
BOOTSTRAP_SAMPLES = 2000
# Long enough that only the frame budget stops a run.
GENERATIONS = 1_000_000
# Options the comparison sets for every run itself.
OWN_OPTIONS = ("--algorithm", "--seed", "--max-frames", "--out", "--resume",
               "--generations", "--quiet")


def iqm(values: Sequence[float]) -> float:
    """The interquartile mean: the mean of the middle half (with fewer than
    four values, of all of them)."""
    x = np.sort(np.asarray(values, dtype=np.float64))
    cut = len(x) // 4
    return float(np.mean(x[cut:len(x) - cut]))


def bootstrap_interval(values: Sequence[float], statistic, seed: int = 0) -> tuple[float, float]:
    """The 95% percentile bootstrap interval of `statistic` over `values`
    (resampled with a generator of its own: the same numbers give the
    same interval)."""
    x = np.asarray(values, dtype=np.float64)
    rng = np.random.default_rng(seed)
    samples = [statistic(x[rng.integers(0, len(x), len(x))])
               for _ in range(BOOTSTRAP_SAMPLES)]
    low, high = np.percentile(samples, [2.5, 97.5])
    return float(low), float(high)


def summarise(values: Sequence[float]) -> dict:
    return {"values": [float(v) for v in values],
            "median": float(np.median(values)),
            "median_ci": bootstrap_interval(values, np.median),
            "iqm": iqm(values), "iqm_ci": bootstrap_interval(values, iqm)}


def read_run(run_dir: Path) -> dict:
    """What the comparison keeps of one finished run."""
    log = read_logbook(run_dir)
    best = json.loads((run_dir / BEST_NAME).read_text())
    held = best.get("held_out")
    best_so_far = np.maximum.accumulate([r["max"] for r in log]).tolist()
    return {
        "frames": [r["frames"] for r in log],
        "best": best_so_far,
        "fitness": float(best["fitness"]),
        "held_out": None if held is None else held["goals"] / held["count"],
        "generations": log[-1]["gen"],
    }


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="python -m evolution.compare", error_name="evolution.compare",
        usage="%(prog)s --methods M [M ...] --seeds S [S ...] --frames N --out DIR "
              "[--jobs J] -- [evolution.run options of the task]",
        description="Run several search methods on one task, each seed of each with the "
                    "same budget of frames played, and print how they did.",
        epilog="exit status: 0 done; 1 a run failed; 2 bad input.")
    p.add_argument("--methods", nargs="+", required=True, choices=list_strategies(),
                   metavar="METHOD", help=f"search methods: {', '.join(list_strategies())}")
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2], metavar="SEED",
                   help="seeds of each method (default: 0 1 2)")
    p.add_argument("--frames", type=int, required=True, metavar="N",
                   help="frames each run may play (its --max-frames)")
    p.add_argument("--out", type=Path, required=True, metavar="DIR",
                   help="where the runs, compare.json and compare.png go")
    p.add_argument("--jobs", type=int, default=1, metavar="J",
                   help="runs side by side (give each fewer --workers in the task)")
    p.add_argument("task", nargs="*", metavar="-- RUN_OPTION",
                   help="after --: the evolution.run options every run shares")
    return p


def run_one(task: list[str], method: str, seed: int, frames: int, out: Path) -> tuple[int, str]:
    run_dir = out / f"{method}-seed{seed}"
    line = [*task, "--algorithm", method, "--seed", str(seed), "--max-frames", str(frames),
            "--generations", str(GENERATIONS), "--quiet"]
    if (run_dir / "checkpoint.npz").exists():
        line += ["--resume", str(run_dir)]
    else:
        line += ["--out", str(run_dir)]
    done = subprocess.run([sys.executable, "-m", "evolution.run", *line],
                          capture_output=True, text=True)
    return done.returncode, done.stderr.strip()


def table(methods: dict[str, dict]) -> str:
    def cell(s: dict | None, percent: bool = False) -> str:
        if s is None:
            return "-"
        f = (lambda v: f"{100 * v:.1f}%") if percent else (lambda v: f"{v:.2f}")
        return (f"{f(s['median'])} [{f(s['median_ci'][0])}, {f(s['median_ci'][1])}] | "
                f"{f(s['iqm'])} [{f(s['iqm_ci'][0])}, {f(s['iqm_ci'][1])}]")

    lines = ["| method | runs | training fitness: median [95% CI] | IQM [95% CI] "
             "| held-out completion: median [95% CI] | IQM [95% CI] |",
             "| --- | ---: | --- | --- | --- | --- |"]
    for name, m in methods.items():
        lines.append(f"| {name} | {m['runs']} | {cell(m['fitness'])} | "
                     f"{cell(m['held_out'], percent=True)} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    task = list(args.task)
    clash = [o for o in OWN_OPTIONS if o in task]
    if clash:
        parser.error(f"{', '.join(clash)} are set by the comparison for each run; "
                     f"leave them out of the task")
    if args.frames < 1 or args.jobs < 1:
        parser.error("--frames and --jobs must be whole numbers >= 1")
    args.out.mkdir(parents=True, exist_ok=True)
    pairs = [(m, s) for m in args.methods for s in args.seeds]
    t0 = time.perf_counter()
    with ThreadPoolExecutor(args.jobs) as pool:
        outcomes = list(pool.map(
            lambda ms: run_one(task, ms[0], ms[1], args.frames, args.out), pairs))
    failed = [(ms, err) for ms, (code, err) in zip(pairs, outcomes) if code != 0]
    for (method, seed), err in failed:
        print(f"evolution.compare: {method} seed {seed} failed: "
              f"{err.splitlines()[-1] if err else 'no message'}", file=sys.stderr)
    if failed:
        return 1
    methods: dict[str, dict] = {}
    runs: dict[str, dict] = {}
    for method in args.methods:
        got = []
        for seed in args.seeds:
            try:
                got.append(read_run(args.out / f"{method}-seed{seed}"))
            except (RunFileError, OSError, ValueError, KeyError) as e:
                print(f"evolution.compare: error: {method} seed {seed}: {e}",
                      file=sys.stderr)
                return 1
            runs[f"{method}-seed{seed}"] = got[-1]
        held = [g["held_out"] for g in got]
        methods[method] = {
            "runs": len(got),
            "fitness": summarise([g["fitness"] for g in got]),
            "held_out": None if None in held else summarise(held),
        }
    atomic_write_json(args.out / COMPARE_NAME, {
        "methods": methods, "runs": runs, "seeds": args.seeds, "frames": args.frames,
        "task": task, "wall_seconds": time.perf_counter() - t0})
    print(f"{len(args.methods)} methods x {len(args.seeds)} seeds, {args.frames:,} frames "
          f"each: python -m evolution.run {' '.join(task)}")
    print(table(methods))
    print(f"wall time {time.perf_counter() - t0:.0f} s; numbers in {args.out / COMPARE_NAME}")
    # plots sits above evolution: the picture is its command's.
    drawn = subprocess.run([sys.executable, "-m", "plots", "methods", str(args.out)],
                           capture_output=True, text=True)
    print(drawn.stdout.strip() or f"no picture: {drawn.stderr.strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

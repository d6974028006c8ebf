"""Every table of figures in the README, printed again from the current code.

    python benchmarks/figures.py                  all of them (about nine hours on 2 cores)
    python benchmarks/figures.py --only main baselines

Sections, each named beside its table in the README:
- main:            what to expect of `evolution.run` on the built-in stages
- baselines:       `python -m runners.baselines --markdown`, and the stages
                   finished per difficulty (`--summary`, about a minute)
- generalisation:  the generalisation recipe per seed, and the presets its
                   record compares it against (benchmarks/generalization.py,
                   each --variant); the earlier steps and what was tried
                   beside them are run at the commit docs/generalisation.md
                   names
- tuning:          every method tuned on the recipe's task beside its
                   defaults (benchmarks/tuning.py, about two hours),
                   its runs and studies kept in runs/figures/tuning: run
                   again after a stop, it resumes them where they stopped
                   (a finished run is not run again); what a table
                   needs of them is kept in benchmarks/results
                   (benchmarks/results_store.py), so another machine
                   goes on from there
- compare:         the README's `evolution.compare` command, every method
                   the strategy registry can tune (`evolution.tune`'s
                   methods) with the settings the tuning found, its runs
                   kept in runs/figures/compare and resumed the same way;
                   and docs/compare-ppo-cmaes.png, PPO's and CMA-ES's
                   curves

`make figures` runs them all. Speed figures are `make bench`'s.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import results_store  # noqa: E402
from evolution.loop.outputs import read_logbook  # noqa: E402
from evolution.tune import tunable_methods  # noqa: E402
from generalization import VARIANTS  # noqa: E402

# Where the comparison and the tuning keep their runs, so a stopped `make
# figures` resumes.
COMPARE_DIR = results_store.WORK / "compare"
TUNING_DIR = results_store.WORK / "tuning"

# (label, options) of the main table's rows: the README's `evolution.run`
# lines with the defaults.
MAIN_ROWS = [
    *[(f"--stage hillside, seed {s}", ["--stage", "hillside", "--seed", str(s)])
      for s in range(6)],
    ("--stage pipeworks, seed 0", ["--stage", "pipeworks", "--seed", "0"]),
    ("--stage skybridge, seed 0", ["--stage", "skybridge", "--seed", "0"]),
    ("--stage hillside pipeworks skybridge --observation terrain, seed 0",
     ["--stage", "hillside", "pipeworks", "skybridge", "--observation", "terrain",
      "--seed", "0"]),
]
# The README's comparison of search methods.
SUMMARY = ["--summary", "--markdown", "--agent", "hold-right", "jump-runner", "spindash",
           "planner", "--workers", "2"]
# The methods compared: those the strategy registry declares a tuning
# space for, the methods benchmarks/tuning.py tunes.
METHODS = tunable_methods()
# Every method with the settings its tuning found (the tuning section's
# best.json files), five seeds other than the tuning's seed 0, at the
# tuning's budget, on the recipe's task with the built-in stages among the
# held-out ones.
COMPARE = ["--methods", *METHODS, "--seeds", "1", "2", "3", "4", "5",
           "--frames", "150000000", "--jobs", "2", "--",
           "--stage", "gen:medium:0-15", "gen:hard:0-15", "gen:expert:200-263",
           "--validation-stage", "gen:medium:2000-2049", "gen:hard:2000-2049",
           "gen:expert:10000-10049",
           "--test-stage", "gen:medium:1000-1099", "gen:hard:1000-1099", "gen:expert:1000-1099",
           "hillside", "pipeworks", "skybridge", "--test-every", "25",
           "--observation", "pits", "--population", "80", "--workers", "1"]


def python(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=ROOT, text=True, **kw)


def main_table() -> None:
    python("-c", "from speednik.engine import warm_up; warm_up()", check=True)
    print("| run | first genome at the goal | 200 generations |")
    print("| --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for k, (label, options) in enumerate(MAIN_ROWS):
            out = Path(tmp) / str(k)
            t0 = time.perf_counter()
            python("-m", "evolution.run", "--generations", "200", "--quiet", "--out",
                   str(out), *options, check=True, stdout=subprocess.DEVNULL)
            seconds = time.perf_counter() - t0
            log = read_logbook(out)
            first = next((r["gen"] for r in log if r["completions"] > 0), None)
            best = max(r["best_progress"] for r in log)
            reached = (f"generation {first}" if first is not None
                       else f"not within 200 (best {100 * best:.0f}% of the stage)")
            print(f"| `{label}` | {reached} | {seconds:.0f} s |", flush=True)


def baselines() -> None:
    python("-m", "runners.baselines", "--markdown", check=True)
    python("-m", "runners.baselines", *SUMMARY, check=True)


def generalisation() -> None:
    python("benchmarks/generalization.py", "--seeds", "0-4", check=True)
    for variant in VARIANTS:
        if variant != "recipe":
            python("benchmarks/generalization.py", "--variant", variant, check=True)


def compare() -> None:
    results_store.restore()
    files = [TUNING_DIR / f"tune-{m}" / "best.json" for m in METHODS]
    if not all(f.exists() for f in files):
        print("the comparison takes each method's tuned settings: tuning first", flush=True)
        tuning()
    print(f"runs in {COMPARE_DIR.relative_to(ROOT)} (run again to resume them)", flush=True)
    at = COMPARE.index("--")
    try:
        python("-m", "evolution.compare", *COMPARE[:at], "--out", str(COMPARE_DIR),
               "--settings", *map(str, files), *COMPARE[at:], check=True)
        # docs/comparison.md's picture of the learner beside the recipe's method.
        python("-m", "plots", "methods", str(COMPARE_DIR), "--methods", "cmaes", "ppo",
               "--out", "docs/compare-ppo-cmaes.png", check=True)
    finally:
        results_store.keep()


def tuning() -> None:
    results_store.restore()
    try:
        python("benchmarks/tuning.py", "--out", str(TUNING_DIR), check=True)
    finally:
        results_store.keep()


SECTIONS = {"main": main_table, "baselines": baselines,
            "generalisation": generalisation, "tuning": tuning, "compare": compare}


def run(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", nargs="+", choices=SECTIONS, default=list(SECTIONS),
                   metavar="SECTION", help=f"sections: {', '.join(SECTIONS)}")
    args = p.parse_args(argv)
    for name in args.only:
        print(f"== {name}", flush=True)
        SECTIONS[name]()
    return 0


if __name__ == "__main__":
    sys.exit(run())

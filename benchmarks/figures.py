"""Every table of figures in the README, printed again from the current code.

    python benchmarks/figures.py                  all of them (about four and a half hours on 2 cores)
    python benchmarks/figures.py --only main baselines

Sections, each named beside its table in the README:
- main:            what to expect of `evolution.run` on the built-in stages
- baselines:       `python -m runners.baselines --markdown`, and the stages
                   finished per difficulty (`--summary`, about a minute)
- generalisation:  the generalisation recipe per seed, and its earlier steps
                   (benchmarks/generalization.py, --variant stall, terrain and
                   hazards)
- compare:         the README's `evolution.compare` command, its runs kept in
                   runs/figures/compare: run again after a stop, it resumes
                   them where they stopped (a finished run is not run again)
- tuning:          every method tuned on the recipe's task beside its
                   defaults (benchmarks/tuning.py, about an hour and a half),
                   its runs and studies kept in runs/figures/tuning, resumed
                   the same way

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
# Where the comparison keeps its runs, so a stopped `make figures` resumes.
COMPARE_DIR = ROOT / "runs" / "figures" / "compare"
TUNING_DIR = ROOT / "runs" / "figures" / "tuning"

from evolution.loop.outputs import read_logbook  # noqa: E402

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
COMPARE = ["--methods", "ga", "cmaes", "openai-es", "map-elites", "neat",
           "--seeds", "0", "1", "2", "--frames", "350000000", "--jobs", "2", "--",
           "--stage", "gen:medium:0-31", "gen:hard:0-31", "--stages-per-generation", "32",
           "--test-stage", "gen:medium:1000-1099", "gen:hard:1000-1099", "--test-every", "1000",
           "--observation", "hazards", "--population", "80", "--workers", "1"]
# The table's runs gave the GA and CMA-ES (the methods that read it) a first
# spread of 0.5, and OpenAI-ES the defaults it had before tuning.
COMPARE_SETTINGS = {"ga": {"init_sigma": 0.5}, "cmaes": {"init_sigma": 0.5},
                    "openai-es": {"es_sigma": 0.1, "es_lr": 0.1, "es_weight_decay": 0.005}}


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
    python("benchmarks/generalization.py", check=True)
    for earlier in ("stall", "terrain", "hazards"):     # the table of the recipe's steps
        python("benchmarks/generalization.py", "--variant", earlier, check=True)


def compare() -> None:
    from evolution.cli.settings_file import write_settings

    settings = COMPARE_DIR.parent / "compare-settings"
    settings.mkdir(parents=True, exist_ok=True)
    files = []
    for method, given in COMPARE_SETTINGS.items():
        files.append(str(settings / f"{method}.json"))
        write_settings(files[-1], method, given)
    print(f"runs in {COMPARE_DIR.relative_to(ROOT)} (run again to resume them)", flush=True)
    python("-m", "evolution.compare", *COMPARE[:COMPARE.index("--")], "--out",
           str(COMPARE_DIR), "--settings", *files, *COMPARE[COMPARE.index("--"):], check=True)


def tuning() -> None:
    python("benchmarks/tuning.py", "--out", str(TUNING_DIR), check=True)


SECTIONS = {"main": main_table, "baselines": baselines,
            "generalisation": generalisation, "compare": compare, "tuning": tuning}


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

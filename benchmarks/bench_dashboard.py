"""How long the dashboard takes to read a RUNS_DIR of 500 runs (the first
page's data, and again once cached), and to build a page over them.

    python benchmarks/bench_dashboard.py [--runs 500]
"""
from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import evolution  # noqa: F401  (pins the numeric kernels before numpy loads)
from evolution.config import EvolutionConfig
from evolution.loop.evolve import evolve


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=500)
    args = p.parse_args()
    from plots.dashboard.page import Page
    from plots.dashboard.runs import RunsDir

    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp) / "one"
        evolve(EvolutionConfig(generations=20, population=6, max_steps=300, workers=1), one)
        root = Path(tmp) / "runs"
        for k in range(args.runs):
            shutil.copytree(one, root / f"group{k // 50}" / f"run{k}")
        runs = RunsDir(root)
        t0 = time.perf_counter()
        rows = runs.rows()
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        runs.rows()
        again = time.perf_counter() - t0
        t0 = time.perf_counter()
        Page(runs).refresh()
        page = time.perf_counter() - t0
    print(f"{len(rows)} runs of 21 generations: first read {first:.2f} s, a refresh "
          f"{again * 1000:.0f} ms, a page built over them {page:.2f} s (target: open in 2 s)")


if __name__ == "__main__":
    main()

"""An evolution run end to end on each engine: the README's main command,
`python -m evolution.run --generations 200 --stage hillside --seed 0`,
with `--engine compiled` (after the engine is loaded once, as any second
run finds it) and `--engine python`. Target: compiled >= 5x faster. Also
where the compiled run's time goes: evaluating generations (the
logbook's seconds, which include selection and variation) against the
whole wall time (start-up, checkpoints, summary).

Set GENERATIONS in the environment for a shorter run. Nothing is asserted.
"""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GENERATIONS = int(os.environ.get("GENERATIONS", "200"))
TARGET = 5.0


def run(engine: str, out: Path) -> float:
    cmd = [sys.executable, "-m", "evolution.run", "--generations", str(GENERATIONS),
           "--stage", "hillside", "--seed", "0", "--engine", engine, "--quiet",
           "--out", str(out)]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def generation_seconds(out: Path) -> float:
    with open(out / "logbook.csv", newline="") as f:
        return sum(float(row["seconds"]) for row in csv.DictReader(f))


def best(out: Path) -> tuple:
    data = json.loads((out / "best.json").read_text())
    return data["genome"], data["fitness"]


def main() -> None:
    subprocess.run([sys.executable, "-c",
                    "from speednik.engine import warm_up; warm_up(['basic'], ['linear'])"],
                   check=True, cwd=ROOT)
    with tempfile.TemporaryDirectory() as tmp:
        compiled = run("compiled", Path(tmp) / "compiled")
        python = run("python", Path(tmp) / "python")
        gens = generation_seconds(Path(tmp) / "compiled")
        same = best(Path(tmp) / "compiled") == best(Path(tmp) / "python")
    print(f"== evolution.run --generations {GENERATIONS} --stage hillside --seed 0 "
          f"({os.cpu_count()} CPUs, default workers)")
    print(f"--engine python     {python:7.1f} s")
    ratio = python / compiled
    print(f"--engine compiled   {compiled:7.1f} s   {ratio:.1f}x faster "
          f"({'meets' if ratio >= TARGET else 'MISSES'} the target of {TARGET:g}x)")
    print(f"  of which generations (evaluation, selection, variation) {gens:.1f} s, "
          f"the rest (start-up, checkpoints, summary) {compiled - gens:.1f} s")
    print(f"same best.json from both engines: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()

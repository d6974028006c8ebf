"""A fixed set of small evolution runs, and what of them must never change
by accident: every logbook column but the times, the best genome, its
fitness, its per-stage rewards and steps, and its held-out goals.

`python tests/reference_runs.py` re-records `fixtures/reference_runs.json`;
do that only for a deliberate change to what a run computes, never to make
a refactor pass.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

FIXTURE = Path(__file__).parent / "fixtures" / "reference_runs.json"

# name -> settings; each covers a search, a policy, an observation and
# held-out tests, and together they cover every pairing of the first two.
RUNS: dict[str, dict] = {
    "ga-linear-basic": dict(algorithm="ga", policy="linear", observation="basic",
                            stages=("hillside", "gen:easy:0-3"), stages_per_generation=2,
                            test_stages=("gen:medium:500-502",), test_every=2),
    "ga-mlp-terrain": dict(algorithm="ga", policy="mlp", hidden=4, observation="terrain",
                           stages=("gen:medium:0-2",),
                           test_stages=("gen:hard:500-501",), test_every=3),
    "cmaes-linear-terrain": dict(algorithm="cmaes", policy="linear", observation="terrain",
                                 stages=("gen:medium:0-3",), stages_per_generation=2,
                                 test_stages=("gen:hard:500-501",), test_every=2),
    "cmaes-mlp-basic": dict(algorithm="cmaes", policy="mlp", hidden=3, observation="basic",
                            stages=("hillside",), test_stages=("gen:easy:500",), test_every=2),
}
COMMON = dict(generations=5, population=8, seed=3, max_steps=900, checkpoint_every=2,
              workers=1)
TIME_COLUMNS = ("seconds",)
# The columns the fixture was recorded with; columns added since (frames
# played) are checked by their own tests.
RECORDED_COLUMNS = ("gen", "evals", "min", "mean", "max", "std", "best_progress",
                    "completions", "test_goals", "test_progress")


def config_of(name: str, **changes):
    from evolution.config import EvolutionConfig

    return EvolutionConfig(**{**COMMON, **RUNS[name], **changes})


def digest(run_dir: Path) -> dict:
    """What a finished run directory must keep giving."""
    best = json.loads((run_dir / "best.json").read_text())
    rows = []
    import csv
    with open(run_dir / "logbook.csv", newline="") as f:
        for row in csv.DictReader(f):
            rows.append({k: v for k, v in row.items() if k in RECORDED_COLUMNS})
    genome = np.asarray(best["genome"], dtype=np.float64)
    per_stage = {stage: [r["total_reward"], r["steps"]]
                 for stage, r in sorted(best["results"].items())}
    held = best.get("held_out") or {}
    return {
        "logbook": hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest(),
        "generations": len(rows),
        "best_genome": hashlib.sha256(genome.tobytes()).hexdigest(),
        "best_fitness": best["fitness"],
        "per_stage": per_stage,
        "held_out_goals": held.get("goals"),
    }


def run(name: str, out: Path) -> dict:
    from evolution.evolve import evolve

    evolve(config_of(name), out)
    return digest(out)


def main() -> None:
    import tempfile

    recorded = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in RUNS:
            recorded[name] = run(name, Path(tmp) / name)
            print(name, recorded[name]["best_fitness"])
    FIXTURE.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main()

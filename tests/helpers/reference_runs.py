"""A fixed set of small evolution runs, and what of them must never change
by accident: every logbook column but the times, the best genome, its
fitness, its per-stage rewards and steps, and its held-out goals.

`python tests/helpers/reference_runs.py` re-records `fixtures/reference_runs.json`;
do that only for a deliberate change to what a run computes, never to make
a refactor pass. `python tests/helpers/reference_runs.py --check OUT` writes what
the runs give now (straight, resumed, readable engine) to OUT as JSON.

Both run in a fresh interpreter with no numeric setting made by hand:
CMA-ES does its linear algebra in numpy, whose loops round differently
on AVX-512 and AVX2 machines, and importing `evolution` first pins them
to AVX2 (`evolution.numeric_env`), so the fixture holds on any x86-64
machine with AVX2. `--numeric OUT` writes the digests of short CMA-ES,
OpenAI-ES and MAP-Elites runs and the kernels they ran on, for comparing
the default with other numeric settings.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

# Before numpy: importing evolution pins the numeric kernels.
import evolution  # noqa: F401
import numpy as np

from evolution.numeric_env import OPT_OUT, PINNED_KERNELS, numeric_environment

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "reference_runs.json"
# Compared with the fixture on the readable engine as well.
READABLE_RUNS = ("ga-mlp-terrain", "cmaes-linear-terrain")

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
    from evolution.loop.evolve import evolve

    evolve(config_of(name), out)
    return digest(out)


def resumed(name: str, out: Path) -> dict:
    """The run stopped on a tested generation, then resumed to its end (the
    last generation of a run is always tested, so stopping elsewhere would
    add a test the fixture lacks)."""
    from evolution.loop.evolve import evolve

    evolve(config_of(name, generations=RUNS[name]["test_every"]), out)
    evolve(config_of(name), out, resume=True)
    return digest(out)


def readable(name: str, out: Path) -> dict:
    from evolution.loop.evolve import evolve

    evolve(config_of(name, engine="python"), out)
    return digest(out)


def check(tmp: Path) -> dict:
    """{"run"|"resumed"|"readable": {name: digest}}, computed now."""
    return {
        "run": {name: run(name, tmp / "run" / name) for name in RUNS},
        "resumed": {name: resumed(name, tmp / "resumed" / name) for name in RUNS},
        "readable": {name: readable(name, tmp / "readable" / name) for name in READABLE_RUNS},
    }


# Short runs of the searches that do numpy arithmetic; the CMA-ES one
# departs from its pinned self on an AVX-512 machine left unpinned.
# OpenAI-ES keeps the settings its digest was recorded with (its defaults
# until tuning changed them).
NUMERIC_RUNS: dict[str, dict] = {
    algorithm: dict(RUNS["cmaes-linear-terrain"], algorithm=algorithm)
    for algorithm in ("cmaes", "openai-es", "map-elites")}
NUMERIC_RUNS["openai-es"]["options"] = {"es_sigma": 0.1, "es_lr": 0.1, "es_weight_decay": 0.005}


def numeric(tmp: Path) -> dict:
    """The kernels this process computes with, and a digest of each of
    NUMERIC_RUNS."""
    from evolution.config import EvolutionConfig
    from evolution.loop.evolve import evolve

    runs = {}
    for name, settings in NUMERIC_RUNS.items():
        evolve(EvolutionConfig(**{**COMMON, **settings}), tmp / name)
        runs[name] = digest(tmp / name)
    return {"environment": numeric_environment(), "runs": runs}


def fresh(argv: list[str], **environ: str) -> subprocess.CompletedProcess:
    """This script run with `argv` in a fresh interpreter, with the numeric
    settings of `environ` and none other made by hand."""
    env = {k: v for k, v in os.environ.items() if k not in (*PINNED_KERNELS, OPT_OUT)}
    return subprocess.run([sys.executable, __file__, *argv], capture_output=True, text=True,
                          env={**env, **environ})


def main(argv: list[str]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        if argv[:1] == ["--numeric"]:
            Path(argv[1]).write_text(json.dumps(numeric(Path(tmp))))
            return
        if not numeric_environment()["pinned"]:
            raise SystemExit(f"the reference runs need the pinned numeric kernels: unset "
                             f"{OPT_OUT}, OPENBLAS_CORETYPE and NPY_DISABLE_CPU_FEATURES")
        if argv[:1] == ["--check"]:
            Path(argv[1]).write_text(json.dumps(check(Path(tmp))))
            return
        recorded = {}
        for name in RUNS:
            recorded[name] = run(name, Path(tmp) / name)
            print(name, recorded[name]["best_fitness"])
    FIXTURE.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    main(sys.argv[1:])

"""What a run directory holds besides the checkpoint: `config.json`,
`logbook.csv` and `best.json`, each written atomically."""
from __future__ import annotations

import csv
import io
import json
import platform
from importlib import metadata
from pathlib import Path

import numpy as np

from evolution.atomic import atomic_write_json, atomic_write_text
from evolution.config import EvolutionConfig
from evolution.ga import LOGBOOK_HEADER
from speednik.actions import NUM_ACTIONS
from speednik.observation import get_observation

CONFIG_NAME = "config.json"
LOGBOOK_NAME = "logbook.csv"
BEST_NAME = "best.json"
BEST_FORMAT = "speednik-evolve-genome"


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in ("speednik-evolve", "numpy", "deap", "gymnasium", "matplotlib"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def write_config(run_dir: Path, config: EvolutionConfig) -> None:
    atomic_write_json(run_dir / CONFIG_NAME, {
        "format": "speednik-evolve-run",
        "settings": config.to_dict(),
        "seed": config.seed,
        "versions": package_versions(),
    })


def read_config(run_dir: Path) -> EvolutionConfig:
    with open(run_dir / CONFIG_NAME) as f:
        data = json.load(f)
    return EvolutionConfig.from_dict(data["settings"])


def write_logbook(run_dir: Path, records: list[dict]) -> None:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(LOGBOOK_HEADER),
                            extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for r in records:
        writer.writerow(r)
    atomic_write_text(run_dir / LOGBOOK_NAME, buf.getvalue())


def read_logbook(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    out = []
    for row in rows:
        out.append({k: (int(v) if k in ("gen", "evals", "completions")
                        else float(v)) for k, v in row.items()})
    return out


def best_record(config: EvolutionConfig, genome: np.ndarray, fitness: float,
                summary: dict, generation: int) -> dict:
    encoder = get_observation(config.observation)
    return {
        "format": BEST_FORMAT,
        "genome": [float(x) for x in np.asarray(genome)],
        "observation": encoder.name,
        "obs_dim": encoder.size,
        "num_actions": NUM_ACTIONS,
        "stages": list(config.stages),
        "max_steps": config.max_steps,
        "stall_frames": config.stall_frames,
        "fitness": float(fitness),
        "found_in_generation": generation,
        "seed": config.seed,
        "results": summary["results"],
    }


def write_best(run_dir: Path, record: dict) -> None:
    atomic_write_json(run_dir / BEST_NAME, record)

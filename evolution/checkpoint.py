"""Checkpoints: everything needed to continue a run exactly.

Individuals are stored as plain arrays with their fitness, never as DEAP
objects, so a checkpoint loads in any process whatever `creator` holds.
The file is written atomically: killed at any moment, the run leaves the
previous checkpoint or the new one.
"""
from __future__ import annotations

import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from runners.atomic import atomic_write_bytes

CHECKPOINT_NAME = "checkpoint.pkl"
FORMAT = "speednik-evolve-checkpoint"
VERSION = 1


class CheckpointError(ValueError):
    """A checkpoint that is missing, damaged, or from something else."""


@dataclass
class Checkpoint:
    generation: int
    population: list[tuple[np.ndarray, float]]
    hall_of_fame: list[tuple[np.ndarray, float]]
    logbook: list[dict]
    random_state: Any
    summaries: dict[bytes, tuple[float, dict]]
    config: dict
    elapsed: float


def save_checkpoint(run_dir: str | Path, ckpt: Checkpoint) -> Path:
    path = Path(run_dir) / CHECKPOINT_NAME
    atomic_write_bytes(path, pickle.dumps({
        "format": FORMAT, "version": VERSION,
        "generation": ckpt.generation,
        "population": [(np.asarray(g).copy(), f) for g, f in ckpt.population],
        "hall_of_fame": [(np.asarray(g).copy(), f) for g, f in ckpt.hall_of_fame],
        "logbook": [dict(r) for r in ckpt.logbook],
        "random_state": ckpt.random_state,
        "summaries": ckpt.summaries,
        "config": ckpt.config,
        "elapsed": ckpt.elapsed,
    }, protocol=pickle.HIGHEST_PROTOCOL))
    return path


def load_checkpoint(run_dir: str | Path) -> Checkpoint:
    path = Path(run_dir) / CHECKPOINT_NAME
    if not Path(run_dir).is_dir():
        raise CheckpointError(f"{run_dir}: no such run directory")
    if not path.is_file():
        raise CheckpointError(
            f"{run_dir}: not a run directory of this tool (no {CHECKPOINT_NAME})")
    try:
        with open(path, "rb") as f:
            data = pickle.load(f)
    except Exception as exc:  # a torn or foreign pickle: say so, no traceback
        raise CheckpointError(f"{path}: unreadable checkpoint ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a checkpoint of this tool")
    if data.get("version") != VERSION:
        raise CheckpointError(
            f"{path}: checkpoint version {data.get('version')!r}, this tool "
            f"reads version {VERSION}")
    return Checkpoint(
        generation=data["generation"], population=data["population"],
        hall_of_fame=data["hall_of_fame"], logbook=data["logbook"],
        random_state=data["random_state"], summaries=data["summaries"],
        config=data["config"], elapsed=data["elapsed"])

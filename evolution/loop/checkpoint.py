"""Checkpoints: everything needed to continue a run exactly, as data only.

`checkpoint.npz` is a numpy archive read with `allow_pickle=False`, so a
crafted file cannot run code: the genomes and their fitness are float64
arrays (genomes of one size as the rows of a matrix; of different sizes,
as a NEAT run's are, one after another in one row, their lengths beside
in `<name>_lengths`), Python's `random` state is its 625 integers plus the
version and `gauss_next` (random.getstate() as data), and the rest (settings, logbook,
episode summaries) is one JSON text. Floats survive both exactly, so a
resumed run continues bit for bit. The file is written atomically: killed
at any moment, the run leaves the previous checkpoint or the new one.
"""
from __future__ import annotations

import io
import json
import math
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evolution.search_state import SEARCH_PREFIX, CheckpointError
from runners.atomic import atomic_write_bytes

CHECKPOINT_NAME = "checkpoint.npz"
# The pickle an earlier version wrote; never loaded (a pickle can run code).
LEGACY_NAME = "checkpoint.pkl"
FORMAT = "speednik-evolve-checkpoint"
VERSION = 2
ARRAYS = ("population", "population_fitness", "hall_of_fame", "hall_of_fame_fitness",
          "summary_genomes", "random_internal", "meta")

Scored = list[tuple[np.ndarray, float]]
REPORTER_PREFIX = "reporter_"
# The genome arrays, each a matrix, or one row beside `<name>_lengths`.
GENOME_ARRAYS = ("population", "hall_of_fame", "summary_genomes")
LENGTHS_SUFFIX = "_lengths"


@dataclass
class Checkpoint:
    generation: int
    population: Scored
    hall_of_fame: Scored
    logbook: list[dict]
    random_state: Any
    summaries: dict[bytes, tuple[float, dict]]
    config: dict
    elapsed: float
    # A search strategy's state ({"arrays": name -> ndarray, "meta": dict}),
    # for CMA-ES; None for the genetic algorithm.
    search: dict | None = None
    # What reporters keep across a resume (the validation's choice), in
    # the same form; None when none keeps anything.
    reporters: dict | None = None


def genome_arrays(name: str, genomes: list[np.ndarray]) -> dict[str, np.ndarray]:
    """Genomes of one size as a matrix under `name`; of several sizes,
    concatenated under `name` with their lengths under `name_lengths`."""
    genomes = [np.asarray(g, dtype=np.float64).ravel() for g in genomes]
    if not genomes:
        return {name: np.zeros((0, 0), dtype=np.float64)}
    lengths = [g.size for g in genomes]
    if len(set(lengths)) == 1:
        return {name: np.stack(genomes)}
    return {name: np.concatenate(genomes),
            name + LENGTHS_SUFFIX: np.array(lengths, dtype=np.int64)}


def stored_genomes(arrays: dict[str, np.ndarray], name: str) -> list[np.ndarray]:
    """The genomes `genome_arrays` stored under `name`, in order."""
    flat = arrays[name]
    lengths = arrays.get(name + LENGTHS_SUFFIX)
    if lengths is None:
        if flat.ndim != 2:
            raise ValueError(f"{name} is not a matrix of genomes")
        return [g.copy() for g in flat]
    if (flat.ndim != 1 or lengths.dtype != np.int64 or lengths.ndim != 1
            or np.any(lengths < 0) or int(lengths.sum()) != flat.size):
        raise ValueError(f"{name} and its lengths do not match")
    if not lengths.size:
        return []
    return [g.copy() for g in np.split(flat, np.cumsum(lengths)[:-1])]


def checkpoint_bytes(ckpt: Checkpoint) -> bytes:
    """The checkpoint as the bytes of an .npz archive."""
    version, internal, gauss_next = ckpt.random_state
    keys = list(ckpt.summaries)
    meta = {
        "format": FORMAT, "version": VERSION,
        "generation": ckpt.generation, "elapsed": ckpt.elapsed,
        "config": ckpt.config, "logbook": [dict(r) for r in ckpt.logbook],
        "random_version": version, "gauss_next": gauss_next,
        "summaries": [ckpt.summaries[k] for k in keys],
        "search": None if ckpt.search is None else ckpt.search["meta"],
    }
    if ckpt.reporters is not None:
        meta["reporters"] = ckpt.reporters["meta"]
    search_arrays = {} if ckpt.search is None else {
        SEARCH_PREFIX + name: np.asarray(a) for name, a in ckpt.search["arrays"].items()}
    if ckpt.reporters is not None:
        search_arrays.update({REPORTER_PREFIX + name: np.asarray(a)
                              for name, a in ckpt.reporters["arrays"].items()})
    summary_genomes = genome_arrays("summary_genomes", [np.frombuffer(k, dtype=np.float64)
                                                         for k in keys])
    if not keys:
        genome_size = len(ckpt.population[0][0]) if ckpt.population else 0
        summary_genomes["summary_genomes"] = np.zeros((0, genome_size))
    buf = io.BytesIO()
    np.savez(
        buf,
        **genome_arrays("population", [g for g, _ in ckpt.population]),
        population_fitness=np.array([f for _, f in ckpt.population], dtype=np.float64),
        **genome_arrays("hall_of_fame", [g for g, _ in ckpt.hall_of_fame]),
        hall_of_fame_fitness=np.array([f for _, f in ckpt.hall_of_fame], dtype=np.float64),
        **summary_genomes,
        random_internal=np.array(internal, dtype=np.int64),
        meta=np.array(json.dumps(meta, allow_nan=False)),
        **search_arrays)
    return buf.getvalue()


def save_checkpoint(run_dir: str | Path, ckpt: Checkpoint) -> Path:
    path = Path(run_dir) / CHECKPOINT_NAME
    atomic_write_bytes(path, checkpoint_bytes(ckpt))
    return path


def load_checkpoint(run_dir: str | Path) -> Checkpoint:
    """The checkpoint of a run directory; `CheckpointError` (one line) for
    a missing, torn, old or foreign one."""
    run_dir = Path(run_dir)
    path = run_dir / CHECKPOINT_NAME
    if not run_dir.is_dir():
        raise CheckpointError(f"{run_dir}: no such run directory")
    if not path.is_file():
        if (run_dir / LEGACY_NAME).exists():
            raise CheckpointError(
                f"{run_dir}: holds {LEGACY_NAME}, the pickle checkpoint of an earlier "
                f"version, which is never loaded (a pickle can run code); this version "
                f"resumes from {CHECKPOINT_NAME}: start a new run")
        raise CheckpointError(
            f"{run_dir}: not a run directory of this tool (no {CHECKPOINT_NAME})")
    if not zipfile.is_zipfile(path):
        # numpy reads any other file as a pickle it refuses, and says so.
        raise CheckpointError(
            f"{path}: unreadable checkpoint (not a .npz archive); accepted: a "
            f"{CHECKPOINT_NAME} written by this tool")
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in ARRAYS}
            arrays.update({name + LENGTHS_SUFFIX: npz[name + LENGTHS_SUFFIX]
                           for name in GENOME_ARRAYS if name + LENGTHS_SUFFIX in npz.files})
            search_arrays = {name[len(SEARCH_PREFIX):]: npz[name] for name in npz.files
                             if name.startswith(SEARCH_PREFIX)}
            reporter_arrays = {name[len(REPORTER_PREFIX):]: npz[name] for name in npz.files
                               if name.startswith(REPORTER_PREFIX)}
        meta = json.loads(str(arrays["meta"][()]))
    except (OSError, ValueError, KeyError, EOFError, RecursionError,
            zipfile.BadZipFile) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else exc
        raise CheckpointError(
            f"{path}: unreadable checkpoint ({reason}); accepted: a {CHECKPOINT_NAME} "
            f"written by this tool") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a checkpoint of this tool")
    if meta.get("version") != VERSION:
        raise CheckpointError(
            f"{path}: checkpoint version {meta.get('version')!r}, this tool "
            f"reads version {VERSION}")
    try:
        ckpt = _checked(arrays, meta)
        search = meta.get("search")
        if search is not None:
            if not isinstance(search, dict) or not search_arrays:
                raise ValueError("the search strategy's state is incomplete")
            ckpt.search = {"arrays": search_arrays, "meta": search}
        reporters = meta.get("reporters")
        if reporters is not None:
            if not isinstance(reporters, dict):
                raise ValueError("the reporters' state is malformed")
            ckpt.reporters = {"arrays": reporter_arrays, "meta": reporters}
        return ckpt
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"{path}: damaged checkpoint ({exc})") from None


def _checked(arrays: dict[str, np.ndarray], meta: dict) -> Checkpoint:
    floats = ("population", "population_fitness", "hall_of_fame",
              "hall_of_fame_fitness", "summary_genomes")
    for name in floats:
        if arrays[name].dtype != np.float64:
            raise ValueError(f"{name} is {arrays[name].dtype}, not float64")
    pop, pop_fit = stored_genomes(arrays, "population"), arrays["population_fitness"]
    hof, hof_fit = stored_genomes(arrays, "hall_of_fame"), arrays["hall_of_fame_fitness"]
    if pop_fit.shape != (len(pop),):
        raise ValueError("population and its fitness do not match")
    if hof_fit.shape != (len(hof),):
        raise ValueError("hall of fame and its fitness do not match")
    for name, values in (("population_fitness", pop_fit), ("hall_of_fame_fitness", hof_fit)):
        bad = values[~np.isfinite(values)]
        if bad.size:
            raise ValueError(f"{name} holds {bad[0]}, not a finite fitness")
    internal = arrays["random_internal"]
    if internal.dtype != np.int64 or internal.shape != (625,):
        raise ValueError("the random state is not 625 integers")
    gauss_next = meta["gauss_next"]
    if gauss_next is not None and not (isinstance(gauss_next, float)
                                       and math.isfinite(gauss_next)):
        raise ValueError(f"gauss_next is {gauss_next!r}")
    genomes = stored_genomes(arrays, "summary_genomes")
    summaries = meta["summaries"]
    if len(genomes) != len(summaries):
        raise ValueError("summaries and their genomes do not match")
    for summary in summaries:
        if not (isinstance(summary, list) and len(summary) == 2
                and isinstance(summary[0], (int, float)) and math.isfinite(summary[0])):
            raise ValueError(f"an episode summary's fitness is {summary[0]!r}"
                             if isinstance(summary, list) and summary
                             else "an episode summary is malformed")
    generation, elapsed = meta["generation"], meta["elapsed"]
    if not isinstance(generation, int) or generation < 0:
        raise ValueError(f"generation is {generation!r}")
    if not isinstance(meta["config"], dict) or not isinstance(meta["logbook"], list):
        raise ValueError("config or logbook malformed")
    return Checkpoint(
        generation=generation,
        population=[(g, float(f)) for g, f in zip(pop, pop_fit)],
        hall_of_fame=[(g, float(f)) for g, f in zip(hof, hof_fit)],
        logbook=meta["logbook"],
        random_state=(int(meta["random_version"]),
                      tuple(int(x) for x in internal), gauss_next),
        summaries={g.tobytes(): (float(s[0]), s[1]) for g, s in zip(genomes, summaries)},
        config=meta["config"], elapsed=float(elapsed))

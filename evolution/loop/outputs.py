"""What a run directory holds besides the checkpoint: `config.json` and
`logbook.csv`, their names, formats, writing (atomic) and reading, and the
best genome, written through `runners.genome_file` (`best.json`).

Everything else (resume, the plots) reads these files through here.
"""
from __future__ import annotations

import csv
import io
import json
import os
import platform
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from evolution.config import EvolutionConfig
from evolution.config_file import CONFIG_TOML_NAME, config_toml
from evolution.loop.generation import LOGBOOK_HEADER, OPTIONAL_COLUMNS
from evolution.numeric_env import numeric_environment
from runners.atomic import atomic_write_bytes, atomic_write_json, atomic_write_text
from runners.genome_file import BEST_NAME, STAGE_COPIES, json_limit, write_genome_file

CONFIG_NAME = "config.json"
# With keep_candidates: one genome file per validated candidate.
CANDIDATES_DIR = "candidates"
LOGBOOK_NAME = "logbook.csv"
RUN_FORMAT = "speednik-evolve-run"
LOGBOOK_COLUMNS = LOGBOOK_HEADER
# Columns that count something: read back as whole numbers.
COUNT_COLUMNS = ("gen", "evals", "completions", "test_goals", "frames", "val_goals",
                 "species", "start", "start_val_goals")
RUN_ACCEPTED = (f"a run directory written by evolution holds {CONFIG_NAME} and "
                f"{LOGBOOK_NAME} (columns {','.join(LOGBOOK_COLUMNS)})")

__all__ = ["BEST_NAME", "CANDIDATES_DIR", "CONFIG_NAME", "LOGBOOK_NAME", "RUN_FORMAT",
           "RunFileError", "write_config", "read_config", "read_config_data", "write_logbook",
           "read_logbook", "read_logbook_columns", "write_best", "write_candidate",
           "run_complete"]


class RunFileError(ValueError):
    """A run file that is missing or malformed; the message names the file,
    what is wrong and what is accepted."""


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in ("speednik-evolve", "numpy", "numba", "deap", "gymnasium", "matplotlib",
                 "neat-python"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def write_config(run_dir: Path, config: EvolutionConfig,
                 numeric: dict[str, Any] | None = None) -> None:
    """config.json and config.toml; `numeric` is the numeric environment the run started
    in (this process's when not given): a resumed run keeps the record of
    its first start."""
    atomic_write_json(Path(run_dir) / CONFIG_NAME, {
        "format": RUN_FORMAT,
        "settings": config.to_dict(),
        "seed": config.seed,
        "versions": package_versions(),
        "numeric": numeric or numeric_environment(),
    })
    # The same settings as a file that plays the run again (--config).
    atomic_write_text(Path(run_dir) / CONFIG_TOML_NAME, config_toml(config))


def read_config_data(run_dir: str | os.PathLike) -> dict[str, Any]:
    """config.json as checked data: a dict with "format" and a "settings"
    dict; `RunFileError` otherwise."""
    path = Path(run_dir) / CONFIG_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as e:
        raise RunFileError(f"{path}: not readable JSON ({json_limit(e)}); "
                           f"{RUN_ACCEPTED}") from None
    if (not isinstance(data, dict) or data.get("format") != RUN_FORMAT
            or not isinstance(data.get("settings"), dict)):
        raise RunFileError(
            f"{path}: not a run configuration; expected a JSON object with "
            f"\"format\": \"{RUN_FORMAT}\" and \"settings\"")
    return data


def read_config(run_dir: str | os.PathLike) -> EvolutionConfig:
    """The settings config.json records, checked as a configuration."""
    data = read_config_data(run_dir)
    try:
        return EvolutionConfig.from_dict(data["settings"])
    except (TypeError, ValueError) as e:
        raise RunFileError(f"{Path(run_dir) / CONFIG_NAME}: bad settings ({e})") from None


def write_logbook(run_dir: Path, records: list[dict], durable: bool = True) -> None:
    buf = io.StringIO()
    # Columns only some runs log (a strategy's own, validation's) follow
    # the standard ones, in the order the first row has them.
    extra = [c for c in (records[0] if records else ()) if c not in LOGBOOK_HEADER]
    writer = csv.DictWriter(buf, fieldnames=[*LOGBOOK_HEADER, *extra],
                            extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for r in records:
        writer.writerow(r)
    atomic_write_text(Path(run_dir) / LOGBOOK_NAME, buf.getvalue(), durable)


def read_logbook(path: Path) -> list[dict]:
    """The logbook's rows as dicts of numbers (a run directory or the
    logbook file itself): every column, those a method or validation adds
    included; a cell left empty (a generation not tested) is None."""
    columns = read_logbook_columns(path)
    n = len(columns["gen"])
    def value(k: str, x: float):
        if k not in LOGBOOK_COLUMNS or k in OPTIONAL_COLUMNS:
            if np.isnan(x):
                return None
        return int(x) if k in COUNT_COLUMNS else float(x)

    return [{k: value(k, v[i]) for k, v in columns.items()} for i in range(n)]


def read_logbook_columns(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """One numpy column per logbook column, the columns every run has and
    then any a method or validation adds (NaN where empty); `RunFileError`
    naming the file, row and column when something is missing or
    malformed."""
    path = Path(path)
    if path.is_dir():
        path = path / LOGBOOK_NAME
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            header = reader.fieldnames or []
            rows = list(reader)
    except FileNotFoundError:
        raise RunFileError(f"{path}: missing; {RUN_ACCEPTED}") from None
    except (OSError, csv.Error, UnicodeDecodeError) as e:
        raise RunFileError(f"{path}: not readable ({e}); {RUN_ACCEPTED}") from None
    missing = [c for c in LOGBOOK_COLUMNS if c not in header and c not in OPTIONAL_COLUMNS]
    if missing:
        raise RunFileError(f"{path}: no column(s) {', '.join(missing)}; {RUN_ACCEPTED}")
    if not rows:
        raise RunFileError(f"{path}: no generations logged yet; {RUN_ACCEPTED}")
    columns: dict[str, np.ndarray] = {}
    added = [c for c in header if c not in LOGBOOK_COLUMNS]
    for name in (*LOGBOOK_COLUMNS, *added):
        if name in OPTIONAL_COLUMNS or name in added:
            # Empty in generations that were not tested (NaN here).
            cells = [r.get(name) for r in rows]
            cells = [c if c not in (None, "") else "nan" for c in cells]
        else:
            cells = [r[name] for r in rows]
        try:
            columns[name] = np.array([float(c) for c in cells])
        except (TypeError, ValueError):
            bad = next(i for i, c in enumerate(cells) if not _is_float(c))
            raise RunFileError(
                f"{path}: row {bad + 2}, column {name}: {rows[bad][name]!r} is not a "
                f"number; {RUN_ACCEPTED}") from None
    return columns


def _is_float(text: Any) -> bool:
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return True


def write_best(run_dir: Path, config: EvolutionConfig, genome: np.ndarray,
               fitness: float, summary: dict, generation: int,
               held_out: dict | None = None, chosen: dict | None = None,
               action_repeat: int | None = None) -> None:
    """best.json: the best genome with all it needs to be replayed, its
    held-out results when it was tested, and which validation candidate
    it was when it was chosen on validation stages; `action_repeat` is the
    one its fitness was scored at (default: the run's)."""
    _write_run_genome(Path(run_dir) / BEST_NAME, config, genome, fitness, summary, generation,
                      config.action_repeat if action_repeat is None else action_repeat,
                      held_out=held_out, chosen=chosen)


def _write_run_genome(path: Path, config: EvolutionConfig, genome: np.ndarray,
                      fitness: float, summary: dict, generation: int, action_repeat: int,
                      held_out: dict | None = None, chosen: dict | None = None) -> None:
    """A genome of the run as a genome file, with the run's settings."""
    write_genome_file(
        path, genome, observation=config.observation,
        stages=list(config.stages), max_steps=config.max_steps,
        stall_frames=config.stall_frames, training_stall_frames=config.training_stall_frames,
        action_repeat=action_repeat, fitness=fitness, generation=generation,
        seed=config.seed, results=summary["results"], held_out=held_out,
        policy=config.policy_spec(), chosen=chosen)


def write_candidate(run_dir: Path, name: str, config: EvolutionConfig, genome: np.ndarray,
                    fitness: float, summary: dict, validated: dict,
                    action_repeat: int) -> Path:
    """run_dir/candidates/NAME.json: one candidate validation played, as a
    genome file anything that reads one replays; its `chosen` holds which
    candidate it was, the generation (and start) it was validated in and
    what it validated (`validated`). Written again alike on a resume."""
    path = Path(run_dir) / CANDIDATES_DIR / f"{name}.json"
    _write_run_genome(path, config, genome, fitness, summary, validated["generation"],
                      action_repeat, chosen=validated)
    return path


def keep_stage_copies(run_dir: Path, config: EvolutionConfig) -> None:
    """Copy each .toml profile of the run into `run_dir/stages/`, where
    replay and resume find it when the original has moved."""
    for stage in config.stages + config.validation_stages + config.test_stages:
        if stage.endswith(".toml"):
            source = Path(stage)
            target = Path(run_dir) / STAGE_COPIES / source.name
            if source.resolve() != target.resolve():
                atomic_write_bytes(target, source.read_bytes())


def run_complete(run_dir: str | os.PathLike) -> bool:
    """Whether the run in `run_dir` played its frame budget (`max_frames`)
    and wrote its final best.json, held-out results included when its task
    has test stages: such a run is read from its logbook and best.json
    alone, so it needs no checkpoint to count as done."""
    try:
        settings = read_config_data(run_dir)["settings"]
        rows = read_logbook(Path(run_dir))
        best = json.loads((Path(run_dir) / BEST_NAME).read_text(encoding="utf-8"))
    except (RunFileError, OSError, ValueError):
        return False
    budget = settings.get("max_frames")
    if budget is None or rows[-1]["frames"] < budget or not isinstance(best, dict):
        return False
    return not settings.get("test_stages") or best.get("held_out") is not None

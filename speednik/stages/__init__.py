"""Stages: the profile format, the builder, the built-in stages and the
generator.

    load_stage("hillside")            a built-in stage by name
    load_stage("my_stage.toml")       a profile file (see `profile`)
    load_stage("gen:hard:7")          a generated stage by name (see `sets`)
    expand_stages(["gen:hard:0-31"])  a generated set, one name per stage
    generate_stage(7, "hard")         a random stage from a seed
    list_stages()                     the built-in names

Building is deterministic, so every built stage is kept for the life of
the process: the same name (or file, or seed and difficulty) gives the
same `Stage` object, which simulations share and never modify. What is
derived from a stage (its object index, the encoders' tables, ...) is
built by the stage itself when first needed and kept on it: see
`speednik.stages.stage`.
"""
from __future__ import annotations

import os
from pathlib import Path

from speednik.stages.builder import build_stage
from speednik.stages.generator import generate_profile
from speednik.stages.profile import (
    DIFFICULTIES,
    EntitySpec,
    Profile,
    SegmentSpec,
    StageError,
    StageInfo,
    normalise_difficulty,
    parse_profile,
    profile_from_dict,
    profile_to_dict,
    profile_to_toml,
    read_profile,
)
from speednik.stages.sets import (
    MAX_SET_SIZE,
    StageSetError,
    expand_stages,
    is_stage_set,
    parse_stage_set,
    single_generated,
    stage_name,
)
from speednik.stages.stage import Stage

BUILTIN_STAGES = ("hillside", "pipeworks", "skybridge")
PROFILE_DIR = Path(__file__).resolve().parent / "profiles"

_CACHE: dict[object, Stage] = {}
# Built stages kept per process; a long run over many generated stages
# forgets the oldest instead of growing without bound.
CACHE_SIZE = 64


def _remember(key: object, stage: Stage) -> Stage:
    while len(_CACHE) >= CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = stage
    return stage


class UnknownStageError(StageError, KeyError):
    """An unknown stage name: a `StageError`, and a `KeyError` for callers
    that look stages up like a mapping."""

    def __str__(self) -> str:
        # KeyError would show the message quoted, as if it were a key.
        return str(self.args[0]) if self.args else ""


def list_stages() -> list[str]:
    """Names of the built-in stages, in play order."""
    return list(BUILTIN_STAGES)


def _is_path(name: str) -> bool:
    return name.endswith(".toml") or "/" in name or os.sep in name


def load_profile(name: str | os.PathLike[str]) -> Profile:
    """The profile of a built-in stage, or of a .toml file."""
    if isinstance(name, os.PathLike) or _is_path(str(name)):
        return read_profile(name)
    if name not in BUILTIN_STAGES:
        raise UnknownStageError(
            f"unknown stage {name!r}; accepted: {', '.join(BUILTIN_STAGES)}, "
            f"a path to a .toml profile, or a generated stage gen:DIFFICULTY:SEED")
    return read_profile(PROFILE_DIR / f"{name}.toml")


def load_stage(name: str | os.PathLike[str]) -> Stage:
    """A built-in stage by name, a stage from a profile file's path, or a
    generated stage named `gen:DIFFICULTY:SEED`."""
    if not isinstance(name, (str, os.PathLike)):
        raise StageError(f"a stage is named by a string, not {type(name).__name__}")
    if is_stage_set(name):
        seed, difficulty = single_generated(name)
        return generate_stage(seed, difficulty)
    if isinstance(name, os.PathLike) or _is_path(str(name)):
        path = Path(name).resolve()
        try:
            stamp = path.stat().st_mtime_ns
        except OSError:
            stamp = None   # read_profile reports the missing file
        key: object = ("file", str(path), stamp)
    else:
        key = ("builtin", name)
    stage = _CACHE.get(key)
    if stage is None:
        stage = _remember(key, build_stage(load_profile(name)))
    return stage


def generate_stage(seed: int, difficulty: str | int = "medium") -> Stage:
    """A random stage: the same seed and difficulty give the same stage."""
    level = normalise_difficulty(difficulty)
    key = ("generated", seed, level)
    stage = _CACHE.get(key)
    if stage is None:
        stage = _remember(key, build_stage(generate_profile(seed, level)))
    return stage


__all__ = [
    "Stage", "StageError", "UnknownStageError", "load_stage", "list_stages",
    "generate_stage", "load_profile", "build_stage", "generate_profile",
    "Profile", "StageInfo", "SegmentSpec", "EntitySpec", "read_profile",
    "parse_profile", "profile_from_dict", "profile_to_dict", "profile_to_toml",
    "BUILTIN_STAGES", "DIFFICULTIES", "StageSetError", "expand_stages", "is_stage_set",
    "parse_stage_set", "single_generated", "stage_name", "MAX_SET_SIZE",
]

"""Stages: the profile format, the builder, the built-in stages and the
generator.

    load_stage("hillside")            a built-in stage by name
    load_stage("my_stage.toml")       a profile file (see `profile`)
    load_stage("gen:hard:7")          a generated stage by name (see `sets`)
    load_stage("hillside@start+8")    a stage started 8 px further on (`start_shift`)
    expand_stages(["gen:hard:0-31"])  a generated set, one name per stage
    expand_stages(["handmade:heldout"])  a hand-made set, one path per stage
    generate_stage(7, "hard")         a random stage from a seed
    generate_stage(7, "skills")       a skill stage (see `skills`)
    generate_stage(7, "places")       a place stage (see `places`)
    generate_stage(7, "stalls")       a stall stage (see `stalls`)
    list_stages()                     the built-in names

Building is deterministic, so a built stage is kept and shared: the same
name (or file, or seed and difficulty) gives the same `Stage` object,
which simulations share and never modify. What is derived from a stage
(its object index, the encoders' tables, the compiled engine's arrays,
...) is built by the stage itself when first needed and kept on it: see
`speednik.stages.stage`.

Which stages a process keeps:

    with keep_stages(["gen:medium:0-63", "hillside"]) as kept:
        ...                               # every one built once, here

`keep_stages` builds the stages named (or finds them built) and keeps
them until released, however many they are: an evolution run keeps every
stage it trains and tests on for the whole run. Beyond those, the last
CACHE_SIZE stages used are kept, so a process that goes through many
stages once each (a replay over a large set, an environment drawing new
seeds) stays within a bounded memory.
"""
from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Callable, Iterable

from speednik.stages.builder import build_stage
from speednik.stages.certification import CERTIFIED_KINDS
from speednik.stages import generator as _generator
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
    GENERATED_KINDS,
    HANDMADE_DIR,
    HANDMADE_EXTRA_DIR,
    HANDMADE_HELDOUT_DIR,
    HANDMADE_NAMES,
    MAX_SEED,
    MAX_SET_SIZE,
    StageSetError,
    expand_stages,
    handmade_set,
    is_handmade_set,
    is_stage_set,
    names_several,
    parse_stage_set,
    single_generated,
    stage_label,
    stage_name,
)
from speednik.stages.stage import Stage
from speednik.stages.start_shift import START_MARK, shift_start, shifted_name, split_shift

BUILTIN_STAGES = ("hillside", "pipeworks", "skybridge")
PROFILE_DIR = Path(__file__).resolve().parent / "profiles"
# Hand-made stages that are not built-in (HANDMADE_DIR, the set
# handmade:validation): no run trains on them; they are there to choose
# settings by how policies play stages a designer wrote, as are the eight
# of its `extra` folder (handmade:extra). Those of its `heldout` folder
# (handmade:heldout), written apart, are only reported on.

# Stages kept by a `keep_stages` holder, with how many hold each, and the
# most recently used others (least recent first), at most CACHE_SIZE.
_KEPT: dict[object, Stage] = {}
_HOLDERS: dict[object, int] = {}
_RECENT: OrderedDict[object, Stage] = OrderedDict()
CACHE_SIZE = 64
# Stages are looked up and built from any thread; a stage is built once.
_LOCK = threading.RLock()


def _cached(key: object, build: Callable[[], Stage]) -> Stage:
    """The stage of `key`, built by `build()` if no stage of it is kept."""
    with _LOCK:
        stage = _KEPT.get(key)
        if stage is not None:
            return stage
        stage = _RECENT.get(key)
        if stage is not None:
            _RECENT.move_to_end(key)
            return stage
        stage = build()
        _RECENT[key] = stage
        _trim()
        return stage


def _trim() -> None:
    while len(_RECENT) > max(0, CACHE_SIZE):
        _RECENT.popitem(last=False)


class KeptStages:
    """Stages this process keeps, however many others it builds, until
    released: `add(name)` builds one (or finds it built) and keeps it;
    `release()` (or leaving a `with` block) lets them all go back to the
    bounded cache of recent stages. Several holders may keep one stage:
    it is kept until the last lets go."""

    def __init__(self) -> None:
        self._keys: list[object] = []
        self.stages: list[Stage] = []

    def add(self, name: str | os.PathLike[str]) -> Stage:
        """The stage `name` names (as `load_stage` takes it), kept."""
        key, build = _identify(name)
        with _LOCK:
            stage = _cached(key, build)
            _RECENT.pop(key, None)
            _KEPT[key] = stage
            _HOLDERS[key] = _HOLDERS.get(key, 0) + 1
            self._keys.append(key)
        self.stages.append(stage)
        return stage

    def release(self) -> None:
        """Stop keeping this holder's stages (a second call does nothing)."""
        with _LOCK:
            for key in self._keys:
                _HOLDERS[key] -= 1
                if _HOLDERS[key] == 0:
                    del _HOLDERS[key]
                    _RECENT[key] = _KEPT.pop(key)
            self._keys = []
            _trim()

    def __len__(self) -> int:
        return len(self.stages)

    def __enter__(self) -> KeptStages:
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def keep_stages(names: Iterable[str | os.PathLike[str]]) -> KeptStages:
    """Build every stage named (generated sets expanded; see `load_stage`)
    and keep them all until the result is released (or its `with` block
    ends). If a stage cannot be built, its error is raised and nothing is
    kept."""
    names = [one for name in names for one in expand_stages([name])]
    kept = KeptStages()
    try:
        for name in names:
            kept.add(name)
    except BaseException:
        kept.release()
        raise
    return kept


def kept_stage_count() -> tuple[int, int]:
    """(stages kept by holders, other stages kept) in this process now."""
    with _LOCK:
        return len(_KEPT), len(_RECENT)


class UnknownStageError(StageError, KeyError):
    """An unknown stage name: a `StageError`, and a `KeyError` for callers
    that look stages up like a mapping."""

    def __str__(self) -> str:
        # KeyError would show the message quoted, as if it were a key.
        return str(self.args[0]) if self.args else ""


def list_stages() -> list[str]:
    """Names of the built-in stages, in play order."""
    return list(BUILTIN_STAGES)


def handmade_stages() -> list[str]:
    """Paths of the hand-made validation stages (`HANDMADE_DIR`), by name."""
    return handmade_set("handmade:validation")


def handmade_extra_stages() -> list[str]:
    """Paths of the eight more hand-made stages to choose on
    (`HANDMADE_EXTRA_DIR`), by name."""
    return handmade_set("handmade:extra")


def handmade_heldout_stages() -> list[str]:
    """Paths of the hand-made held-out stages (`HANDMADE_HELDOUT_DIR`), by
    name: designed stages no setting is chosen on, reported apart."""
    return handmade_set("handmade:heldout")


def _is_path(name: str) -> bool:
    return name.endswith(".toml") or "/" in name or os.sep in name


def load_profile(name: str | os.PathLike[str]) -> Profile:
    """The profile of a built-in stage, or of a .toml file."""
    if isinstance(name, os.PathLike) or _is_path(str(name)):
        return read_profile(name)
    if name not in BUILTIN_STAGES:
        # A hand-made stage is listed by its file's name: say where it is.
        designed = next((p for p in (HANDMADE_DIR / f"{name}.toml",
                                      HANDMADE_EXTRA_DIR / f"{name}.toml",
                                      HANDMADE_HELDOUT_DIR / f"{name}.toml")
                         if p.is_file()), None)
        if designed is not None:
            raise UnknownStageError(
                f"{name!r} is a hand-made stage, named by its profile: "
                f"{os.path.relpath(designed)}")
        raise UnknownStageError(
            f"unknown stage {name!r}; accepted: {', '.join(BUILTIN_STAGES)}, "
            f"a path to a .toml profile, or a generated stage gen:DIFFICULTY:SEED")
    return read_profile(PROFILE_DIR / f"{name}.toml")


def _identify(name: str | os.PathLike[str]) -> tuple[object, Callable[[], Stage]]:
    """The cache key of the stage `name` names, and how to build it."""
    if not isinstance(name, (str, os.PathLike)):
        raise StageError(f"a stage is named by a string, not {type(name).__name__}")
    if isinstance(name, str) and START_MARK in name:
        base, dx = split_shift(name)
        key, build = _identify(base)
        if dx == 0:
            return key, build
        return ("shifted", key, dx), lambda: shift_start(_cached(key, build), dx, name)
    if is_handmade_set(name):
        paths = handmade_set(name)
        raise StageSetError(f"{name!r} names {len(paths)} stages where one is needed; "
                            f"accepted: one of its profiles, {paths[0]}")
    if is_stage_set(name):
        seed, difficulty = single_generated(name)
        return _generated(seed, difficulty)
    if isinstance(name, os.PathLike) or _is_path(str(name)):
        path = Path(name).resolve()
        try:
            stamp = path.stat().st_mtime_ns
        except OSError:
            stamp = None   # read_profile reports the missing file
        key: object = ("file", str(path), stamp)
    else:
        key = ("builtin", name)
    return key, lambda: build_stage(load_profile(name))


def generate_profile(seed: int, difficulty: str | int = "medium") -> Profile:
    """The profile of the random stage of `seed` at `difficulty`."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise StageError(f"seed must be an integer, got {seed!r}")
    if not 0 <= seed < MAX_SEED:
        # The same limit as a stage set's (gen:hard:SEED) and the env's levels.
        raise StageError(f"seed must be a whole number from 0 to {MAX_SEED - 1}, got {seed}")
    level = _generated_kind(difficulty)
    if level in CERTIFIED_KINDS:
        from speednik.stages.certification import certified_stage

        return certified_stage(seed, level)[0]
    return _generator.generate_profile(seed, level)


def _generated_kind(difficulty: str | int) -> str:
    """A difficulty's name, or the kind of the skill or place stages."""
    if difficulty in GENERATED_KINDS and difficulty not in DIFFICULTIES:
        return difficulty
    return normalise_difficulty(difficulty)


def _generated(seed: int, difficulty: str | int) -> tuple[object, Callable[[], Stage]]:
    level = _generated_kind(difficulty)
    if level in CERTIFIED_KINDS:
        # Certifying a stage builds it: keep that build.
        from speednik.stages.certification import certified_stage

        return ("generated", seed, level), lambda: certified_stage(seed, level)[1]
    return ("generated", seed, level), lambda: build_stage(generate_profile(seed, level))


def certify_expert_stages(names: Iterable[object], workers: int,
                          progress: Callable[[int, int], None] | None = None) -> None:
    """Run the planner on the expert, skill and place stages among `names`
    (single stages, as `expand_stages` gives them) in `workers` processes
    at once, so that building them afterwards in this process is quick;
    `progress(done, total)` after each, over every kind together. Names
    that are not well-formed generated stages are passed over: building
    them reports them."""
    seeds: dict[str, list[int]] = {kind: [] for kind in CERTIFIED_KINDS}
    for name in names:
        if not is_stage_set(name):
            continue
        try:
            seed, difficulty = single_generated(name)
            level = _generated_kind(difficulty)
        except StageError:
            continue
        if level in seeds:
            seeds[level].append(seed)
    from speednik.stages.certification import certify_in_parallel

    total = sum(len(kind_seeds) for kind_seeds in seeds.values())
    before = 0
    for kind, kind_seeds in seeds.items():
        if kind_seeds:
            counted = None if progress is None else (
                lambda done, _, before=before: progress(before + done, total))
            certify_in_parallel(kind_seeds, workers, counted, kind=kind)
            before += len(kind_seeds)


def playable_stages(specs: Iterable[str], workers: int) -> list[str]:
    """`expand_stages(specs)`, its expert, skill and place stages certified
    in `workers` processes and every stage built once, so that a name
    that names no stage raises StageError before anything is played."""
    names = expand_stages(specs)
    certify_expert_stages(names, workers)
    for name in names:
        load_stage(name)
    return names


def load_stage(name: str | os.PathLike[str]) -> Stage:
    """A built-in stage by name, a stage from a profile file's path, or a
    generated stage named `gen:DIFFICULTY:SEED`."""
    return _cached(*_identify(name))


def generate_stage(seed: int, difficulty: str | int = "medium") -> Stage:
    """A random stage: the same seed and difficulty give the same stage."""
    return _cached(*_generated(seed, difficulty))


__all__ = [
    "Stage", "StageError", "UnknownStageError", "load_stage", "playable_stages", "list_stages",
    "handmade_stages", "HANDMADE_DIR", "handmade_extra_stages", "HANDMADE_EXTRA_DIR",
    "handmade_heldout_stages", "HANDMADE_HELDOUT_DIR", "HANDMADE_NAMES",
    "generate_stage", "load_profile", "build_stage", "generate_profile",
    "certify_expert_stages", "shifted_name", "split_shift",
    "Profile", "StageInfo", "SegmentSpec", "EntitySpec", "read_profile",
    "parse_profile", "profile_from_dict", "profile_to_dict", "profile_to_toml",
    "BUILTIN_STAGES", "DIFFICULTIES", "GENERATED_KINDS", "StageSetError", "expand_stages", "is_stage_set",
    "is_handmade_set", "names_several", "stage_label",
    "parse_stage_set", "single_generated", "stage_name", "MAX_SET_SIZE",
    "keep_stages", "KeptStages", "kept_stage_count", "CACHE_SIZE",
]

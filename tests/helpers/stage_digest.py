"""Fingerprints of built stages, to prove a change to the builder changes
no stage: what the fixture tests/fixtures/stage_digests.json records.

A stage's fingerprint has three parts, each a sha256 of everything of one
kind, so a mismatch says which kind changed:

- "stage": its size, start, name, source and meta, and every entity with
  its kind, fields and their types (as `repr` writes them);
- "tiles": everything its `TileMap` holds: the distinct tiles' solidity,
  the per-layer tile grids, and per tile the top-only flag, the height
  arrays, angles and sensor scan tables the readable engine reads;
- "lowered": the compiled engine's two arrays (`stage.compiled`).

Numbers go in as int64 / float64 bytes with their shapes, whatever type
the stage keeps them in, so a change of storage alone changes nothing.
"""
from __future__ import annotations

import hashlib

import numpy as np

from speednik.engine.lowering import lower_stage
from speednik.stages import (
    BUILTIN_STAGES,
    DIFFICULTIES,
    PROFILE_DIR,
    build_stage,
    generate_profile,
    load_profile,
)

PARTS = ("stage", "tiles", "lowered")
# Per stage, each part's digest is kept to this many hex digits (48 bits:
# enough to name the stage that changed); each group's full digest covers
# its stages' full digests.
SHORT = 12
SEEDS = range(300)
# Expert stages cost a planner search each (certification): fewer of them.
SEEDS_BY_DIFFICULTY = {"expert": range(12)}
FIXTURE = "fixtures/stage_digests.json"


def _update_array(h, values, dtype) -> None:
    arr = np.ascontiguousarray(np.asarray(values), dtype=dtype)
    h.update(repr(arr.shape).encode())
    h.update(arr.tobytes())


def _text(value) -> bytes:
    # A built-in stage names its profile's path: the same wherever the
    # project is checked out.
    return repr(value).replace(str(PROFILE_DIR), "<profiles>").encode()


def _stage_part(stage) -> bytes:
    h = hashlib.sha256()
    fields = (stage.name, stage.width, stage.height, stage.start_x, stage.start_y,
              stage.goal, stage.rings, stage.springs, stage.spikes, stage.checkpoints,
              stage.enemies, stage.layer_switches, stage.source)
    for value in fields:
        h.update(_text(value))
        h.update(b"\0")
    # The profile is what the stage was built from: its repr names every field.
    for key in sorted(stage.meta):
        h.update(key.encode() + b"=" + _text(stage.meta[key]))
        h.update(b"\0")
    return h.digest()


def _tiles_part(tiles) -> bytes:
    # The lists the readable engine reads (its first cast makes them).
    tiles.cast_down(0, 0, 0, False)
    h = hashlib.sha256()
    h.update(repr((tiles.width_tiles, tiles.height_tiles, tiles._pw)).encode())
    _update_array(h, tiles.masks, np.uint8)
    for grid in tiles.cell_grids:
        _update_array(h, grid, np.int64)
    for cells in tiles.cells:
        _update_array(h, cells, np.int64)
    for cells in tiles._pcells:
        _update_array(h, cells, np.int64)
    _update_array(h, tiles.top_only, np.int64)
    for heights in tiles.heights:
        _update_array(h, heights, np.int64)
    for angles in (tiles.a_down, tiles.a_right, tiles.a_up, tiles.a_left):
        _update_array(h, angles, np.int64)
    for table in (tiles._t_down_all, tiles._t_down, tiles._t_right, tiles._t_up,
                  tiles._t_left):
        _update_array(h, table, np.int64)
    return h.digest()


def _lowered_part(stage) -> bytes:
    h = hashlib.sha256()
    compiled = lower_stage(stage)
    _update_array(h, compiled.ints, np.int64)
    _update_array(h, compiled.floats, np.float64)
    return h.digest()


def stage_digests(stage) -> dict[str, bytes]:
    """The full digest of each part of a built stage."""
    return {"stage": _stage_part(stage), "tiles": _tiles_part(stage.tiles),
            "lowered": _lowered_part(stage)}


def groups() -> dict[str, list]:
    """Each group of the fixture and its stages' keys: the built-in stages
    by name, the generated ones by seed."""
    out: dict[str, list] = {"builtin": list(BUILTIN_STAGES)}
    for difficulty in DIFFICULTIES:
        out[difficulty] = list(SEEDS_BY_DIFFICULTY.get(difficulty, SEEDS))
    return out


def build_fresh(group: str, key) -> object:
    """The stage `key` of `group`, built now (never from the stage cache)."""
    if group == "builtin":
        return build_stage(load_profile(key))
    return build_stage(generate_profile(key, group))


def short(digests: dict[str, bytes]) -> str:
    """One stage's entry in the fixture: its parts' short digests."""
    return ".".join(digests[p].hex()[:SHORT] for p in PARTS)


def group_digest(all_digests: list[dict[str, bytes]]) -> str:
    """One digest over every part of every stage of a group, in order."""
    h = hashlib.sha256()
    for digests in all_digests:
        for p in PARTS:
            h.update(digests[p])
    return h.hexdigest()


def record_group(group: str) -> dict:
    """A group's fixture entry: per stage its short digests, and the full
    digest of all of them."""
    keys = groups()[group]
    full = [stage_digests(build_fresh(group, key)) for key in keys]
    return {"stages": {str(k): short(d) for k, d in zip(keys, full)},
            "sha256": group_digest(full)}

"""The draw each expert (and skill) seed keeps, remembered on disk between
processes.

Certifying an expert stage runs the planner on it (about 0.2 s a stage),
and a run certifies every expert stage it trains, validates and tests on
before it starts: some 400 stages, most of a minute on two cores, paid
again by every run. Which draw a seed keeps is a pure function of the
seed and of the game's sources (and, for place stages, of the hand-made
profiles they are drawn from), so the draws found are written to a
record beside the sources (in `__pycache__`, as the compiled engine's
machine code is), under a digest of those sources and profiles: a record
written by other sources is never read. A record that cannot be read is
ignored and one that cannot be written is not written (a read-only
install certifies every time); the record is replaced whole, never left
half-written.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

RECORD_DIR = Path(__file__).resolve().parent / "__pycache__"
RECORD_NAME = "certified-expert-draws.json"
# Version 2 keeps each kind's draws apart (expert, skills).
FORMAT = "speednik-certified-expert-draws-2"


def _digest() -> str:
    # Place stages are drawn from the hand-made validation profiles, so a
    # record is the sources' and those profiles'.
    import hashlib

    from speednik.engine.jit import sources_digest
    from speednik.stages.sets import handmade_set

    h = hashlib.sha256(sources_digest().encode())
    for path in handmade_set("handmade:validation"):
        h.update(Path(path).name.encode() + b"\0" + Path(path).read_bytes())
    return h.hexdigest()


def _read_all() -> dict[str, dict[int, int]]:
    try:
        data = json.loads((RECORD_DIR / RECORD_NAME).read_text())
        if data.get("format") != FORMAT or data.get("sources") != _digest():
            return {}
        return {str(kind): {int(seed): int(draw) for seed, draw in draws.items()}
                for kind, draws in data["draws"].items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}


def read_draws(kind: str = "expert") -> dict[int, int]:
    """The remembered draw of each seed of `kind` (expert, skills or
    places), or none when the record is missing, unreadable, or written by
    other sources."""
    return _read_all().get(kind, {})


def remember_draws(draws: dict[int, int], kind: str = "expert") -> None:
    """Add `draws` of `kind` to the record (keeping what it holds for these
    sources)."""
    everything = _read_all()
    known = everything.setdefault(kind, {})
    if all(known.get(seed) == draw for seed, draw in draws.items()):
        return
    known.update(draws)
    data = {"format": FORMAT, "sources": _digest(),
            "draws": {name: {str(seed): seeds[seed] for seed in sorted(seeds)}
                      for name, seeds in sorted(everything.items())}}
    try:
        RECORD_DIR.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=RECORD_DIR, prefix=RECORD_NAME, suffix=".tmp")
        try:
            with os.fdopen(fd, "w") as out:
                json.dump(data, out)
            os.replace(tmp, RECORD_DIR / RECORD_NAME)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        pass

"""How the engine's per-frame functions are compiled.

They allocate nothing, so they are compiled without Numba's reference
counting of arrays (the NRT). With it, each call that passes a lowered
stage (some 45 arrays) paid an atomic increment and decrement for every
array, and a frame cost as much as the readable simulation's. Only the
episode loop, which allocates an episode's state, keeps the NRT. Machine
code is cached beside the sources (`cache=True`), so only the first
process compiles.

Numba checks a cached function against its own file only: the episode
loop's cached code still holds the policy code it inlined after
`policy.py` changed, and every function still holds the constants it
read from the readable game (`speednik.constants`, the observations'
reaches and sizes) when those change. So the cache is kept for one
version of the game's sources: when any Python file of the `speednik`
package (or Numba) differs from what the cache was built from, the cache
is cleared before anything loads from it.

What is compiled is what is used: an observation and the batch and
vector kernels that call it are compiled once per observation
(`observation.observer`, `episode.batch_runner`, `vector.stepper`), each
a closure whose kind is a constant, so Numba drops the branches of other
observations before typing, and each is cached under a name of its own.
(The four policy families are compiled together: seconds, where an
observation's flights take tens of them.)

A call from one compiled function to another stays a call: every array
argument travels as seven words, and the caller checks a status after
it. The small functions that a flight frame or a probe calls many times
a decision (the tile casts, the air frame and its collision, `ray`, the
spikes test) are compiled with `leaf_jit` instead, which Numba inlines
into each caller (`inline="always"`). It is the same code, so the same
numbers, and the flights of the `reach` observation run much faster; a
first compile takes longer, as each caller compiles its own copy.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba
from numba import njit

ENGINE_DIR = Path(__file__).resolve().parent
STAMP_NAME = "engine-sources.sha256"


def sources_digest(engine_dir: Path = ENGINE_DIR) -> str:
    """A digest of Numba's version and every Python file of the package
    the engine sits in (`speednik`, whose constants the engine compiles
    in), by path relative to it."""
    package = engine_dir.parent
    h = hashlib.sha256(numba.__version__.encode())
    for path in sorted(package.rglob("*.py")):
        name = path.relative_to(package).as_posix()
        h.update(name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def clear_stale_cache(engine_dir: Path = ENGINE_DIR) -> bool:
    """Remove the engine's cached machine code if it was built from other
    sources; whether anything was removed. A cache that cannot be written
    (a read-only install) is left to Numba, which then compiles in memory."""
    cache = engine_dir / "__pycache__"
    stamp = cache / STAMP_NAME
    digest = sources_digest(engine_dir)
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    removed = False
    try:
        for path in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            path.unlink(missing_ok=True)
            removed = True
        cache.mkdir(exist_ok=True)
        temporary = cache / f".{STAMP_NAME}.{os.getpid()}"
        temporary.write_text(digest)
        os.replace(temporary, stamp)
    except OSError:
        pass
    return removed


clear_stale_cache()

frame_jit = njit(cache=True, _nrt=False)
# Only for small functions: each caller compiles its own copy.
leaf_jit = njit(cache=True, _nrt=False, inline="always")

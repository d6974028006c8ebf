"""The compiled engine's cached machine code belongs to one version of the
game's sources: Numba checks a cached function against its own file only,
so a change to another engine file, or to a readable module whose
constants the engine compiles in, must clear the cache."""
from __future__ import annotations

from speednik.engine.jit import STAMP_NAME, clear_stale_cache, sources_digest


def make_engine(tmp_path):
    """A package with a readable module and an engine beside it; the
    engine's cache holds compiled code."""
    (tmp_path / "constants.py").write_text("REACH = 128\n")
    engine = tmp_path / "engine"
    engine.mkdir()
    (engine / "policy.py").write_text("A = 1\n")
    (engine / "episode.py").write_text("B = 2\n")
    cache = engine / "__pycache__"
    cache.mkdir()
    for name in ("episode.run_batch-1.py311.nbi", "episode.run_batch-1.py311.1.nbc"):
        (cache / name).write_bytes(b"machine code")
    return cache


def test_a_change_to_any_engine_file_clears_the_cache(tmp_path):
    cache = make_engine(tmp_path)
    engine = tmp_path / "engine"
    # Built before any stamp: of unknown sources, so cleared.
    assert clear_stale_cache(engine) is True
    assert not list(cache.glob("*.nb*"))
    assert (cache / STAMP_NAME).read_text() == sources_digest(engine)
    # Compiled again from these sources: kept.
    (cache / "episode.run_batch-1.py311.nbi").write_bytes(b"machine code")
    assert clear_stale_cache(engine) is False
    assert (cache / "episode.run_batch-1.py311.nbi").exists()
    # policy.py changes; episode.py's cached code inlined the old one.
    (engine / "policy.py").write_text("A = 3\n")
    assert clear_stale_cache(engine) is True
    assert not (cache / "episode.run_batch-1.py311.nbi").exists()


def test_a_change_to_a_readable_module_clears_the_cache(tmp_path):
    cache = make_engine(tmp_path)
    engine = tmp_path / "engine"
    clear_stale_cache(engine)
    (cache / "episode.run_batch-1.py311.nbi").write_bytes(b"machine code")
    assert clear_stale_cache(engine) is False
    # The compiled code read REACH when it was built.
    (tmp_path / "constants.py").write_text("REACH = 368\n")
    assert clear_stale_cache(engine) is True
    assert not (cache / "episode.run_batch-1.py311.nbi").exists()


def test_the_engine_s_own_cache_is_stamped_with_its_sources():
    import speednik.engine.jit as jit

    stamp = jit.ENGINE_DIR / "__pycache__" / STAMP_NAME
    assert stamp.read_text() == sources_digest()

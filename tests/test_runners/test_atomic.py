"""Atomic writes: whole files, the user's umask, no temporaries left."""
from __future__ import annotations

import os
import stat

import pytest

from runners.atomic import atomic_write_bytes, remove_stale_temporaries


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_files_follow_the_umask(tmp_path, mask, mode):
    old = os.umask(mask)
    try:
        atomic_write_bytes(tmp_path / "a.json", b"{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == mode
    assert os.listdir(tmp_path) == ["a.json"]


def test_an_interrupted_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "best.json"
    atomic_write_bytes(target, b"old")

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["best.json"]


def test_stale_temporaries_are_removed_and_nothing_else(tmp_path):
    stale = [".checkpoint.npz.0123456789ab.tmp", ".best.json.a1b2c3d4e5f6.tmp"]
    kept = ["notes.tmp", ".hidden", "best.json", ".x.ZZZZZZZZZZZZ.tmp"]
    for name in stale + kept:
        (tmp_path / name).write_text("x")
    removed = remove_stale_temporaries(tmp_path)
    assert sorted(p.name for p in removed) == sorted(stale)
    assert sorted(os.listdir(tmp_path)) == sorted(kept)
    assert remove_stale_temporaries(tmp_path / "missing") == []

"""Files written whole or not at all: a temporary file in the same folder,
flushed to disk, then renamed over the target. A run killed at any moment
leaves either the previous file or the new one, never a torn one."""
from __future__ import annotations

import json
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                               dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | os.PathLike, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=False) + "\n")


def atomic_write_pickle(path: str | os.PathLike, data: Any) -> None:
    atomic_write_bytes(path, pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))

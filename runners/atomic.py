"""Files written whole or not at all: a temporary file in the same folder,
flushed to disk, then renamed over the target. A run killed at any moment
leaves either the previous file or the new one, never a torn one.

The temporary file is created with mode 0o666 less the process umask, as
`open()` would create the target itself, so results follow the user's
umask. A write that is killed part-way leaves its temporary file behind
(`.<name>.<random>.tmp`); `remove_stale_temporaries` clears a folder of
them, as a run does when it starts.
"""
from __future__ import annotations

import json
import os
import re
import secrets
from pathlib import Path
from typing import Any

TEMP_SUFFIX = ".tmp"
# .<target name>.<12 hex digits>.tmp: only what `atomic_write_bytes` makes.
_TEMP_PATTERN = re.compile(r"^\..+\.[0-9a-f]{12}\.tmp$")


def _temporary(path: Path) -> tuple[int, Path]:
    while True:
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}{TEMP_SUFFIX}")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), tmp
        except FileExistsError:
            continue


def atomic_write_bytes(path: str | os.PathLike, data: bytes, durable: bool = True) -> None:
    """Write `data` to `path` whole or not at all. `durable` also waits
    until the data is on disk (fsync), so it survives a power cut as well
    as a killed process; a file rewritten every generation and kept whole
    elsewhere (the checkpoint's logbook) can skip that wait."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _temporary(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_text(path: str | os.PathLike, text: str, durable: bool = True) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), durable)


def atomic_write_json(path: str | os.PathLike, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=False) + "\n")


def remove_stale_temporaries(folder: str | os.PathLike) -> list[Path]:
    """Delete the temporary files that interrupted atomic writes left in
    `folder`; the paths removed."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return removed
    for entry in entries:
        if _TEMP_PATTERN.match(entry.name) and entry.is_file(follow_symlinks=False):
            try:
                os.unlink(entry.path)
            except FileNotFoundError:
                continue
            removed.append(Path(entry.path))
    return removed

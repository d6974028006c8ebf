"""`method.jsonl`: a search method's own numbers, one JSON line per
generation (what `Strategy.numbers()` gives): CMA-ES's step size and
condition number, OpenAI-ES's learning statistics, NEAT's species sizes.
The checkpoint keeps only a method's latest state; this file keeps its
history, for the dashboard to draw against generations.

    {"gen": 0, "sigma": 0.48, "condition": 1.9}
    {"gen": 0, "species_sizes": {"1": 5, "2": 3}}

Written whole and atomically, as logbook.csv is, and read back exactly
(JSON keeps every float), so a resumed run that keeps the lines up to its
checkpoint writes the file a straight run writes. A method with nothing
of its own (GA, MAP-Elites) writes no file, and a run directory made
before the file existed has none: both read as no lines.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from evolution.loop.outputs import RunFileError
from runners.atomic import atomic_write_text

METHOD_NAME = "method.jsonl"
METHOD_ACCEPTED = (f"accepted: a {METHOD_NAME} written by evolution, one JSON object a "
                   f"line with a whole \"gen\" (increasing) and numbers, or objects of "
                   f"numbers, beside it")


def method_record(gen: int, numbers: dict[str, Any]) -> dict[str, Any]:
    """The line of generation `gen` as data. JSON has no NaN or infinity:
    a number that is not finite is kept as null."""
    return {"gen": int(gen), **{k: _finite(v) for k, v in numbers.items()}}


def _finite(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value if math.isfinite(value) else None
    raise TypeError(f"a method number must be a number or a dict of numbers, "
                    f"got {type(value).__name__}")


def method_text(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, allow_nan=False) + "\n" for r in records)


def write_method_file(run_dir: str | os.PathLike, records: list[dict[str, Any]],
                      durable: bool = True) -> None:
    atomic_write_text(Path(run_dir) / METHOD_NAME, method_text(records), durable)


def read_method_file(run_dir: str | os.PathLike) -> list[dict[str, Any]]:
    """The file's lines as data, in order; no lines when there is no file.
    `RunFileError` naming the file and line for anything malformed."""
    path = Path(run_dir)
    if path.is_dir():
        path = path / METHOD_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise RunFileError(f"{path}: not readable ({exc}); {METHOD_ACCEPTED}") from None
    records: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            raise RunFileError(f"{path}: line {number} is not JSON; "
                               f"{METHOD_ACCEPTED}") from None
        problem = _problem(record, records[-1]["gen"] if records else -1)
        if problem:
            raise RunFileError(f"{path}: line {number}: {problem}; {METHOD_ACCEPTED}")
        records.append(record)
    return records


def _problem(record: Any, previous: int) -> str:
    """What is wrong with one line's data, or ""."""
    if not isinstance(record, dict):
        return "not a JSON object"
    gen = record.get("gen")
    if isinstance(gen, bool) or not isinstance(gen, int) or gen <= previous:
        return f"gen is {gen!r}, not a whole number above the line before's"
    for name, value in record.items():
        values = value.values() if isinstance(value, dict) else [value]
        if not all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
                   for v in values):
            return f"{name} is {value!r}, not a number or an object of numbers"
    return ""

"""A file of a search method's settings (`evolution.tune` writes the best
it found): `evolution.run --settings FILE` and `evolution.compare
--settings FILE` read it as if its settings had been typed.

    {"format": "speednik-evolve-settings", "method": "openai-es",
     "settings": {"es_sigma": 0.05, "es_lr": 0.01}, "found": {...}}

Settings are named as `evolution.run` names them (`es_lr` is `--es-lr`),
and are only those the method declares in the strategy registry (its
own settings and its tuning space), each of its kind: anything else is
refused before a run starts. "found" says where they came from and is
not read.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from evolution.strategies.registry import StrategySetting, Tunable, get_strategy
from runners.atomic import atomic_write_json

SETTINGS_FORMAT = "speednik-evolve-settings"


class SettingsFileError(ValueError):
    """A settings file that cannot be read; the message names it and what
    is accepted."""


def write_settings(path: str | os.PathLike, method: str, settings: dict,
                   found: dict | None = None) -> None:
    atomic_write_json(Path(path), {"format": SETTINGS_FORMAT, "method": method,
                                   "settings": dict(settings), "found": found or {}})


def read_settings(path: str | os.PathLike) -> tuple[str, dict[str, float | int]]:
    """(method, {setting name: value}) of a settings file."""
    accepted = (f"accepted: a JSON file with \"format\": \"{SETTINGS_FORMAT}\", "
                f"\"method\" and \"settings\" (as evolution.tune writes)")
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise SettingsFileError(f"{path}: not readable ({exc}); {accepted}") from None
    if (not isinstance(data, dict) or data.get("format") != SETTINGS_FORMAT
            or not isinstance(data.get("method"), str)
            or not isinstance(data.get("settings"), dict)):
        raise SettingsFileError(f"{path}: not a settings file; {accepted}")
    return data["method"], checked_settings(path, data["method"], data["settings"])


def checked_settings(path: str | os.PathLike, method: str,
                     settings: dict) -> dict[str, float | int]:
    """The settings of a file, each one the method declares (its own
    settings and its tuning space, in the strategy registry) with a value
    of its kind; SettingsFileError naming the first that is not, and what
    is accepted. Nothing else may be set by a file: a run option such as
    out or stage is the command line's."""
    try:
        entry = get_strategy(method)
    except ValueError as exc:
        raise SettingsFileError(f"{path}: {exc}") from None
    declared: dict[str, StrategySetting | Tunable] = {s.name: s for s in entry.settings}
    for t in entry.tuning:
        declared.setdefault(t.name, t)
    for name, value in settings.items():
        if name not in declared:
            raise SettingsFileError(
                f"{path}: {name!r} is not a setting of --algorithm {method}; accepted: "
                f"{', '.join(declared) or 'none'}")
        spec = declared[name]
        try:
            if isinstance(spec, StrategySetting):
                spec.check(value)
            elif (isinstance(value, bool) or value != value
                  or not isinstance(value, int if spec.whole else (int, float))
                  or abs(value) == float("inf")):
                raise ValueError(f"{name} must be {'a whole number' if spec.whole else 'a number'}"
                                 f", got {value!r}")
        except ValueError as exc:
            raise SettingsFileError(f"{path}: {exc}") from None
    return dict(settings)


def settings_flags(settings: dict) -> list[str]:
    """The settings as evolution.run options: ["--es-lr", "0.01", ...]."""
    out: list[str] = []
    for name, value in settings.items():
        out += ["--" + name.replace("_", "-"), repr(value) if isinstance(value, float)
                else str(value)]
    return out


def expand_settings(argv: list[str], config: tuple[str, str] | None = None) -> list[str]:
    """A command line with `--settings FILE` replaced by the file's
    settings as options, where it stood (so an option typed after it
    wins), and `--algorithm` added from the file when neither the line
    nor its --config file (`config`: (its path, the algorithm it names))
    gives it; SettingsFileError when the file is unreadable or names
    another method than --algorithm."""
    argv = list(argv)
    for i, word in enumerate(argv):
        if word == "--settings" or word.startswith("--settings="):
            if "=" in word:
                path, end = word.split("=", 1)[1], i + 1
            elif i + 1 < len(argv):
                path, end = argv[i + 1], i + 2
            else:
                raise SettingsFileError("--settings needs a file: the best.json "
                                        "evolution.tune writes")
            method, settings = read_settings(path)
            given = _algorithm(argv[:i] + argv[end:])
            if given is not None and given != method:
                raise SettingsFileError(f"{path} holds settings of --algorithm {method}, "
                                        f"not of --algorithm {given}")
            if given is None and config is not None and config[1] != method:
                raise SettingsFileError(
                    f"{path} holds settings of --algorithm {method}, not of algorithm "
                    f"{config[1]!r} of {config[0]}; give --algorithm {method} to run it "
                    f"instead, or a settings file of {config[1]}")
            head = [] if given is not None or config is not None else ["--algorithm", method]
            return expand_settings(argv[:i] + head + settings_flags(settings) + argv[end:],
                                   config)
    return argv


def _algorithm(argv: list[str]) -> str | None:
    found = None
    for i, word in enumerate(argv):
        if word == "--algorithm" and i + 1 < len(argv):
            found = argv[i + 1]
        elif word.startswith("--algorithm="):
            found = word.split("=", 1)[1]
    return found

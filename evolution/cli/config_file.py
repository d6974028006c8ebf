"""`--config FILE.toml` on a command line: the file's settings are the
run's, and an option typed on the command line overrides the file's,
wherever it stands (`evolution.config_file` reads and writes the file).

A command line's `--algorithm` other than the file's replaces the file's
method, and with it the file's settings of that method (they would do
nothing); a `--policy` (or an `--algorithm` that implies one) other than
the file's family leaves out the file's settings of that family. With
`--resume`, the file's settings count as given: each must equal the
checkpoint's, save those a resumed run may change.
"""
from __future__ import annotations

import argparse
import copy
from pathlib import Path

from evolution.config_file import FAMILY_SETTINGS, ConfigFileError, read_config_file
from evolution.strategies.registry import get_strategy, list_strategies
from runners.policies import DEFAULT_FAMILY, get_family, list_policies

__all__ = ["ConfigFileError", "config_path", "with_config_file", "file_task_settings"]


def config_path(argv: list[str]) -> str | None:
    """The file of `--config FILE` (or `--config=FILE`) in a command line
    (the last one given), before the line is parsed."""
    found = None
    for i, word in enumerate(argv):
        if word == "--":
            break
        if word == "--config" and i + 1 < len(argv):
            found = argv[i + 1]
        elif word.startswith("--config="):
            found = word.split("=", 1)[1]
    return found


def with_config_file(args: argparse.Namespace) -> argparse.Namespace:
    """The parsed command line with each setting it leaves out taken from
    its --config file (a copy; the same namespace when there is none)."""
    path = getattr(args, "config", None)
    if path is None:
        return args
    if not str(path).strip():
        raise ConfigFileError("--config is empty; accepted: a TOML file of a run's settings")
    settings = read_config_file(path)
    out = copy.copy(args)
    file_algorithm = settings.get("algorithm", "ga")
    algorithm = args.algorithm if args.algorithm is not None else file_algorithm
    family = args.policy if args.policy is not None else settings.get("policy")
    if algorithm != file_algorithm and args.policy is None and (
            _own_family(algorithm) or _own_family(file_algorithm)):
        # The file's family went with its method; the line's method has its
        # own, or the file's method evolved a family only it can search.
        settings = {k: v for k, v in settings.items() if k != "policy"}
        family = None
    if family is None:
        own = get_strategy(algorithm).policy if algorithm in list_strategies() else None
        family = own or DEFAULT_FAMILY
    held = ({s.name for s in get_family(family).settings}
            if family in list_policies() else set())
    for key, value in settings.items():
        if key == "options":
            if algorithm != file_algorithm:
                continue    # another method's settings
            for name, v in value.items():
                if getattr(out, name, None) is None:
                    setattr(out, name, v)
            continue
        if key in FAMILY_SETTINGS and key not in held:
            continue        # another family's settings
        if key == "stall_frames" and value is None:
            value = 0       # as the command line says never
        if getattr(out, key, None) is None:
            setattr(out, key, value)
    return out


def _own_family(algorithm: str) -> str | None:
    return get_strategy(algorithm).policy if algorithm in list_strategies() else None


def file_task_settings(task: list[str]) -> tuple[str, dict] | None:
    """(the file, its settings) of a `--config FILE` among a task's
    evolution.run options; None without one."""
    path = config_path(task)
    if path is None:
        return None
    return path, read_config_file(path)


def settings_set_by(settings: dict, own_options: tuple[str, ...]) -> list[str]:
    """The file's settings that a command sets itself for each run (its
    options in evolution.cli.task_options), named as the file names them;
    a method's own settings when the command sets --algorithm."""
    # The options a command sets are named as their settings (--max-frames).
    names = {"--" + k.replace("_", "-"): k for k in settings if k != "options"}
    out = [names[o] for o in own_options if o in names]
    if "--algorithm" in own_options and settings.get("options"):
        out += list(settings["options"])
    return out


def task_with_file(task: list[str], file: Path | None) -> list[str]:
    """A task's evolution.run options with `--config FILE` in front (the
    options after it override the file), the file's path made absolute so
    that runs started from elsewhere find it."""
    if file is None:
        return list(task)
    return ["--config", str(Path(file).resolve()), *task]

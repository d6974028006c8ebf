"""A run as a TOML file: `evolution.run --config FILE.toml` reads one, and
every run writes its whole configuration back as `config.toml` beside
`config.json`, which plays the run again.

    [task]      the stages, validation and test stages, observation, ...
    [policy]    the policy family and its settings
    [method]    the search method, its population and its own settings
    [budget]    generations and frames
    [run]       seed, workers, engine, scheduler, checkpoints

Keys are the names `config.json` gives the settings (`stages`,
`stages_per_generation`, `init_sigma`; an option is `--` and the name
with dashes, `--stage` for `stages`). A key left out takes its default;
`stall_frames = 0` is never. A relative `.toml` stage profile path is
read from the file's folder. Where the run goes (`--out`) is not part of
a configuration: it is given on the command line.

A file that is not valid TOML, a table or key that is not one of these,
or a value of the wrong kind or out of range is refused with a
`ConfigFileError` naming the file and the key.
"""
from __future__ import annotations

import math
import os
import re
import tomllib
from pathlib import Path
from typing import Any, Callable

from evolution.config import (
    STAGE_DRAWS,
    STAGE_LISTS,
    VALIDATION_WEIGHTS,
    ConfigError,
    EvolutionConfig,
)
from evolution.scheduler_address import check_scheduler
from evolution.strategies.registry import all_settings, get_strategy, list_strategies, readers
from runners.compiled import ENGINES
from runners.policies import DEFAULT_FAMILY, POLICY_FAMILIES, get_family, list_policies
from speednik.observation import list_observations
from speednik.stages import HANDMADE_NAMES

CONFIG_TOML_NAME = "config.toml"

# The settings of a family (the MLP's hidden units) are fields of
# EvolutionConfig, as a family names them.
FAMILY_SETTINGS = tuple(dict.fromkeys(
    s.name for f in POLICY_FAMILIES.values() for s in f.settings))

# Each setting's table, in the order a written file gives them; a
# method's own settings follow "algorithm", "population",
# "hall_of_fame", "imitation", "imitation_stages" and
# "imitation_back_weight" in [method].
TABLES: dict[str, tuple[str, ...]] = {
    "task": ("stages", "stages_per_generation", "always_stages", "stage_draw",
             "start_shift",
             "validation_stages", "validation_weight", "validation_prefer", "validation_near",
             "validation_screen", "validation_floor", "keep_candidates", "test_stages",
             "test_every",
             "observation", "action_repeat", "final_action_repeat", "max_steps",
             "stall_frames", "training_stall_frames"),
    "policy": ("policy", *FAMILY_SETTINGS),
    "method": ("algorithm", "population", "hall_of_fame", "imitation", "imitation_stages",
               "imitation_back_weight"),
    "budget": ("generations", "max_frames", "starts", "start_frames", "final_frames"),
    "run": ("seed", "workers", "engine", "scheduler", "checkpoint_every"),
}
TABLE_OF = {key: table for table, keys in TABLES.items() for key in keys}

ACCEPTED_TABLES = ", ".join(f"[{t}]" for t in TABLES)


class ConfigFileError(ConfigError):
    """A configuration file that cannot be read or holds a bad setting; the
    message names the file, the key and what is accepted."""


# -- writing ---------------------------------------------------------------

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+\Z")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n",
            "\f": "\\f", "\r": "\\r"}


def toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters
    escaped, everything else as it is (the file is UTF-8)."""
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        elif 0xD800 <= ord(ch) <= 0xDFFF:
            raise ValueError(f"{text!r} holds a lone surrogate, which TOML cannot hold")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def toml_key(key: str) -> str:
    return key if _BARE_KEY.match(key) else toml_string(key)


def toml_value(value: Any) -> str:
    """One value in TOML: a string, whole number, number (inf and nan as
    TOML writes them), true/false, or a list of those."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)      # always with "." or an exponent: a float in TOML
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"{type(value).__name__} has no TOML form here: {value!r}")


def toml_text(data: dict, comment: str = "") -> str:
    """A document: the keys of `data` whose values are not tables first,
    then each table (`[name]`, `[name.sub]` for one inside it). Keys whose
    value is None are left out (TOML has no null)."""
    lines = [f"# {line}".rstrip() for line in comment.splitlines()]

    def emit(table: dict, path: list[str]) -> None:
        scalars = [(k, v) for k, v in table.items() if v is not None and not isinstance(v, dict)]
        tables = [(k, v) for k, v in table.items() if isinstance(v, dict)]
        if path and (scalars or not tables):
            if lines:
                lines.append("")
            lines.append("[" + ".".join(toml_key(p) for p in path) + "]")
        for k, v in scalars:
            lines.append(f"{toml_key(k)} = {toml_value(v)}")
        for k, v in tables:
            emit(v, [*path, k])

    emit(data, [])
    return "\n".join(lines) + "\n"


def config_tables(config: EvolutionConfig) -> dict[str, dict]:
    """The configuration as the tables of its file: every setting, a
    family's own only for the run's family, the method's own in
    [method], none left out but those that are none (no frame limit, no
    scheduler, every training stage scored)."""
    d = config.to_dict()
    own_family = {s.name for s in get_family(config.policy).settings}
    tables: dict[str, dict] = {name: {} for name in TABLES}
    for table, keys in TABLES.items():
        for key in keys:
            if key in FAMILY_SETTINGS and key not in own_family:
                continue
            value = d[key]
            if key == "stall_frames" and value is None:
                value = 0
            tables[table][key] = value
    tables["method"].update(d["options"])
    return tables


def config_toml(config: EvolutionConfig) -> str:
    """`config.toml`: the whole configuration of a run, which
    `evolution.run --config` reads back into the same configuration."""
    return toml_text(config_tables(config), comment=(
        "The whole configuration of an evolution.run run. It plays the run again:\n"
        "  python -m evolution.run --config config.toml --out NEW_RUN_DIR\n"
        "Options typed beside --config override what it says here."))


# -- reading ---------------------------------------------------------------

def _shown(value: Any) -> str:
    return repr(value)


def _whole(minimum: int | None) -> Callable[[Any], Any]:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or (
                minimum is not None and value < minimum):
            floor = f" >= {minimum}" if minimum is not None else ""
            raise ValueError(f"must be a whole number{floor}, got {_shown(value)}")
        return value
    return check


def _number(minimum: float) -> Callable[[Any], Any]:
    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not value >= minimum:
            raise ValueError(f"must be a number >= {minimum:g}, got {_shown(value)}")
        return float(value)
    return check


def _choice(choices: Callable[[], tuple[str, ...] | list[str]]) -> Callable[[Any], Any]:
    def check(value: Any) -> str:
        accepted = tuple(choices())
        if not isinstance(value, str) or value not in accepted:
            raise ValueError(f"must be one of {', '.join(map(repr, accepted))}, got "
                             f"{_shown(value)}")
        return value
    return check


def _stages(empty: bool) -> Callable[[Any], Any]:
    def check(value: Any) -> list[str]:
        if (not isinstance(value, list) or not all(isinstance(s, str) and s for s in value)
                or (not empty and not value)):
            raise ValueError(
                f"must be a list of {'' if empty else 'one or more '}stage names (built-in "
                f"names, .toml profile paths, generated sets gen:DIFFICULTY:SEEDS, "
                f"{HANDMADE_NAMES}), got "
                f"{_shown(value)}")
        return list(value)
    return check


def _shares(value: Any) -> list[float]:
    if not isinstance(value, list) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1
            for v in value):
        raise ValueError(f"must be a list of shares from 0 to 1, got {_shown(value)}")
    return [float(v) for v in value]


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false, got {_shown(value)}")
    return value


def _stall(value: Any) -> int | None:
    _whole(0)(value)
    return None if value == 0 else value


def _scheduler(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"must be a string ('local' or tcp://HOST:PORT), got {_shown(value)}")
    check_scheduler(value)
    return value


CHECKS: dict[str, Callable[[Any], Any]] = {
    "stages": _stages(False), "test_stages": _stages(True),
    "validation_stages": _stages(True), "always_stages": _stages(True),
    "stages_per_generation": _whole(1), "stage_draw": _choice(lambda: STAGE_DRAWS),
    "start_shift": _whole(0),
    "validation_weight": _choice(lambda: VALIDATION_WEIGHTS), "keep_candidates": _flag,
    "validation_prefer": _stages(True), "validation_near": _whole(0),
    "validation_screen": _whole(0), "validation_floor": _shares,
    "test_every": _whole(1),
    "observation": _choice(list_observations), "action_repeat": _whole(1),
    "final_action_repeat": _whole(1), "final_frames": _whole(1),
    "max_steps": _whole(1), "stall_frames": _stall, "training_stall_frames": _whole(1),
    "policy": _choice(list_policies),
    "algorithm": _choice(list_strategies), "population": _whole(2),
    "hall_of_fame": _whole(1), "imitation": _whole(0),
    "imitation_stages": _stages(True), "imitation_back_weight": _number(1.0),
    "generations": _whole(0), "max_frames": _whole(1),
    "starts": _whole(1), "start_frames": _whole(1),
    "seed": _whole(None), "workers": _whole(1), "engine": _choice(lambda: ENGINES),
    "scheduler": _scheduler, "checkpoint_every": _whole(1),
}


def _load(path: Path) -> dict:
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise ConfigFileError(f"{path}: cannot be read ({exc.strerror or exc}); accepted: "
                              f"a TOML file of a run's settings") from None
    try:
        return tomllib.loads(text.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigFileError(f"{path}: not UTF-8 text ({exc.reason} at byte "
                              f"{exc.start}); accepted: a TOML file") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigFileError(f"{path}: not valid TOML: {exc}") from None


def read_config_file(path: str | os.PathLike) -> dict:
    """The settings a configuration file gives, as `config.json` names
    them (a method's own in "options"), each checked for its kind and
    range, and the file checked as a whole run; ConfigFileError naming
    the file and the key otherwise."""
    path = Path(path)
    data = _load(path)
    for name, table in data.items():
        if name not in TABLES:
            where = TABLE_OF.get(name)
            hint = (f"; {name} belongs in [{where}]" if where else
                    f"; a setting of {readers(name)} belongs in [method]"
                    if name in all_settings() else "")
            raise ConfigFileError(f"{path}: unknown {'table' if isinstance(table, dict) else 'key'} "
                                  f"{name!r} at the top; accepted: the tables "
                                  f"{ACCEPTED_TABLES}{hint}")
        if not isinstance(table, dict):
            raise ConfigFileError(f"{path}: {name} must be a table [{name}], got "
                                  f"{_shown(table)}")
    flat: dict[str, tuple[str, Any]] = {}
    for table, values in data.items():
        for key, value in values.items():
            flat[key] = (table, value)
    method_table = data.get("method", {})
    algorithm = method_table.get("algorithm", "ga")
    settings: dict[str, Any] = {}
    options: dict[str, Any] = {}
    for key, (table, value) in flat.items():
        def bad(message: str) -> ConfigFileError:
            return ConfigFileError(f"{path}: {key} in [{table}] {message}")

        home = TABLE_OF.get(key)
        if home is None and key in all_settings():
            home = "method"
        if home is None:
            raise ConfigFileError(
                f"{path}: unknown key {key!r} in [{table}]; accepted there: "
                f"{', '.join(_accepted(table, algorithm))}"
                + ("; where the run goes is given on the command line (--out)"
                   if key == "out" else ""))
        if home != table:
            raise bad(f"belongs in [{home}]")
        if key in all_settings() and key not in TABLE_OF:
            if not isinstance(algorithm, str) or algorithm not in list_strategies():
                continue    # the algorithm's own check names it
            own = {s.name: s for s in get_strategy(algorithm).settings}
            if key not in own:
                raise bad(f"is a setting of {readers(key)}, not of algorithm "
                          f"{algorithm!r}; it would do nothing")
            try:
                options[key] = own[key].check(value)
            except ValueError as exc:
                raise ConfigFileError(f"{path}: [{table}] {exc}") from None
            continue
        check = CHECKS.get(key)
        try:
            settings[key] = check(value) if check else _family_setting(key, value)
        except ValueError as exc:
            raise bad(str(exc)) from None
    _check_family(path, settings, algorithm)
    for key in STAGE_LISTS:
        if key in settings:
            settings[key] = [_beside(path, s) for s in settings[key]]
    if options:
        settings["options"] = options
    try:
        EvolutionConfig(**settings)
    except ConfigError as exc:
        raise ConfigFileError(f"{path}: {exc}") from None
    return settings


def _accepted(table: str, algorithm: Any) -> list[str]:
    keys = list(TABLES.get(table, ()))
    if table == "method" and isinstance(algorithm, str) and algorithm in list_strategies():
        keys += [s.name for s in get_strategy(algorithm).settings]
    return keys


def _family_setting(key: str, value: Any) -> int:
    setting = next(s for f in POLICY_FAMILIES.values() for s in f.settings if s.name == key)
    return setting.check(value, "")


def _check_family(path: Path, settings: dict, algorithm: Any) -> None:
    """A family's setting given with a family that has none such would do
    nothing: refused, as on the command line."""
    family = settings.get("policy")
    if family is None:
        own = (get_strategy(algorithm).policy
               if isinstance(algorithm, str) and algorithm in list_strategies() else None)
        family = own or DEFAULT_FAMILY
    held = {s.name for s in get_family(family).settings}
    for key in FAMILY_SETTINGS:
        if key in settings and key not in held:
            raise ConfigFileError(
                f"{path}: {key} in [policy] is a setting of another policy family, not "
                f"of policy {family!r}; it would do nothing")


def _beside(path: Path, stage: str) -> str:
    """A relative profile path read from the file's folder."""
    if stage.endswith(".toml") and not os.path.isabs(stage):
        return str((path.parent / stage).resolve())
    return stage

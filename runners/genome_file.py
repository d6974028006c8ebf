"""The genome file (`best.json`): one owner of its name, format, writing
and reading.

An evolution run writes its best genome with `write_genome_file`; the
replay command and anything else read it with `load_genome_file`, which
checks every field and says, in one line, what is wrong and what is
accepted.

A genome file names its stages as evolution was given them: built-in
names, or .toml profile paths (made absolute when the run started). A run
keeps a copy of each profile in its directory (`stages/<file name>`); when
a recorded path no longer exists, that copy is used.
"""
from __future__ import annotations

import json
import math
import numbers
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from runners.atomic import atomic_write_json
from runners.agent import BaseAgent
from runners.policies import DEFAULT_FAMILY, Policy, get_family, list_policies
from runners.runner_config import RunnerConfig
from speednik.actions import NUM_ACTIONS
from speednik.observation import OBSERVATIONS, get_observation

GENOME_FORMAT = "speednik-evolve-genome"
BEST_NAME = "best.json"
REQUIRED_KEYS = ("format", "genome", "observation", "stages", "max_steps", "stall_frames")
GENOME_ACCEPTED = (
    f"accepted: a run directory holding {BEST_NAME}, or a genome file as evolution "
    f"writes it, a JSON object with \"format\": \"{GENOME_FORMAT}\" and the keys "
    f"{', '.join(REQUIRED_KEYS[1:])}")
# Where a run keeps copies of the .toml profiles it was evolved on.
STAGE_COPIES = "stages"
# The policy's arithmetic must stay finite in float32 as well as float64.
WEIGHT_LIMIT = float(np.finfo(np.float32).max)


class GenomeFileError(ValueError):
    """A genome file that cannot be replayed; the message is one line:
    "<file>: <what is wrong>; <what is accepted>"."""


@dataclass(frozen=True)
class GenomeRecord:
    """A genome file, checked: everything needed to replay it exactly."""

    path: Path
    genome: np.ndarray
    observation: str
    stages: tuple[str, ...]
    max_steps: int
    stall_frames: int | None
    fitness: float | None = None
    # The stall limit of the search's own episodes, which `fitness` and
    # `results` were measured with, where it differs from `stall_frames`
    # (a run with --training-stall-frames); None: `stall_frames`.
    training_stall_frames: int | None = None
    # The policy decides every this many frames (files without the key
    # were all evolved deciding every frame).
    action_repeat: int = 1
    generation: int | None = None
    seed: int | None = None
    results: dict[str, Any] = field(default_factory=dict)
    fitness_stages: tuple[str, ...] | None = None
    held_out: dict[str, Any] | None = None
    # Chosen on validation stages: which candidate it was ("hall of fame",
    # "recommendation", "strategy candidate", "population member") and the
    # generation it was chosen in; None for a run without validation.
    chosen: dict[str, Any] | None = None
    # What the genome is (family, observation, settings); None: linear.
    policy_spec: Policy | None = None

    def __post_init__(self) -> None:
        if self.policy_spec is None:
            object.__setattr__(self, "policy_spec", Policy(DEFAULT_FAMILY, self.observation))

    def policy(self) -> BaseAgent:
        """The agent the genome makes."""
        return self.policy_spec.agent(self.genome)

    def runner_config(self, max_steps: int | None = None) -> RunnerConfig:
        """The episode settings the genome was evolved with (`max_steps`
        overrides its own)."""
        return RunnerConfig(observation=self.observation,
                            max_steps=self.max_steps if max_steps is None else max_steps,
                            stall_frames=self.stall_frames, action_repeat=self.action_repeat)


def json_limit(exc: BaseException) -> str:
    """What a parser limit that `json.loads` hit was, in a few words."""
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return str(exc).split(";")[0]


def load_genome_file(path: str | Path) -> GenomeRecord:
    """Read and check a genome file (or a run directory's best.json);
    `GenomeFileError` says what is wrong and what is accepted."""
    path = Path(path)
    if path.is_dir():
        if not (path / BEST_NAME).is_file():
            raise GenomeFileError(f"{path}: a directory without {BEST_NAME}; {GENOME_ACCEPTED}")
        path = path / BEST_NAME

    def bad(what: str, accepted: str = GENOME_ACCEPTED) -> GenomeFileError:
        return GenomeFileError(f"{path}: {what}; {accepted}")

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise bad("no such file or directory") from None
    except (OSError, UnicodeDecodeError) as e:
        raise bad(f"cannot be read ({e})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise bad(f"not JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    except (ValueError, RecursionError) as e:
        # JSON that Python's parser cannot hold: a number of thousands of
        # digits, arrays nested thousands deep.
        raise bad(f"not JSON this tool can read ({json_limit(e)})") from None
    if not isinstance(data, dict):
        raise bad(f"holds a JSON {type(data).__name__}, not an object")
    if data.get("format") != GENOME_FORMAT and "format" in data:
        raise bad(f"the format marker is {data['format']!r}, not {GENOME_FORMAT!r}")
    missing = [k for k in REQUIRED_KEYS if k not in data]
    if missing:
        raise bad(f"missing key(s) {', '.join(repr(k) for k in missing)}")

    observation = data["observation"]
    if not isinstance(observation, str) or observation not in OBSERVATIONS:
        raise bad(f"unknown observation {observation!r}",
                  f"accepted: {', '.join(repr(n) for n in OBSERVATIONS)}")
    encoder = get_observation(observation)
    obs_dim = data.get("obs_dim", encoder.size)
    if obs_dim != encoder.size:
        raise bad(f"obs_dim is {obs_dim!r} but the {observation!r} observation has "
                  f"{encoder.size} values",
                  "accepted: obs_dim equal to the size of the named observation")
    if data.get("num_actions", NUM_ACTIONS) != NUM_ACTIONS:
        raise bad(f"num_actions is {data['num_actions']!r}",
                  f"accepted: {NUM_ACTIONS}, the size of the action space")

    raw = data["genome"]
    if not isinstance(raw, list) or not all(_is_number(v) for v in raw):
        raise bad("'genome' is not a list of numbers",
                  "accepted: a JSON list of finite numbers")
    genome = np.asarray(raw, dtype=np.float64)
    if not np.all(np.isfinite(genome)):
        i = int(np.nonzero(~np.isfinite(genome))[0][0])
        raise bad(f"'genome' holds {raw[i]!r} at index {i}",
                  "accepted: finite numbers only (no NaN or infinity)")
    if np.any(np.abs(genome) > WEIGHT_LIMIT):
        i = int(np.nonzero(np.abs(genome) > WEIGHT_LIMIT)[0][0])
        raise bad(f"'genome' holds {raw[i]!r} at index {i}, beyond what a float32 holds",
                  f"accepted: numbers between {-WEIGHT_LIMIT:.6g} and {WEIGHT_LIMIT:.6g}")
    try:
        family = get_family(data.get("policy", DEFAULT_FAMILY))
    except ValueError:
        raise bad(f"unknown policy {data.get('policy')!r}",
                  f"accepted: {', '.join(repr(n) for n in list_policies())}") from None
    settings = {}
    for setting in family.settings:
        value = data.get(setting.name)
        try:
            settings[setting.name] = setting.check(value, family.name)
        except ValueError:
            raise bad(f"{setting.name!r} is {value!r}",
                      f"accepted with \"policy\": \"{family.name}\": a whole number "
                      f"from {setting.minimum} to {setting.maximum}") from None
    policy = Policy(family.name, encoder.name, **settings)
    expected = policy.genome_size()
    if expected is None:
        found = family.structure(genome, encoder.size, **settings)
        if found is not None:
            raise bad(f"'genome' is not {policy.describe()}: {found}",
                      f"accepted: {family.layout(encoder.size, **settings)}")
    elif genome.size != expected:
        fits = [n for n in OBSERVATIONS
                if Policy(family.name, n, **settings).genome_size() == genome.size]
        hint = f"; {genome.size} numbers fit the {fits[0]!r} observation" if fits else ""
        raise bad(f"the genome has {genome.size} numbers but {policy.describe()} needs "
                  f"{expected}",
                  f"accepted: {family.layout(encoder.size, **settings)} = {expected} "
                  f"numbers{hint}")

    stages = data["stages"]
    if (not isinstance(stages, list) or not stages
            or not all(isinstance(s, str) and s for s in stages)):
        raise bad(f"'stages' is {stages!r}",
                  "accepted: a non-empty list of stage names or .toml paths")
    max_steps = data["max_steps"]
    if not _is_whole(max_steps) or max_steps < 1:
        raise bad(f"'max_steps' is {max_steps!r}", "accepted: a whole number >= 1")
    stall = data["stall_frames"]
    if stall is not None and (not _is_whole(stall) or stall < 1):
        raise bad(f"'stall_frames' is {stall!r}", "accepted: a whole number >= 1, or null")
    training_stall = data.get("training_stall_frames")
    if training_stall is not None and (not _is_whole(training_stall) or training_stall < 1):
        raise bad(f"'training_stall_frames' is {training_stall!r}",
                  "accepted: a whole number >= 1, or null, or no such key")
    repeat = data.get("action_repeat", 1)
    if not _is_whole(repeat) or repeat < 1:
        raise bad(f"'action_repeat' is {repeat!r}",
                  "accepted: a whole number >= 1, or no such key (1)")
    fitness = data.get("fitness")
    if fitness is not None and not (_is_number(fitness) and math.isfinite(fitness)):
        raise bad(f"'fitness' is {fitness!r}", "accepted: a finite number, or null")
    results = data.get("results") or {}
    if not isinstance(results, dict):
        raise bad(f"'results' is a {type(results).__name__}",
                  "accepted: an object of episode results by stage name")
    generation = data.get("found_in_generation")
    seed = data.get("seed")
    fitness_stages = data.get("fitness_stages")
    if fitness_stages is not None and (
            not isinstance(fitness_stages, list)
            or not all(isinstance(s, str) and s for s in fitness_stages)):
        raise bad(f"'fitness_stages' is {fitness_stages!r}",
                  "accepted: a list of stage names, or no such key")
    held_out = data.get("held_out")
    if held_out is not None and not isinstance(held_out, dict):
        raise bad(f"'held_out' is a {type(held_out).__name__}",
                  "accepted: an object of held-out results, or no such key")
    chosen = data.get("chosen")
    if chosen is not None and not isinstance(chosen, dict):
        raise bad(f"'chosen' is a {type(chosen).__name__}",
                  "accepted: an object saying which validation candidate the genome was, "
                  "or no such key")
    return GenomeRecord(
        path=path, genome=genome, observation=encoder.name,
        stages=tuple(locate_stage(s, path.parent) for s in stages),
        max_steps=int(max_steps), stall_frames=None if stall is None else int(stall),
        training_stall_frames=None if training_stall is None else int(training_stall),
        action_repeat=int(repeat), fitness=None if fitness is None else float(fitness),
        generation=generation if _is_whole(generation) else None,
        seed=seed if _is_whole(seed) else None, results=results,
        fitness_stages=(None if fitness_stages is None
                        else tuple(locate_stage(s, path.parent) for s in fitness_stages)),
        held_out=held_out, chosen=chosen, policy_spec=policy)


def _is_number(v: object) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _is_whole(v: object) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)




def locate_stage(stage: str, run_dir: str | os.PathLike) -> str:
    """`stage` as recorded, or, for a .toml path that no longer exists,
    the copy of that profile kept in `run_dir` when there is one."""
    if not stage.endswith(".toml") or Path(stage).is_file():
        return stage
    copy = Path(run_dir) / STAGE_COPIES / Path(stage).name
    return str(copy) if copy.is_file() else stage


def write_genome_file(path: str | os.PathLike, genome: np.ndarray, *, observation: str,
                      stages: list[str], max_steps: int, stall_frames: int | None,
                      action_repeat: int = 1, fitness: float | None, generation: int | None,
                      seed: int,
                      results: dict[str, Any], held_out: dict | None = None,
                      policy: Policy | None = None, chosen: dict | None = None,
                      training_stall_frames: int | None = None) -> None:
    """Write a genome file atomically, in the format `load_genome_file`
    reads; `training_stall_frames`: the stall limit `fitness` and
    `results` were measured with, where it is not `stall_frames`."""
    encoder = get_observation(observation)
    policy = Policy(DEFAULT_FAMILY, encoder.name) if policy is None else policy
    atomic_write_json(path, {
        "format": GENOME_FORMAT,
        "genome": [float(x) for x in np.asarray(genome)],
        "observation": encoder.name,
        "obs_dim": encoder.size,
        **policy.to_json(),
        "num_actions": NUM_ACTIONS,
        "stages": list(stages),
        "max_steps": max_steps,
        "stall_frames": stall_frames,
        **({"training_stall_frames": training_stall_frames}
           if training_stall_frames is not None and training_stall_frames != stall_frames
           else {}),
        "action_repeat": action_repeat,
        # None: a genome no search scored (a fit to the planner's actions).
        "fitness": None if fitness is None else float(fitness),
        "found_in_generation": generation,
        "seed": seed,
        "results": results,
        # The stages the fitness is the mean over: all of `stages` unless
        # each generation drew some of them.
        "fitness_stages": list(results),
        **({"held_out": held_out} if held_out is not None else {}),
        **({"chosen": chosen} if chosen is not None else {}),
        # A program's text, for a person (the genome is what is read back).
        **({"program": text} if (text := policy.text(genome)) is not None else {}),
    })

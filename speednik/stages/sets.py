"""Sets of stages named by one string: generated ones,
`gen:DIFFICULTY:SEEDS`, and the hand-made ones.

    gen:hard:7            one stage, seed 7
    gen:hard:0-31         32 stages, seeds 0 to 31 (inclusive)
    gen:medium:3,9,12     three stages
    gen:easy:0-3,10       ranges and seeds mixed in one list
    gen:skills:0-63       64 skill stages (speednik.stages.skills)
    gen:places:0-63       64 place stages (speednik.stages.places)
    gen:stalls:0-63       64 stall stages (speednik.stages.stalls)
    handmade:validation   the hand-made stages to choose settings on
    handmade:extra        eight more hand-made stages to choose on
    handmade:heldout      the hand-made stages no setting is chosen on

A hand-made set expands to the paths of its profiles, in the project's
`speednik/stages/handmade/` (and its `extra/` and `heldout/`), in name
order, so that validation weighing each set alike (`validation_weight =
"set"`) weighs the designed stages as one set.

The same strings are accepted wherever a stage is (command lines,
`config.json`, `best.json`, the Python API), so a run names its stages
once and replay and resume rebuild the same ones. `expand_stages` turns a
list of names into one name per stage (`gen:hard:7`), which
`load_stage` builds.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from speednik.stages.profile import DIFFICULTIES, StageError
from speednik.stages.start_shift import START_MARK, shifted_name, split_shift

PREFIX = "gen:"
HANDMADE_PREFIX = "handmade:"
HANDMADE_DIR = Path(__file__).resolve().parent / "handmade"
HANDMADE_EXTRA_DIR = HANDMADE_DIR / "extra"
HANDMADE_HELDOUT_DIR = HANDMADE_DIR / "heldout"
# The six are apart from the eight written after them: the place stages
# are drawn from the six, and what they draw must not change.
HANDMADE_SETS = {"handmade:validation": HANDMADE_DIR, "handmade:extra": HANDMADE_EXTRA_DIR,
                 "handmade:heldout": HANDMADE_HELDOUT_DIR}
# The hand-made sets as an error message or a help text lists them.
HANDMADE_NAMES = f"{', '.join(list(HANDMADE_SETS)[:-1])} or {list(HANDMADE_SETS)[-1]}"
HANDMADE_ACCEPTED = (f"accepted: {HANDMADE_NAMES} (the hand-made stages to choose on, "
                     f"and those kept apart)")
# More stages than this in one set is a typo, not a training set.
MAX_SET_SIZE = 10_000
# Seeds are non-negative and below this.
MAX_SEED = 2**31
# What a generated set may name between `gen:` and its seeds: a difficulty,
# the skill stages (expert stages of the moves made from a standstill),
# the place stages (stretches of the hand-made validation stages, varied),
# or the stall stages (the places where trained policies still stall).
GENERATED_KINDS = DIFFICULTIES + ("skills", "places", "stalls")

SET_ACCEPTED = (f"accepted: gen:DIFFICULTY:SEEDS with DIFFICULTY one of "
                f"{', '.join(GENERATED_KINDS)} and SEEDS one seed (7), a range A-B "
                f"(0-31, A <= B) or a list (1,5,9), seeds whole numbers from 0 to "
                f"{MAX_SEED - 1}, at most {MAX_SET_SIZE} stages")


class StageSetError(StageError):
    """A malformed `gen:` set; the message says what is accepted."""


def is_stage_set(name: object) -> bool:
    """Whether `name` is written as a generated set (well-formed or not)."""
    return isinstance(name, str) and name.startswith(PREFIX)


def is_handmade_set(name: object) -> bool:
    """Whether `name` is written as a hand-made set (known or not)."""
    return isinstance(name, str) and name.startswith(HANDMADE_PREFIX)


def names_several(name: object) -> bool:
    """Whether `name` is written as a set of stages, generated or hand-made."""
    return is_stage_set(name) or is_handmade_set(name)


def stage_label(name: str) -> str:
    """How a table row names a stage: a profile by its file name without
    the folders and `.toml` (a hand-made set's stages are paths), anything
    else as named."""
    return Path(name).stem if name.endswith(".toml") else name


def handmade_set(name: str) -> list[str]:
    """The paths of the profiles of hand-made set `name`, by file name;
    `StageSetError` naming the sets for another name."""
    folder = HANDMADE_SETS.get(name)
    if folder is None:
        raise StageSetError(f"unknown hand-made set {name!r}; {HANDMADE_ACCEPTED}")
    return [str(p) for p in sorted(folder.glob("*.toml"))]


def _seed(text: str, name: str) -> int:
    text = text.strip()
    if not text.isdigit() or not text.isascii():
        raise StageSetError(f"stage set {name!r}: {text!r} is not a seed; {SET_ACCEPTED}")
    if len(text.lstrip("0")) > len(str(MAX_SEED)):
        # Too long to be a seed, and Python refuses to convert a number of
        # thousands of digits.
        raise StageSetError(f"stage set {name!r}: seed {text[:12]}... ({len(text)} digits) "
                            f"is too large; {SET_ACCEPTED}")
    value = int(text)
    if value >= MAX_SEED:
        raise StageSetError(f"stage set {name!r}: seed {value} is too large; {SET_ACCEPTED}")
    return value


def parse_stage_set(name: str) -> tuple[str, tuple[int, ...]]:
    """(difficulty, seeds in the order written) of a `gen:` set;
    `StageSetError` naming what is accepted otherwise."""
    if not is_stage_set(name):
        raise StageSetError(f"{name!r} is not a stage set; {SET_ACCEPTED}")
    parts = name.split(":")
    if len(parts) != 3:
        raise StageSetError(f"stage set {name!r}: expected three parts separated by "
                            f"':'; {SET_ACCEPTED}")
    _, difficulty, seeds_text = parts
    if difficulty not in GENERATED_KINDS:
        raise StageSetError(f"stage set {name!r}: unknown difficulty {difficulty!r}; "
                            f"{SET_ACCEPTED}")
    if not seeds_text.strip():
        raise StageSetError(f"stage set {name!r}: no seeds; {SET_ACCEPTED}")
    seeds: list[int] = []
    for item in seeds_text.split(","):
        if "-" in item:
            lo_text, _, hi_text = item.partition("-")
            lo, hi = _seed(lo_text, name), _seed(hi_text, name)
            if lo > hi:
                raise StageSetError(f"stage set {name!r}: the range {item} runs "
                                    f"backwards; {SET_ACCEPTED}")
            if hi - lo + 1 + len(seeds) > MAX_SET_SIZE:
                raise StageSetError(f"stage set {name!r}: more than {MAX_SET_SIZE} "
                                    f"stages; {SET_ACCEPTED}")
            seeds.extend(range(lo, hi + 1))
        else:
            seeds.append(_seed(item, name))
    if len(seeds) > MAX_SET_SIZE:
        raise StageSetError(f"stage set {name!r}: more than {MAX_SET_SIZE} stages; "
                            f"{SET_ACCEPTED}")
    if len(set(seeds)) != len(seeds):
        twice = next(s for s in seeds if seeds.count(s) > 1)
        raise StageSetError(f"stage set {name!r}: seed {twice} is named twice; "
                            f"{SET_ACCEPTED}")
    return difficulty, tuple(seeds)


def stage_name(seed: int, difficulty: str) -> str:
    """The name of one generated stage, as sets expand to."""
    return f"{PREFIX}{difficulty}:{seed}"


def expand_stages(names: Iterable[str]) -> list[str]:
    """One name per stage: every `gen:` set becomes its single-seed names,
    a hand-made set the paths of its profiles, anything else stays as it
    is; a set played from a moved start (`gen:hard:0-9@start+4`) becomes
    its stages played from that start. A stage named twice is refused."""
    out: list[str] = []
    for name in names:
        if isinstance(name, str) and START_MARK in name:
            base, dx = split_shift(name)
            out.extend(shifted_name(one, dx) for one in expand_stages([base]))
        elif is_handmade_set(name):
            out.extend(handmade_set(name))
        elif is_stage_set(name):
            difficulty, seeds = parse_stage_set(name)
            out.extend(stage_name(s, difficulty) for s in seeds)
        else:
            out.append(name)
    if len(set(out)) != len(out):
        twice = next(s for s in out if out.count(s) > 1)
        raise StageSetError(f"stage {twice!r} is named twice; accepted: every stage once")
    return out


def single_generated(name: str) -> tuple[int, str]:
    """(seed, difficulty) of a one-stage `gen:` name; `StageSetError` for
    a set of several."""
    difficulty, seeds = parse_stage_set(name)
    if len(seeds) != 1:
        raise StageSetError(
            f"{name!r} names {len(seeds)} stages where one is needed; accepted: "
            f"one seed, gen:{difficulty}:{seeds[0]}")
    return seeds[0], difficulty

"""The stage profile: a readable TOML description of a stage.

A profile lists the terrain as segments laid left to right, each starting
where the previous one ended, and the objects as entities placed by their x
and their height above the ground there. The builder (`speednik.stages.
builder`) turns it into pixel grids and entities.

Example::

    [stage]
    name = "hillside"
    height = 1024          # px; y grows downward
    ground_y = 768         # ground level where the first segment starts
    start_x = 64           # the player starts standing on the ground here
    difficulty = "easy"    # easy | medium | hard | expert (or 0..3): step and
                           # gap limits, see STEP_UP_LIMIT and GAP_LIMIT
    description = "..."    # optional free text

    [[segment]]
    kind = "flat"
    length = 384

    [[entity]]
    kind = "ring"
    x = 400
    count = 5              # a line of 5 rings, 24 px apart, following the ground
    spacing = 24

Segments (lengths and heights in pixels; a positive `rise` goes up):

    flat      length                    level ground
    ramp      length, rise              straight slope, at most 40 degrees
    hill      length, amplitude,        smooth cosine humps (a negative
              waves = 1                 amplitude makes dips); at most 40
                                        degrees; ends at the level it began
    gap       length, rise = 0          a pit down to the bottom of the stage;
                                        the ground resumes `rise` higher; at
                                        most GAP_LIMIT[difficulty] long
    step      rise                      zero-length wall up (rise > 0) or
                                        drop (rise < 0); a wall up is at most
                                        STEP_UP_LIMIT[difficulty] tall, or
                                        up to SPRING_STEP_LIMIT with an up
                                        spring of that strength standing at
                                        most 256 px before it
    halfpipe  length, depth             a U: two quarter circles of radius
                                        `depth` joined by a flat bottom
    loop      radius                    a loop of inner radius 32..160 on flat
                                        ground, with 64 px of flat ground
                                        before and after; length 2*radius+128
    bridge    length                    a top-only walkway over a pit
    tunnel    length, clearance         flat floor under a 32 px thick solid
                                        ceiling `clearance` px above it

Entities (`x` in pixels from the stage's left edge; `above` is the height
of the object's reference point above the ground surface at x; over a gap
the ground is the line joining the two rims):

    ring        above = 24, count = 1,   a line of `count` rings `spacing`
                spacing = 24, arc = 0    apart that follows the ground;
                                         `arc` lifts the middle of the line
                                         into a parabola that much higher
    spring      direction = "up",        up | left | right; yellow | red;
                strength = "yellow",     centre 8 px above the ground
                above = 8
    spikes      width = 32, height = 16  x, y is the middle of the bottom
                above = 0                edge
    checkpoint  above = 48
    enemy       enemy_kind = "walker",   walker | flyer; a walker patrols
                span, period, above      from x to x + span on level ground
                                         (default span 64, period 240,
                                         above 12); a flyer bobs up `span`
                                         px (default 48, 120, above 48).
                                         `kind = "walker"` / `"flyer"` is a
                                         shorthand for the same.
    platform    width = 96, above        a floating top-only platform whose
                                         top is `above` px over the ground,
                                         centred on x
    goal        above = 0                crossing its x ends the stage;
                                         exactly one is required

Springs, spikes, checkpoints, walkers and the goal need ground under them
(not a gap). Entities other than rings may not overlap each other or the
terrain, and every entity must lie inside the stage.

Errors: anything malformed raises `StageError` (a `ValueError`) whose
message names the file, the entry (segments and entities are numbered from
1 in file order) and what is accepted, for example
``hillside.toml: segment 7: unknown kind 'lop'; accepted: flat, ramp, ...``.

The parser produces a `Profile`; `profile_from_dict` takes the same shape
as `tomllib` returns, which is how the generator builds its profiles, and
`profile_to_toml` writes one back out.
"""
from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from speednik.constants import (
    GRAVITY,
    JUMP_FORCE,
    SPRING_RED_SPEED,
    SPRING_YELLOW_SPEED,
    TOP_SPEED,
)
from speednik.entities import ENEMY_KINDS, SPRING_DIRECTIONS, SPRING_STRENGTHS


class StageError(ValueError):
    """A stage profile or stage request that cannot be honoured."""


# --- physics-derived limits --------------------------------------------------

# A full jump from flat ground: apex = v^2 / 2g = 6.5^2 / (2 * 0.21875)
# = 96.6 px; airtime back to the take-off level = 2v / g = 59.4 frames; at
# top speed that covers 6 * 59.4 = 357 px.
JUMP_APEX = JUMP_FORCE ** 2 / (2.0 * GRAVITY)
JUMP_AIRTIME = 2.0 * JUMP_FORCE / GRAVITY
JUMP_RANGE = TOP_SPEED * JUMP_AIRTIME

# Expert keeps hard's limits for a single obstacle: it is harder because
# obstacles chain and use the whole vocabulary (speednik.stages.expert).
DIFFICULTIES = ("easy", "medium", "hard", "expert")

# The tallest step up a profile may ask for. A step of height h leaves a
# window of 2 * sqrt(v^2 - 2gh) / g frames above its top: at 0.83 * apex
# (80 px) that is still ~25 frames (150 px at top speed), so a running jump
# clears it with room to spare; easier stages leave a wider window.
STEP_UP_LIMIT = {
    "easy": round(0.5 * JUMP_APEX),      # 48 px
    "medium": round(0.66 * JUMP_APEX),   # 64 px
    "hard": round(0.83 * JUMP_APEX),     # 80 px
    "expert": round(0.83 * JUMP_APEX),   # 80 px
}
# The widest gap. The jump has to start before the rim and the feet need
# the far rim under them, so only part of the 357 px range is usable:
# hard allows 0.56 of it (200 px), leaving ~150 px of take-off slack.
GAP_LIMIT = {
    "easy": round(0.3 * JUMP_RANGE),     # 107 px
    "medium": round(0.45 * JUMP_RANGE),  # 160 px
    "hard": round(0.56 * JUMP_RANGE),    # 200 px
    "expert": round(0.56 * JUMP_RANGE),  # 200 px
}

# A step taller than a jump clears is allowed when an up spring stands on
# the ground in front of it. A spring launch reaches v^2 / 2g: 229 px for
# yellow (10 px/frame), 585 px for red (16); keep the same 0.83 margin.
SPRING_STEP_LIMIT = {
    "yellow": round(0.83 * SPRING_YELLOW_SPEED ** 2 / (2.0 * GRAVITY)),  # 190 px
    "red": round(0.83 * SPRING_RED_SPEED ** 2 / (2.0 * GRAVITY)),        # 486 px
}
# How far before the step that spring may stand.
SPRING_STEP_REACH = 256

MAX_SLOPE_DEGREES = 40.0
MAX_SLOPE = math.tan(math.radians(MAX_SLOPE_DEGREES))
LOOP_RADIUS_RANGE = (32, 160)
LOOP_LEAD = 64                 # flat run before and after a loop
LOOP_THICKNESS = 24            # the loop's ring of solid, radius R..R+24
HALFPIPE_DEPTH_RANGE = (32, 256)
TUNNEL_CLEARANCE_RANGE = (48, 256)
CEILING_THICKNESS = 32         # never thinner: a thinner wall lets sensors through
MIN_HEADROOM = 160             # empty space above the highest ground
MIN_FLOOR_DEPTH = 64           # ground never closer than this to the bottom
MIN_PIECE_LENGTH = 16
MAX_WIDTH = 65536              # keeps the pixel grids to a sane size
# Building a stage takes about 3 bytes per pixel at its peak (measured on
# the built-in stages: ~20 MB for hillside's 7528 x 1024 with its loop,
# ~10 MB for those without one); this many pixels keep a build within
# about 50 MB.
BUILD_BYTES_PER_PIXEL = 3.0
MAX_PIXELS = 16 * 2**20

SEGMENT_KINDS = ("flat", "ramp", "hill", "gap", "step", "halfpipe", "loop",
                 "bridge", "tunnel")
ENTITY_KINDS = ("ring", "spring", "spikes", "checkpoint", "enemy", "walker",
                "flyer", "platform", "goal")

# Keys each segment kind accepts: required ones map to None, optional ones
# to their default.
SEGMENT_KEYS: dict[str, dict[str, Any]] = {
    "flat": {"length": None},
    "ramp": {"length": None, "rise": None},
    "hill": {"length": None, "amplitude": None, "waves": 1},
    "gap": {"length": None, "rise": 0},
    "step": {"rise": None},
    "halfpipe": {"length": None, "depth": None},
    "loop": {"radius": None},
    "bridge": {"length": None},
    "tunnel": {"length": None, "clearance": None},
}

# Defaults of enemies depend on the kind of enemy (ENEMY_DEFAULTS).
BY_ENEMY_KIND = "by enemy kind"

ENTITY_KEYS: dict[str, dict[str, Any]] = {
    "ring": {"x": None, "above": 24, "count": 1, "spacing": 24, "arc": 0},
    "spring": {"x": None, "above": 8, "direction": "up",
               "strength": "yellow"},
    "spikes": {"x": None, "above": 0, "width": 32, "height": 16},
    "checkpoint": {"x": None, "above": 48},
    "enemy": {"x": None, "enemy_kind": None, "above": BY_ENEMY_KIND,
              "span": BY_ENEMY_KIND, "period": BY_ENEMY_KIND},
    "platform": {"x": None, "above": None, "width": 96},
    "goal": {"x": None, "above": 0},
}
ENEMY_DEFAULTS = {
    "walker": {"above": 12, "span": 64, "period": 240},
    "flyer": {"above": 48, "span": 48, "period": 120},
}

STAGE_KEYS: dict[str, Any] = {
    "name": None, "height": None, "ground_y": None, "start_x": 64,
    "difficulty": "medium", "description": "",
}


@dataclass(frozen=True, slots=True)
class StageInfo:
    name: str
    height: int
    ground_y: int
    start_x: float = 64.0
    difficulty: str = "medium"
    description: str = ""


@dataclass(frozen=True, slots=True)
class SegmentSpec:
    """One piece of terrain; only the fields its kind uses are meaningful."""

    kind: str
    length: int = 0
    rise: int = 0
    amplitude: int = 0
    waves: int = 1
    depth: int = 0
    radius: int = 0
    clearance: int = 0

    @property
    def span(self) -> int:
        """How many pixels of stage width the segment takes."""
        if self.kind == "loop":
            return 2 * self.radius + 2 * LOOP_LEAD
        if self.kind == "step":
            return 0
        return self.length


@dataclass(frozen=True, slots=True)
class EntitySpec:
    """One placed object; `kind` is normalised (walker/flyer become enemy)."""

    kind: str
    x: float
    above: float = 0.0
    count: int = 1
    spacing: float = 24.0
    arc: float = 0.0
    direction: str = "up"
    strength: str = "yellow"
    width: float = 0.0
    height: float = 0.0
    enemy_kind: str = ""
    span: float = 0.0
    period: int = 0


@dataclass(frozen=True, slots=True)
class Profile:
    stage: StageInfo
    segments: tuple[SegmentSpec, ...]
    entities: tuple[EntitySpec, ...]
    # A short label for messages: the file name, or how it was generated.
    source: str = "<profile>"
    # The full path when read from a file.
    path: str = ""

    @property
    def width(self) -> int:
        return sum(s.span for s in self.segments)

    @property
    def step_up_limit(self) -> int:
        return STEP_UP_LIMIT[self.stage.difficulty]

    @property
    def gap_limit(self) -> int:
        return GAP_LIMIT[self.stage.difficulty]


def normalise_difficulty(value: Any, where: str = "") -> str:
    """The difficulty's name, given as a name or as its number (0 is easy)."""
    # bool is an int subclass; True is not a difficulty.
    if isinstance(value, bool):
        pass
    elif isinstance(value, int) and 0 <= value < len(DIFFICULTIES):
        return DIFFICULTIES[value]
    elif isinstance(value, str) and value.lower() in DIFFICULTIES:
        return value.lower()
    prefix = f"{where}: " if where else ""
    raise StageError(
        f"{prefix}unknown difficulty {value!r}; accepted: "
        f"{', '.join(DIFFICULTIES)} (or 0 to {len(DIFFICULTIES) - 1})")


# --- reading -----------------------------------------------------------------

def read_profile(path: str | os.PathLike[str]) -> Profile:
    """Read and validate a profile file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise StageError(f"{p.name}: cannot read profile: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise StageError(
            f"{p.name}: not UTF-8 text (byte {exc.start}: {exc.reason}); accepted: a "
            f"TOML profile saved as UTF-8") from None
    return parse_profile(text, source=p.name, path=str(p))


def parse_profile(text: str, source: str = "<profile>", path: str = "") -> Profile:
    """Parse and validate profile TOML text; `source` labels the messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise StageError(f"{source}: TOML syntax error: {exc}") from exc
    except (ValueError, RecursionError) as exc:
        # What the parser cannot hold: a number of thousands of digits,
        # arrays nested thousands deep.
        raise StageError(f"{source}: cannot be read as a profile "
                         f"({_beyond_parsing(exc)}); accepted: TOML as described in "
                         f"speednik/stages/profile.py") from None
    return profile_from_dict(data, source=source, path=path)


def _beyond_parsing(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return str(exc).split(";")[0]


def profile_from_dict(data: Mapping[str, Any], source: str = "<profile>",
                      path: str = "") -> Profile:
    """Validate a profile given as `tomllib` would return it.

    Checks each entry on its own (kinds, keys, types, sizes, limits); the
    builder checks what needs the geometry (placement, overlaps).
    """
    _check_keys(data, {"stage": None, "segment": None, "entity": None},
                source, "profile", required=("stage", "segment"))
    stage = _parse_stage(data["stage"], source)
    segs_raw = data["segment"]
    if not isinstance(segs_raw, list) or not segs_raw:
        raise StageError(f"{source}: needs at least one [[segment]]")
    ents_raw = data.get("entity", [])
    if not isinstance(ents_raw, list):
        raise StageError(f"{source}: 'entity' must be an array of tables ([[entity]])")
    segments = tuple(_parse_segment(s, i + 1, source, stage)
                     for i, s in enumerate(segs_raw))
    entities = tuple(_parse_entity(e, i + 1, source)
                     for i, e in enumerate(ents_raw))
    goals = [i + 1 for i, e in enumerate(entities) if e.kind == "goal"]
    if len(goals) != 1:
        found = "none" if not goals else "entities " + ", ".join(map(str, goals))
        raise StageError(
            f"{source}: needs exactly one goal entity; found {found}")
    profile = Profile(stage, segments, entities, source, path)
    _check_levels(profile)
    _check_obstacles(profile)
    return profile


def _check_keys(table: Any, accepted: Mapping[str, Any], source: str,
                where: str, required: tuple[str, ...] | None = None) -> None:
    if not isinstance(table, Mapping):
        raise StageError(f"{source}: {where}: must be a table")
    unknown = [k for k in table if k not in accepted]
    if unknown:
        raise StageError(
            f"{source}: {where}: unknown key '{unknown[0]}'; accepted: "
            f"{', '.join(accepted)}")
    if required is None:
        required = tuple(k for k, v in accepted.items() if v is None)
    for k in required:
        if k not in table:
            raise StageError(f"{source}: {where}: missing key '{k}'")


def _number(table: Mapping[str, Any], key: str, default: Any, source: str,
            where: str, integer: bool = False, lo: float | None = None,
            hi: float | None = None) -> Any:
    value = table.get(key, default)
    kind = "an integer" if integer else "a number"
    ok = (isinstance(value, int) if integer else isinstance(value, (int, float)))
    if isinstance(value, bool) or not ok or (
            isinstance(value, float) and not math.isfinite(value)):
        raise StageError(f"{source}: {where}: '{key}' must be {kind}, got {value!r}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        rng = (f"{lo:g}..{hi:g}" if lo is not None and hi is not None
               else f">= {lo:g}" if lo is not None else f"<= {hi:g}")
        raise StageError(
            f"{source}: {where}: {key} {value!r} out of range; accepted: {rng}")
    return value


def _choice(table: Mapping[str, Any], key: str, default: Any,
            accepted: tuple[str, ...], source: str, where: str) -> str:
    value = table.get(key, default)
    if value not in accepted:
        raise StageError(
            f"{source}: {where}: unknown {key} {value!r}; accepted: "
            f"{', '.join(accepted)}")
    return value


def _parse_stage(table: Any, source: str) -> StageInfo:
    where = "[stage]"
    _check_keys(table, STAGE_KEYS, source, where)
    name = table["name"]
    if not isinstance(name, str) or not name:
        raise StageError(f"{source}: {where}: 'name' must be a non-empty string")
    height = _number(table, "height", None, source, where, True, 256, 8192)
    ground_y = _number(table, "ground_y", None, source, where, True,
                       MIN_HEADROOM, height - MIN_FLOOR_DEPTH)
    start_x = _number(table, "start_x", 64, source, where, False, 16)
    difficulty = normalise_difficulty(table.get("difficulty", "medium"),
                                      f"{source}: {where}")
    description = table.get("description", "")
    if not isinstance(description, str):
        raise StageError(f"{source}: {where}: 'description' must be a string")
    return StageInfo(name, height, ground_y, float(start_x), difficulty,
                     description)


def _parse_segment(table: Any, index: int, source: str,
                   stage: StageInfo) -> SegmentSpec:
    if not isinstance(table, Mapping):
        raise StageError(f"{source}: segment {index}: must be a table")
    kind = table.get("kind")
    if kind not in SEGMENT_KINDS:
        what = f"unknown kind {kind!r}" if "kind" in table else "missing key 'kind'"
        raise StageError(
            f"{source}: segment {index}: {what}; accepted: {', '.join(SEGMENT_KINDS)}")
    where = f"segment {index} ({kind})"
    keys = {"kind": kind, **SEGMENT_KEYS[kind]}
    _check_keys(table, keys, source, where)
    step_limit = STEP_UP_LIMIT[stage.difficulty]
    gap_limit = GAP_LIMIT[stage.difficulty]
    big = 100_000

    def num(key: str, lo: float | None = None, hi: float | None = None) -> int:
        return _number(table, key, keys[key], source, where, True, lo, hi)

    if kind == "step":
        rise = num("rise", -big, big)
        if rise == 0 or rise > SPRING_STEP_LIMIT["red"]:
            what = ("rise must not be 0" if rise == 0 else
                    f"rise {rise} is taller than even a red spring clears")
            raise StageError(f"{source}: {where}: {what}; accepted: "
                             f"{_step_accepted(step_limit)}")
        # Steps taller than step_limit are checked against the springs
        # once the entities are known (_check_obstacles).
        return SegmentSpec(kind, rise=rise)
    if kind == "loop":
        return SegmentSpec(kind, radius=num("radius", *LOOP_RADIUS_RANGE))
    length = num("length", MIN_PIECE_LENGTH)
    if kind == "flat" or kind == "bridge":
        return SegmentSpec(kind, length=length)
    if kind == "ramp":
        rise = num("rise", -big, big)
        limit = int(length * MAX_SLOPE)
        if abs(rise) > limit:
            raise StageError(
                f"{source}: {where}: rise {rise} over length {length} is steeper "
                f"than {MAX_SLOPE_DEGREES:g} degrees; accepted: -{limit}..{limit}")
        return SegmentSpec(kind, length=length, rise=rise)
    if kind == "hill":
        waves = num("waves", 1, big)
        amplitude = num("amplitude", -big, big)
        # Steepest point of a cosine hump: amplitude * pi * waves / length.
        limit = int(MAX_SLOPE * length / (math.pi * waves))
        if amplitude == 0 or abs(amplitude) > limit:
            raise StageError(
                f"{source}: {where}: amplitude {amplitude} with {waves} wave(s) "
                f"over length {length} is flat or steeper than "
                f"{MAX_SLOPE_DEGREES:g} degrees; accepted: -{limit}..-1 or 1..{limit}")
        return SegmentSpec(kind, length=length, amplitude=amplitude, waves=waves)
    if kind == "gap":
        if length > gap_limit:
            raise StageError(
                f"{source}: {where}: length {length} too wide to jump at "
                f"difficulty {stage.difficulty}; accepted: "
                f"{MIN_PIECE_LENGTH}..{gap_limit}")
        rise = num("rise", -big, big)
        if rise > step_limit:
            raise StageError(
                f"{source}: {where}: rise {rise} is taller than a jump clears at "
                f"difficulty {stage.difficulty}; accepted: <= {step_limit}")
        return SegmentSpec(kind, length=length, rise=rise)
    if kind == "halfpipe":
        depth = num("depth", *HALFPIPE_DEPTH_RANGE)
        if length < 2 * depth:
            raise StageError(
                f"{source}: {where}: length {length} too short for depth "
                f"{depth}; accepted: >= 2 * depth = {2 * depth}")
        return SegmentSpec(kind, length=length, depth=depth)
    # tunnel
    clearance = num("clearance", *TUNNEL_CLEARANCE_RANGE)
    return SegmentSpec(kind, length=length, clearance=clearance)


def _step_accepted(step_limit: int) -> str:
    return (f"a drop (rise < 0), 1..{step_limit}, or up to "
            f"{SPRING_STEP_LIMIT['yellow']} ({SPRING_STEP_LIMIT['red']}) with a "
            f"yellow (red) up spring within {SPRING_STEP_REACH} px before the step")


def _check_obstacles(profile: Profile) -> None:
    """Gaps and steps with no ground between them are one obstacle: their
    pit widths add up and their rises stack into one wall. Each obstacle
    must be within what a jump clears at the stage's difficulty (a pure
    wall may be taller with an up spring strong enough before it)."""
    limit, gap_limit = profile.step_up_limit, profile.gap_limit
    springs = [e for e in profile.entities
               if e.kind == "spring" and e.direction == "up"]
    segments, levels = profile.segments, segment_levels(profile)
    i = 0
    while i < len(segments):
        if segments[i].kind not in ("gap", "step"):
            i += 1
            continue
        j, width, rise, climb = i, 0, 0, 0
        while j < len(segments) and segments[j].kind in ("gap", "step"):
            if segments[j].kind == "gap":
                width += segments[j].length
            rise += segments[j].rise
            climb = max(climb, rise)
            j += 1
        x0 = levels[i][0]
        first = segments[i]
        if j - i == 1:
            where = f"segment {i + 1} ({first.kind})"
        else:
            kinds = ", ".join(s.kind for s in segments[i:j])
            where = f"segments {i + 1}..{j} ({kinds}, with no ground between)"
        if width > gap_limit:
            raise StageError(
                f"{profile.source}: {where}: together a pit {width} px wide at "
                f"x={x0}, too wide to jump at difficulty {profile.stage.difficulty}; "
                f"accepted: at most {gap_limit} px of gap without ground between")
        if climb > limit:
            helpers = [e for e in springs
                       if x0 - SPRING_STEP_REACH <= e.x < x0
                       and climb <= SPRING_STEP_LIMIT[e.strength]]
            if width > 0 or not helpers:
                wall = f"rise {climb}" if j - i == 1 else f"together rise {climb}"
                raise StageError(
                    f"{profile.source}: {where}: {wall} at x={x0} is taller than a "
                    f"jump clears at difficulty {profile.stage.difficulty} and no up "
                    f"spring strong enough stands before it; accepted: "
                    f"{_step_accepted(limit)}, for all the steps and gaps in a row")
        i = j


def _parse_entity(table: Any, index: int, source: str) -> EntitySpec:
    if not isinstance(table, Mapping):
        raise StageError(f"{source}: entity {index}: must be a table")
    kind = table.get("kind")
    if kind not in ENTITY_KINDS:
        what = f"unknown kind {kind!r}" if "kind" in table else "missing key 'kind'"
        raise StageError(
            f"{source}: entity {index}: {what}; accepted: {', '.join(ENTITY_KINDS)}")
    where = f"entity {index} ({kind})"
    if kind in ENEMY_KINDS:
        keys = {"kind": kind, **ENTITY_KEYS["enemy"]}
        keys.pop("enemy_kind")
        _check_keys(table, keys, source, where)
        enemy_kind = kind
        kind = "enemy"
    else:
        keys = {"kind": kind, **ENTITY_KEYS[kind]}
        _check_keys(table, keys, source, where)
        enemy_kind = ""
    x = _number(table, "x", None, source, where, False, 0)

    def num(key: str, default: Any = None, lo: float | None = None,
            hi: float | None = None, integer: bool = False) -> Any:
        d = keys[key] if default is None else default
        return _number(table, key, d, source, where, integer, lo, hi)

    if kind == "enemy":
        if not enemy_kind:
            enemy_kind = _choice(table, "enemy_kind", None, ENEMY_KINDS, source, where)
        defaults = ENEMY_DEFAULTS[enemy_kind]
        return EntitySpec(
            kind, float(x), above=float(num("above", defaults["above"], -64, 1024)),
            enemy_kind=enemy_kind,
            span=float(num("span", defaults["span"], 0, 1024)),
            period=num("period", defaults["period"], 2, 100_000, integer=True))
    above = float(num("above", None, -64, 1024))
    if kind == "ring":
        return EntitySpec(kind, float(x), above,
                          count=num("count", None, 1, 64, integer=True),
                          spacing=float(num("spacing", None, 8, 512)),
                          arc=float(num("arc", None, -256, 512)))
    if kind == "spring":
        return EntitySpec(
            kind, float(x), above,
            direction=_choice(table, "direction", "up", SPRING_DIRECTIONS, source, where),
            strength=_choice(table, "strength", "yellow", SPRING_STRENGTHS, source, where))
    if kind == "spikes":
        return EntitySpec(kind, float(x), above,
                          width=float(num("width", None, 8, 1024)),
                          height=float(num("height", None, 4, 64)))
    if kind == "platform":
        return EntitySpec(kind, float(x), above,
                          width=float(num("width", None, 32, 1024)))
    return EntitySpec(kind, float(x), above)


def segment_levels(profile: Profile) -> list[tuple[int, int, float, float]]:
    """(x0, x1, level at start, level at end) of each segment."""
    out = []
    x = 0
    level = float(profile.stage.ground_y)
    for s in profile.segments:
        end = level
        if s.kind in ("ramp", "step", "gap"):
            end = level - s.rise
        out.append((x, x + s.span, level, end))
        x += s.span
        level = end
    return out


def _check_levels(profile: Profile) -> None:
    """Ground stays between the headroom at the top and the pit depth at the
    bottom; loops, tunnels and hills fit under the top of the stage."""
    info = profile.stage
    lowest_ok = info.height - MIN_FLOOR_DEPTH
    for i, (s, (x0, _, start, end)) in enumerate(
            zip(profile.segments, segment_levels(profile)), 1):
        where = f"{profile.source}: segment {i} ({s.kind})"
        top = min(start, end)
        bottom = max(start, end)
        if s.kind == "hill":
            top = min(top, start - s.amplitude)
            bottom = max(bottom, start - s.amplitude)
        elif s.kind == "halfpipe":
            bottom = start + s.depth
        if top < MIN_HEADROOM:
            raise StageError(
                f"{where}: ground at y={top:g} leaves less than {MIN_HEADROOM} px "
                f"of headroom; accepted: ground y >= {MIN_HEADROOM}")
        if bottom > lowest_ok:
            raise StageError(
                f"{where}: ground at y={bottom:g} is too close to the bottom; "
                f"accepted: ground y <= height - {MIN_FLOOR_DEPTH} = {lowest_ok}")
        if s.kind == "loop" and start - 2 * s.radius - LOOP_THICKNESS < 0:
            raise StageError(f"{where}: the loop rises above the top of the stage")
        if s.kind == "tunnel" and start - s.clearance - CEILING_THICKNESS < 0:
            raise StageError(f"{where}: the ceiling rises above the top of the stage")
    width = profile.width
    if width > MAX_WIDTH:
        raise StageError(f"{profile.source}: the stage is {width} px wide; "
                         f"accepted: at most {MAX_WIDTH}")
    if width * info.height > MAX_PIXELS:
        raise StageError(
            f"{profile.source}: the stage is {width} x {info.height:g} px, "
            f"{width * info.height / 2**20:.0f} M pixels, which would take about "
            f"{width * info.height * BUILD_BYTES_PER_PIXEL / 2**20:.0f} MB to build; "
            f"accepted: width x height at most {MAX_PIXELS // 2**20} M pixels "
            f"(for example 16384 x 1024)")
    if not (0 < info.start_x < width):
        raise StageError(
            f"{profile.source}: [stage]: start_x {info.start_x:g} outside the "
            f"stage; accepted: 0..{width}")


# --- writing -----------------------------------------------------------------

def profile_to_dict(profile: Profile) -> dict[str, Any]:
    """The `tomllib`-shaped dict of a profile, defaults left out."""
    info = profile.stage
    stage = {"name": info.name, "height": info.height, "ground_y": info.ground_y,
             "start_x": _plain(info.start_x), "difficulty": info.difficulty}
    if info.description:
        stage["description"] = info.description
    segments = []
    for s in profile.segments:
        entry: dict[str, Any] = {"kind": s.kind}
        for key, default in SEGMENT_KEYS[s.kind].items():
            value = getattr(s, key)
            if default is None or value != default:
                entry[key] = value
        segments.append(entry)
    entities = []
    for e in profile.entities:
        if e.kind == "enemy":
            entry = {"kind": e.kind, "enemy_kind": e.enemy_kind, "x": _plain(e.x)}
            defaults = ENEMY_DEFAULTS[e.enemy_kind]
            for key in ("above", "span", "period"):
                if getattr(e, key) != defaults[key]:
                    entry[key] = _plain(getattr(e, key))
        else:
            entry = {"kind": e.kind, "x": _plain(e.x)}
            for key, default in ENTITY_KEYS[e.kind].items():
                if key == "x":
                    continue
                value = getattr(e, key)
                if default is None or value != default:
                    entry[key] = _plain(value)
        entities.append(entry)
    return {"stage": stage, "segment": segments, "entity": entities}


def profile_to_toml(profile: Profile) -> str:
    """TOML text that `parse_profile` reads back to an equal profile."""
    data = profile_to_dict(profile)
    lines = ["[stage]"]
    lines += [f"{k} = {_toml_value(v)}" for k, v in data["stage"].items()]
    for table, entries in (("segment", data["segment"]), ("entity", data["entity"])):
        for entry in entries:
            lines += ["", f"[[{table}]]"]
            lines += [f"{k} = {_toml_value(v)}" for k, v in entry.items()]
    return "\n".join(lines) + "\n"


def _plain(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _toml_value(value: Any) -> str:
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        return f'"{escaped}"'
    if isinstance(value, float):
        return repr(value)
    return str(value)


__all__ = [
    "StageError", "Profile", "StageInfo", "SegmentSpec", "EntitySpec",
    "read_profile", "parse_profile", "profile_from_dict", "profile_to_dict",
    "profile_to_toml", "segment_levels", "normalise_difficulty",
    "SEGMENT_KINDS", "ENTITY_KINDS", "DIFFICULTIES", "STEP_UP_LIMIT",
    "GAP_LIMIT", "MAX_PIXELS", "SPRING_STEP_LIMIT", "JUMP_APEX", "JUMP_AIRTIME", "JUMP_RANGE",
]

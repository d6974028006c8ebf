"""Place stages (`gen:places:SEEDS`): stretches of the hand-made
validation stages, varied and strung together, certified by the planner.

Generated stages are built from pieces, each with a flat lead-in; the
skill stages add pieces of the moves made from a standstill. The
hand-made stages are built from places instead: a spring at the foot of
a drop before a bench it alone climbs, a crest guarded by a walker after
a steep climb, a pool left only with a run-up. A policy trained on
pieces meets these places as something new, and six designed stages are
too few to learn them from without learning the six (docs/
generalisation.md). A place stage takes three to six consecutive segments
of one of the six `handmade:validation` stages at a time, with the
objects standing on them, varies the lengths of their flat ground, pits
and pools, and strings such stretches together between flat joins (or a
ramp, where a stretch would not fit at the level the last one left), so
that the same places are met in other orders, from other run-ups and at
other distances.

An object keeps its distance from the nearer end of the ground it
stands on, so a spring stays as far from the wall it climbs, and spikes
as far from the drop whose landing they guard. Rises, climbs, loops and
tunnels are kept as designed: they are the places. The four stages of
`handmade:heldout` are never drawn from, so they stay a test of whether
what is learnt here carries over.

A stage is drawn from its own random stream,
`random.Random("places:SEED:DRAW")`, and kept only when the planner
finishes it, as expert and skill stages are
(`speednik.stages.certification`); its difficulty is expert (the step
and gap limits of the stages it is drawn from). The stages depend on the
six profiles, so the draws remembered on disk are keyed to them too
(`speednik.stages.certified_draws`).
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from speednik.stages.expert import EXPERT, _round_up
from speednik.stages.profile import (
    GAP_LIMIT,
    MAX_SLOPE,
    Profile,
    StageError,
    profile_from_dict,
    profile_to_dict,
    read_profile,
    segment_levels,
)

PLACES = "places"
# As wide as skill stages: several places, and a stage that stalls early
# costs little to play.
WIDTH_RANGE = (3200, 4800)
# Consecutive segments a stretch takes from its stage.
STRETCH_SEGMENTS = (3, 6)
# The flat start, from the standing start to the first stretch.
START_FLAT = (256, 512)
# Flat ground between two stretches.
JOIN_FLAT = (16, 96)
# A ramp between stretches climbs or falls at this share of the steepest
# slope a profile allows.
JOIN_SLOPE = (0.35, 0.7)
# How much a stretch's flat ground (flats, bridges, tunnels), its pits
# and its pools may be lengthened or shortened, as factors.
FLAT_SCALE = (0.75, 1.3)
GAP_SCALE = (0.85, 1.1)
POOL_SCALE = (0.9, 1.2)
# Ground every length is a multiple of.
GRID = 16
# The segments whose length a stretch varies.
VARIED = ("flat", "bridge", "tunnel", "gap", "halfpipe")
# Objects that belong to a stage, not to a place.
STAGE_OBJECTS = ("goal", "checkpoint")
RUN_OUT = 640
GOAL_BEFORE_END = 320
STAGE_HEIGHT = 1024
START_LEVEL = 704
# The stretches tried for one place before the stage ends early.
TRIES_PER_PLACE = 8


@dataclass(frozen=True)
class Stretch:
    """Segments `first`..`last` (inclusive) of a hand-made stage: their
    data, the x-range each takes, the ground level where they start, and
    the objects standing on them."""

    stage: str
    segments: tuple[dict[str, Any], ...]
    spans: tuple[tuple[int, int], ...]
    level: int
    entities: tuple[dict[str, Any], ...]


@lru_cache(maxsize=1)
def source_profiles() -> tuple[Profile, ...]:
    """The hand-made validation stages, in name order."""
    from speednik.stages.sets import handmade_set

    return tuple(read_profile(path) for path in handmade_set("handmade:validation"))


def _stretch(profile: Profile, first: int, last: int) -> Stretch:
    data = profile_to_dict(profile)
    levels = segment_levels(profile)
    spans = tuple((x0, x1) for x0, x1, _, _ in levels[first:last + 1])
    lo, hi = spans[0][0], spans[-1][1]
    entities = tuple(e for e in data["entity"]
                     if e["kind"] not in STAGE_OBJECTS and lo <= e["x"] < hi)
    return Stretch(profile.stage.name, tuple(data["segment"][first:last + 1]), spans,
                   int(levels[first][2]), entities)


def draw_stretch(rng: random.Random) -> Stretch:
    """A stretch of one of the six, starting on ground (not a step or a pit:
    what stands before those belongs with them)."""
    profile = rng.choice(source_profiles())
    starts = [i for i, s in enumerate(profile.segments) if s.kind not in ("step", "gap")]
    first = rng.choice(starts)
    count = rng.randint(*STRETCH_SEGMENTS)
    last = min(first + count, len(profile.segments)) - 1
    return _stretch(profile, first, last)


def _scaled(length: int, scale: tuple[float, float], rng: random.Random) -> int:
    return max(GRID, int(round(length * rng.uniform(*scale) / GRID)) * GRID)


def varied(stretch: Stretch, rng: random.Random) -> tuple[list[dict[str, Any]],
                                                          list[tuple[int, int]]]:
    """The stretch's segments with their flat ground, pits and pools
    lengthened or shortened, and the x-range each then takes (from 0)."""
    segments, spans = [], []
    x = 0
    for seg, (x0, x1) in zip(stretch.segments, stretch.spans):
        seg = dict(seg)
        kind = seg["kind"]
        if kind in ("flat", "bridge", "tunnel"):
            seg["length"] = _scaled(seg["length"], FLAT_SCALE, rng)
        elif kind == "gap":
            seg["length"] = min(_scaled(seg["length"], GAP_SCALE, rng), GAP_LIMIT[EXPERT])
        elif kind == "halfpipe":
            seg["length"] = max(_scaled(seg["length"], POOL_SCALE, rng), 2 * seg["depth"])
        # A loop's or a ramp's width is as designed; a step takes none.
        width = seg["length"] if kind in VARIED else x1 - x0
        segments.append(seg)
        spans.append((x, x + width))
        x += width
    return segments, spans


def placed_entities(stretch: Stretch, spans: list[tuple[int, int]],
                    at: int) -> list[dict[str, Any]]:
    """The stretch's objects moved onto its varied ground laid from x `at`:
    each keeps its distance from the nearer end of the segment it stands
    on."""
    out = []
    for entity in stretch.entities:
        x = entity["x"]
        # The segment it stands on: a step takes no width, so it is never one.
        k = next(i for i, (x0, x1) in enumerate(stretch.spans) if x0 <= x < x1)
        (x0, x1), (n0, n1) = stretch.spans[k], spans[k]
        new = n0 + (x - x0) if x - x0 <= x1 - x else n1 - (x1 - x)
        out.append({**entity, "x": int(round(min(max(new, n0), n1 - 1))) + at})
    return out


def _fits(segments: list[dict[str, Any]], entities: list[dict[str, Any]],
          level: int) -> bool:
    """Whether a stretch laid at ground level `level` passes the profile's
    checks (headroom, floor depth, loops and ceilings under the top,
    walls climbable with the springs before them)."""
    data = {"stage": {"name": "stretch", "height": STAGE_HEIGHT, "ground_y": level,
                      "start_x": GRID, "difficulty": EXPERT},
            "segment": segments,
            "entity": entities + [{"kind": "goal", "x": 1}]}
    try:
        profile_from_dict(data)
    except StageError:
        return False
    return True


class PlacesBuilder:
    """Lays a place stage: segments and objects, x and the ground level."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.segments: list[dict[str, Any]] = []
        self.entities: list[dict[str, Any]] = []
        self.x = 0
        self.level = START_LEVEL
        self.places: list[str] = []

    def span(self, lo: int, hi: int) -> int:
        return self.rng.randrange(lo // GRID, hi // GRID + 1) * GRID

    def flat(self, length: int) -> None:
        if self.segments and self.segments[-1]["kind"] == "flat":
            self.segments[-1]["length"] += length
        else:
            self.segments.append({"kind": "flat", "length": length})
        self.x += length

    def ramp_to(self, level: int) -> None:
        """A ramp from the ground level now to `level`, with flat either side."""
        rise = self.level - level
        slope = self.rng.uniform(*JOIN_SLOPE) * MAX_SLOPE
        length = _round_up(abs(rise) / slope, 32)
        self.flat(self.span(*JOIN_FLAT))
        self.segments.append({"kind": "ramp", "length": length, "rise": rise})
        self.x += length
        self.level = level

    def place(self) -> bool:
        """One stretch, joined to what is laid; False when none of the
        stretches tried fits."""
        for _ in range(TRIES_PER_PLACE):
            stretch = draw_stretch(self.rng)
            segments, spans = varied(stretch, self.rng)
            entities = placed_entities(stretch, spans, 0)
            if _fits(segments, entities, self.level):
                self.flat(self.span(*JOIN_FLAT))
            elif _fits(segments, entities, stretch.level):
                self.ramp_to(stretch.level)
            else:
                continue
            self.entities += placed_entities(stretch, spans, self.x)
            for seg in segments:
                self.segments.append(seg)
                if seg["kind"] in ("ramp", "step", "gap"):
                    self.level -= seg.get("rise", 0)
            self.x += spans[-1][1]
            self.places.append(stretch.stage)
            return True
        return False


def draw_places_data(seed: int, draw: int) -> dict[str, Any]:
    """The profile data (as `tomllib` would return it) of one draw."""
    rng = random.Random(f"{PLACES}:{seed}:{draw}")
    b = PlacesBuilder(rng)
    target = rng.randrange(*WIDTH_RANGE)
    b.flat(b.span(*START_FLAT))
    checkpoint_done = False
    while b.x < target - RUN_OUT:
        if not checkpoint_done and b.x >= target // 2:
            b.flat(160)
            b.entities.append({"kind": "checkpoint", "x": b.x - 80})
            checkpoint_done = True
        if not b.place():
            break
    b.flat(RUN_OUT)
    b.entities.append({"kind": "goal", "x": b.x - GOAL_BEFORE_END})
    return {
        "stage": {"name": f"generated-{PLACES}-{seed}", "height": STAGE_HEIGHT,
                  "ground_y": START_LEVEL, "start_x": 64, "difficulty": EXPERT,
                  "description": (f"Generated from seed {seed} as a place stage (draw "
                                  f"{draw}): stretches of {', '.join(b.places)}, "
                                  f"certified by the planner.")},
        "segment": b.segments,
        "entity": b.entities,
    }

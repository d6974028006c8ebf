"""Random stages from a seed: `generate_stage(seed, difficulty)`.

The generator writes a profile (the same `tomllib`-shaped dict a profile
file parses to) and hands it to the same validation and builder as the
built-in stages, so a generated stage obeys every rule a hand-written one
does. All randomness comes from one `random.Random(seed)`: the same seed
and difficulty always give the same stage.

A stage is a run of pieces. Each obstacle (pit, wall, spikes, enemy, ...)
comes with a flat lead-in to take off from and a flat landing zone longer
than a jump, so a jump over one obstacle never lands in the next. Sizes
stay inside the physics-derived limits of `speednik.stages.profile`
(STEP_UP_LIMIT, GAP_LIMIT, SPRING_STEP_LIMIT), which grow with difficulty.

Expert stages (`speednik.stages.expert`) reuse these pieces and this
drawing loop (`draw_data`) with their own random stream and pieces that
chain, and are certified by the planner.
"""
from __future__ import annotations

import math
import random
from typing import Any

from speednik.stages.profile import (
    GAP_LIMIT,
    JUMP_RANGE,
    MAX_SLOPE,
    SPRING_STEP_LIMIT,
    STEP_UP_LIMIT,
    Profile,
    StageError,
    normalise_difficulty,
    profile_from_dict,
)

STAGE_HEIGHT = 1024
START_LEVEL = 704
# Ground stays in this band: enough headroom above for a loop or a spring
# wall, and a pit below deep enough to fall out of the stage.
LEVEL_TOP = 384
LEVEL_BOTTOM = 800
START_RUN = 448
# Flat ground after an obstacle: a full jump at top speed covers
# JUMP_RANGE (357 px) from take-off, and take-off is before the obstacle,
# so a jump's range rounded up to whole tiles always lands on it.
LANDING = -(-round(JUMP_RANGE) // 16) * 16   # 368 px
# Flat ground before an obstacle, to see it coming and take off.
LEAD = 160
GAP_MIN = 48
STEP_MIN = 24
# A wall up to this fraction of a yellow spring's limit gets a spring.
SPRING_WALL_FRACTION = 0.75
# The last flat stretch; the goal stands GOAL_BEFORE_END px before the end.
RUN_OUT = 640
GOAL_BEFORE_END = 320
WIDTH_RANGE = (4800, 6400)
# The flat start runs START_RUN px plus up to this much more; then one of
# these openings, each of which stops a player who only holds right.
OPENING_SPREAD = 640
OPENINGS = (("step_up", "gap"), ("gap", "step_up"), ("step_up",), ("gap",),
            ("gap", "gap"))
# A pit in the opening is at least this wide: a narrower one can be run
# over at top speed without a jump.
OPENING_GAP_MIN = 96

# Relative frequency of each piece by difficulty. Pieces with a zero weight
# never appear at that difficulty.
PIECE_WEIGHTS: dict[str, dict[str, float]] = {
    "easy": {"hill": 3, "ramp": 2, "gap": 3, "step_up": 2, "step_down": 1,
             "walker": 2, "flyer": 0, "spikes": 0, "bridge": 1, "tunnel": 1,
             "halfpipe": 1, "loop": 1, "spring_wall": 0, "bonus": 1},
    "medium": {"hill": 2, "ramp": 2, "gap": 3, "step_up": 3, "step_down": 1,
               "walker": 2, "flyer": 1, "spikes": 2, "bridge": 2, "tunnel": 1,
               "halfpipe": 1, "loop": 1, "spring_wall": 1, "bonus": 1},
    "hard": {"hill": 1, "ramp": 2, "gap": 4, "step_up": 3, "step_down": 1,
             "walker": 2, "flyer": 2, "spikes": 2, "bridge": 2, "tunnel": 1,
             "halfpipe": 1, "loop": 1, "spring_wall": 2, "bonus": 1},
}


class _Builder:
    """Accumulates segments and entities while tracking x and ground level."""

    def __init__(self, rng: random.Random, difficulty: str) -> None:
        self.rng = rng
        self.difficulty = difficulty
        self.segments: list[dict[str, Any]] = []
        self.entities: list[dict[str, Any]] = []
        self.x = 0
        self.level = START_LEVEL

    # -- terrain --------------------------------------------------------------

    def seg(self, kind: str, **keys: Any) -> None:
        if kind == "flat" and self.segments and self.segments[-1]["kind"] == "flat":
            # One flat stretch reads better than several in a row.
            self.segments[-1]["length"] += keys["length"]
        else:
            self.segments.append({"kind": kind, **keys})
        if kind == "loop":
            self.x += 2 * keys["radius"] + 128
        elif kind != "step":
            self.x += keys["length"]
        if kind in ("ramp", "step", "gap"):
            self.level -= keys.get("rise", 0)

    def flat(self, length: int) -> None:
        self.seg("flat", length=length)

    def ent(self, kind: str, x: float, **keys: Any) -> None:
        self.entities.append({"kind": kind, "x": int(round(x)), **keys})

    def rings(self, x: float, count: int, **keys: Any) -> None:
        self.ent("ring", x, count=count, **keys)

    def span(self, lo: int, hi: int, step: int = 16) -> int:
        """A random length in lo..hi, a multiple of `step`."""
        return self.rng.randrange(lo // step, hi // step + 1) * step

    # -- pieces ---------------------------------------------------------------

    def piece(self, name: str) -> bool:
        """Append one piece; False when it does not fit the current level."""
        return getattr(self, f"_{name}")()

    def _hill(self) -> bool:
        length = self.span(384, 768, 64)
        waves = self.rng.choice((1, 1, 2))
        # Keep to 80 % of the steepest slope a profile allows.
        steepest = int(0.8 * MAX_SLOPE * length / (math.pi * waves))
        amplitude = self.rng.randint(24, max(24, min(64, steepest)))
        if self.rng.random() < 0.3 and self.level + amplitude <= LEVEL_BOTTOM:
            amplitude = -amplitude
        if self.level - amplitude < LEVEL_TOP:
            return False
        self.rings(self.x + 32, self.rng.randint(3, 8), spacing=40)
        self.seg("hill", length=length, amplitude=amplitude, waves=waves)
        self.flat(self.span(128, 256))
        return True

    def _ramp(self) -> bool:
        length = self.span(192, 512, 32)
        rise = self.rng.randint(32, min(160, int(0.7 * MAX_SLOPE * length)))
        if self.rng.random() < 0.5:
            rise = -rise
        if not LEVEL_TOP <= self.level - rise <= LEVEL_BOTTOM:
            rise = -rise
        if not LEVEL_TOP <= self.level - rise <= LEVEL_BOTTOM:
            return False
        self.seg("ramp", length=length, rise=rise)
        self.flat(self.span(128, 256))
        return True

    def _gap(self) -> bool:
        return self.piece_gap(GAP_MIN)

    def piece_gap(self, shortest: int, level: bool = False, lead: int = LEAD) -> bool:
        """A pit at least `shortest` px wide, `lead` px of flat ground
        before it; with `level`, its far side is as high as the near one
        (a lower landing can catch a player who runs off the edge)."""
        length = self.span(shortest, GAP_LIMIT[self.difficulty], 8)
        rise = 0
        if not level and self.difficulty != "easy" and self.rng.random() < 0.3:
            rise = self.rng.choice((-48, -32, 16, 32))
        if not LEVEL_TOP <= self.level - rise <= LEVEL_BOTTOM:
            rise = 0
        self.flat(lead)
        count = max(3, length // 28 + 2)
        self.rings(self.x - 28, count, spacing=28, arc=48 + length // 4)
        self.seg("gap", length=length, rise=rise)
        self.flat(LANDING)
        return True

    def _step_up(self) -> bool:
        rise = self.span(STEP_MIN, STEP_UP_LIMIT[self.difficulty], 8)
        if self.level - rise < LEVEL_TOP:
            return False
        self.flat(LEAD)
        self.seg("step", rise=rise)
        self.rings(self.x + 64, 3, above=24)
        self.flat(LANDING)
        return True

    def _step_down(self) -> bool:
        rise = -self.span(32, 128, 16)
        if self.level - rise > LEVEL_BOTTOM:
            return False
        self.flat(LEAD)
        self.seg("step", rise=rise)
        self.flat(LANDING)
        return True

    def _spring_wall(self) -> bool:
        lo = STEP_UP_LIMIT[self.difficulty] + 16
        hi = int(SPRING_WALL_FRACTION * SPRING_STEP_LIMIT["yellow"])
        rise = self.span(lo, hi, 8)
        if self.level - rise < LEVEL_TOP:
            return False
        lead = self.span(256, 384)
        self.flat(lead)
        # The spring stands where a running player is thrown clear over the
        # wall's top edge before reaching it.
        self.ent("spring", self.x - 160)
        self.rings(self.x - 160, 3, above=120, spacing=32)
        self.seg("step", rise=rise)
        self.flat(LANDING + 128)
        return True

    def _walker(self) -> bool:
        span = self.span(48, 128)
        self.flat(LEAD)
        self.ent("walker", self.x + 32, span=span,
                 period=self.rng.choice((180, 240, 300)))
        self.flat(span + 64 + LANDING)
        return True

    def _flyer(self) -> bool:
        self.flat(LEAD)
        self.ent("flyer", self.x + 48, above=self.rng.choice((32, 40, 48)),
                 span=self.span(32, 72, 8), period=self.rng.choice((90, 120, 150)))
        self.flat(96 + LANDING)
        return True

    def _spikes(self) -> bool:
        width = self.rng.choice((32, 48, 64))
        self.flat(LEAD)
        self.ent("spikes", self.x + 32 + width // 2, width=width)
        self.flat(64 + width + LANDING)
        return True

    def _bridge(self) -> bool:
        length = self.span(128, 512, 32)
        self.flat(LEAD)
        self.rings(self.x + 32, max(1, (length - 64) // 32), spacing=32)
        self.seg("bridge", length=length)
        self.flat(self.span(192, 320))
        return True

    def _tunnel(self) -> bool:
        clearance = self.span(64, 128)
        length = self.span(256, 640, 32)
        self.flat(LEAD)
        self.rings(self.x + 48, max(1, (length - 96) // 32), spacing=32)
        self.seg("tunnel", length=length, clearance=clearance)
        self.flat(self.span(192, 320))
        return True

    def _halfpipe(self) -> bool:
        depth = self.span(48, 128)
        if self.level + depth > LEVEL_BOTTOM + 64:
            return False
        length = 2 * depth + self.span(64, 256)
        self.flat(LEAD)
        self.rings(self.x + depth + 16, 4, spacing=24)
        self.seg("halfpipe", length=length, depth=depth)
        self.flat(self.span(256, 384))
        return True

    def _loop(self) -> bool:
        radius = self.span(64, 112)
        if self.level - 2 * radius - 24 < 160:
            return False
        # A long straight run-up: the loop needs top speed.
        self.flat(self.span(512, 640))
        self.rings(self.x + 64 + radius - 39, 4, spacing=26)
        self.seg("loop", radius=radius)
        self.flat(self.span(256, 384))
        return True

    def _bonus(self) -> bool:
        above = self.span(128, 192)
        width = self.span(96, 160)
        self.flat(LEAD)
        self.ent("spring", self.x + 64)
        self.ent("platform", self.x + 64 + width // 2 + 48, above=above, width=width)
        self.rings(self.x + 64 + 48 + 16, max(1, (width - 32) // 28),
                   above=above + 24, spacing=28)
        self.flat(64 + width + 48 + LANDING)
        return True


def generate_profile(seed: int, difficulty: str | int = "medium") -> Profile:
    """The profile of a random easy, medium or hard stage; see the module
    docstring (`speednik.stages.generate_profile` takes expert too)."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise StageError(f"seed must be an integer, got {seed!r}")
    level = normalise_difficulty(difficulty)
    if level not in PIECE_WEIGHTS:
        raise StageError(f"difficulty {level!r} is drawn by speednik.stages.expert; "
                         f"accepted here: {', '.join(PIECE_WEIGHTS)}")
    rng = random.Random(seed)
    data = draw_data(rng, _Builder(rng, level), seed, level, PIECE_WEIGHTS[level],
                     description=f"Generated from seed {seed} at difficulty {level}.")
    return profile_from_dict(
        data, source=f"generated(seed={seed}, difficulty={level})")


def draw_data(rng: random.Random, b: _Builder, seed: int, level: str,
              piece_weights: dict[str, float], description: str) -> dict[str, Any]:
    """A stage's profile data drawn with `rng` by builder `b`: a flat
    start, an opening, then pieces by weight until the width drawn first
    is reached."""
    target = rng.randrange(*WIDTH_RANGE)
    b.flat(START_RUN + b.span(0, OPENING_SPREAD))
    b.rings(160, 5)
    # An opening that stops a player who never jumps (a wall too high to
    # run up, a pit too wide to run over), so holding right alone never
    # finishes a stage; where it stands and which comes first vary.
    for name in rng.choice(OPENINGS):
        if name == "gap":
            b.piece_gap(OPENING_GAP_MIN, level=True)
        else:
            b.piece(name)
    draw_pieces(rng, b, target, piece_weights)
    return profile_data(b, f"generated-{level}-{seed}", level, description)


def draw_pieces(rng: random.Random, b: _Builder, target: int,
                piece_weights: dict[str, float]) -> None:
    """Pieces drawn by weight until the stage is `target` px wide, a
    checkpoint half-way, then the run-out and the goal."""
    names = list(piece_weights)
    weights = [piece_weights[n] for n in names]
    checkpoint_done = False
    while b.x < target - RUN_OUT:
        if not checkpoint_done and b.x >= target // 2:
            b.flat(LEAD)
            b.ent("checkpoint", b.x - LEAD // 2)
            checkpoint_done = True
        name = rng.choices(names, weights)[0]
        b.piece(name)
    b.flat(RUN_OUT)
    b.ent("goal", b.x - GOAL_BEFORE_END)


def profile_data(b: _Builder, name: str, difficulty: str, description: str) -> dict[str, Any]:
    """The profile data (as `tomllib` would return it) of what `b` laid."""
    return {
        "stage": {
            "name": name,
            "height": STAGE_HEIGHT,
            "ground_y": START_LEVEL,
            "start_x": 64,
            "difficulty": difficulty,
            "description": description,
        },
        "segment": b.segments,
        "entity": b.entities,
    }

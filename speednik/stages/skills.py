"""Skill stages (`gen:skills:SEEDS`): expert stages built around the moves
a player makes from little or no speed, certified by the planner.

Generated stages are mostly played at speed: every obstacle has a flat
lead-in, so a policy that runs and jumps on time finishes them. The
designed stages ask for other moves, and policies trained on generated
stages alone stall there (`runners.replay RUN --stage handmade:validation
--why`, docs/generalisation.md): a spring the player flew over on the way
down to a wall only it climbs, which means going back; a steep climb met
slowly, which takes a spindash or a run-up taken backwards; a deep
half-pipe entered slowly, which only a spindash leaves; a tall step met
after a climb, which takes a jump from a near standstill. Each of these
stages opens with one of those moves from the standing start, and its
pieces are mostly these moves again, met after a climb that has used up
the player's speed, mixed with some of expert's own pieces.

The profile's difficulty is expert (its step and gap limits). A stage is
drawn from its own random stream, `random.Random("skills:SEED:DRAW")`,
and kept only when the planner finishes it, as expert stages are
(`speednik.stages.certification`).
"""
from __future__ import annotations

import random
from typing import Any

from speednik.stages.expert import EXPERT, _round_up, expert_builder_class
from speednik.stages.profile import MAX_SLOPE, SPRING_STEP_LIMIT, STEP_UP_LIMIT

SKILLS = "skills"
# Shorter than expert stages (4,800-6,400 px): the moves are the point,
# and a stage that stalls early costs little to play either way.
WIDTH_RANGE = (3200, 4800)
# The flat start before the first move: too short to reach top speed.
START_FLAT = (128, 384)
# A climb at nearly the steepest slope a profile allows (40 degrees).
STEEP = (0.85, 0.97)
# Deepest floor under a half-pipe (as expert's).
DEEPEST_FLOOR = 960

PIECE_WEIGHTS_SKILLS: dict[str, float] = {
    "climb_pair": 4, "slow_pipe": 4, "spring_behind": 4, "tall_step": 2,
    "steep_climb": 2, "deep_halfpipe": 1, "gap": 1, "chain": 2, "red_cliff": 1,
    "downhill_loop": 1,
}


def skills_builder_class():
    """The builder of skill stages: expert's pieces and the skill pieces."""
    from speednik.stages.generator import LANDING, LEAD, LEVEL_BOTTOM, LEVEL_TOP

    class SkillsBuilder(expert_builder_class()):
        def room_above(self, rise: int) -> None:
            """A way down first (at half the steepest slope) where the
            ground is too high for `rise` px of climbing: walls and climbs
            keep it high, and most climbs would not fit."""
            drop = rise - (self.level - LEVEL_TOP)
            if drop > 0:
                drop = _round_up(drop, 8)
                self.flat(LEAD)
                self.seg("ramp", length=_round_up(drop / (0.5 * MAX_SLOPE), 32), rise=-drop)

        def climb(self, lo: int = 128, hi: int = 224, lead: tuple[int, int] = (64, 192)) -> None:
            """A climb of lo..hi px at nearly the steepest slope, after a
            short flat: too short to gather the speed that runs up it."""
            rise = self.span(lo, hi, 8)
            self.room_above(rise)
            self.flat(self.span(*lead))
            steep = self.rng.uniform(*STEEP) * MAX_SLOPE
            self.seg("ramp", length=_round_up(rise / steep, 32), rise=rise)

        def _climb_pair(self) -> bool:
            # The second climb is met with what the first left: a slow start.
            self.climb()
            self.climb(lead=(48, 160))
            self.flat(self.span(128, 256))
            return True

        def _slow_pipe(self) -> bool:
            # Entered from a crest at crawling speed, a pipe this deep is
            # left by a spindash (or by rocking), not by running.
            self.climb(96, 192)
            self.flat(self.span(32, 128))
            depth = self.span(176, 224)
            if self.level + depth > DEEPEST_FLOOR:
                self.flat(128)
                return True
            self.seg("halfpipe", length=2 * depth + self.span(0, 192), depth=depth)
            self.flat(self.span(192, 320))
            return True

        def _spring_behind(self) -> bool:
            # A drop, a spring 48-144 px past its foot and a wall only the
            # spring climbs: running off the drop flies over the spring, as
            # on quarry, and the way on is back to it.
            drop = self.span(64, 144, 16)
            strength, rise = self.spring_wall_height()
            if self.level + drop > LEVEL_BOTTOM or self.level + drop - rise < LEVEL_TOP:
                return False
            self.flat(self.span(LEAD, 320))
            self.seg("step", rise=-drop)
            self.spring_before_wall(strength, rise, self.span(48, 144), self.span(128, 192))
            return True

        def spring_wall_height(self) -> tuple[str, int]:
            """A spring's strength and the height of a wall only it climbs."""
            strength = self.rng.choice(("yellow", "yellow", "red"))
            if strength == "red":
                return strength, self.span(SPRING_STEP_LIMIT["yellow"] + 16, 240, 8)
            return strength, self.span(96, int(0.9 * SPRING_STEP_LIMIT["yellow"]), 8)

        def spring_before_wall(self, strength: str, rise: int, at: int, before: int) -> None:
            """A spring `at` px on, the wall `before` px past it, a landing."""
            self.ent("spring", self.x + at, strength=strength)
            self.flat(at + before)
            self.seg("step", rise=rise)
            self.flat(self.span(160, LANDING))

        def _tall_step(self) -> bool:
            # A step near a jump's limit, met slowly after a climb.
            self.climb(96, 176)
            self.flat(self.span(32, 96))
            limit = STEP_UP_LIMIT[EXPERT]
            rise = self.span(limit - 24, limit, 8)
            if self.level - rise < LEVEL_TOP:
                self.flat(64)
                return True
            self.seg("step", rise=rise)
            self.flat(LANDING)
            return True

        def opening(self) -> None:
            """The first move, from the standing start: a steep climb, a
            deep half-pipe, or a spring behind a drop."""
            first = self.rng.choice(("climb", "pipe", "spring"))
            if first == "pipe":
                depth = self.span(176, 224)
                self.seg("halfpipe", length=2 * depth + self.span(0, 192), depth=depth)
                self.flat(256)
            elif first == "climb" or not self._spring_behind():
                # (A drop too deep for the start's level: a climb instead.)
                steep = self.rng.uniform(*STEEP) * MAX_SLOPE
                rise = self.span(160, 272, 8)
                self.seg("ramp", length=_round_up(rise / steep, 32), rise=rise)
                self.flat(self.span(128, 256))

    return SkillsBuilder


def draw_skills_data(seed: int, draw: int) -> dict[str, Any]:
    """The profile data (as `tomllib` would return it) of one draw."""
    return draw_built_of(SKILLS, skills_builder_class(), PIECE_WEIGHTS_SKILLS, seed, draw,
                         "a skill stage")


def draw_built_of(kind: str, builder_class, piece_weights: dict[str, float], seed: int,
                  draw: int, what: str) -> dict[str, Any]:
    """One draw of a kind of expert stage built of moves (skill or stall
    stages): from the stream `KIND:SEED:DRAW`, a width, a short flat start,
    the builder's opening, then pieces by weight."""
    from speednik.stages.generator import draw_pieces, profile_data

    rng = random.Random(f"{kind}:{seed}:{draw}")
    b = builder_class(rng, EXPERT)
    target = rng.randrange(*WIDTH_RANGE)
    b.flat(b.span(*START_FLAT))
    b.opening()
    draw_pieces(rng, b, target, piece_weights)
    return profile_data(b, f"generated-{kind}-{seed}", EXPERT,
                        f"Generated from seed {seed} as {what} (draw {draw}), "
                        f"certified by the planner.")

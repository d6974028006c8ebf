"""Expert stages: the whole vocabulary of the profile format at the sizes
the built-in stages use, obstacles that chain, and every stage certified
finishable by the planner.

What expert adds to hard's pieces:
- half-pipes 160-224 px deep with 0-256 px of flat bottom, which only
  speed carried in gets out of;
- cliffs of 200-256 px that only a red spring climbs, and walls of
  96-170 px with a yellow one; a side spring that throws the player into
  a wide pit or down a slope;
- long climbs at nearly the steepest slope allowed, up to pipeworks'
  (256 px at 38.7 degrees), some ending at a pit 32-224 px past the
  crest, some topped by spikes, some by a walker 16-128 px past the crest;
- low tunnels (48-64 px of clearance) and platforms over spikes and pits;
- loops after a slope down and a short run, as on canyon;
- bridges with a pit right after them, a walker on a jump's landing,
  flyers low over the path;
- chains: three to five pits, steps and spikes with 96-192 px between
  them, so the landing of one jump is the take-off of the next.

A stage is drawn from its own random stream, `random.Random("expert:SEED:
DRAW")`, never from the one easy, medium and hard draw from, so those stay
the same tile for tile. A draw is kept only when the planner
(`speednik.engine.planner`) finishes it within an episode's frames and
without stalling; otherwise the next draw is tried. Which draw a seed
keeps is a pure function of the seed, so `gen:expert:SEEDS` always names
the same stages (`speednik.stages.certification` keeps the draws).
"""
from __future__ import annotations

import math
import random
from typing import Any

from speednik.stages.profile import (
    GAP_LIMIT,
    MAX_SLOPE,
    SPRING_STEP_LIMIT,
    STEP_UP_LIMIT,
)

EXPERT = "expert"
# Ground under a half-pipe's bottom: the stage floor is MIN_FLOOR_DEPTH
# below it at the least.
DEEPEST_FLOOR = 960
# Flat ground between chained obstacles: a take-off, not a landing zone
# (a full jump at top speed carries 357 px), yet wide enough to land on
# and take off from with 16 to 32 frames of running at top speed. The
# built-in stages put 256 px or more between obstacles; a pillar of
# 32-64 px between two wide pits asks for take-offs timed to the frame,
# which no hand-made stage asks for.
CHAIN_GAP = (96, 192)

PIECE_WEIGHTS_EXPERT: dict[str, float] = {
    "hill": 1, "ramp": 1, "gap": 2, "step_up": 2, "step_down": 1, "walker": 1,
    "flyer": 1, "spikes": 1, "bridge": 1, "tunnel": 1, "halfpipe": 1, "loop": 2,
    "spring_wall": 1, "bonus": 1,
    "deep_halfpipe": 5, "red_cliff": 6, "yellow_wall": 2, "side_spring": 2, "steep_climb": 8,
    "low_tunnel": 2, "spike_platform": 2, "pit_platform": 2, "bridge_pit": 2,
    "enemy_landing": 2, "low_flyers": 2, "chain": 32, "downhill_loop": 2,
}


def _round_up(value: float, step: int) -> int:
    """The smallest multiple of `step` at least `value`."""
    return int(math.ceil(value / step)) * step


def expert_builder_class():
    """The builder of expert stages: hard's pieces and expert's own."""
    from speednik.stages.generator import LANDING, LEAD, LEVEL_BOTTOM, LEVEL_TOP, _Builder

    class ExpertBuilder(_Builder):
        def _deep_halfpipe(self) -> bool:
            depth = self.span(160, 224)
            if self.level + depth > DEEPEST_FLOOR:
                return False
            # Hand-made pipes put 0-64 px of flat between their quarter
            # circles; a short bottom throws the player up the far side
            # sooner, with less time to run out of speed.
            length = 2 * depth + self.span(0, 256)
            self.flat(self.span(LEAD, 512))
            self.rings(self.x + depth + 16, 4, spacing=24)
            self.seg("halfpipe", length=length, depth=depth)
            self.flat(self.span(192, 320))
            return True

        def _spring_step(self, strength: str, lo: int, hi: int) -> bool:
            rise = self.span(lo, hi, 8)
            if self.level - rise < LEVEL_TOP:
                return False
            self.flat(self.span(256, 384))
            back = self.span(128, 192)
            self.ent("spring", self.x - back, strength=strength)
            self.rings(self.x - back, 3, above=120, spacing=32)
            self.seg("step", rise=rise)
            self.flat(self.span(160, LANDING))
            return True

        def _red_cliff(self) -> bool:
            # Taller than a yellow spring lifts: only the red one climbs it.
            return self._spring_step("red", SPRING_STEP_LIMIT["yellow"] + 16, 256)

        def _yellow_wall(self) -> bool:
            return self._spring_step("yellow", 96, int(0.9 * SPRING_STEP_LIMIT["yellow"]))

        def _side_spring(self) -> bool:
            self.flat(LEAD)
            self.ent("spring", self.x + 32, direction="right")
            self.flat(96)
            if self.rng.random() < 0.5 and self.level + 96 <= LEVEL_BOTTOM:
                rise = -self.span(96, 192)
                if self.level - rise > LEVEL_BOTTOM:
                    rise = -96
                self.seg("ramp", length=self.span(256, 384, 32), rise=rise)
                self.flat(self.span(64, 160))
                return self.piece_gap(GAP_LIMIT[self.difficulty] - 32, level=True)
            return self.piece_gap(GAP_LIMIT[self.difficulty] - 24, level=True)

        def _steep_climb(self) -> bool:
            rise = self.span(128, 256, 8)
            # Nearly the steepest slope a profile allows: at the top of
            # both ranges, pipeworks' climb (256 px over 320 px).
            steep = self.rng.uniform(0.8, 0.96) * MAX_SLOPE
            length = _round_up(rise / steep, 32)
            drop = rise - (self.level - LEVEL_TOP)
            if drop > 0:
                # Too high up for this climb: a way down to its foot first
                # (at half the steepest slope), which is also speed to
                # carry into it. Without it most climbs would not fit,
                # since walls and cliffs keep the ground high.
                drop = _round_up(drop, 8)
                self.flat(LEAD)
                self.seg("ramp", length=_round_up(drop / (0.5 * MAX_SLOPE), 32), rise=-drop)
            self.flat(self.span(LEAD, 448))
            self.seg("ramp", length=length, rise=rise)
            top = self.rng.random()
            if top < 0.45:
                # Straight into a pit at the top, from 32 px past the crest
                # (as close as hand-made stages put one) to beyond a
                # jump's lead: where it is close, the climb must be run
                # out and the jump taken on the crest, since a jump from
                # the slope flies back onto it.
                return self.piece_gap(96, level=True, lead=self.span(32, 224))
            if top < 0.6:
                # Spikes on the crest: a jump that the climb has slowed.
                width = self.rng.choice((32, 48, 64))
                self.flat(self.span(48, 96))
                self.ent("spikes", self.x + width // 2, width=width)
                self.flat(width)
            elif top < 0.9:
                # A walker past the crest, as on pipeworks: seen from the
                # slope, where a jump throws the player back down (a jump
                # leaves the ground square to it), so the climb is run to
                # its end first. Its patrol starts 16-128 px past the
                # crest: hand-made stages guard a crest from 48 px on, and
                # a policy that jumps at any enemy in view meets it often
                # enough to unlearn it.
                past = self.span(16, 128)
                span = self.span(64, 128)
                self.ent("walker", self.x + past, span=span,
                         period=self.rng.choice((180, 240, 300)))
                self.flat(past + span + 64)
            self.flat(self.span(128, 256))
            return True

        def _downhill_loop(self) -> bool:
            # As canyon: a slope down, then a short run into the loop. The
            # slope gives the speed a long flat run-up gives, so a loop
            # comes 128-320 px after the foot of the slope where a flat
            # run-up leads into it over 512-640 px.
            drop = self.span(96, 192, 8)
            radius = self.span(64, 112)
            if self.level + drop > LEVEL_BOTTOM:
                return False
            self.flat(LEAD)
            # Canyon's slope is 32 degrees, three quarters of the steepest.
            slope = self.rng.uniform(0.6, 0.8) * MAX_SLOPE
            self.seg("ramp", length=_round_up(drop / slope, 32), rise=-drop)
            self.flat(self.span(128, 320))
            self.rings(self.x + 64 + radius - 39, 4, spacing=26)
            self.seg("loop", radius=radius)
            self.flat(self.span(256, 384))
            return True

        def _low_tunnel(self) -> bool:
            clearance = self.span(48, 64)
            length = self.span(256, 640, 32)
            self.flat(LEAD)
            self.rings(self.x + 48, max(1, (length - 96) // 32), spacing=32)
            self.seg("tunnel", length=length, clearance=clearance)
            self.flat(self.span(128, 256))
            return True

        def _spike_platform(self) -> bool:
            width = self.span(64, 128)
            above = self.span(48, 80)
            pw = width + 32
            self.flat(LEAD)
            x0 = self.x + 32
            self.ent("spikes", x0 + width // 2, width=width)
            self.ent("platform", x0 + width // 2, above=above + 16, width=pw)
            self.flat(64 + width + self.span(96, 192))
            return True

        def _pit_platform(self) -> bool:
            # A pit too wide to jump, with a platform half-way: two jumps.
            length = self.span(GAP_LIMIT[self.difficulty] - 40, GAP_LIMIT[self.difficulty], 8)
            self.flat(LEAD)
            self.ent("platform", self.x + length // 2, above=self.span(16, 48),
                     width=self.span(48, 80))
            self.seg("gap", length=length)
            self.flat(self.span(96, 192))
            return True

        def _bridge_pit(self) -> bool:
            self.flat(LEAD)
            self.seg("bridge", length=self.span(256, 512, 32))
            self.piece_gap(128)
            return True

        def _enemy_landing(self) -> bool:
            length = self.span(96, GAP_LIMIT[self.difficulty], 8)
            self.flat(LEAD)
            self.seg("gap", length=length)
            self.ent("walker", self.x + self.span(32, 96), span=self.span(48, 96),
                     period=self.rng.choice((120, 180, 240)))
            self.flat(self.span(256, LANDING))
            return True

        def _low_flyers(self) -> bool:
            self.flat(LEAD)
            n = self.rng.randint(2, 3)
            for i in range(n):
                self.ent("flyer", self.x + 48 + 160 * i, above=self.rng.choice((24, 32, 40)),
                         span=self.span(32, 72, 8), period=self.rng.choice((60, 90, 120)))
            self.flat(160 * n + 64)
            return True

        def _chain(self) -> bool:
            for _ in range(self.rng.randint(3, 5)):
                kind = self.rng.choice(("gap", "gap", "step", "spikes"))
                if kind == "gap":
                    # Some land higher than they take off.
                    rise = self.rng.choice((0, 0, 32, 48))
                    if self.level - rise < LEVEL_TOP:
                        rise = 0
                    self.seg("gap", length=self.span(64, GAP_LIMIT[self.difficulty] - 16 - rise, 8),
                             rise=rise)
                elif kind == "step":
                    rise = self.span(32, STEP_UP_LIMIT[self.difficulty], 8)
                    if self.level - rise < LEVEL_TOP:
                        rise = -rise
                    self.seg("step", rise=rise)
                else:
                    width = self.rng.choice((32, 48, 64))
                    self.flat(32)
                    self.ent("spikes", self.x + width // 2, width=width)
                    self.flat(width)
                self.flat(self.span(*CHAIN_GAP))
            self.flat(self.span(128, 256))
            return True

    return ExpertBuilder


def draw_expert_data(seed: int, draw: int) -> dict[str, Any]:
    """The profile data (as `tomllib` would return it) of one draw."""
    from speednik.stages.generator import draw_data

    rng = random.Random(f"{EXPERT}:{seed}:{draw}")
    return draw_data(rng, expert_builder_class()(rng, EXPERT), seed, EXPERT,
                     PIECE_WEIGHTS_EXPERT,
                     description=f"Generated from seed {seed} at difficulty expert "
                                 f"(draw {draw}), certified by the planner.")

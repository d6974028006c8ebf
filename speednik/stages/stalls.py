"""Stall stages (`gen:stalls:SEEDS`): expert stages built around the
places where policies trained on generated and skill stages still stall
on the hand-made stages, certified by the planner.

Played by `runners.replay RUN --stage handmade:validation --why`, the
recipe's genomes stall on the six at three shapes the skill stages
(`speednik.stages.skills`) do not build:

- a spring on the flat before a wall only it climbs, met after a jump
  over spikes or up a step, so that the jump comes down past the spring
  and the way on is back to it (foundry's first spring wall, quarry's
  lift spring; the skill stages' spring always lies past a drop);
- a step near a jump's limit met from a short landing after a pit, with
  a walker patrolling where the jump comes down (quarry's second bench),
  which the planner takes with a run-up from farther back;
- a half-pipe entered slowly whose far side runs straight into a steep
  climb, with no flat between them to gather speed on (aqueduct's
  settling basin; the skill stages put flat after every pipe).

Each stage is made of these and, more seldom, the skill stages' own
pieces. The profile's difficulty is expert. A stage is drawn from its own
random stream, `random.Random("stalls:SEED:DRAW")`, and kept only when
the planner finishes it, as expert and skill stages are
(`speednik.stages.certification`).
"""
from __future__ import annotations

from typing import Any

from speednik.stages.expert import EXPERT, _round_up
from speednik.stages.profile import MAX_SLOPE, STEP_UP_LIMIT
from speednik.stages.skills import DEEPEST_FLOOR, draw_built_of, skills_builder_class

STALLS = "stalls"

PIECE_WEIGHTS_STALLS: dict[str, float] = {
    "spring_flown_over": 4, "guarded_step": 4, "pipe_into_climb": 4,
    "spring_behind": 1, "slow_pipe": 1, "climb_pair": 1, "tall_step": 1, "gap": 1,
}


def stalls_builder_class():
    """The builder of stall stages: the skill stages' pieces and three more."""
    from speednik.stages.generator import LEAD

    class StallsBuilder(skills_builder_class()):
        def opening(self) -> None:
            """None of the skill stages' moves from the standing start: the
            places come with the pieces."""

        def _spring_flown_over(self) -> bool:
            # The spring lies 48-128 px past spikes or a low step, and the
            # wall 96-160 px past the spring: a jump taken at speed comes
            # down beyond the spring, and the run back to it is short,
            # with the spikes behind.
            strength, rise = self.spring_wall_height()
            step = self.span(40, 64, 8) if self.rng.random() < 0.5 else 0
            self.room_above(step + rise)
            self.flat(self.span(LEAD, 320))
            if step:
                self.seg("step", rise=step)
            else:
                width = self.rng.choice((48, 64, 96))
                self.ent("spikes", self.x + width // 2, width=width)
                self.flat(width)
            self.spring_before_wall(strength, rise, self.span(48, 128), self.span(96, 160))
            return True

        def _guarded_step(self) -> bool:
            # A pit, 128-192 px of landing, then a step near a jump's limit
            # with a walker patrolling 16-64 px past its edge: landed slowly,
            # the step takes a jump from a run-up, timed to the walker.
            rise = self.span(STEP_UP_LIMIT[EXPERT] - 24, STEP_UP_LIMIT[EXPERT], 8)
            self.room_above(rise)
            self.flat(LEAD)
            self.seg("gap", length=self.span(96, 160, 8))
            self.flat(self.span(128, 192))
            self.seg("step", rise=rise)
            past = self.span(16, 64)
            span = self.span(64, 96)
            self.ent("walker", self.x + past, span=span,
                     period=self.rng.choice((180, 240, 300)))
            self.flat(past + span + self.span(128, 256))
            return True

        def _pipe_into_climb(self) -> bool:
            # Entered from a crest at crawling speed, a pipe whose far side
            # is a climb of 32-37 degrees: running rocks the player back
            # down it; a spindash, or rocking higher each time, leaves it.
            up = self.span(96, 176, 8)
            depth = self.span(160, 192)
            rise = self.span(128, 208, 8)
            self.room_above(up + rise)
            if self.level - up + depth > DEEPEST_FLOOR:
                return False
            self.climb(up, up)
            self.flat(self.span(32, 128))
            self.seg("halfpipe", length=2 * depth + self.span(0, 128), depth=depth)
            steep = self.rng.uniform(0.75, 0.9) * MAX_SLOPE
            self.seg("ramp", length=_round_up(rise / steep, 32), rise=rise)
            self.flat(self.span(192, 320))
            return True

    return StallsBuilder


def draw_stalls_data(seed: int, draw: int) -> dict[str, Any]:
    """The profile data (as `tomllib` would return it) of one draw."""
    return draw_built_of(STALLS, stalls_builder_class(), PIECE_WEIGHTS_STALLS, seed, draw,
                         "a stall stage")

"""Skill stages (`gen:skills:SEEDS`): drawn apart from every other kind,
certified by the planner (played again on the readable simulation),
opening with a move from the standing start, and built of pieces that a
rule which only runs and jumps does not pass; their draws are remembered
apart from expert's."""
from __future__ import annotations

import random

import pytest

from sweeps import first_and_rest
from runners import EpisodeRunner
from runners.agents import PlannerAgent, make_baseline
from speednik.stages import (
    StageSetError,
    certify_expert_stages,
    expand_stages,
    generate_profile,
    generate_stage,
    load_stage,
)
from speednik.stages import certification, certified_draws
from speednik.stages.builder import build_stage
from speednik.stages.certification import certified_stage
from speednik.stages.expert import EXPERT
from speednik.stages.profile import MAX_SLOPE, STEP_UP_LIMIT, profile_from_dict
from speednik.stages.skills import START_FLAT, STEEP, skills_builder_class

SKILL_SAMPLE = range(12)


def test_a_skill_stage_is_the_same_every_time_and_not_an_expert_one():
    before = random.getstate()
    first = generate_profile(4, "skills")
    assert random.getstate() == before
    assert generate_profile(4, "skills") == first
    assert first.segments != generate_profile(4, "expert").segments
    assert first.stage.difficulty == "expert"
    assert load_stage("gen:skills:4") is generate_stage(4, "skills")


@pytest.mark.parametrize("seeds", first_and_rest(SKILL_SAMPLE))
def test_the_planner_finishes_every_emitted_skill_stage_on_the_readable_sim(seeds):
    for seed in seeds:
        result = EpisodeRunner(generate_stage(seed, "skills")).run_episode(PlannerAgent())
        assert result.done_reason == "goal", (seed, result.done_reason,
                                              result.metrics["progress"])


def test_every_skill_stage_opens_with_a_move_from_the_standing_start():
    openings = set()
    for seed in range(30):
        segments = generate_profile(seed, "skills").segments
        first, move = segments[0], segments[1]
        assert first.kind == "flat", seed
        if move.kind == "ramp":
            assert move.rise >= 160 and move.rise / move.length >= 0.8 * STEEP[0] * MAX_SLOPE
        elif move.kind == "halfpipe":
            assert move.depth >= 176
        else:
            # A drop, and past it a spring before a wall only it climbs.
            assert move.kind == "step" and move.rise < 0, (seed, move)
            assert segments[3].kind == "step" and segments[3].rise > STEP_UP_LIMIT[EXPERT]
        # Too short a run to reach top speed (384 px from a standstill),
        # but for the spring's lead-in, which ends in a drop anyway.
        assert first.length <= (START_FLAT[1] if move.kind != "step" else 704), seed
        openings.add(move.kind)
    assert openings == {"ramp", "halfpipe", "step"}


def _one_piece(piece: str, seed: int):
    """A stage of a long flat run-up (top speed), one skill piece and a
    goal, or None when the piece does not fit at the start's level."""
    b = skills_builder_class()(random.Random(seed), EXPERT)
    b.flat(768)
    if not b.piece(piece):
        return None
    b.flat(640)
    b.ent("goal", b.x - 320)
    data = {"stage": {"name": f"{piece}-{seed}", "height": 1024, "ground_y": 704,
                      "start_x": 64, "difficulty": "expert"},
            "segment": b.segments, "entity": b.entities}
    return build_stage(profile_from_dict(data))


def test_a_spring_past_a_drop_is_flown_over_at_top_speed_and_the_way_on_is_back():
    stalled_between = 0
    fitted = 0
    for seed in range(12):
        stage = _one_piece("spring_behind", seed)
        if stage is None:
            continue
        fitted += 1
        spring_x = stage.springs[0].x
        wall_x = stage.meta["segments"][3]["x0"]
        assert EpisodeRunner(stage).run_episode(PlannerAgent()).done_reason == "goal", seed
        for rule in ("hold-right", "jump-runner"):
            result = EpisodeRunner(stage).run_episode(make_baseline(rule))
            if result.done_reason == "stalled":
                assert spring_x < result.metrics["max_x"] < wall_x, (seed, rule)
                stalled_between += 1
    # Most draws: both rules land past the spring and stand at the wall.
    assert fitted >= 4 and stalled_between > fitted


def test_a_step_at_a_jumps_limit_after_a_climb_stops_a_runner_that_never_jumps():
    for seed in range(6):
        stage = _one_piece("tall_step", seed)
        assert EpisodeRunner(stage).run_episode(make_baseline("hold-right")).done_reason \
            == "stalled", seed
        assert EpisodeRunner(stage).run_episode(PlannerAgent()).done_reason == "goal", seed


def test_gen_skills_is_a_stage_set_and_a_wrong_kind_names_it():
    assert expand_stages(["gen:skills:3-5"]) == ["gen:skills:3", "gen:skills:4",
                                                 "gen:skills:5"]
    with pytest.raises(StageSetError, match="skills"):
        expand_stages(["gen:skill:3"])


def test_skill_draws_are_certified_and_remembered_apart_from_experts(monkeypatch, tmp_path):
    monkeypatch.setattr(certified_draws, "RECORD_DIR", tmp_path)
    monkeypatch.setattr(certification, "_CERTIFIED_DRAW", {})
    monkeypatch.setattr(certification, "_CERTIFIED_SKILLS_DRAW", {})
    seeds = [20, 21, 22]
    certify_expert_stages([f"gen:skills:{s}" for s in seeds] + ["gen:expert:20"], workers=2)
    assert sorted(certification._CERTIFIED_SKILLS_DRAW) == seeds
    assert certified_draws.read_draws("skills") == certification._CERTIFIED_SKILLS_DRAW
    # One expert seed is not sent to the pool, so nothing of expert is recorded.
    assert certified_draws.read_draws("expert") == {}
    certified_draws.remember_draws({20: 7}, "expert")
    assert certified_draws.read_draws("skills")[20] == certification._CERTIFIED_SKILLS_DRAW[20]
    assert certified_draws.read_draws("expert") == {20: 7}
    profile, stage = certified_stage(21, "skills")
    assert profile == generate_profile(21, "skills")

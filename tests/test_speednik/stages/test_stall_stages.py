"""Stall stages (`gen:stalls:SEEDS`): drawn apart from every other kind,
certified by the planner (played again on the readable simulation), and
built of the three places where trained policies stall on the hand-made
stages: a spring flown over before a wall only it climbs, a step guarded
by a walker after a pit, a half-pipe whose far side is a steep climb."""
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
from speednik.stages.stalls import stalls_builder_class

STALL_SAMPLE = range(8)


def test_a_stall_stage_is_the_same_every_time_and_not_a_skill_one():
    before = random.getstate()
    first = generate_profile(4, "stalls")
    assert random.getstate() == before
    assert generate_profile(4, "stalls") == first
    assert first.segments != generate_profile(4, "skills").segments
    assert first.stage.difficulty == "expert"
    assert load_stage("gen:stalls:4") is generate_stage(4, "stalls")


@pytest.mark.parametrize("seeds", first_and_rest(STALL_SAMPLE))
def test_the_planner_finishes_every_emitted_stall_stage_on_the_readable_sim(seeds):
    for seed in seeds:
        result = EpisodeRunner(generate_stage(seed, "stalls")).run_episode(PlannerAgent())
        assert result.done_reason == "goal", (seed, result.done_reason,
                                              result.metrics["progress"])


def test_stall_stages_are_mostly_the_three_places():
    springs = walkers = pipes_into_climbs = 0
    for seed in range(20):
        profile = generate_profile(seed, "stalls")
        kinds = [(s.kind, getattr(s, "rise", 0)) for s in profile.segments]
        pipes_into_climbs += sum(1 for a, b in zip(kinds, kinds[1:])
                                 if a[0] == "halfpipe" and b[0] == "ramp" and b[1] > 0)
        springs += sum(e.kind == "spring" for e in profile.entities)
        walkers += sum(e.enemy_kind == "walker" for e in profile.entities)
    # Every piece but two of the eight weighed is one of the three.
    assert springs >= 12 and walkers >= 10 and pipes_into_climbs >= 10


def _one_piece(piece: str, seed: int):
    """A stage of a long flat run-up (top speed), one piece and a goal."""
    b = stalls_builder_class()(random.Random(seed), EXPERT)
    b.flat(768)
    assert b.piece(piece)
    b.flat(640)
    b.ent("goal", b.x - 320)
    data = {"stage": {"name": f"{piece}-{seed}", "height": 1024, "ground_y": 704,
                      "start_x": 64, "difficulty": "expert"},
            "segment": b.segments, "entity": b.entities}
    return build_stage(profile_from_dict(data))


def test_a_spring_past_a_low_step_or_spikes_is_flown_over_and_the_way_on_is_back():
    stopped = 0
    for seed in range(8):
        stage = _one_piece("spring_flown_over", seed)
        spring_x = stage.springs[0].x
        wall = [s for s in stage.meta["segments"] if s["kind"] == "step"][-1]
        assert EpisodeRunner(stage).run_episode(PlannerAgent()).done_reason == "goal", seed
        result = EpisodeRunner(stage).run_episode(make_baseline("jump-runner"))
        if result.done_reason == "stalled":
            # Came down past the spring and stands at the wall.
            assert spring_x < result.metrics["max_x"] <= wall["x0"], seed
        if result.done_reason != "goal":
            stopped += 1
    # A rule that runs and jumps passes few of them.
    assert stopped >= 6


def test_a_step_guarded_by_a_walker_follows_a_pit_and_a_short_landing():
    for seed in range(6):
        stage = _one_piece("guarded_step", seed)
        segments = stage.meta["segments"]
        kinds = [s["kind"] for s in segments]
        at = kinds.index("step")
        landing = segments[at - 1]
        assert kinds[at - 2:at] == ["gap", "flat"] and landing["x1"] - landing["x0"] <= 192
        rise = segments[at]["y0"] - segments[at]["y1"]
        assert STEP_UP_LIMIT[EXPERT] - 24 <= rise <= STEP_UP_LIMIT[EXPERT]
        walker = stage.enemies[0]
        assert 16 <= walker.x - segments[at]["x0"] <= 64
        assert EpisodeRunner(stage).run_episode(PlannerAgent()).done_reason == "goal", seed
        assert EpisodeRunner(stage).run_episode(make_baseline("hold-right")).done_reason \
            != "goal", seed


def test_a_pipe_into_a_climb_has_no_flat_between_and_stops_the_rules():
    stopped = 0
    for seed in range(6):
        stage = _one_piece("pipe_into_climb", seed)
        segments = stage.meta["segments"]
        kinds = [s["kind"] for s in segments]
        at = kinds.index("halfpipe")
        climb = segments[at + 1]
        rise, length = climb["y0"] - climb["y1"], climb["x1"] - climb["x0"]
        assert climb["kind"] == "ramp" and rise >= 128
        assert rise / length >= 0.7 * MAX_SLOPE
        assert EpisodeRunner(stage).run_episode(PlannerAgent()).done_reason == "goal", seed
        result = EpisodeRunner(stage).run_episode(make_baseline("jump-runner"))
        if result.done_reason == "stalled":
            assert segments[at]["x0"] <= result.metrics["max_x"] <= climb["x1"]
            stopped += 1
    assert stopped >= 5


def test_gen_stalls_is_a_stage_set_and_a_wrong_kind_names_it():
    assert expand_stages(["gen:stalls:3-4"]) == ["gen:stalls:3", "gen:stalls:4"]
    with pytest.raises(StageSetError, match="stalls"):
        expand_stages(["gen:stall:3"])


def test_stall_draws_are_certified_and_remembered_apart(monkeypatch, tmp_path):
    monkeypatch.setattr(certified_draws, "RECORD_DIR", tmp_path)
    monkeypatch.setattr(certification, "_CERTIFIED_SKILLS_DRAW", {})
    monkeypatch.setattr(certification, "_CERTIFIED_STALLS_DRAW", {})
    seeds = [20, 21, 22]
    certify_expert_stages([f"gen:stalls:{s}" for s in seeds] + ["gen:skills:20"], workers=2)
    assert sorted(certification._CERTIFIED_STALLS_DRAW) == seeds
    assert certified_draws.read_draws("stalls") == certification._CERTIFIED_STALLS_DRAW
    assert certified_draws.read_draws("skills") == {}
    profile, _ = certified_stage(21, "stalls")
    assert profile == generate_profile(21, "stalls")

"""The stage generator: determinism, limits, validity and playability."""
from __future__ import annotations

import random

import numpy as np
import pytest

from speednik.physics import InputState
from speednik.stages import (
    StageError,
    build_stage,
    generate_profile,
    generate_stage,
    parse_profile,
    profile_to_toml,
)
from speednik.stages.profile import (
    GAP_LIMIT,
    SPRING_STEP_LIMIT,
    STEP_UP_LIMIT,
    segment_levels,
)
from test_stage_builder import JumpRunner, play

DIFFICULTIES = ("easy", "medium", "hard")


def assert_same_stage(a, b) -> None:
    for layer in (0, 1):
        assert np.array_equal(a.tiles.pixel_grid(layer), b.tiles.pixel_grid(layer))
    for name in ("name", "width", "height", "start_x", "start_y", "goal", "rings",
                 "springs", "spikes", "checkpoints", "enemies", "layer_switches"):
        assert getattr(a, name) == getattr(b, name), name


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_same_seed_same_stage(difficulty: str):
    a = build_stage(generate_profile(11, difficulty))
    b = build_stage(generate_profile(11, difficulty))
    assert a is not b
    assert_same_stage(a, b)


def test_generated_stages_are_cached():
    stage = generate_stage(5, "medium")
    assert generate_stage(5, "medium") is stage
    assert generate_stage(5, 1) is stage
    assert_same_stage(stage, build_stage(generate_profile(5, "medium")))


def test_different_seeds_differ():
    profiles = {generate_profile(seed, "medium").segments for seed in range(8)}
    assert len(profiles) == 8


def test_difficulty_numbers_and_names_agree():
    for number, name in enumerate(DIFFICULTIES):
        assert generate_profile(3, number) == generate_profile(3, name)


def test_invalid_difficulty():
    for bad in ("nightmare", 4, -1, None, 1.5):
        with pytest.raises(StageError) as info:
            generate_stage(1, bad)
        assert "accepted: easy, medium, hard, expert (or 0 to 3)" in str(info.value)
    assert generate_stage(1, 3) is generate_stage(1, "expert")


def test_invalid_seed():
    with pytest.raises(StageError, match="seed must be an integer"):
        generate_profile("seven", "easy")


def test_global_random_state_untouched():
    random.seed(1234)
    expected = random.random()
    random.seed(1234)
    generate_profile(99, "hard")
    assert random.random() == expected


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_generated_profiles_respect_the_limits(difficulty: str):
    for seed in range(25):
        profile = generate_profile(seed, difficulty)
        assert profile.width >= 4000
        assert profile.stage.difficulty == difficulty
        assert sum(e.kind == "goal" for e in profile.entities) == 1
        up_springs = [e.x for e in profile.entities
                      if e.kind == "spring" and e.direction == "up"]
        for s, (x0, _, _, _) in zip(profile.segments, segment_levels(profile)):
            if s.kind == "gap":
                assert s.length <= GAP_LIMIT[difficulty]
                assert s.rise <= STEP_UP_LIMIT[difficulty]
            if s.kind == "step" and s.rise > STEP_UP_LIMIT[difficulty]:
                assert s.rise <= SPRING_STEP_LIMIT["yellow"]
                assert any(x0 - 256 <= x < x0 for x in up_springs)


def test_harder_means_wider_gaps():
    def widest(difficulty: str) -> int:
        return max(s.length for seed in range(25)
                   for s in generate_profile(seed, difficulty).segments
                   if s.kind == "gap")
    assert widest("easy") < widest("medium") < widest("hard")


def test_generated_profile_round_trips_through_toml():
    profile = generate_profile(8, "hard")
    again = parse_profile(profile_to_toml(profile), source=profile.source)
    assert (again.stage, again.segments, again.entities) == (
        profile.stage, profile.segments, profile.entities)


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_generated_stages_are_playable(difficulty: str):
    for seed in range(4):
        stage = generate_stage(seed, difficulty)
        assert stage.width >= 4000
        sim = play(stage, JumpRunner(), frames=5000, check_embedding=True)
        assert sim.goal_reached, (seed, difficulty, sim.max_x_reached)
        held = play(stage, lambda sim: InputState(right=True), frames=2000)
        assert not held.goal_reached


def test_the_stage_cache_is_bounded(monkeypatch):
    from speednik import simulation, stages

    monkeypatch.setattr(stages, "CACHE_SIZE", 4)
    for seed in range(8):
        simulation.create_sim(generate_stage(10_000 + seed, "easy"))
    assert stages.kept_stage_count()[1] == 4

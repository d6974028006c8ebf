"""The "stand" observation: "reach" with a flight counted as coming down
only once the player has been on the ground STAND_FRAMES (2) frames in a
row, so a one-frame touch of a ledge's lip on the way into a pit reads
0; equal in both engines."""
from __future__ import annotations

import numpy as np
import pytest

from speednik.engine import CompiledSim
from speednik.observation import (
    STAND_FRAMES,
    STRIDE_VALUES,
    extract_reach_observation,
    extract_stand_observation,
    get_observation,
)
from speednik.observation.footing import FOOTING_RULE
from speednik.observation.landing import HOP, flight
from speednik.observation.stand import STAND_RULE
from speednik.physics import InputState
from speednik.simulation import create_sim, sim_step
from speednik.stages import load_stage
from baseline_play import episodes_on_both_engines, right_jumper, tails_within_bounds
from random_play import compare_each_in_random_play, play_both_engines, settled
from stage_fixtures import FLOOR_Y, brush_stage, pit_stage, place
from sweeps import sweep

FULL, HOP_VALUE, BRAKE = range(50, 53)
RUN = InputState(right=True)


def test_it_has_the_values_of_reach():
    assert get_observation("stand").values == STRIDE_VALUES
    assert get_observation("stand").compiled


def off_the_edge(stage, past: float = 420.0):
    """The player run right off the pit's edge at x=400, in the air past
    x=`past`."""
    sim = create_sim(stage)
    while sim.player.physics.on_ground or sim.player.physics.x < past:
        sim_step(sim, RUN)
    return sim


def stands_or_falls(sim, inp: InputState) -> str:
    """The real game holding `inp`: 'stood' once the player has been on the
    ground STAND_FRAMES frames in a row, 'fell' when it dies first."""
    standing = 0
    for _ in range(400):
        sim_step(sim, inp)
        if sim.player_dead:
            return "fell"
        standing = standing + 1 if sim.player.physics.on_ground else 0
        if standing == STAND_FRAMES:
            return "stood"
    return "flying"


def test_a_touch_of_a_lip_on_the_way_into_a_pit_reads_0():
    sim = off_the_edge(brush_stage(pillar_x=534))
    # The game: holding right, the feet touch the pillar's top and slide
    # off it into the pit.
    assert stands_or_falls(sim.copy(), RUN) == "fell"
    reach, stand = extract_reach_observation(sim), extract_stand_observation(sim)
    # "reach" takes the touch for a landing; "stand" plays on past it.
    assert reach[HOP_VALUE] == 1.0
    assert stand[HOP_VALUE] == 0.0 and stand[FULL] == 0.0
    np.testing.assert_array_equal(stand[:FULL], reach[:FULL])
    compiled = CompiledSim(sim)
    np.testing.assert_array_equal(compiled.observe("stand"), stand)
    np.testing.assert_array_equal(compiled.observe("reach"), reach)


def test_a_flight_that_touches_a_lip_plays_on_to_the_ground_below():
    # The same pit with a floor 240 px down: the flight goes on past the
    # touch and stands on that floor.
    sim = off_the_edge(brush_stage(floor_below=240, pillar_x=534))
    touched = flight(sim, *HOP, rule=FOOTING_RULE)
    stood = flight(sim, *HOP, rule=STAND_RULE)
    feet = FLOOR_Y + 48
    assert touched is not None and touched.physics.y < feet
    assert stood is not None and stood.physics.on_ground
    assert feet + 100 < stood.physics.y < FLOOR_Y + 240
    # The game holding right stands where the flight did.
    game = sim.copy()
    assert stands_or_falls(game, RUN) == "stood"
    assert (game.player.physics.x, game.player.physics.y) == (stood.physics.x, stood.physics.y)


def test_a_touch_of_two_frames_holds_a_decision_and_reads_1():
    # On the pillar for two frames: a policy deciding every other frame
    # decides on it, and could jump on from there.
    sim = off_the_edge(brush_stage())
    assert STAND_FRAMES == 2
    game, on_ground = sim.copy(), []
    while not game.player_dead:
        sim_step(game, RUN)
        on_ground.append(game.player.physics.on_ground)
    assert "".join("1" if g else "0" for g in on_ground).count("11") == 1
    assert extract_stand_observation(sim)[HOP_VALUE] == 1.0
    np.testing.assert_array_equal(CompiledSim(sim).observe("stand"),
                                  extract_stand_observation(sim))


def test_a_jump_onto_wide_ground_reads_1_as_reach_does():
    # Run right from the start to 20 px short of a 96 px pit.
    sim = create_sim(pit_stage(400, 496))
    while sim.player.physics.x < 380:
        sim_step(sim, RUN)
    stand = extract_stand_observation(sim)
    assert stand[FULL] == 1.0
    np.testing.assert_array_equal(stand, extract_reach_observation(sim))
    jump = InputState(right=True, jump_pressed=True, jump_held=True)
    played = sim.copy()
    sim_step(played, jump)
    assert stands_or_falls(played, InputState(right=True, jump_held=True)) == "stood"


@pytest.mark.parametrize("stage, seed", sweep([("skybridge", 5), ("gen:expert:10135", 6),
                                               ("gen:expert:10071", 7)]))
def test_random_play_reads_alike_on_both_engines(stage, seed):
    # One compiled simulation observes "reach" and "stand", each by its
    # own rule: the flights it remembers for one are not taken for the other.
    sim = settled(load_stage(stage))
    observations = (("reach", extract_reach_observation),
                    ("stand", extract_stand_observation))
    assert compare_each_in_random_play(sim, observations, every=2, seed=seed,
                                       frames=1200) >= 100


def test_thrown_over_expert_pits_it_reads_alike_and_differs_from_reach():
    stage = load_stage("gen:expert:10135")
    rng = np.random.default_rng(3)
    compared = differs = 0
    for _ in range(20):
        sim = settled(stage)
        place(sim, float(rng.uniform(300, stage.width - 900)), float(rng.uniform(100, 500)),
              on_ground=False, x_vel=float(rng.uniform(2.0, 12.0)),
              y_vel=float(rng.uniform(-8, 2)), facing_right=True)
        for frame, compiled in play_both_engines(sim, rng, frames=90, hold=2):
            if frame % 2:
                continue
            stand = extract_stand_observation(sim)
            np.testing.assert_array_equal(compiled.observe("stand"), stand,
                                          err_msg=f"frame {frame}")
            differs += stand.tolist() != extract_reach_observation(sim).tolist()
            compared += 1
    assert compared >= 300
    # Some flights there end on a touch "stand" does not count.
    assert differs >= 3


@pytest.mark.parametrize("repeat", sweep([2, 1]))
def test_whole_episodes_over_stand_are_equal_on_both_engines(repeat):
    genome = right_jumper("stand", {"full_onward": 1.0, "full_onward_later": -2.0,
                                    "jump_held": 1.0})
    expected, got = episodes_on_both_engines("stand", genome, seeds=(10058, 10062, 10001),
                                             action_repeat=repeat)
    assert [r.to_dict() for r in got] == [r.to_dict() for r in expected]
    assert max(r.metrics["max_x"] for r in expected) > 1500


def test_values_stay_in_their_bounds_and_change_along_the_way():
    assert len(tails_within_bounds("stand", 5, seeds=(202, 10058))) >= 3

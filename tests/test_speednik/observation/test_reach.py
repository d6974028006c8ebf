"""The "reach" observation: "stride" with its flights played whenever the
player is faster than it runs, so that a jump that comes down past the
pits in view reads as it ends; equal in both engines."""
from __future__ import annotations

import numpy as np
import pytest

from speednik.constants import TOP_SPEED
from speednik.engine import CompiledSim
from speednik.engine.layout import S_ON_GROUND
from speednik.engine.observation import FLIGHT_F, FLIGHT_S, RUN_KEPT
from speednik.observation import (
    STRIDE_VALUES,
    extract_reach_observation,
    extract_stride_observation,
    get_observation,
)
from speednik.physics import InputState
from speednik.stages import load_stage
from speednik.simulation import sim_step
from baseline_play import episodes_on_both_engines, play_plan, right_jumper, tails_within_bounds
from random_play import compare_each_in_random_play, play_both_engines, settled
from stage_fixtures import place
from sweeps import sweep

FULL, HOP, BRAKE, FULL_LATER, HOP_LATER = range(50, 55)
RUN = InputState(right=True)


def test_it_has_the_values_of_stride():
    assert get_observation("reach").values == STRIDE_VALUES


def before_skybridge_last_slope(speed: float):
    """skybridge on the flat before its last slope down, running right at
    `speed`: past the slope come a bridge, flat ground and, 1,100 px on,
    the last pit, far out of view."""
    sim = settled(load_stage("skybridge"))
    place(sim, 5400.0, 430.0)
    for _ in range(3):
        sim_step(sim, RUN)
    p = sim.player.physics
    assert p.on_ground and 5400 < p.x < 5420
    p.x_vel = p.ground_speed = speed
    return sim


def test_a_full_jump_that_carries_past_the_view_reads_as_it_ends():
    sim = before_skybridge_last_slope(12.0)
    # The real game: a full jump clears the slope, the bridge and the flat
    # and comes down in the last pit; a hop comes down on the bridge.
    assert play_plan(sim.copy(), (False, True, True)) == "fell"
    assert play_plan(sim.copy(), (False, True, False)) == "landed"
    stride, reach = extract_stride_observation(sim), extract_reach_observation(sim)
    # No pit in view: "stride" plays no flight and reads the jump as safe.
    assert stride[FULL] == 1.0
    assert reach[FULL] == 0.0 and reach[FULL_LATER] == 0.0
    assert reach[HOP] == 1.0
    np.testing.assert_array_equal(reach[:FULL], stride[:FULL])
    np.testing.assert_array_equal(CompiledSim(sim).observe("reach"), reach)


@pytest.mark.parametrize("speed", [TOP_SPEED, 5.0])
def test_at_running_speed_it_reads_as_stride(speed):
    sim = before_skybridge_last_slope(speed)
    # At running speed a full jump comes down inside the view: here, on
    # the bridge, and both read it 1 without playing it.
    assert play_plan(sim.copy(), (False, True, True)) == "landed"
    np.testing.assert_array_equal(extract_reach_observation(sim),
                                  extract_stride_observation(sim))
    assert extract_reach_observation(sim)[FULL] == 1.0


def fast(sim) -> bool:
    return abs(sim.player.physics.x_vel) > TOP_SPEED


@pytest.mark.parametrize("stage, every", sweep([("skybridge", 2), ("gen:expert:10058", 2),
                                                ("gen:expert:10022", 1)]))
def test_random_play_from_fast_throws_reads_alike_on_both_engines(stage, every):
    # Random play seldom goes faster than it runs: each try starts with
    # the player thrown along the stage faster than that, then plays on.
    stage = load_stage(stage)
    rng = np.random.default_rng(8)
    compared = fast_frames = 0
    for _ in range(30):
        sim = settled(stage)
        place(sim, float(rng.uniform(300, stage.width - 900)), float(rng.uniform(100, 600)),
              on_ground=False, x_vel=float(rng.uniform(8.0, 16.0)),
              y_vel=float(rng.uniform(-8, 2)), facing_right=True)
        for frame, compiled in play_both_engines(sim, rng, frames=120, hold=every):
            if frame % every:
                continue
            reach = extract_reach_observation(sim)
            np.testing.assert_array_equal(compiled.observe("reach"), reach,
                                          err_msg=f"frame {frame}")
            stride = extract_stride_observation(sim)
            if not fast(sim):
                np.testing.assert_array_equal(reach, stride, err_msg=f"frame {frame}")
            fast_frames += fast(sim)
            compared += 1
    assert compared >= 500 and fast_frames >= 30


def test_running_fast_down_skybridge_reads_alike_on_both_engines():
    # On the ground, faster than running: down the last slope, over the
    # bridge and toward the last pit, from 7 to 16 px a frame.
    rng = np.random.default_rng(4)
    fast_on_ground = differs = 0
    for speed in range(7, 17):
        sim = before_skybridge_last_slope(float(speed))
        for frame, compiled in play_both_engines(sim, rng, frames=160, hold=2):
            if frame % 2:
                continue
            reach = extract_reach_observation(sim)
            np.testing.assert_array_equal(compiled.observe("reach"), reach,
                                          err_msg=f"speed {speed}, frame {frame}")
            fast_on_ground += fast(sim) and sim.player.physics.on_ground
            differs += reach.tolist() != extract_stride_observation(sim).tolist()
    assert fast_on_ground >= 15
    # Some of those flights end where "stride" did not look.
    assert differs >= 3


def test_one_compiled_sim_observes_reach_and_stride_each_by_its_own_rule():
    sim = settled(load_stage("skybridge"))
    observations = (("stride", extract_stride_observation),
                    ("reach", extract_reach_observation))
    assert compare_each_in_random_play(sim, observations, every=2, seed=5, frames=1200) >= 100


@pytest.mark.parametrize("repeat", sweep([2, 1]))
def test_whole_episodes_over_reach_are_equal_on_both_engines(repeat):
    genome = right_jumper("reach", {"full_onward": 1.0, "full_onward_later": -2.0,
                                    "jump_held": 1.0})
    expected, got = episodes_on_both_engines("reach", genome, seeds=(10058, 10062, 10001),
                                             action_repeat=repeat)
    assert [r.to_dict() for r in got] == [r.to_dict() for r in expected]
    assert max(r.metrics["max_x"] for r in expected) > 1500


def test_values_stay_in_their_bounds_and_change_along_the_way():
    assert len(tails_within_bounds("reach", 5, seeds=(202, 10058))) >= 3


def kept_later_plans_serve(compiled) -> bool:
    """Whether the compiled sim's player, on the ground, is where the later
    plans of one of the decisions it keeps ran on to."""
    _, _, run_f, run_s, memo = compiled._flights[:5]
    f, s = compiled.f, compiled.s
    return bool(s[S_ON_GROUND]) and any(
        memo[1 + j, 0] != 0 and np.array_equal(run_f[j, :FLIGHT_F], f[:FLIGHT_F])
        and np.array_equal(run_s[j, :FLIGHT_S], s[:FLIGHT_S]) for j in range(RUN_KEPT))


@pytest.mark.parametrize("stage", ["gen:expert:10022", "gen:expert:10058"])
def test_deciding_every_frame_running_on_takes_the_later_plans_of_two_frames_before(stage):
    # Running right and deciding every frame, the player reaches where the
    # later plans of the decision two frames back ran on to: the engine
    # keeps the last two decisions' plans, and what it reads from them is
    # what playing the flights again reads.
    sim = settled(load_stage(stage))
    compiled = CompiledSim(sim)
    served = 0
    for frame in range(400):
        if sim.player_dead or sim.goal_reached:
            break
        served += kept_later_plans_serve(compiled)
        np.testing.assert_array_equal(compiled.observe("reach"), extract_reach_observation(sim),
                                      err_msg=f"frame {frame}")
        sim_step(sim, RUN)
        compiled.step(RUN)
    assert served >= 20

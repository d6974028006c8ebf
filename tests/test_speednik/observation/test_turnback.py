"""The "turnback" observation: "behind" and runup's value, so that a
player stopped at a wall only a spring it passed climbs reads both the
spring and how far back it has gone; equal in both engines."""
from __future__ import annotations

import numpy as np
import pytest

from speednik.engine import CompiledSim
from speednik.observation import (
    BEHIND_VALUES,
    RUNUP_NORM,
    TURNBACK_NAMES,
    extract_behind_observation,
    extract_runup_observation,
    extract_turnback_observation,
    get_observation,
)
from speednik.physics import InputState
from speednik.player import PlayerState
from speednik.simulation import sim_step
from speednik.stages import load_stage
from random_play import compare_in_random_play, settled
from stage_fixtures import place
from sweeps import sweep

QUARRY = "speednik/stages/handmade/quarry.toml"
# quarry's first lift spring, and the 168 px bench it is the way up.
SPRING_X, BENCH_X = 1112.0, 1232
BACK = TURNBACK_NAMES.index("behind_farthest")
SPRING_BEHIND_DX = TURNBACK_NAMES.index("spring_behind_dx")


def test_it_is_behind_with_runups_value_after_it():
    turnback = get_observation("turnback")
    assert turnback.values[:61] == BEHIND_VALUES and turnback.size == 62 and BACK == 61
    assert turnback.values[61] == get_observation("runup").values[55]
    assert turnback.compiled


def test_going_back_from_the_bench_it_reads_the_spring_nearer_and_the_run_up_longer():
    sim = settled(load_stage(QUARRY))
    place(sim, BENCH_X - 11, 600, on_ground=False, x_vel=0.0, y_vel=0.0, facing_right=True)
    sim.player.state = PlayerState.AIRBORNE
    for _ in range(60):                      # down at the bench's foot, pressing right
        sim_step(sim, InputState(right=True))
    obs = extract_turnback_observation(sim)
    np.testing.assert_array_equal(obs[:61], extract_behind_observation(sim))
    assert obs[SPRING_BEHIND_DX] == pytest.approx((sim.player.physics.x - SPRING_X) / 320,
                                                  abs=1e-6)
    np.testing.assert_array_equal(CompiledSim(sim).observe("turnback"), obs)
    readings = []
    for _ in range(24):                      # turn and go back towards the spring
        sim_step(sim, InputState(left=True))
        obs = extract_turnback_observation(sim)
        assert obs[BACK] == extract_runup_observation(sim)[55]
        back = sim.max_x_reached - sim.player.physics.x
        assert obs[BACK] == pytest.approx(min(max(back, 0.0) / RUNUP_NORM, 1.0), abs=1e-6)
        readings.append(float(obs[BACK]))
        np.testing.assert_array_equal(CompiledSim(sim).observe("turnback"), obs)
    assert sim.player.physics.x > SPRING_X   # not there yet: the spring is still in view
    assert readings[-1] > 0.05 and readings == sorted(readings)
    # Facing the spring now, it reads ahead, not behind.
    assert obs[SPRING_BEHIND_DX] == 0.0


@pytest.mark.parametrize("stage, seed", sweep([("speednik/stages/handmade/foundry.toml", 1),
                                               ("gen:skills:1", 2), ("pipeworks", 3),
                                               ("gen:expert:201", 4)]))
def test_random_play_reads_alike_on_both_engines(stage, seed):
    assert compare_in_random_play(settled(load_stage(stage)), "turnback",
                                  extract_turnback_observation, every=2, seed=seed,
                                  frames=1200) >= 100

"""The "runup" observation: "reach" and how far behind its farthest x the
player is, which grows as a run-up is taken backwards and falls to 0 as
the player passes where it was again; equal in both engines."""
from __future__ import annotations

import numpy as np
import pytest

from speednik.engine import CompiledSim
from speednik.observation import (
    REACH_VALUES,
    RUNUP_NAMES,
    RUNUP_NORM,
    behind_farthest,
    extract_reach_observation,
    extract_runup_observation,
    get_observation,
)
from speednik.physics import InputState
from speednik.simulation import sim_step
from speednik.stages import load_stage
from random_play import compare_in_random_play, settled
from sweeps import sweep

BACK = RUNUP_NAMES.index("behind_farthest")


def test_it_is_reach_with_one_value_after_it():
    runup = get_observation("runup")
    assert runup.values[:55] == REACH_VALUES and runup.size == 56 and BACK == 55
    assert runup.compiled


def test_it_reads_how_far_a_run_up_taken_backwards_has_gone():
    sim = settled(load_stage("hillside"))
    for _ in range(90):
        sim_step(sim, InputState(right=True))
    obs = extract_runup_observation(sim)
    np.testing.assert_array_equal(obs[:55], extract_reach_observation(sim))
    assert obs[BACK] == 0.0                  # running on: at its farthest
    readings = []
    for _ in range(80):                      # turn (braking on a little) and run back
        sim_step(sim, InputState(left=True))
        obs = extract_runup_observation(sim)
        back = sim.max_x_reached - sim.player.physics.x
        assert obs[BACK] == pytest.approx(min(max(back, 0.0) / RUNUP_NORM, 1.0), abs=1e-6)
        readings.append(float(obs[BACK]))
        np.testing.assert_array_equal(CompiledSim(sim).observe("runup"), obs)
    assert readings[-1] > 0.3 and readings[-1] == max(readings)
    farthest = sim.max_x_reached
    for _ in range(200):                     # and on again, past where it turned
        sim_step(sim, InputState(right=True))
    assert sim.player.physics.x > farthest
    assert extract_runup_observation(sim)[BACK] == 0.0


def test_it_is_full_past_its_scale_and_never_negative():
    assert behind_farthest(1000.0, 1000.0 - 2 * RUNUP_NORM) == 1.0
    assert behind_farthest(1000.0, 1000.0 - RUNUP_NORM / 4) == 0.25
    assert behind_farthest(1000.0, 1003.0) == 0.0


@pytest.mark.parametrize("stage, seed", sweep([("speednik/stages/handmade/cascade.toml", 1),
                                               ("gen:skills:0", 2), ("skybridge", 3),
                                               ("gen:expert:200", 4)]))
def test_random_play_reads_alike_on_both_engines(stage, seed):
    assert compare_in_random_play(settled(load_stage(stage)), "runup",
                                  extract_runup_observation, every=2, seed=seed,
                                  frames=1200) >= 100

"""The "behind" observation: "reach" and the nearest spring behind the
player, so that a player stopped at a wall only a spring it passed climbs
can see that spring; equal in both engines."""
from __future__ import annotations

import numpy as np
import pytest

from speednik.engine import CompiledSim
from speednik.observation import (
    BEHIND_NAMES,
    REACH_VALUES,
    extract_behind_observation,
    extract_reach_observation,
    get_observation,
)
from speednik.physics import InputState
from speednik.player import PlayerState
from speednik.simulation import sim_step
from speednik.stages import load_stage
from random_play import compare_in_random_play, play_both_engines, settled
from stage_fixtures import place
from sweeps import sweep

QUARRY = "speednik/stages/handmade/quarry.toml"
# quarry's first lift spring, and the bench it is the way up: 168 px
# tall, its face at x 1232, its top at y 464.
SPRING_X, BENCH_X, BENCH_TOP = 1112.0, 1232, 464
AHEAD = slice(BEHIND_NAMES.index("spring_ahead_near"), BEHIND_NAMES.index("spring_ahead_near") + 6)
BEHIND = slice(55, 61)


def values(obs, part: slice) -> dict[str, float]:
    return {name: float(v) for name, v in zip(BEHIND_NAMES[part], obs[part])}


def at_the_bench():
    """quarry's player dropped at the foot of the tall bench, past the
    lift spring, and held against the bench pressing right: where the
    policies stall."""
    sim = settled(load_stage(QUARRY))
    place(sim, BENCH_X - 11, 600, on_ground=False, x_vel=0.0, y_vel=0.0, facing_right=True)
    sim.player.state = PlayerState.AIRBORNE
    for _ in range(60):
        sim_step(sim, InputState(right=True))
    assert sim.player.physics.on_ground and BENCH_X - 16 < sim.player.physics.x < BENCH_X
    return sim


def test_it_is_reach_with_six_values_after_it():
    behind = get_observation("behind")
    assert behind.values[:55] == REACH_VALUES and behind.size == 61
    assert behind.compiled
    assert BEHIND_NAMES[BEHIND][0] == "spring_behind_near"


def test_facing_the_bench_it_reads_the_spring_behind_and_none_ahead():
    sim = at_the_bench()
    obs = extract_behind_observation(sim)
    np.testing.assert_array_equal(obs[:55], extract_reach_observation(sim))
    assert all(v == 0.0 for v in values(obs, AHEAD).values())
    behind = values(obs, BEHIND)
    dx = sim.player.physics.x - SPRING_X
    assert behind["spring_behind_up"] == 1.0
    assert behind["spring_behind_dx"] == pytest.approx(dx / 320, abs=1e-6)
    assert behind["spring_behind_power"] == 0.625
    assert 0.6 < behind["spring_behind_near"] < 0.7
    np.testing.assert_array_equal(CompiledSim(sim).observe("behind"), obs)


def test_turned_round_the_spring_reads_ahead_and_nothing_behind():
    sim = at_the_bench()
    facing = values(extract_behind_observation(sim), BEHIND)
    for _ in range(3):
        sim_step(sim, InputState(left=True))
    obs = extract_behind_observation(sim)
    ahead = values(obs, AHEAD)
    assert ahead["spring_ahead_up"] == 1.0
    assert ahead["spring_ahead_dx"] == pytest.approx(
        (sim.player.physics.x - SPRING_X) / 320, abs=1e-6)
    assert ahead["spring_ahead_dx"] == pytest.approx(facing["spring_behind_dx"], abs=0.01)
    assert all(v == 0.0 for v in values(obs, BEHIND).values())
    np.testing.assert_array_equal(CompiledSim(sim).observe("behind"), obs)


def test_the_spring_it_reads_behind_is_the_way_up_the_bench():
    # The game: pressing right at the bench goes nowhere; going back to the
    # spring read behind, then right, stands the player on the bench.
    sim = at_the_bench()
    pressing = sim.copy()
    for _ in range(240):
        sim_step(pressing, InputState(right=True, jump_pressed=True, jump_held=True))
        sim_step(pressing, InputState(right=True))
    assert pressing.player.physics.x < BENCH_X
    turned, top = False, sim.player.physics.y
    for _ in range(400):
        # Back past the spring, then right onto it: it throws the player
        # up past the bench's top, onto the bench and on.
        turned = turned or sim.player.physics.x < SPRING_X - 40
        sim_step(sim, InputState(left=not turned, right=turned))
        top = min(top, sim.player.physics.y)
    p = sim.player.physics
    assert top < BENCH_TOP and p.on_ground and p.x > BENCH_X + 400


@pytest.mark.parametrize("stage, seed", sweep([(QUARRY, 1), ("gen:skills:0", 2),
                                               ("skybridge", 3), ("gen:skills:5", 4)]))
def test_random_play_reads_alike_on_both_engines(stage, seed):
    assert compare_in_random_play(settled(load_stage(stage)), "behind",
                                  extract_behind_observation, every=2, seed=seed,
                                  frames=1200) >= 100


def test_thrown_about_a_stage_of_springs_it_reads_alike_and_sees_springs_behind():
    stage = load_stage(QUARRY)
    rng = np.random.default_rng(5)
    compared = seen = 0
    for _ in range(20):
        sim = settled(stage)
        place(sim, float(rng.uniform(900, 1500)), float(rng.uniform(300, 600)),
              on_ground=False, x_vel=float(rng.uniform(-6.0, 6.0)),
              y_vel=float(rng.uniform(-8, 2)), facing_right=bool(rng.random() < 0.5))
        sim.player.state = PlayerState.AIRBORNE
        for frame, compiled in play_both_engines(sim, rng, frames=90, hold=2):
            obs = extract_behind_observation(sim)
            np.testing.assert_array_equal(compiled.observe("behind"), obs,
                                          err_msg=f"frame {frame}")
            seen += obs[BEHIND.start] > 0.0
            compared += 1
    assert compared >= 600 and seen >= 100

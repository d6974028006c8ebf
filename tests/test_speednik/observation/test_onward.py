"""The "onward" observation: a flight that holds right reads 1 only when
it comes down moving right, so a jump from a steep climb that throws the
player back reads 0; each value what the game then does, equal in both
engines."""
from __future__ import annotations

import numpy as np
import pytest

from speednik.engine import CompiledSim
from speednik.observation import (
    LOCAL_NAMES,
    ONWARD_NAMES,
    extract_local_observation,
    extract_onward_observation,
    get_observation,
)
from speednik.observation.landing import PLANS
from speednik.observation.onward import STEEP_ANGLE, on_steep_ground
from speednik.physics import InputState
from speednik.simulation import create_sim, sim_step
from speednik.stages import generate_stage, load_stage
from speednik.terrain import SOLID
from baseline_play import episodes_on_both_engines, play_plan, right_jumper, tails_within_bounds
from random_play import play_both_engines
from stage_fixtures import build_stage, floor_grid

# An observation kept for the record (speednik.observation.registry):
# its tests run with the broad ones.
pytestmark = pytest.mark.broad

FLOOR = 900
CLIMB_X, CLIMB_LEN, CLIMB_RISE = 384, 320, 256   # 38.7 degrees


def climb_stage():
    """A run-up, a climb of nearly 40 degrees, then a long flat top."""
    grid = floor_grid(width=2048, height=1024, floor_y=FLOOR)
    for x in range(CLIMB_X, grid.shape[1]):
        rise = min(CLIMB_RISE, (x - CLIMB_X) * CLIMB_RISE // CLIMB_LEN)
        grid[FLOOR - rise:FLOOR, x] = SOLID
    return build_stage(grid, name="climb", start_y=FLOOR - 19.0)


def run_right_until(sim, x: float):
    while sim.player.physics.x < x:
        sim_step(sim, InputState(right=True))
    return sim


def test_it_is_local_with_its_own_five_flights():
    onward = get_observation("onward")
    assert onward.size == 55 == len(LOCAL_NAMES)
    assert ONWARD_NAMES[:50] == LOCAL_NAMES[:50]
    assert ONWARD_NAMES[50:] == ("full_onward", "hop_onward", "brake_onward",
                                 "full_onward_later", "hop_onward_later")


@pytest.mark.parametrize("up_the_climb", [96, 160, 224])
def test_a_jump_up_a_steep_climb_reads_zero_and_the_game_throws_the_player_back(up_the_climb):
    sim = run_right_until(create_sim(climb_stage()), CLIMB_X + up_the_climb)
    assert on_steep_ground(sim) and sim.player.physics.ground_speed > 0
    onward = extract_onward_observation(sim)
    np.testing.assert_array_equal(CompiledSim(sim).observe("onward"), onward)
    # "local" sees nothing to fall into: every flight reads 1.
    assert extract_local_observation(sim)[-5:].tolist() == [1.0] * 5
    full, hop, brake = onward[50:53].tolist()
    assert (full, hop, brake) == (0.0, 0.0, 1.0)
    # The game: each jump comes down on the slope, not moving on.
    for plan in PLANS[:2]:
        landed = sim.copy()
        assert play_plan(landed, plan) == "landed"
        assert landed.player.physics.ground_speed <= 0.0


def test_on_level_ground_with_nothing_in_view_all_read_one():
    sim = run_right_until(create_sim(climb_stage()), CLIMB_X + CLIMB_LEN + 200)
    assert not on_steep_ground(sim)
    assert extract_onward_observation(sim)[-5:].tolist() == [1.0] * 5
    sim = run_right_until(create_sim(climb_stage()), CLIMB_X - 200)
    assert extract_onward_observation(sim)[-5:].tolist() == [1.0] * 5


def test_steep_means_either_way_from_level():
    sim = create_sim(climb_stage())
    p = sim.player.physics
    for angle, steep in ((0, False), (STEEP_ANGLE - 1, False), (STEEP_ANGLE, True),
                         (256 - STEEP_ANGLE, True), (256 - STEEP_ANGLE + 1, False)):
        p.angle = angle
        assert on_steep_ground(sim) == steep
        assert CompiledSim(sim).observe("onward").tolist() == \
            extract_onward_observation(sim).tolist()
    p.on_ground = False
    p.angle = STEEP_ANGLE
    assert not on_steep_ground(sim)


def random_play(sim, every: int, seed: int) -> tuple[int, int]:
    """Random buttons held `every` frames on both engines, "onward" compared
    at each decision: (frames compared, frames whose flights read other
    than "local"'s)."""
    rng = np.random.default_rng(seed)
    compared = differ = 0
    for frame, compiled in play_both_engines(sim, rng, frames=1500, hold=every):
        if frame % every == 0:
            readable = extract_onward_observation(sim)
            np.testing.assert_array_equal(compiled.observe("onward"), readable,
                                          err_msg=f"frame {frame}")
            local = extract_local_observation(sim)
            np.testing.assert_array_equal(readable[:50], local[:50])
            differ += readable[50:].tolist() != local[50:].tolist()
            compared += 1
    return compared, differ


@pytest.mark.parametrize("stage, every", [("gen:expert:10058", 1), ("gen:expert:10022", 2),
                                          ("pipeworks", 1)])
def test_random_play_reads_alike_on_both_engines(stage, every):
    compared, _ = random_play(create_sim(load_stage(stage)), every, seed=7)
    assert compared >= 100


@pytest.mark.parametrize("every", [1, 3])
def test_random_play_on_a_climb_reads_alike_on_both_engines(every):
    # Started on the climb, where the flights are played for the slope
    # alone and often read other than "local"'s.
    sim = run_right_until(create_sim(climb_stage()), CLIMB_X + 64)
    compared, differ = random_play(sim, every, seed=every)
    assert compared >= 100 and differ >= 10


# Kept for the record, not chosen by any preset: every frame's values are
# compared above, whole episodes in the broad run (make test-broad).
@pytest.mark.broad
def test_whole_episodes_over_onward_are_equal_on_both_engines():
    genome = right_jumper("onward", {"full_onward": 1.0, "full_onward_later": -2.0,
                                     "jump_held": 1.0})
    expected, got = episodes_on_both_engines("onward", genome, seeds=(10058, 10062, 10001))
    assert [r.to_dict() for r in got] == [r.to_dict() for r in expected]
    assert max(r.metrics["max_x"] for r in expected) > 1500


def test_values_stay_in_their_bounds_and_change_along_the_way():
    assert len(tails_within_bounds("onward", 5, seeds=(202, 10058))) >= 3

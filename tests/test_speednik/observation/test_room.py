"""The "room" observation: how much ground lies past where a full jump and
a hop come down, before the next pit; read off the game's own flights,
equal in both engines."""
from __future__ import annotations

import math

import numpy as np
import pytest

from speednik.engine import CompiledSim
from speednik.observation import ROOM_NAMES, extract_room_observation, get_observation
from speednik.observation.landing import PLANS
from speednik.observation.room import ROOM_REACH
from speednik.physics import InputState
from speednik.player import PlayerState
from speednik.simulation import create_sim, sim_step
from speednik.stages import generate_stage
from baseline_play import (baseline_frames, episodes_on_both_engines, play_plan, right_jumper,
                           tails_within_bounds)
from stage_fixtures import FLOOR_Y, build_stage, flat_stage, floor_grid, pit_stage, place

# An observation kept for the record (speednik.observation.registry):
# its tests run with the broad ones.
pytestmark = pytest.mark.broad

STAND_Y = FLOOR_Y - 19.0
RUNNING = dict(on_ground=True, ground_speed=6.0, x_vel=6.0, facing_right=True)
TAIL = ("full_lands", "hop_lands", "brake_lands", "full_lands_later", "hop_lands_later",
        "full_room", "hop_room")
# The pillar between the two pits of the chain ends here.
PILLAR_END = 400


def chain_stage():
    """A 64 px pit, a 176 px pillar at floor level, then a pit to the end."""
    grid = floor_grid()
    grid[:, 160:224] = 0
    grid[:, PILLAR_END:] = 0
    return build_stage(grid, name="chain")


def room_at(stage, x: float, y: float = STAND_Y, **physics) -> tuple[dict, object]:
    """The landing values and rooms at a placed state (checked equal in
    both engines), and the state."""
    sim = create_sim(stage)
    sim_step(sim, InputState())
    place(sim, x, y, **physics)
    if not sim.player.physics.on_ground:
        sim.player.state = PlayerState.AIRBORNE
    readable = extract_room_observation(sim)
    np.testing.assert_array_equal(CompiledSim(sim).observe("room"), readable)
    return dict(zip(TAIL, readable[-7:].tolist())), sim


def landing_x(sim, plan) -> float | None:
    """Where the real simulation comes down with a plan (None: it fell)."""
    outcome = play_plan(sim, plan)
    assert outcome != "flying"
    return sim.player.physics.x if outcome == "landed" else None


@pytest.mark.parametrize("x", [60.0, 90.0, 120.0, 150.0])
def test_the_hop_s_room_is_the_ground_left_on_the_pillar_where_the_game_lands_it(x):
    seen, sim = room_at(chain_stage(), x, **RUNNING)
    landed = landing_x(sim, PLANS[1])
    assert landed is not None and seen["hop_lands"] == 1.0
    # The scan runs in 16 px columns from the landed player's own pixel:
    # the first column past the pillar's end is within 16 px of it.
    left = PILLAR_END - math.floor(landed)
    assert 0 <= seen["hop_room"] * ROOM_REACH - left < 16


def test_a_later_take_off_leaves_less_room_and_a_fall_none():
    rooms = [room_at(chain_stage(), x, **RUNNING)[0] for x in (60.0, 100.0, 140.0)]
    hops = [r["hop_room"] for r in rooms]
    assert hops[0] > hops[1] > hops[2] > 0.0
    # A full jump from the first pit's edge overshoots the pillar.
    seen, sim = room_at(chain_stage(), 150.0, **RUNNING)
    assert seen["full_lands"] == 0.0 and seen["full_room"] == 0.0
    assert landing_x(sim, PLANS[0]) is None


def test_a_landing_far_from_any_further_pit_reads_one():
    # The pit is 80 px wide with flat ground past it to the stage's end.
    seen, _ = room_at(pit_stage(160, 240), 140.0, **RUNNING)
    assert seen["full_lands"] == seen["hop_lands"] == 1.0
    assert seen["full_room"] == seen["hop_room"] == 1.0


def test_with_no_pit_in_view_or_a_charging_spindash_nothing_is_played():
    assert room_at(flat_stage(), 120.0, **RUNNING)[0] == dict.fromkeys(TAIL, 1.0)
    sim = create_sim(pit_stage(160, 240))
    sim_step(sim, InputState())
    place(sim, 150.0, STAND_Y, on_ground=True)
    sim.player.state = PlayerState.SPINDASH
    obs = extract_room_observation(sim)
    np.testing.assert_array_equal(CompiledSim(sim).observe("room"), obs)
    assert obs[-7:].tolist() == [0.0] * 7


def test_in_the_air_the_room_follows_whether_jump_is_let_go():
    # Rising fast over the first pit, jump held: held on, the jump carries
    # past the pillar; let go, it comes down on it, with ground to spare.
    seen, _ = room_at(chain_stage(), 170.0, STAND_Y - 10, on_ground=False, x_vel=6.0,
                      y_vel=-6.0, jumping=True, is_rolling=True, facing_right=True)
    assert seen["full_room"] == 0.0 and seen["hop_room"] > 0.0


def test_room_extends_landing_value_for_value():
    for sim, _ in baseline_frames(generate_stage(201, "expert"), frames=600):
        room = get_observation("room")(sim)
        np.testing.assert_array_equal(room[:-2], get_observation("landing")(sim))
    assert ROOM_NAMES[-2:] == ("full_room", "hop_room")


def test_values_stay_in_their_bounds_and_change_on_expert_stages():
    assert len(tails_within_bounds("room", 2)) >= 5


def room_jumper() -> np.ndarray:
    """A linear genome over "room": run right; jump as a pit nears where a
    full jump lands, the sooner the more ground it leaves past the
    landing; hold jump while it is held."""
    return right_jumper("room", {"full_lands": 1.0, "full_room": 1.0, "pit_ahead_dx": -2.0,
                                 "jump_held": 1.0})


# Kept for the record, not chosen by any preset: every frame's values are
# compared above, whole episodes in the broad run (make test-broad).
@pytest.mark.broad
def test_whole_episodes_over_room_are_equal_on_both_engines():
    # The compiled episode keeps the later plans' flights and rooms from
    # one frame to the next; the readable one plays every flight every
    # frame.
    expected, got = episodes_on_both_engines("room", room_jumper())
    assert [r.to_dict() for r in got] == [r.to_dict() for r in expected]
    assert max(r.metrics["max_x"] for r in expected) > 1500


def test_one_compiled_sim_observed_as_landing_and_room_in_turn_matches_both():
    # The kept flights of "landing" hold no rooms: a "room" reading after
    # one must not take them.
    stage = generate_stage(200, "expert")
    compiled = CompiledSim(create_sim(stage))
    for frame, (sim, inp) in enumerate(baseline_frames(stage, frames=1200)):
        compiled.step(inp)
        first, second = ("landing", "room") if frame % 2 else ("room", "landing")
        for name in (first, second):
            np.testing.assert_array_equal(compiled.observe(name), get_observation(name)(sim))


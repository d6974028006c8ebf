"""The "landing" observation: whether a full jump, a hop and a braked hop
come down on ground, played on a copy of the player with the game's own
air physics, equal in both engines."""
from __future__ import annotations

import numpy as np
import pytest

from speednik.engine import CompiledSim
from speednik.observation import LANDING_NAMES, extract_landing_observation, extract_room_observation
from speednik.observation.landing import PLANS
from speednik.physics import InputState
from speednik.player import PlayerState
from speednik.simulation import create_sim, sim_step
from speednik.stages import generate_stage
from engine_parity import first_difference
from baseline_play import (baseline_frames, episodes_on_both_engines, play_plan, right_jumper,
                           tails_within_bounds)
from random_play import play_both_engines, settled, throw_at_random
from stage_fixtures import FLOOR_Y, build_stage, flat_stage, floor_grid, pit_stage, place
from sweeps import sweep

# An observation kept for the record (speednik.observation.registry):
# its tests run with the broad ones.
pytestmark = pytest.mark.broad

STAND_Y = FLOOR_Y - 19.0
PLAN_NAMES = ("full_lands", "hop_lands", "brake_lands")


def landing_at(stage, x: float, y: float = STAND_Y, **physics) -> tuple[dict, object]:
    """The three values at a placed state (checked equal in both engines),
    and the state; a player placed off the ground is airborne."""
    sim = settled(stage)
    place(sim, x, y, **physics)
    if not sim.player.physics.on_ground:
        sim.player.state = PlayerState.AIRBORNE
    readable = extract_landing_observation(sim)
    np.testing.assert_array_equal(CompiledSim(sim).observe("landing"), readable)
    return dict(zip(LANDING_NAMES[-5:-2], readable[-5:-2].tolist())), sim


def chain_stage():
    """A 64 px pit, a 176 px pillar at floor level, then a pit to the end."""
    grid = floor_grid()
    grid[:, 160:224] = 0
    grid[:, 400:] = 0
    return build_stage(grid, name="chain")


RUNNING = dict(on_ground=True, ground_speed=6.0, x_vel=6.0, facing_right=True)


def test_a_jump_over_a_narrow_pit_lands_and_over_a_wide_one_does_not():
    narrow, _ = landing_at(pit_stage(160, 240), 140.0, **RUNNING)
    assert narrow == dict.fromkeys(PLAN_NAMES, 1.0)
    wide, _ = landing_at(pit_stage(160, 900), 140.0, **RUNNING)
    assert wide == {"full_lands": 0.0, "hop_lands": 0.0, "brake_lands": 0.0}


def test_a_full_jump_from_the_first_pit_of_a_chain_overshoots_where_a_hop_lands():
    seen, _ = landing_at(chain_stage(), 150.0, **RUNNING)
    assert seen["full_lands"] == 0.0 and seen["hop_lands"] == 1.0


@pytest.mark.parametrize("stage", ["chain", "narrow", "wide"])
@pytest.mark.parametrize("plan", range(3))
def test_each_value_says_what_the_game_then_does(stage, plan):
    build = {"chain": chain_stage, "narrow": lambda: pit_stage(160, 240),
             "wide": lambda: pit_stage(160, 900)}[stage]
    seen, sim = landing_at(build(), 150.0, **RUNNING)
    outcome = play_plan(sim, PLANS[plan])
    assert outcome != "flying"
    assert seen[PLAN_NAMES[plan]] == (1.0 if outcome == "landed" else 0.0)


def test_in_the_air_letting_go_of_a_rising_jump_changes_where_it_comes_down():
    # Rising fast over the first pit of the chain, jump held: held on, the
    # jump carries past the pillar; let go, it comes down on it.
    seen, sim = landing_at(chain_stage(), 170.0, STAND_Y - 10, on_ground=False, x_vel=6.0,
                           y_vel=-6.0, jumping=True, is_rolling=True, facing_right=True)
    assert seen["full_lands"] == 0.0 and seen["hop_lands"] == 1.0
    assert play_plan(sim.copy(), PLANS[0]) == "fell"
    assert play_plan(sim.copy(), PLANS[1]) == "landed"
    # Falling, jump no longer matters: the two read the same.
    falling, _ = landing_at(chain_stage(), 170.0, STAND_Y - 10, on_ground=False, x_vel=6.0,
                            y_vel=2.0, jumping=True, is_rolling=True, facing_right=True)
    assert falling["full_lands"] == falling["hop_lands"]


def test_with_no_pit_in_view_nothing_is_played_and_all_read_one():
    assert landing_at(flat_stage(), 120.0, **RUNNING)[0] == dict.fromkeys(PLAN_NAMES, 1.0)
    # The pit starts 560 px ahead, past the 384 px the pits are looked for in.
    far, _ = landing_at(pit_stage(700, 900), 140.0, **RUNNING)
    assert far == dict.fromkeys(PLAN_NAMES, 1.0)


def test_a_full_jump_taken_far_from_a_pit_is_seen_to_come_down_in_it():
    # The pit is 300 px ahead, a wide one: a full jump at full speed now
    # comes down in it, a hop lands short of it.
    seen, sim = landing_at(pit_stage(440, 900), 140.0, **RUNNING)
    assert seen["full_lands"] == 0.0 and seen["hop_lands"] == 1.0
    assert play_plan(sim.copy(), PLANS[0]) == "fell"
    assert play_plan(sim.copy(), PLANS[1]) == "landed"


def test_a_charging_spindash_reads_zero():
    sim = settled(pit_stage(160, 240))
    place(sim, 150.0, STAND_Y, on_ground=True)
    sim.player.state = PlayerState.SPINDASH
    obs = extract_landing_observation(sim)
    np.testing.assert_array_equal(CompiledSim(sim).observe("landing"), obs)
    assert obs[-5:].tolist() == [0.0] * 5


@pytest.mark.parametrize("seed", sweep([200, 201, 10013]))
def test_both_engines_agree_frame_by_frame_through_expert_chains(seed):
    # The jump-runner's inputs take the player over pits, chains and
    # springs, where the flights are played.
    stage = generate_stage(seed, "expert")
    inputs = [inp for _, inp in baseline_frames(stage)]
    assert first_difference(create_sim(stage), inputs) is None


def test_values_stay_in_their_bounds_on_expert_stages():
    # The values change along the way: not a constant.
    assert len(tails_within_bounds("landing", 5)) >= 3


def later(stage, x: float, y: float = STAND_Y) -> dict:
    sim = settled(stage)
    place(sim, x, y, **RUNNING)
    readable = extract_landing_observation(sim)
    np.testing.assert_array_equal(CompiledSim(sim).observe("landing"), readable)
    return dict(zip(LANDING_NAMES[-5:], readable[-5:].tolist()))


def test_the_later_values_fall_to_zero_a_frame_before_a_jump_stops_making_it():
    # Running toward a 300 px pit at 6 px a frame, up to the last place the
    # feet still touch its edge (x 168): a full jump clears it from there,
    # and the same jump a frame later (6 px on) stops clearing it 6 px
    # sooner.
    stage = pit_stage(160, 460)
    xs = np.arange(130.0, 169.0, 1.0)
    readings = [later(stage, x) for x in xs]
    last_now = max(x for x, r in zip(xs, readings) if r["full_lands"] == 1.0)
    last_later = max(x for x, r in zip(xs, readings) if r["full_lands_later"] == 1.0)
    assert last_now == xs[-1] and 5.0 <= last_now - last_later <= 7.0
    assert readings[0]["full_lands"] == readings[0]["full_lands_later"] == 1.0


def test_in_the_air_the_later_values_read_as_now():
    seen = later(chain_stage(), 150.0)
    sim = settled(chain_stage())
    place(sim, 170.0, STAND_Y - 10, on_ground=False, x_vel=6.0, y_vel=2.0, jumping=True,
          is_rolling=True, facing_right=True)
    sim.player.state = PlayerState.AIRBORNE
    obs = dict(zip(LANDING_NAMES[-5:], extract_landing_observation(sim)[-5:].tolist()))
    assert obs["full_lands_later"] == obs["full_lands"]
    assert obs["hop_lands_later"] == obs["hop_lands"]
    assert seen["full_lands"] == 0.0


def step_down_stage():
    """A floor 80 px up to x 200, the floor below it to a 128 px pit at
    x 344, then the floor to the end."""
    grid = floor_grid()
    grid[FLOOR_Y - 80:FLOOR_Y, :200] = 1
    grid[:, 344:472] = 0
    return build_stage(grid, name="step-down")


def test_at_the_top_of_a_step_down_running_on_falls_into_the_pit_past_it():
    # At the edge of the step, 140 px before the pit: running off it at
    # full speed, the fall of 80 px carries the player over the floor below
    # into the pit. Only a jump taken now clears it: full_lands reads 1
    # and, a frame later, off the edge, 0.
    seen = later(step_down_stage(), 204.0, y=STAND_Y - 80)
    assert seen["full_lands"] == 1.0 and seen["full_lands_later"] == 0.0
    sim = settled(step_down_stage())
    place(sim, 204.0, STAND_Y - 80, **RUNNING)
    assert play_plan(sim.copy(), PLANS[0]) == "landed"
    for _ in range(120):
        sim_step(sim, InputState(right=True))
    assert sim.player_dead


def last_moment_jumper() -> np.ndarray:
    """A linear genome over "landing": run right; jump where a full jump
    still lands and one a frame later would not; hold jump while it is
    held in the air."""
    return right_jumper("landing", {"full_lands": 1.0, "full_lands_later": -2.0,
                                    "jump_held": 1.0})


def test_whole_episodes_over_landing_are_equal_on_both_engines():
    # The compiled episode keeps the later plans' flights from one frame
    # to the next; the readable one plays every flight every frame.
    expected, got = episodes_on_both_engines("landing", last_moment_jumper())
    assert [r.to_dict() for r in got] == [r.to_dict() for r in expected]
    # The policy gets somewhere: past pits, where the flights are played.
    assert max(r.metrics["max_x"] for r in expected) > 1500


@pytest.mark.parametrize("seed, every", [(10000, 1), (10001, 2), (10002, 3), (10003, 2)])
def test_random_play_over_expert_stages_reads_alike_on_both_engines(seed, every):
    # Observed every `every` frames while random buttons are held, with
    # the compiled engine's flight scratch (and its kept later plans)
    # carried from one observation to the next, "landing" and "room"
    # (whose rooms are scanned where the flight comes down) read what
    # the readable engine, which plays every flight afresh, reads.
    rng = np.random.default_rng(seed)
    sim = create_sim(generate_stage(seed, "expert"))
    in_the_air = 0
    for frame, compiled in play_both_engines(sim, rng, frames=1500, hold=every):
        if frame % every == 0:
            for name, extract in (("landing", extract_landing_observation),
                                  ("room", extract_room_observation)):
                np.testing.assert_array_equal(compiled.observe(name), extract(sim),
                                              err_msg=f"{name}, frame {frame}")
            in_the_air += not sim.player.physics.on_ground
    # The flights played in the air were compared too.
    assert in_the_air >= 20


@pytest.mark.parametrize("seed", [10022, 10062])
def test_flights_of_thrown_players_read_alike_on_both_engines(seed):
    # Players thrown into the air at random over an expert stage with red
    # springs, then holding random buttons: both engines read the same
    # flights, each within its own limits (192 px below where it starts,
    # FLIGHT_FRAMES frames from it).
    rng = np.random.default_rng(seed)
    stage = generate_stage(seed, "expert")
    compared = 0
    for _ in range(12):
        sim = throw_at_random(stage, rng)
        for frame, compiled in play_both_engines(sim, rng, frames=150, hold=3,
                                                 until_landed=True):
            np.testing.assert_array_equal(compiled.observe("landing"),
                                          extract_landing_observation(sim),
                                          err_msg=f"frame {frame}")
            compared += 1
    assert compared >= 300


def test_a_flight_longer_than_the_horizon_is_seen_to_land_once_within_it():
    # Thrown up at 9 px a frame from 150 px over the floor, holding right:
    # the flight comes down 97 frames later, one past the FLIGHT_FRAMES a
    # flight is followed for, so it reads 0; a frame later it lands within
    # them and reads 1, until the player has risen more than 192 px over
    # the floor (the depth a flight may come down to): both limits count
    # from each frame's own player.
    sim = settled(pit_stage(600, 700))
    place(sim, 300.0, STAND_Y - 150, on_ground=False, x_vel=1.0, y_vel=-9.0,
          facing_right=True)
    sim.player.state = PlayerState.AIRBORNE
    compiled = CompiledSim(sim)
    hop = []
    for frame in range(12):
        readable = extract_landing_observation(sim)
        np.testing.assert_array_equal(compiled.observe("landing"), readable,
                                      err_msg=f"frame {frame}")
        hop.append(float(readable[LANDING_NAMES.index("hop_lands")]))
        inp = InputState(right=True)
        sim_step(sim, inp)
        compiled.step(inp)
    assert hop[0] == 0.0 and 1.0 in hop[1:5] and hop[-1] == 0.0

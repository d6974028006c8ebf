"""The numbers of PHYSICS.md, measured by running the simulation."""
from __future__ import annotations

import numpy as np
import pytest

from speednik.constants import (
    GRAVITY,
    ROLL_FRICTION,
    SLIP_LOCK_FRAMES,
    STAND_HEIGHT_RADIUS,
)
from speednik.entities import Spring
from speednik.physics import InputState, landing_speed
from speednik.player import PlayerState
from speednik.simulation import create_sim, sim_step
from speednik.terrain import SOLID, TOP_ONLY
from terrain_builders import FLOOR_Y, HEIGHT, flat_grid, flat_stage, make_stage

RIGHT = InputState(right=True)
NOTHING = InputState()


def test_exactly_128_frames_from_standing_to_top_speed():
    sim = create_sim(flat_stage())
    p = sim.player.physics
    assert sim.player.state == PlayerState.STANDING and p.ground_speed == 0.0
    speeds = []
    for _ in range(130):
        sim_step(sim, RIGHT)
        speeds.append(p.ground_speed)
    assert speeds[126] < 6.0
    assert speeds[127] == 6.0
    # Holding on never exceeds top speed on flat ground.
    assert max(speeds) == 6.0


def test_friction_and_deceleration():
    sim = create_sim(flat_stage())
    p = sim.player.physics
    for _ in range(128):
        sim_step(sim, RIGHT)
    sim_step(sim, NOTHING)
    assert p.ground_speed == pytest.approx(6.0 - 0.046875)
    sim_step(sim, InputState(left=True))
    assert p.ground_speed == pytest.approx(6.0 - 0.046875 - 0.5)
    # Braking through zero turns to 0.5 the other way.
    p.ground_speed = 0.25
    sim_step(sim, InputState(left=True))
    assert p.ground_speed == -0.5


def _jump_rise(hold: bool) -> tuple[float, int]:
    sim = create_sim(flat_stage())
    p = sim.player.physics
    feet0 = p.y + STAND_HEIGHT_RADIUS
    sim_step(sim, InputState(jump_pressed=True, jump_held=True))
    assert not p.on_ground and p.y_vel == -6.5
    best, peak_frame = feet0, 0
    for frame in range(1, 200):
        sim_step(sim, InputState(jump_held=hold))
        feet = p.y + 14  # ball form
        if feet < best:
            best, peak_frame = feet, frame
        if p.on_ground:
            break
    assert p.on_ground, "the jump must come back down"
    return feet0 - best, peak_frame


def test_full_jump_rises_about_96_px_and_peaks_about_frame_30():
    rise, peak = _jump_rise(hold=True)
    assert 92 <= rise <= 102
    assert 28 <= peak <= 32


def test_released_jump_rises_about_36_px():
    rise, _ = _jump_rise(hold=False)
    assert 34 <= rise <= 42


def test_jump_leaves_along_the_surface_normal_on_a_wall_mode():
    # On a right-hand wall (angle 64) the jump pushes left, not up.
    sim = create_sim(flat_stage())
    p = sim.player.physics
    p.angle = 64
    p.ground_speed = 0.0
    sim_step(sim, InputState(jump_pressed=True, jump_held=True))
    assert p.x_vel == pytest.approx(-6.5)
    assert abs(p.y_vel) < 1e-9 + GRAVITY


def test_gravity_and_fall_cap():
    g = np.zeros((4000, 512), np.uint8)
    stage = make_stage([g, g], 512, start_y=100)
    sim = create_sim(stage)
    p = sim.player.physics
    sim_step(sim, NOTHING)
    assert p.y_vel == pytest.approx(GRAVITY)
    for _ in range(400):
        sim_step(sim, NOTHING)
        if sim.player_dead:
            break
        assert p.y_vel <= 16.0
    assert sim.player_dead, "falling below the stage is death"


@pytest.mark.parametrize("presses, speed", [(0, 8.0), (1, 9.0), (8, 12.0)])
def test_spindash_launch_speeds(presses, speed):
    sim = create_sim(flat_stage())
    p = sim.player.physics
    sim_step(sim, InputState(down_held=True))
    sim_step(sim, InputState(down_held=True, jump_pressed=True, jump_held=True))
    assert sim.player.state == PlayerState.SPINDASH
    for _ in range(presses):
        sim_step(sim, InputState(down_held=True))
        sim_step(sim, InputState(down_held=True, jump_pressed=True, jump_held=True))
    sim_step(sim, NOTHING)
    assert sim.player.state == PlayerState.ROLLING
    assert p.ground_speed == speed


def test_spindash_charge_decays_while_waiting():
    sim = create_sim(flat_stage())
    p = sim.player.physics
    sim_step(sim, InputState(down_held=True))
    sim_step(sim, InputState(down_held=True, jump_pressed=True, jump_held=True))
    sim_step(sim, InputState(down_held=True))
    sim_step(sim, InputState(down_held=True, jump_pressed=True, jump_held=True))
    for _ in range(60):
        sim_step(sim, InputState(down_held=True))
    sim_step(sim, NOTHING)
    assert 8.0 <= p.ground_speed < 9.0


def test_rolling_friction_and_unroll():
    sim = create_sim(flat_stage())
    p = sim.player.physics
    p.ground_speed = 8.0
    sim_step(sim, InputState(down_held=True))
    assert sim.player.state == PlayerState.ROLLING
    before = p.ground_speed
    sim_step(sim, NOTHING)
    assert before - p.ground_speed == pytest.approx(ROLL_FRICTION)
    # Pressing against the roll brakes by 0.125 on top of friction.
    before = p.ground_speed
    sim_step(sim, InputState(left=True))
    assert before - p.ground_speed == pytest.approx(0.125 + ROLL_FRICTION)
    # Holding right does not accelerate a roll.
    before = p.ground_speed
    sim_step(sim, RIGHT)
    assert p.ground_speed < before
    while sim.player.state == PlayerState.ROLLING:
        sim_step(sim, NOTHING)
    assert p.ground_speed < 0.5


def test_no_roll_below_one_px_per_frame():
    sim = create_sim(flat_stage())
    p = sim.player.physics
    p.ground_speed = 0.9
    sim_step(sim, InputState(down_held=True))
    assert sim.player.state == PlayerState.STANDING


def _slope_stage(angle_deg: float):
    """Flat, then a long straight slope rising to the right."""
    width = 3000
    g = np.zeros((HEIGHT, width), np.uint8)
    xs = np.arange(width)
    rise = np.tan(np.radians(angle_deg))
    surface = np.where(xs < 1000, FLOOR_Y, FLOOR_Y - (xs - 1000) * rise)
    surface = np.maximum(surface, 100)
    for x in range(width):
        g[int(surface[x]):, x] = SOLID
    return make_stage([g, g], width, start_x=200, start_y=FLOOR_Y - 40)


def test_slipping_off_a_steep_slope():
    sim = create_sim(_slope_stage(60))
    p = sim.player.physics
    p.ground_speed = 5.0
    slipped_at = None
    for frame in range(300):
        sim_step(sim, RIGHT)
        if p.control_lock == SLIP_LOCK_FRAMES and not p.on_ground:
            slipped_at = frame
            break
    assert slipped_at is not None, "too slow on a 60 degree slope must slip"
    assert abs(p.ground_speed) < 2.5


def test_no_slip_on_a_gentle_slope():
    sim = create_sim(_slope_stage(30))
    p = sim.player.physics
    for _ in range(400):
        sim_step(sim, RIGHT)
        assert p.control_lock == 0
    assert p.on_ground
    assert p.x > 1100, "holding right climbs a 30 degree slope"


def test_slope_slows_the_climb():
    sim = create_sim(_slope_stage(30))
    p = sim.player.physics
    p.ground_speed = 6.0
    speeds = []
    for _ in range(200):
        sim_step(sim, RIGHT)
        if p.x > 1100:
            speeds.append(p.ground_speed)
    assert speeds and max(speeds) < 6.0
    assert 20 <= p.angle * 360 / 256 <= 40


def test_landing_speed_rules():
    # Flat: keep x_vel; slope (24-45 deg): half of y_vel down the slope when
    # falling steeply; steep: all of it.
    assert landing_speed(3.0, 8.0, 0) == 3.0
    a30 = round(30 * 256 / 360)
    assert landing_speed(3.0, 8.0, a30) == pytest.approx(-4.0)
    assert landing_speed(9.0, 8.0, a30) == 9.0
    a60 = round(60 * 256 / 360)
    assert landing_speed(3.0, 8.0, a60) == pytest.approx(-8.0)


def test_springs_launch():
    stage = flat_stage(springs=(Spring(400, FLOOR_Y - 8, "up", "yellow"),))
    sim = create_sim(stage)
    p = sim.player.physics
    launched = None
    for _ in range(200):
        events = sim_step(sim, RIGHT)
        if events:
            launched = events
            break
    assert launched and launched[0].direction == "up"
    assert p.y_vel == -10.0 and not p.on_ground and not p.is_rolling

    stage = flat_stage(springs=(Spring(400, FLOOR_Y - 8, "up", "red"),))
    sim = create_sim(stage)
    p = sim.player.physics
    while not sim_step(sim, RIGHT):
        pass
    assert p.y_vel == -16.0

    stage = flat_stage(springs=(Spring(400, FLOOR_Y - 8, "right", "yellow"),))
    sim = create_sim(stage)
    p = sim.player.physics
    while not sim_step(sim, RIGHT):
        pass
    assert p.ground_speed == 10.0 and p.control_lock == 16
    # Input is locked: pressing left does not brake for 16 frames.
    for _ in range(15):
        sim_step(sim, InputState(left=True))
    assert p.ground_speed > 9.0


def test_top_only_platform_passed_from_below_and_stood_on():
    g = flat_grid(2000)
    top = FLOOR_Y - 64
    g[top:top + 8, 300:800] = TOP_ONLY
    stage = make_stage([g, g.copy()], 2000, start_x=500)
    sim = create_sim(stage)
    p = sim.player.physics
    assert p.y + STAND_HEIGHT_RADIUS == FLOOR_Y, "starts under the platform"
    sim_step(sim, InputState(jump_pressed=True, jump_held=True))
    highest = p.y
    for _ in range(120):
        sim_step(sim, InputState(jump_held=True))
        highest = min(highest, p.y)
        if p.on_ground:
            break
    assert highest + 14 < top, "rose through the platform"
    assert p.on_ground and int(p.y + STAND_HEIGHT_RADIUS) == top
    # Standing on it: walking along stays on top.
    for _ in range(30):
        sim_step(sim, RIGHT)
    assert p.on_ground and int(p.y + STAND_HEIGHT_RADIUS) == top


def test_walls_stop_the_player_without_sticking():
    g = flat_grid(3000)
    g[FLOOR_Y - 64:FLOOR_Y, 1000:1100] = SOLID
    stage = make_stage([g, g], 3000, start_x=800)
    sim = create_sim(stage)
    p = sim.player.physics
    for _ in range(200):
        sim_step(sim, RIGHT)
    assert 1000 - 12 < p.x < 1000 - 10 and p.on_ground
    assert abs(p.ground_speed) < 0.1
    # Turning away moves off the wall at once.
    sim_step(sim, InputState(left=True))
    sim_step(sim, InputState(left=True))
    assert p.ground_speed < 0.0 and p.x < 1000 - 10
    # Jumping at the wall: pressed against it in the air, it does not stick.
    sim = create_sim(stage)
    p = sim.player.physics
    for _ in range(200):
        sim_step(sim, RIGHT)
    sim_step(sim, InputState(right=True, jump_pressed=True, jump_held=True))
    ys = []
    for _ in range(80):
        sim_step(sim, InputState(right=True, jump_held=True))
        ys.append(p.y)
    assert min(ys) < FLOOR_Y - 64 - 14, "a full jump clears a 64 px step"
    assert p.x > 1000, "and lands on top of it"

"""Loops: taken at every entry speed from the slowest that works up to the
cap, grounded through all four quadrants; lost below that speed."""
from __future__ import annotations

import pytest

from speednik.physics import InputState
from speednik.simulation import create_sim, sim_step
from terrain_builders import loop_stage

SPEEDS = [s / 2 for s in range(2, 33)]  # 1.0 .. 16.0


def run_loop(stage, cx: float, radius: int, speed: float) -> tuple[bool, set]:
    """Roll into the loop at `speed` with no input. Returns whether it was
    taken (grounded all the way round, out on the far side) and the
    ground modes seen inside it."""
    sim = create_sim(stage)
    p = sim.player.physics
    p.x = cx - radius - 60
    p.ground_speed = speed
    quadrants: set[int] = set()
    left_ground = False
    for _ in range(900):
        sim_step(sim, InputState())
        if cx - radius <= p.x <= cx + radius:
            if p.on_ground:
                quadrants.add(((p.angle + 32) % 256) // 64)
            else:
                left_ground = True
        if p.x > cx + radius + 80:
            break
        if p.ground_speed == 0.0 and p.on_ground and p.x < cx - radius:
            break  # slid back out and stopped
    taken = (p.x > cx + radius + 80 and p.on_ground and not left_ground
             and quadrants == {0, 1, 2, 3})
    return taken, quadrants


@pytest.mark.parametrize("radius", [48, 64, 96, 128])
def test_loop_taken_from_the_slowest_working_speed_up_to_16(radius):
    stage, cx = loop_stage(radius)
    outcomes = [(v, run_loop(stage, cx, radius, v)[0]) for v in SPEEDS]
    working = [v for v, ok in outcomes if ok]
    assert working, f"radius {radius}: no entry speed takes the loop"
    slowest = working[0]
    assert slowest <= 12.0
    for v, ok in outcomes:
        assert ok == (v >= slowest), (
            f"radius {radius}: entry speed {v} {'lost' if not ok else 'taken'}"
            f" but the slowest working speed is {slowest}")
    # A larger loop needs more speed; slow entries are lost, not stuck.
    stuck_speed = SPEEDS[0]
    taken, quadrants = run_loop(stage, cx, radius, stuck_speed)
    assert not taken and 2 not in quadrants


def test_larger_loops_need_more_speed():
    slowest = {}
    for radius in (48, 128):
        stage, cx = loop_stage(radius)
        slowest[radius] = next(v for v in SPEEDS
                               if run_loop(stage, cx, radius, v)[0])
    assert slowest[48] < slowest[128]


def test_loop_uses_both_layers():
    stage, cx = loop_stage(64)
    sim = create_sim(stage)
    p = sim.player.physics
    p.x = cx - 64 - 60
    p.ground_speed = 12.0
    layers = []
    for _ in range(120):
        sim_step(sim, InputState())
        layers.append(p.layer)
    # Switched to the descent layer at the top, back to 0 after the exit.
    assert 1 in layers and layers[-1] == 0

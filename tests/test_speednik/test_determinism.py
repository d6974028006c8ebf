"""The same inputs give the same state, frame for frame; copies branch."""
from __future__ import annotations

from speednik.simulation import create_sim, sim_step
from fuzz_inputs import random_inputs
from terrain_builders import loop_stage


def trace(stage, inputs):
    sim = create_sim(stage)
    out = []
    for inp in inputs:
        events = sim_step(sim, inp)
        p = sim.player.physics
        out.append((p.x, p.y, p.x_vel, p.y_vel, p.ground_speed, p.angle,
                    p.on_ground, sim.player.state, tuple(events)))
    return out


def test_same_inputs_same_states():
    stage, _ = loop_stage(64, lead=600, tail=600)
    inputs = random_inputs(7, 3000)
    assert trace(stage, inputs) == trace(stage, inputs)


def test_copy_branches_independently():
    stage, _ = loop_stage(64, lead=600, tail=600)
    inputs = random_inputs(3, 400)
    sim = create_sim(stage)
    for inp in inputs[:200]:
        sim_step(sim, inp)
    fork = sim.copy()
    for inp in inputs[200:]:
        sim_step(fork, inp)
    # The original did not move while the fork ran on.
    assert sim.frame == 200 and fork.frame == 400
    for inp in inputs[200:]:
        sim_step(sim, inp)
    a, b = sim.player.physics, fork.player.physics
    assert (a.x, a.y, a.ground_speed) == (b.x, b.y, b.ground_speed)
    assert sim.ring_taken == fork.ring_taken

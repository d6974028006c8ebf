"""Random inputs on every built-in stage, on generated stages and on
hand-made terrain: the player never ends a frame on the ground with its
centre inside solid terrain, never holds a NaN, never exceeds the caps.
The first stage, seed and loop of each sweep run by default, the rest with
the broad tests."""
from __future__ import annotations

import math

import pytest

from speednik.engine import CompiledSim
from speednik.simulation import create_sim, sim_step
from speednik.stages import generate_stage, list_stages, load_stage
from speednik.terrain import SOLID
from fuzz_inputs import random_inputs
from sweeps import first_and_rest, sweep
from terrain_builders import loop_stage

FRAMES_PER_RUN = 6000


def check_run(stage, seed: int, frames: int = FRAMES_PER_RUN, compiled: bool = False) -> int:
    """Random play checked every frame; `compiled` plays it on the
    compiled engine (and checks its state, read back every frame)."""
    sim = create_sim(stage)
    engine = CompiledSim(sim) if compiled else None
    tiles = stage.tiles
    for i, inp in enumerate(random_inputs(seed, frames)):
        if engine is None:
            sim_step(sim, inp)
        else:
            engine.step(inp)
            sim = engine.to_sim()
        p = sim.player.physics
        where = f"{stage.name} seed {seed} frame {i} at ({p.x:.1f}, {p.y:.1f})"
        for v in (p.x, p.y, p.x_vel, p.y_vel, p.ground_speed):
            assert not math.isnan(v), f"NaN, {where}"
        assert abs(p.x_vel) <= 16.0 and abs(p.y_vel) <= 16.0, where
        assert abs(p.ground_speed) <= 16.0, where
        if p.on_ground:
            assert tiles.solidity_at(p.x, p.y, p.layer) != SOLID, (
                f"centre inside solid terrain on the ground, {where}")
        if sim.player_dead or sim.goal_reached:
            break
    return i + 1


@pytest.mark.parametrize("name", sweep(list_stages()))
def test_fuzz_builtin_stages(name):
    stage = load_stage(name)
    frames = sum(check_run(stage, seed) for seed in range(30))
    assert frames > 20_000, "random play must last long enough to test anything"


@pytest.mark.parametrize("seeds", first_and_rest(range(8)))
@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_fuzz_generated_stages(difficulty, seeds):
    for seed in seeds:
        stage = generate_stage(seed, difficulty)
        for run in range(4):
            check_run(stage, 1000 * seed + run)


@pytest.mark.parametrize("radius", sweep([48, 96, 128]))
def test_fuzz_loops(radius):
    stage, _ = loop_stage(radius, lead=400, tail=400)
    for seed in range(12):
        check_run(stage, seed, 3000)


@pytest.mark.parametrize("name", sweep(list_stages()))
def test_fuzz_builtin_stages_on_the_compiled_engine(name):
    stage = load_stage(name)
    frames = sum(check_run(stage, seed, 3000, compiled=True) for seed in range(100, 110))
    assert frames > 5000


def test_fuzz_generated_stages_and_loops_on_the_compiled_engine():
    for difficulty in ("easy", "medium", "hard"):
        for seed in range(3):
            check_run(generate_stage(seed, difficulty), 500 + seed, 2000, compiled=True)
    for radius in (48, 128):
        stage, _ = loop_stage(radius, lead=400, tail=400)
        for seed in range(3):
            check_run(stage, seed, 2000, compiled=True)

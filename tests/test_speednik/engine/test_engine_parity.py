"""The compiled engine equals the readable simulation, frame by frame,
`==` on floats: player state, counters, what is collected, events and
both observations, with random inputs on every built-in stage, on loops
of every size at every entry speed, on generated stages of every
difficulty, and after hand-set states (springs, enemies, spikes). The
first stage, seed and loop of each sweep run by default, over the
observations a run chooses among; the rest, and the observations kept for
the record, with the broad tests."""
from __future__ import annotations

import pytest

from speednik.physics import InputState
from speednik.simulation import create_sim
from speednik.stages import generate_stage, list_stages, load_stage

from engine_parity import OBSERVED, first_difference, parity_from_start
from fuzz_inputs import random_inputs
from sweeps import first_and_rest, sweep
from terrain_builders import loop_stage

SPEEDS = [s / 2 for s in range(2, 33)]  # 1.0 .. 16.0


@pytest.mark.parametrize("observed", sweep(OBSERVED))
@pytest.mark.parametrize("seeds", first_and_rest(range(12)))
@pytest.mark.parametrize("name", sweep(list_stages()))
def test_builtin_stages_random_inputs(name, seeds, observed):
    stage = load_stage(name)
    for seed in seeds:
        error = parity_from_start(stage, random_inputs(seed, 3000), OBSERVED[observed])
        assert error is None, f"seed {seed}: {error}"


@pytest.mark.parametrize("radius", sweep([48, 64, 96, 128]))
def test_loops_at_every_entry_speed(radius):
    stage, cx = loop_stage(radius, lead=400, tail=400)
    for speed in SPEEDS:
        for rolling in (False, True):
            sim = create_sim(stage)
            p = sim.player.physics
            p.x = cx - radius - 60
            p.ground_speed = speed
            inp = InputState(down_held=rolling)
            error = first_difference(sim, [inp] * 400, observe=False)
            assert error is None, f"radius {radius}, speed {speed}: {error}"


@pytest.mark.parametrize("observed", sweep(OBSERVED))
@pytest.mark.parametrize("seeds", first_and_rest(range(50)))
@pytest.mark.parametrize("difficulty", sweep(["hard", "medium", "easy"]))
def test_fifty_generated_stages(difficulty, seeds, observed):
    for seed in seeds:
        stage = generate_stage(seed, difficulty)
        error = parity_from_start(stage, random_inputs(seed, 900),
                                  observe=seed % 5 == 0 and OBSERVED[observed])
        assert error is None, f"{difficulty} seed {seed}: {error}"


@pytest.mark.parametrize("observed", sweep(OBSERVED))
@pytest.mark.parametrize("seeds", first_and_rest(range(12)))
def test_expert_stages_with_every_observation(seeds, observed):
    """Expert stages chain pits, springs and platforms: random play on them
    crosses what the pit scan and the spring probes read."""
    for seed in seeds:
        stage = load_stage(f"gen:expert:{seed}")
        for run in range(2):
            error = parity_from_start(stage, random_inputs(100 * seed + run, 1200),
                                      OBSERVED[observed])
            assert error is None, f"expert seed {seed}: {error}"


def test_every_event_kind_is_met_and_equal():
    """The random play above must reach what it claims to test: springs,
    enemies (destroyed and hurting), rings, checkpoints, deaths."""
    from runners.result import event_name
    from speednik.engine import CompiledSim
    from speednik.engine.layout import S_DEAD, S_GOAL_REACHED

    seen = set()
    for name in list_stages():
        for seed in range(12):
            sim = CompiledSim(name)
            for inp in random_inputs(seed, 3000):
                seen.update(event_name(e) for e in sim.step(inp))
                if sim.s[S_DEAD] or sim.s[S_GOAL_REACHED]:
                    break
    assert {"ring", "spring", "jump", "enemy", "death", "checkpoint", "damage"} <= seen

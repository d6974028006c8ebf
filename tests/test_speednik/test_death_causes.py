"""Every way the player can die, named the same by both engines: on the
frame of the death, on every frame after it, and in an episode's
results. The game has four causes (`speednik.events.CAUSES`):
touching an enemy (by kind) or spikes with no rings, and falling below
the stage; nothing crushes the player."""
from __future__ import annotations

import numpy as np
import pytest

from runners import RunnerConfig, run_episodes
from runners.linear import genome_size
from speednik.actions import NUM_ACTIONS
from speednik.engine import CompiledSim, run_policy_batch
from speednik.entities import Enemy, Ring, Spikes
from speednik.events import CAUSES, DamageEvent, DeathEvent
from speednik.physics import InputState
from speednik.simulation import create_sim, sim_step

from engine_parity import OBSERVED, first_difference
from sweeps import sweep
from stage_fixtures import FLOOR_Y, flat_stage, pit_stage, wall_stage

RIGHT = InputState(right=True)
# Frames a hold-right player takes at most to die on any stage below.
FRAMES = 600
RING = Ring(200.0, FLOOR_Y - 24.0)


def spikes_stage():
    return flat_stage(spikes=(Spikes(400.0, float(FLOOR_Y)),))


def walker_stage():
    return flat_stage(enemies=(Enemy("walker", 400.0, FLOOR_Y - 12.0, span=64.0),))


def flyer_stage():
    return flat_stage(enemies=(Enemy("flyer", 400.0, FLOOR_Y - 20.0, span=16.0,
                                     period=120),))


def walker_then_spikes_stage():
    """A ring, then a walker that takes it (the player lives), then spikes."""
    return flat_stage(rings=(RING,), spikes=(Spikes(800.0, float(FLOOR_Y)),),
                      enemies=(Enemy("walker", 400.0, FLOOR_Y - 12.0, span=0.0),))


def spikes_then_walker_stage():
    """A ring, then spikes that take it, then a walker."""
    return flat_stage(rings=(RING,), spikes=(Spikes(400.0, float(FLOOR_Y)),),
                      enemies=(Enemy("walker", 800.0, FLOOR_Y - 12.0, span=0.0),))


# (stage, what hurt the player first and took its ring, what killed it)
SCENARIOS = {
    "spikes": (spikes_stage, None, "spikes"),
    "walker": (walker_stage, None, "enemy:walker"),
    "flyer": (flyer_stage, None, "enemy:flyer"),
    "pit": (lambda: pit_stage(400, 560), None, "pit"),
    "walker-then-spikes": (walker_then_spikes_stage, "enemy:walker", "spikes"),
    "spikes-then-walker": (spikes_then_walker_stage, "spikes", "enemy:walker"),
}


def test_every_cause_of_death_has_a_scenario():
    assert {cause for _, _, cause in SCENARIOS.values()} == set(CAUSES)
    assert CAUSES == ("enemy:walker", "enemy:flyer", "spikes", "pit")


def play(step, frames: int) -> list[tuple[int, object]]:
    """(frame, event) of each damage and death event over `frames` frames
    of holding right."""
    seen = []
    for frame in range(frames):
        seen += [(frame, e) for e in step(RIGHT) if isinstance(e, (DamageEvent, DeathEvent))]
    return seen


@pytest.mark.parametrize("observed", sweep(OBSERVED))
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_both_engines_name_the_cause_on_the_frame_and_after(name, observed):
    build, hurt_by, cause = SCENARIOS[name]
    stage = build()
    # State, events with their causes and observations equal, frame by
    # frame, up to the death and five frames past it.
    sim = create_sim(stage)
    assert first_difference(sim, [RIGHT] * FRAMES, OBSERVED[observed], after_end=5) is None
    assert sim.player_dead and sim.death_cause == cause

    readable = create_sim(stage)
    compiled = CompiledSim(stage)
    for events in (play(lambda inp: sim_step(readable, inp), FRAMES),
                   play(compiled.step, FRAMES)):
        damage = [e for _, e in events if isinstance(e, DamageEvent)]
        deaths = [(f, e) for f, e in events if isinstance(e, DeathEvent)]
        assert [e.source for e in damage] == ([hurt_by] if hurt_by else [])
        # The death, then the same death repeated on every later frame.
        first = deaths[0][0]
        assert [f for f, _ in deaths] == list(range(first, FRAMES))
        assert {e.cause for _, e in deaths} == {cause}
    assert readable.death_cause == compiled.to_sim().death_cause == cause


def test_a_living_player_has_no_cause_and_a_copy_keeps_one():
    sim = create_sim(walker_stage())
    assert sim.death_cause == "" and CompiledSim(sim).to_sim().death_cause == ""
    while not sim.player_dead:
        sim_step(sim, RIGHT)
    copy = sim.copy()
    assert copy.death_cause == "enemy:walker"
    # A compiled sim started from the dead state repeats its cause.
    assert [e.cause for e in CompiledSim(copy).step(RIGHT)] == ["enemy:walker"]


def test_an_unknown_cause_cannot_enter_the_compiled_engine():
    sim = create_sim(spikes_stage())
    sim.player_dead, sim.death_cause = True, "lava"
    with pytest.raises(ValueError, match="unknown death cause 'lava'.*'pit'"):
        CompiledSim(sim)


# -- whole episodes -------------------------------------------------------------------

def hold_right_genome() -> np.ndarray:
    """A linear policy that always picks action 2 (right): every weight 0,
    the bias of action 2 the only positive one."""
    genome = np.zeros(genome_size(12))
    genome[NUM_ACTIONS * 12 + 2] = 1.0
    return genome


def hold_right_items(stages) -> list:
    return [(("linear", ("basic", hold_right_genome())), stage) for stage in stages]


def test_episode_results_name_the_cause_in_both_engines():
    names = list(SCENARIOS)
    wall = wall_stage(wall_x=400, wall_height=96)
    stages = [SCENARIOS[n][0]() for n in names] + [flat_stage(), wall, flat_stage()]
    config = RunnerConfig(max_steps=FRAMES, stall_frames=120)
    expected = run_episodes(hold_right_items(stages), config)
    got = run_episodes(hold_right_items(stages), config, engine="compiled")
    assert [r.to_dict() for r in got] == [r.to_dict() for r in expected]

    causes = [SCENARIOS[n][2] for n in names]
    for results in (expected, got):
        assert [r.done_reason for r in results] == ["death"] * len(names) + [
            "goal", "stalled", "goal"]
        assert [r.metrics["death_cause"] for r in results] == causes + [None] * 3
        assert [r.ended for r in results] == causes + ["goal", "stalled", "goal"]


def test_a_timeout_has_no_cause():
    [result] = run_episodes(hold_right_items([spikes_stage()]), RunnerConfig(max_steps=50),
                            engine="compiled")
    assert (result.done_reason, result.metrics["death_cause"], result.ended) == (
        "timeout", None, "timeout")


def test_the_compiled_batch_returns_a_cause_per_episode():
    stages = [SCENARIOS[n][0]() for n in SCENARIOS] + [flat_stage()]
    n = len(stages)
    batch = run_policy_batch(stages, np.arange(n), np.zeros(n, np.int64),
                             hold_right_genome()[None, :], max_steps=FRAMES, threads=2)
    assert batch.death_cause == tuple(c for _, _, c in SCENARIOS.values()) + (None,)
    assert batch.done_reason == ("death",) * (n - 1) + ("goal",)

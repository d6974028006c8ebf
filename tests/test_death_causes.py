"""Every way the player can die, named the same by both engines: on the
frame of the death and on every frame after it. The game has four causes (`speednik.events.CAUSES`):
touching an enemy (by kind) or spikes with no rings, and falling below
the stage; nothing crushes the player."""
from __future__ import annotations

import pytest

from speednik.engine import CompiledSim
from speednik.entities import Enemy, Ring, Spikes
from speednik.events import CAUSES, DamageEvent, DeathEvent
from speednik.physics import InputState
from speednik.simulation import create_sim, sim_step

from engine_parity import first_difference
from stage_fixtures import FLOOR_Y, flat_stage, pit_stage

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


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_both_engines_name_the_cause_on_the_frame_and_after(name):
    build, hurt_by, cause = SCENARIOS[name]
    stage = build()
    # State, events with their causes and observations equal, frame by
    # frame, up to the death and five frames past it.
    sim = create_sim(stage)
    assert first_difference(sim, [RIGHT] * FRAMES, after_end=5) is None
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


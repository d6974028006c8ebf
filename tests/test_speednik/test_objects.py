"""Rings, enemies, hurting, dying, checkpoints and the goal."""
from __future__ import annotations


from speednik.entities import Checkpoint, Enemy, Ring, Spikes
from speednik.events import (
    CheckpointEvent,
    DamageEvent,
    DeathEvent,
    EnemyDestroyedEvent,
    GoalReachedEvent,
    RingCollectedEvent,
)
from speednik.physics import InputState
from speednik.player import PlayerState
from speednik.simulation import create_sim, sim_step
from terrain_builders import FLOOR_Y, flat_grid, flat_stage, make_stage

RIGHT = InputState(right=True)


def run(sim, inp, frames):
    events = []
    for _ in range(frames):
        events.extend(sim_step(sim, inp))
    return events


def test_rings_are_collected_once():
    rings = tuple(Ring(300 + 40 * i, FLOOR_Y - 24) for i in range(5))
    stage = flat_stage(rings=rings)
    sim = create_sim(stage)
    events = run(sim, RIGHT, 150)
    got = [e for e in events if isinstance(e, RingCollectedEvent)]
    assert len(got) == 5 and sim.rings_collected == 5 and sim.player.rings == 5
    # Running back over them collects nothing more.
    events = run(sim, InputState(left=True), 150)
    assert not [e for e in events if isinstance(e, RingCollectedEvent)]
    assert sim.rings_collected == 5


def test_walker_destroyed_by_a_rolling_player_with_a_bounce_from_above():
    enemy = Enemy("walker", 600, FLOOR_Y - 12, span=0, period=1)
    stage = flat_stage(enemies=(enemy,))
    sim = create_sim(stage)
    p = sim.player.physics
    # Jump so as to come down on the enemy.
    # A full jump at top speed covers about 340 px.
    p.x, p.ground_speed = 600 - 330, 6.0
    sim_step(sim, InputState(right=True, jump_pressed=True, jump_held=True))
    bounced = None
    for _ in range(120):
        vy = p.y_vel
        events = sim_step(sim, InputState(right=True, jump_held=True))
        if any(isinstance(e, EnemyDestroyedEvent) for e in events):
            bounced = (vy, p.y_vel)
            break
    assert bounced is not None, "the jump must land on the walker"
    assert sim.enemy_destroyed[0] == 1 and not sim.player_dead
    falling, after = bounced
    assert falling > 0 and after < 0, "falling onto an enemy bounces up"


def test_running_into_an_enemy_with_rings_hurts_and_takes_them():
    enemy = Enemy("walker", 700, FLOOR_Y - 12, span=0, period=1)
    rings = (Ring(300, FLOOR_Y - 24), Ring(340, FLOOR_Y - 24))
    stage = flat_stage(enemies=(enemy,), rings=rings)
    sim = create_sim(stage)
    p = sim.player.physics
    events = []
    for _ in range(200):
        events.extend(sim_step(sim, RIGHT))
        if sim.player.state == PlayerState.HURT:
            break
    damage = [e for e in events if isinstance(e, DamageEvent)]
    assert damage and damage[0].rings_lost == 2
    assert sim.player.rings == 0 and not sim.player_dead
    assert p.y_vel == -4.0 and p.x_vel == -2.0, "knocked up and back"
    # Lands, then is invulnerable for 120 frames: the enemy cannot hurt it.
    for _ in range(120):
        sim_step(sim, InputState())
        if p.on_ground:
            break
    assert p.on_ground and sim.player.invulnerable == 120
    assert sim.player.state == PlayerState.STANDING


def test_hurt_with_no_rings_is_death_and_death_is_terminal():
    stage = flat_stage(spikes=(Spikes(500, FLOOR_Y, 32, 16),))
    sim = create_sim(stage)
    events = []
    for _ in range(200):
        events = sim_step(sim, RIGHT)
        if sim.player_dead:
            break
    assert sim.player_dead and sim.deaths == 1
    assert events == [DeathEvent()] and events[0].cause == sim.death_cause == "spikes"
    p = sim.player.physics
    frozen = (p.x, p.y, sim.frame)
    for _ in range(10):
        again = sim_step(sim, RIGHT)
        assert again == [DeathEvent()] and again[0].cause == "spikes"
    assert (p.x, p.y, sim.frame) == frozen and sim.deaths == 1


def test_falling_into_a_pit_is_death():
    g = flat_grid(3000)
    g[:, 800:1000] = 0
    stage = make_stage([g, g], 3000)
    sim = create_sim(stage)
    for _ in range(600):
        events = sim_step(sim, RIGHT)
        if sim.player_dead:
            break
    assert sim.player_dead and events == [DeathEvent()]
    assert events[0].cause == "pit"


def test_checkpoint_event_once():
    stage = flat_stage(checkpoints=(Checkpoint(500, FLOOR_Y - 48),))
    sim = create_sim(stage)
    events = run(sim, RIGHT, 200)
    hits = [e for e in events if isinstance(e, CheckpointEvent)]
    assert len(hits) == 1 and (hits[0].x, hits[0].y) == (500, FLOOR_Y - 48)
    assert list(sim.checkpoint_hit) == [1]


def test_goal_ends_the_stage():
    stage = flat_stage(width=2000, goal_x=900)
    sim = create_sim(stage)
    events = run(sim, RIGHT, 400)
    goals = [e for e in events if isinstance(e, GoalReachedEvent)]
    assert len(goals) == 1 and sim.goal_reached
    frame = sim.frame
    assert sim_step(sim, RIGHT) == [] and sim.frame == frame


def test_flyer_moves_and_hurts():
    flyer = Enemy("flyer", 500, FLOOR_Y - 30, span=40, period=120)
    stage = flat_stage(enemies=(flyer,))
    sim = create_sim(stage)
    for _ in range(300):
        sim_step(sim, RIGHT)
        if sim.player_dead:
            break
    assert sim.player_dead, "a flyer low enough to touch kills a ringless runner"


def test_stage_edges_hold_the_player_in():
    stage = flat_stage(width=1200, goal_x=5000)
    sim = create_sim(stage)
    p = sim.player.physics
    run(sim, InputState(left=True), 200)
    assert p.x >= 16
    run(sim, RIGHT, 600)
    assert p.x <= 1200 - 16

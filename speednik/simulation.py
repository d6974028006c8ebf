"""The headless game: a `SimState` and `sim_step`, one frame at a time.

`sim_step` is the single source of truth for what happens in a frame. It
has no randomness: the same inputs from the same state give the same
state, frame for frame. A `SimState` shares its stage (terrain, objects
and what is derived from them, such as the object index) with every copy
and owns only a few small mutable parts, so `sim.copy()` is cheap and a
search can branch from any frame.
"""
from __future__ import annotations

from dataclasses import dataclass

from speednik.constants import EDGE_MARGIN  # named here too: callers read it here
from speednik.events import (
    CheckpointEvent,
    DamageEvent,
    DeathEvent,
    EnemyDestroyedEvent,
    Event,
    GoalReachedEvent,
    JumpEvent,
    RingCollectedEvent,
    SpringEvent,
)
from speednik.objects import interact, kill_player
from speednik.physics import InputState
from speednik.player import (
    FLOOR_MODE,
    MODE_OF_ANGLE,
    Player,
    create_player,
    player_update,
    radii,
)
from speednik.stages import Stage, load_stage

__all__ = [
    "SimState", "create_sim", "sim_step", "Event", "RingCollectedEvent",
    "DamageEvent", "DeathEvent", "SpringEvent", "GoalReachedEvent",
    "CheckpointEvent", "EnemyDestroyedEvent", "JumpEvent",
]

@dataclass(slots=True)
class SimState:
    stage: Stage
    player: Player
    ring_taken: bytearray
    enemy_destroyed: bytearray
    checkpoint_hit: bytearray
    frame: int = 0
    max_x_reached: float = 0.0
    # How far the last frame pushed max_x_reached (0.0: not at all), for
    # whoever needs "was there progress" without tracking it again.
    max_x_gain: float = 0.0
    # Frames in a row that left max_x_reached where it was: how long the
    # player has been stuck (the stall rule and the stall observation).
    frames_without_gain: int = 0
    rings_collected: int = 0
    deaths: int = 0
    goal_reached: bool = False
    player_dead: bool = False
    # What killed the player (one of speednik.events.CAUSES); "" while alive.
    death_cause: str = ""
    # Whether the last frame's input held jump: the game itself reads only
    # the input, but an agent that sees its own button can let go of it to
    # press it again (a jump starts on the press, not the hold).
    jump_held: bool = False

    @property
    def goal_x(self) -> float:
        return self.stage.goal.x

    @property
    def goal_y(self) -> float:
        return self.stage.goal.y

    @property
    def level_width(self) -> int:
        return self.stage.width

    @property
    def level_height(self) -> int:
        return self.stage.height

    def copy(self) -> SimState:
        return SimState(
            self.stage, self.player.copy(),
            bytearray(self.ring_taken), bytearray(self.enemy_destroyed),
            bytearray(self.checkpoint_hit), self.frame, self.max_x_reached,
            self.max_x_gain, self.frames_without_gain, self.rings_collected, self.deaths, self.goal_reached,
            self.player_dead, self.death_cause, self.jump_held,
        )


def create_sim(stage: str | Stage) -> SimState:
    """A fresh simulation of a stage, given by name or as a built `Stage`."""
    if isinstance(stage, str):
        stage = load_stage(stage)
    elif not isinstance(stage, Stage):
        raise TypeError(
            f"create_sim takes a stage name or a Stage, not {type(stage).__name__}")
    player = create_player(stage.start_x, stage.start_y, stage.tiles)
    return SimState(
        stage=stage,
        player=player,
        ring_taken=bytearray(len(stage.rings)),
        enemy_destroyed=bytearray(len(stage.enemies)),
        checkpoint_hit=bytearray(len(stage.checkpoints)),
        max_x_reached=stage.start_x,
    )


def sim_step(sim: SimState, inp: InputState) -> list[Event]:
    """Advance one frame and return what happened in it.

    Death and the goal are terminal: afterwards a step changes nothing and
    returns the death again (`[DeathEvent(sim.death_cause)]`) or `[]`
    (after the goal).
    """
    sim.jump_held = inp.jump_held
    if sim.player_dead:
        sim.max_x_gain = 0.0
        sim.frames_without_gain += 1
        return [DeathEvent(sim.death_cause)]
    if sim.goal_reached:
        sim.max_x_gain = 0.0
        sim.frames_without_gain += 1
        return []
    events: list[Event] = []
    player = sim.player
    p = player.physics
    prev_x = p.x
    if player_update(player, inp, sim.stage.tiles):
        events.append(JumpEvent(p.x, p.y))

    stage = sim.stage
    if p.x < EDGE_MARGIN:
        p.x = EDGE_MARGIN
        if p.x_vel < 0.0:
            p.x_vel = 0.0
        if p.ground_speed < 0.0 and MODE_OF_ANGLE[p.angle] == FLOOR_MODE:
            p.ground_speed = 0.0
    elif p.x > stage.width - EDGE_MARGIN:
        p.x = stage.width - EDGE_MARGIN
        if p.x_vel > 0.0:
            p.x_vel = 0.0
        if p.ground_speed > 0.0 and MODE_OF_ANGLE[p.angle] == FLOOR_MODE:
            p.ground_speed = 0.0

    interact(sim, prev_x, events)

    if not sim.player_dead and p.y - radii(p)[1] > stage.height:
        kill_player(sim, "pit", events)

    sim.frame += 1
    if p.x > sim.max_x_reached:
        sim.max_x_gain = p.x - sim.max_x_reached
        sim.max_x_reached = p.x
        sim.frames_without_gain = 0
    else:
        sim.max_x_gain = 0.0
        sim.frames_without_gain += 1
    if not sim.player_dead and p.x >= stage.goal.x:
        sim.goal_reached = True
        events.append(GoalReachedEvent(sim.frame))
    return events

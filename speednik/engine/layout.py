"""Where each part of a compiled simulation's state lives, and the codes
that stand for strings in compiled code.

A compiled episode holds its state in two flat arrays: `f` (float64) for
the player's kinematics and the best x reached, `s` (int64) for every flag,
counter and small integer. The names below index them; they follow
`speednik.physics.PhysicsState`, `speednik.player.Player` and
`speednik.simulation.SimState` field for field. Which rings, enemies and
checkpoints are gone lives in three byte arrays beside them.
"""
from __future__ import annotations

from speednik.entities import ENEMY_KINDS, SPRING_DIRECTIONS, SPRING_STRENGTHS
from speednik.events import CAUSES

# -- f: float64 -------------------------------------------------------------------
F_X = 0
F_Y = 1
F_X_VEL = 2
F_Y_VEL = 3
F_GROUND_SPEED = 4
F_SPINREV = 5
F_MAX_X = 6          # SimState.max_x_reached
F_MAX_X_GAIN = 7     # SimState.max_x_gain
NUM_F = 8

# -- s: int64 ---------------------------------------------------------------------
S_ANGLE = 0
S_ON_GROUND = 1
S_ROLLING = 2        # PhysicsState.is_rolling
S_FACING_RIGHT = 3
S_LAYER = 4
S_JUMPING = 5
S_CONTROL_LOCK = 6
S_STATE = 7          # a speednik.player.PlayerState value
S_RINGS = 8          # rings the player holds (a hit drops them)
S_INVULNERABLE = 9
S_FRAME = 10
S_RINGS_COLLECTED = 11
S_DEATHS = 12
S_GOAL_REACHED = 13
S_DEAD = 14          # SimState.player_dead
S_DEATH_CAUSE = 15   # SimState.death_cause: an index into SOURCES, NO_CAUSE while alive
S_WITHOUT_GAIN = 16  # SimState.frames_without_gain
S_JUMP_HELD = 17     # SimState.jump_held
NUM_S = 18

# -- events: one row of EVENT_WIDTH float64 values each ------------------------------
EV_RING = 0          # x, y
EV_DAMAGE = 1        # rings lost, source
EV_DEATH = 2         # cause
EV_SPRING = 3        # direction, strength
EV_GOAL = 4          # frame
EV_CHECKPOINT = 5    # x, y
EV_ENEMY = 6         # kind, x, y
EV_JUMP = 7          # x, y
EVENT_WIDTH = 4
# Events one frame can hold; more are counted but not kept.
MAX_EVENTS = 64

# Damage sources and death causes (speednik.events.CAUSES): each enemy kind
# (its index in ENEMY_KINDS, so an enemy's kind is its cause), then spikes
# and a pit.
SOURCES = CAUSES
assert SOURCES[:len(ENEMY_KINDS)] == tuple(f"enemy:{k}" for k in ENEMY_KINDS)
SOURCE_SPIKES = SOURCES.index("spikes")
SOURCE_PIT = SOURCES.index("pit")
NO_CAUSE = -1
ENEMY_WALKER = ENEMY_KINDS.index("walker")
SPRING_UP = SPRING_DIRECTIONS.index("up")
SPRING_RIGHT = SPRING_DIRECTIONS.index("right")
SPRING_RED = SPRING_STRENGTHS.index("red")

# -- episode ends ------------------------------------------------------------------
DONE_GOAL = 0
DONE_DEATH = 1
DONE_TIMEOUT = 2
DONE_STALLED = 3
DONE_NAMES = ("goal", "death", "timeout", "stalled")

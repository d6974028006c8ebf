"""Baseline agents: scripted players to measure learned ones against.

Baselines, by registry name:

| name          | class             | what it does                                   |
|---------------|-------------------|------------------------------------------------|
| "idle"        | IdleAgent         | presses nothing                                |
| "hold-right"  | HoldRightAgent    | holds right                                    |
| "jump-runner" | JumpRunnerAgent   | runs right, jumps walls, steps, gaps, enemies and spikes |
| "spindash"    | SpindashAgent     | the jump-runner, but spindashes whenever slow  |
| "planner"     | PlannerAgent      | plays a plan searched on the simulation itself |

The two scripted ones read the simulation (`observe_sim = True`): they
look at the terrain and the objects ahead the way a player looking at the
screen would. The jump-runner is the reference for "this stage can be
completed"; idle and hold-right are the floor any learned agent must beat.

The planner is privileged: on its first frame it runs a beam search over
held actions on the compiled simulation (`speednik.engine.planner`) from
the state it is given, then plays the actions found. It says whether a
stage can be finished, not how a player who only sees the screen does.

Agent specs (a baseline's name among them) are in `runners.specs`.
"""
from __future__ import annotations

from typing import Any

from speednik.actions import (
    ACTION_DOWN,
    ACTION_DOWN_JUMP,
    ACTION_HAS_JUMP,
    ACTION_LEFT,
    ACTION_LEFT_JUMP,
    ACTION_NOOP,
    ACTION_RIGHT,
    ACTION_RIGHT_JUMP,
    NUM_ACTIONS,
)
from speednik.constants import (
    GRAVITY,
    JUMP_FORCE,
    SPINDASH_MAX_REV,
    STAND_HEIGHT_RADIUS,
    STAND_WIDTH_RADIUS,
)
from speednik.enemies import ENEMY_HALF_HEIGHT, ENEMY_HALF_WIDTH, enemy_position
from speednik.observation import ray
from speednik.player import PlayerState, radii
from speednik.terrain import DOWN, RIGHT

from runners.agent import BaseAgent

_JUMP_ACTIONS = frozenset(a for a in range(NUM_ACTIONS) if ACTION_HAS_JUMP[a])


class IdleAgent(BaseAgent):
    """Never presses a button."""

    def get_action(self, obs: Any) -> int:
        return ACTION_NOOP

    def reset(self) -> None:
        pass


class HoldRightAgent(BaseAgent):
    """Holds right and nothing else."""

    def get_action(self, obs: Any) -> int:
        return ACTION_RIGHT

    def reset(self) -> None:
        pass


# -- what a scripted agent sees ahead -------------------------------------------

# Highest a full jump lifts the feet, in px (v^2 / 2g).
JUMP_HEIGHT = JUMP_FORCE * JUMP_FORCE / (2.0 * GRAVITY)
# Heights above the feet of the two horizontal wall rays. A wall or a step
# is hit by both at the same distance; a slope or the curve of a loop
# is hit by the upper one farther away.
KNEE = 6
WAIST = 22
WALL_REACH = 192
# A surface whose knee and waist distances differ by at most this is a wall.
WALL_SLACK = 4
# How far below the feet the ground may be before the probe calls it a pit.
PIT_DEPTH = 160
# Run-up needed in front of spikes to jump them from the ground, px.
SPIKE_TAKEOFF = 28
# How far back to look for a spring past a wall too tall to jump, and the
# run-up to take at it (so the launch carries over the wall), px.
SPRING_SEARCH = 640.0
SPRING_RUN_UP = 160.0
# Clearance either side of a spring's centre when passing over it, px.
SPRING_CLEAR = 24.0
# Below this speed on an upslope the climb has failed (holding right on a
# steep slope creeps at about 0.5 px/frame); back off this many frames.
SLOPE_STALL = 0.6
BACKOFF_FRAMES = 60
# On a surface steeper than this (angle byte distance from flat) the feet
# are not below the centre, so the wall and pit probes are not trusted.
FLAT_ANGLE = 20


def _angle_off_flat(angle: int) -> int:
    return angle if angle < 128 else 256 - angle


def _feet(p) -> int:
    return int(p.y) + radii(p)[1]


def _wall_ahead(sim, p) -> tuple[int, int]:
    """(distance from the body's front to a wall ahead, its height above
    the feet, at least): (WALL_REACH + 1, 0) when there is no wall."""
    tiles = sim.stage.tiles
    x = int(p.x)
    feet = _feet(p)
    wr = radii(p)[0]
    knee, _ = ray(tiles, RIGHT, x, feet - KNEE, p.layer, WALL_REACH)
    if knee > WALL_REACH:
        return WALL_REACH + 1, 0
    waist, _ = ray(tiles, RIGHT, x, feet - WAIST, p.layer, WALL_REACH)
    if abs(waist - knee) > WALL_SLACK:
        return WALL_REACH + 1, 0
    # Climb the face to find how tall it is.
    height = WAIST
    while height < 256:
        up = height + 16
        if ray(tiles, RIGHT, x, feet - up, p.layer, knee + WALL_SLACK)[0] > knee + WALL_SLACK:
            break
        height = up
    return max(0, knee - wr), height


def _pit_ahead(sim, p, ahead: int) -> bool:
    """True when there is no ground `ahead` px in front within PIT_DEPTH
    below the feet."""
    tiles = sim.stage.tiles
    x = int(p.x) + ahead
    if x >= sim.stage.width:
        return False
    top = _feet(p) - 32
    d, _ = ray(tiles, DOWN, x, top, p.layer, 32 + PIT_DEPTH)
    return d > 32 + PIT_DEPTH


def _enemy_ahead(sim, p, reach: float) -> bool:
    """A live enemy whose box starts within `reach` px in front, at a height
    the body could touch."""
    stage = sim.stage
    if not stage.enemies:
        return False
    x, y = p.x, p.y
    frame = sim.frame
    destroyed = sim.enemy_destroyed
    touch = STAND_HEIGHT_RADIUS + ENEMY_HALF_HEIGHT + 8
    for i, e in enumerate(stage.enemies):
        if destroyed[i] or e.x + e.span < x - 64 or e.x > x + reach + 64:
            continue
        ex, ey = enemy_position(e, frame)
        gap = ex - ENEMY_HALF_WIDTH - (x + STAND_WIDTH_RADIUS)
        if -2 * STAND_WIDTH_RADIUS <= gap <= reach and abs(ey - y) <= touch:
            return True
    return False


def _spikes_ahead(sim, p, reach: float) -> bool:
    """Spikes on about the level of the feet starting within `reach` px in
    front (or already under the front of the body)."""
    feet = _feet(p)
    front = p.x + STAND_WIDTH_RADIUS
    for s in sim.stage.spikes:
        gap = s.x - s.width / 2 - front
        if -s.width <= gap <= reach and abs(s.y - feet) <= 24:
            return True
    return False


def _landing_on_spikes(sim, p) -> int:
    """While falling: +1 or -1 when the body would land on spikes, by the
    side of their centre it would land on; 0 when it would not."""
    if p.y_vel <= 0.0 or not sim.stage.spikes:
        return 0
    hr = radii(p)[1]
    for s in sim.stage.spikes:
        # Spikes hurt until the feet are down on the ground they stand on.
        drop = s.y - (p.y + hr)
        if drop < 0.0 or drop > 256.0:
            continue
        # Frames until the feet get there: y_vel t + g t^2 / 2 = drop.
        vy = p.y_vel
        t = (-vy + (vy * vy + 2.0 * GRAVITY * drop) ** 0.5) / GRAVITY
        land = p.x + p.x_vel * t
        half = s.width / 2 + STAND_WIDTH_RADIUS
        # Landing just short of them is as bad: no room left to jump them.
        if s.x - half - SPIKE_TAKEOFF <= land <= s.x + half + 4:
            return 1 if land >= s.x else -1
    return 0


def _run_up_start(sim, p, spring_x: float) -> float:
    """Where to start a run at a spring: SPRING_RUN_UP px before it, or
    less if the ground ends sooner."""
    tiles = sim.stage.tiles
    top = _feet(p) - 32
    x = spring_x - SPRING_CLEAR
    while x >= spring_x - SPRING_RUN_UP and x > 16:
        d, _ = ray(tiles, DOWN, int(x), top, p.layer, 32 + PIT_DEPTH)
        if d > 32 + PIT_DEPTH:
            return x + 2 * SPRING_CLEAR
        x -= 8
    return x


def _spring_behind(sim, p, reach: float):
    """The nearest up spring behind the player within `reach` px, or None."""
    best = None
    for s in sim.stage.springs:
        if s.direction == "up" and p.x - reach <= s.x < p.x:
            if best is None or s.x > best.x:
                best = s
    return best


class JumpRunnerAgent(BaseAgent):
    """Runs right and jumps over what is in the way.

    On the ground it jumps when
    - a wall or a step is close ahead (closer the slower it runs), or it
      has come to a stop against one;
    - the ground ends ahead (a pit), at the last moment, for the widest
      jump;
    - an enemy or spikes are close ahead (the jump's ball destroys enemies).

    It holds the button while rising for a full-height jump and lets go
    on landing, so the next jump is a fresh press. While falling it steers
    off spikes it would land on. Stalled on a slope too steep to climb, it
    backs down for a run-up. Stopped at a wall taller than a jump with an
    upward spring behind, it walks back past the spring and takes a run at
    it, so the launch carries it over.
    """

    observe_sim = True

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._holding = False   # our jump button is down
        self._back_to = None    # x to walk back to, for a run at a spring
        self._spring_x = 0.0    # ... and that spring's x
        self._still = 0         # frames in a row on the ground not moving
        self._backoff = 0       # frames left of backing down a slope

    def get_action(self, sim: Any) -> int:
        p = sim.player.physics
        back = self._back_to is not None and p.x > self._back_to
        if not p.on_ground:
            rising = self._holding and p.y_vel < 0.0
            self._holding = rising
            if back:
                if p.x < self._spring_x - SPRING_CLEAR:
                    # Over the spring: brake, so as not to overshoot the run-up.
                    return ACTION_RIGHT_JUMP if rising else ACTION_RIGHT
                return ACTION_LEFT_JUMP if rising else ACTION_LEFT
            if rising:
                return ACTION_RIGHT_JUMP
            if _landing_on_spikes(sim, p) < 0:
                return ACTION_LEFT          # fall short of them
            return ACTION_RIGHT
        if self._holding:
            self._holding = False
            return ACTION_LEFT if back else ACTION_RIGHT
        if back:
            # Hop over the spring on the way back rather than be thrown.
            if 0.0 < p.x - self._spring_x < 40.0 + 6.0 * abs(p.ground_speed):
                self._holding = True
                return ACTION_LEFT_JUMP
            return ACTION_LEFT
        self._back_to = None
        if self._backoff > 0:
            self._backoff -= 1
            return ACTION_LEFT
        return self._ground_action(sim, p)

    def _jump(self) -> int:
        self._holding = True
        return ACTION_RIGHT_JUMP

    def _ground_action(self, sim: Any, p) -> int:
        v = p.ground_speed if p.ground_speed > 0.0 else 0.0
        self._still = self._still + 1 if abs(p.ground_speed) < 0.25 else 0
        flat = _angle_off_flat(p.angle) <= FLAT_ANGLE
        if flat:
            dist, height = _wall_ahead(sim, p)
            if dist <= WALL_REACH:
                if height > JUMP_HEIGHT + 8:
                    # Too tall to jump: a spring behind is the way up.
                    if dist <= 16 and v < 1.0:
                        spring = _spring_behind(sim, p, SPRING_SEARCH)
                        if spring is not None:
                            self._back_to = _run_up_start(sim, p, spring.x)
                            self._spring_x = spring.x
                            return ACTION_LEFT
                elif dist <= 8 + 18 * v or (dist <= 24 and self._still >= 2):
                    return self._jump()
            if _pit_ahead(sim, p, STAND_WIDTH_RADIUS + 2 + int(2 * v)):
                return self._jump()
        if _enemy_ahead(sim, p, 16 + 10 * v):
            return self._jump()
        if _spikes_ahead(sim, p, 12 + 5 * v):
            return self._jump()
        if FLAT_ANGLE // 2 < p.angle <= 64 and p.ground_speed < SLOPE_STALL:
            # Too steep to climb from here: back down it for a run-up.
            self._backoff = BACKOFF_FRAMES
            return ACTION_LEFT
        if self._still >= 30:
            # Stuck with nothing recognised in the way: try a jump.
            self._still = 0
            return self._jump()
        return ACTION_RIGHT


class SpindashAgent(JumpRunnerAgent):
    """The jump-runner, but whenever it is slow on open, level ground it
    stops, charges a spindash to nearly full and launches, then runs (and
    jumps) on.
    """

    # Below this ground speed a spindash (launch at 8 to 12 px/frame) pays.
    SLOW = 3.0
    # Launch once the charge reaches this (of 8); presses past it gain little.
    CHARGE = SPINDASH_MAX_REV - 1.0
    # Clear ground needed ahead to charge safely, px.
    ROOM = 96

    def reset(self) -> None:
        super().reset()
        self._charging = False
        self._jump_down = False     # whether our last action held jump

    def get_action(self, sim: Any) -> int:
        action = self._choose(sim)
        self._jump_down = action in _JUMP_ACTIONS
        return action

    def _choose(self, sim: Any) -> int:
        player = sim.player
        p = player.physics
        if player.state == PlayerState.SPINDASH:
            self._holding = False
            if p.spinrev >= self.CHARGE:
                self._charging = False
                return ACTION_RIGHT            # let go of down: launch
            # Each rev is a fresh press, so the button goes up in between.
            return ACTION_DOWN if self._jump_down else ACTION_DOWN_JUMP
        if self._charging:
            if (not p.on_ground or player.state != PlayerState.STANDING
                    or not p.facing_right):
                self._charging = False
            elif p.ground_speed == 0.0:
                # Down + a fresh press of jump starts the spindash.
                return ACTION_DOWN if self._jump_down else ACTION_DOWN_JUMP
            elif abs(p.ground_speed) < 1.0:
                return ACTION_DOWN             # friction stops us exactly
            else:
                return ACTION_NOOP
        if (p.on_ground and not self._holding and self._back_to is None
                and player.state == PlayerState.STANDING
                and p.facing_right and 0.0 <= p.ground_speed < self.SLOW
                and _angle_off_flat(p.angle) <= 8
                and self._open_ahead(sim, p)):
            self._charging = True
            return ACTION_DOWN if abs(p.ground_speed) < 1.0 else ACTION_NOOP
        return super().get_action(sim)

    def _open_ahead(self, sim: Any, p) -> bool:
        dist, _ = _wall_ahead(sim, p)
        if dist <= self.ROOM:
            return False
        if _pit_ahead(sim, p, self.ROOM // 2) or _pit_ahead(sim, p, self.ROOM):
            return False
        return not (_enemy_ahead(sim, p, self.ROOM) or _spikes_ahead(sim, p, self.ROOM))


# -- registries --------------------------------------------------------------------

class PlannerAgent(BaseAgent):
    """Plays the plan a beam search finds from the state of its first
    frame; after the plan (none found, or the episode goes on) it holds
    right."""

    observe_sim = True

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._plan: tuple[int, ...] | None = None
        self._next = 0

    def get_action(self, sim: Any) -> int:
        if self._plan is None:
            from speednik.engine import CompiledSim
            from speednik.engine.planner import plan_from

            state = CompiledSim(sim)
            self._plan = plan_from(state.compiled, state.f, state.s, state.gone).actions
            self._next = 0
        if self._next < len(self._plan):
            self._next += 1
            return self._plan[self._next - 1]
        return ACTION_RIGHT


BASELINES: dict[str, type[BaseAgent]] = {
    "idle": IdleAgent,
    "hold-right": HoldRightAgent,
    "jump-runner": JumpRunnerAgent,
    "spindash": SpindashAgent,
    "planner": PlannerAgent,
}


def make_baseline(name: str) -> BaseAgent:
    """A new baseline agent by registry name."""
    cls = BASELINES.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(
            f"unknown baseline agent {name!r}: accepted names are "
            f"{', '.join(repr(n) for n in BASELINES)}")
    return cls()

"""Input and kinematic state of the player, and the per-frame motion rules.

The functions here are the equations of PHYSICS.md with no terrain in them;
`speednik.player` decides when each applies and `speednik.terrain` supplies
the surfaces.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from speednik.constants import (
    ACCELERATION,
    AIR_ACCELERATION,
    AIR_DRAG_THRESHOLD,
    DECELERATION,
    FRICTION,
    ROLL_DECELERATION,
    ROLL_FRICTION,
    SLOPE_FACTOR_ROLL_DOWN,
    SLOPE_FACTOR_ROLL_UP,
    SLOPE_FACTOR_RUNNING,
    TOP_SPEED,
)

# sin/cos of every angle byte, counter-clockwise, 256 steps to a turn.
SIN = tuple(math.sin(a * math.tau / 256) for a in range(256))
COS = tuple(math.cos(a * math.tau / 256) for a in range(256))


@dataclass(slots=True)
class InputState:
    """The buttons held on one frame. `jump_pressed` is the rising edge only."""

    left: bool = False
    right: bool = False
    jump_pressed: bool = False
    jump_held: bool = False
    down_held: bool = False
    up_held: bool = False


@dataclass(slots=True)
class PhysicsState:
    """Where the player is and how it moves.

    `angle` is a byte (0-255 for a full turn, counter-clockwise, 0 = flat
    floor); `layer` is the collision layer (0 or 1) used through loops.
    """

    x: float = 0.0
    y: float = 0.0
    x_vel: float = 0.0
    y_vel: float = 0.0
    ground_speed: float = 0.0
    angle: int = 0
    on_ground: bool = False
    is_rolling: bool = False
    facing_right: bool = True
    layer: int = 0
    # True after a jump: the only airborne state in which releasing the
    # button cuts the rise short (springs and knock-backs are not).
    jumping: bool = False
    control_lock: int = 0
    spinrev: float = 0.0

    def copy(self) -> PhysicsState:
        return PhysicsState(
            self.x, self.y, self.x_vel, self.y_vel, self.ground_speed,
            self.angle, self.on_ground, self.is_rolling, self.facing_right,
            self.layer, self.jumping, self.control_lock, self.spinrev,
        )


def apply_ground_input(gs: float, left: bool, right: bool) -> float:
    """Acceleration, deceleration and friction while running."""
    if right and not left:
        if gs < 0.0:
            gs += DECELERATION
            if gs >= 0.0:
                gs = DECELERATION
        elif gs < TOP_SPEED:
            gs += ACCELERATION
            if gs > TOP_SPEED:
                gs = TOP_SPEED
    elif left and not right:
        if gs > 0.0:
            gs -= DECELERATION
            if gs <= 0.0:
                gs = -DECELERATION
        elif gs > -TOP_SPEED:
            gs -= ACCELERATION
            if gs < -TOP_SPEED:
                gs = -TOP_SPEED
    else:
        gs = apply_friction(gs, FRICTION)
    return gs


def apply_roll_input(gs: float, left: bool, right: bool) -> float:
    """Rolling: input only brakes; friction always applies."""
    if right and gs < 0.0:
        gs += ROLL_DECELERATION
    elif left and gs > 0.0:
        gs -= ROLL_DECELERATION
    return apply_friction(gs, ROLL_FRICTION)


def apply_friction(gs: float, amount: float) -> float:
    if gs > 0.0:
        return gs - amount if gs > amount else 0.0
    if gs < 0.0:
        return gs + amount if gs < -amount else 0.0
    return gs


def running_slope(gs: float, angle: int) -> float:
    return gs - SLOPE_FACTOR_RUNNING * SIN[angle]


def rolling_slope(gs: float, angle: int) -> float:
    s = SIN[angle]
    uphill = (gs > 0.0 and s > 0.0) or (gs < 0.0 and s < 0.0)
    return gs - (SLOPE_FACTOR_ROLL_UP if uphill else SLOPE_FACTOR_ROLL_DOWN) * s


def apply_air_input(x_vel: float, left: bool, right: bool) -> float:
    """Air acceleration, capped at top speed only when it would exceed it."""
    if right and not left:
        if x_vel < TOP_SPEED:
            x_vel += AIR_ACCELERATION
            if x_vel > TOP_SPEED:
                x_vel = TOP_SPEED
    elif left and not right:
        if x_vel > -TOP_SPEED:
            x_vel -= AIR_ACCELERATION
            if x_vel < -TOP_SPEED:
                x_vel = -TOP_SPEED
    return x_vel


def apply_air_drag(x_vel: float, y_vel: float) -> float:
    if AIR_DRAG_THRESHOLD < y_vel < 0.0:
        x_vel -= math.floor(x_vel / 0.125) / 256.0
    return x_vel


def landing_speed(x_vel: float, y_vel: float, angle: int) -> float:
    """Ground speed on landing, from the impact velocity and surface angle."""
    deg = angle * 360.0 / 256.0
    # Distance of the surface from level, in degrees (0-90).
    tilt = min(deg % 180.0, 180.0 - deg % 180.0)
    if tilt <= 23.0:
        return x_vel
    if abs(x_vel) > abs(y_vel):
        return x_vel
    s = SIN[angle]
    sign = 1.0 if s > 0.0 else -1.0
    if tilt <= 45.0:
        return y_vel * 0.5 * -sign
    return y_vel * -sign

"""The motion rules of `speednik.physics`, compiled: the same equations,
the same order of operations, on plain floats."""
from __future__ import annotations

import math

import numpy as np

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
from speednik import physics as _readable
from speednik.engine.jit import frame_jit

# The readable tables themselves, so both engines use the same sines.
SIN = np.array(_readable.SIN, dtype=np.float64)
COS = np.array(_readable.COS, dtype=np.float64)


@frame_jit
def apply_friction(gs, amount):
    if gs > 0.0:
        return gs - amount if gs > amount else 0.0
    if gs < 0.0:
        return gs + amount if gs < -amount else 0.0
    return gs


@frame_jit
def apply_ground_input(gs, left, right):
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


@frame_jit
def apply_roll_input(gs, left, right):
    if right and gs < 0.0:
        gs += ROLL_DECELERATION
    elif left and gs > 0.0:
        gs -= ROLL_DECELERATION
    return apply_friction(gs, ROLL_FRICTION)


@frame_jit
def running_slope(gs, angle):
    return gs - SLOPE_FACTOR_RUNNING * SIN[angle]


@frame_jit
def rolling_slope(gs, angle):
    s = SIN[angle]
    uphill = (gs > 0.0 and s > 0.0) or (gs < 0.0 and s < 0.0)
    return gs - (SLOPE_FACTOR_ROLL_UP if uphill else SLOPE_FACTOR_ROLL_DOWN) * s


@frame_jit
def apply_air_input(x_vel, left, right):
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


@frame_jit
def apply_air_drag(x_vel, y_vel):
    if AIR_DRAG_THRESHOLD < y_vel < 0.0:
        x_vel -= math.floor(x_vel / 0.125) / 256.0
    return x_vel


@frame_jit
def landing_speed(x_vel, y_vel, angle):
    deg = angle * 360.0 / 256.0
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

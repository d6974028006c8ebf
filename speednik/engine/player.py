"""One frame of the player's movement (`speednik.player`), compiled.

The player lives in the state arrays `f` and `s` (see `layout`); inputs
are five booleans. Function for function this follows the readable
module, in the same order of steps.
"""
from __future__ import annotations

import numpy as np

from speednik.constants import (
    FALL_SPEED_CAP,
    GRAVITY,
    GROUND_SNAP_MARGIN,
    GROUND_SNAP_MAX,
    HURT_GRAVITY,
    INVULNERABLE_FRAMES,
    JUMP_FORCE,
    JUMP_RELEASE_SPEED,
    MAX_SPEED,
    ROLL_HEIGHT_RADIUS,
    ROLL_MIN_SPEED,
    ROLL_WIDTH_RADIUS,
    SLIP_LOCK_FRAMES,
    SLIP_SPEED,
    SPINDASH_BASE_SPEED,
    SPINDASH_MAX_REV,
    SPINDASH_REV_PER_PRESS,
    STAND_HEIGHT_RADIUS,
    STAND_WIDTH_RADIUS,
    UNROLL_SPEED,
    WALL_SENSOR_FLAT_DROP,
    WALL_SENSOR_REACH,
)
from speednik.engine.jit import frame_jit, leaf_jit
from speednik.engine.layout import (
    F_GROUND_SPEED,
    F_SPINREV,
    F_X,
    F_X_VEL,
    F_Y,
    F_Y_VEL,
    S_ANGLE,
    S_CONTROL_LOCK,
    S_FACING_RIGHT,
    S_INVULNERABLE,
    S_JUMPING,
    S_LAYER,
    S_ON_GROUND,
    S_ROLLING,
    S_STATE,
)
from speednik.engine.physics import (
    COS,
    SIN,
    apply_air_drag,
    apply_air_input,
    apply_ground_input,
    apply_roll_input,
    landing_speed,
    rolling_slope,
    running_slope,
)
from speednik.engine.terrain import cast, cast_down, cast_left, cast_right, cast_up, open_air
from speednik.player import (
    MODE_DOWN,
    MODE_FLOOR_DIR,
    MODE_LEFT_DIR,
    MODE_OF_ANGLE as _MODE_OF_ANGLE,
    MODE_RIGHT,
    MODE_RIGHT_DIR,
    RADIUS_SHIFT,
    SUBSTEP_SPEED,
    PlayerState,
)
from speednik.terrain import DOWN, NO_HIT

STANDING = int(PlayerState.STANDING)
ROLLING = int(PlayerState.ROLLING)
AIRBORNE = int(PlayerState.AIRBORNE)
SPINDASH = int(PlayerState.SPINDASH)
HURT = int(PlayerState.HURT)
DEAD = int(PlayerState.DEAD)

# The readable per-mode tables, split into arrays.
MODE_OF_ANGLE = np.array(_MODE_OF_ANGLE, dtype=np.int64)
MODE_DOWN_X = np.array([v[0] for v in MODE_DOWN], dtype=np.int64)
MODE_DOWN_Y = np.array([v[1] for v in MODE_DOWN], dtype=np.int64)
MODE_RIGHT_X = np.array([v[0] for v in MODE_RIGHT], dtype=np.int64)
MODE_RIGHT_Y = np.array([v[1] for v in MODE_RIGHT], dtype=np.int64)
FLOOR_DIR = np.array(MODE_FLOOR_DIR, dtype=np.int64)
RIGHT_DIR = np.array(MODE_RIGHT_DIR, dtype=np.int64)
LEFT_DIR = np.array(MODE_LEFT_DIR, dtype=np.int64)


@leaf_jit
def radii(s):
    if s[S_ROLLING]:
        return ROLL_WIDTH_RADIUS, ROLL_HEIGHT_RADIUS
    return STAND_WIDTH_RADIUS, STAND_HEIGHT_RADIUS


@frame_jit
def in_ball(s):
    return s[S_ROLLING] != 0 and s[S_STATE] != HURT


@frame_jit
def player_update(st, f, s, left, right, jump_pressed, jump_held, down_held):
    """Advance the player one frame. Returns True if it jumped."""
    state = s[S_STATE]
    if state == DEAD:
        return False
    if s[S_INVULNERABLE] > 0 and state != HURT:
        s[S_INVULNERABLE] -= 1
    if state == AIRBORNE or state == HURT:
        _air_frame(st, f, s, left, right, jump_held)
        return False
    if state == SPINDASH:
        _spindash_frame(st, f, s, jump_pressed, down_held)
        return False
    return _ground_frame(st, f, s, left, right, jump_pressed, down_held)


@frame_jit
def _shift_down(f, s, amount):
    if s[S_ON_GROUND]:
        mode = MODE_OF_ANGLE[s[S_ANGLE]]
        dx, dy = MODE_DOWN_X[mode], MODE_DOWN_Y[mode]
    else:
        dx, dy = 0, 1
    f[F_X] += dx * amount
    f[F_Y] += dy * amount


@frame_jit
def _start_jump(f, s):
    a = s[S_ANGLE]
    sn, c = SIN[a], COS[a]
    gs = f[F_GROUND_SPEED]
    f[F_X_VEL] = gs * c - JUMP_FORCE * sn
    f[F_Y_VEL] = -gs * sn - JUMP_FORCE * c
    if not s[S_ROLLING]:
        _shift_down(f, s, RADIUS_SHIFT)
    s[S_ON_GROUND] = 0
    s[S_ROLLING] = 1
    s[S_JUMPING] = 1
    s[S_STATE] = AIRBORNE


@frame_jit
def _ground_frame(st, f, s, left, right, jump_pressed, down_held):
    rolling = s[S_STATE] == ROLLING
    if s[S_CONTROL_LOCK] > 0:
        s[S_CONTROL_LOCK] -= 1
        left = right = False

    if (not rolling and down_held and jump_pressed
            and f[F_GROUND_SPEED] == 0.0):
        s[S_STATE] = SPINDASH
        f[F_SPINREV] = 0.0
        s[S_ROLLING] = 1
        _shift_down(f, s, RADIUS_SHIFT)
        return False

    angle = s[S_ANGLE]
    gs = f[F_GROUND_SPEED]
    gs = rolling_slope(gs, angle) if rolling else running_slope(gs, angle)

    if jump_pressed:
        f[F_GROUND_SPEED] = gs
        _start_jump(f, s)
        return True

    if rolling:
        gs = apply_roll_input(gs, left, right)
    else:
        gs = apply_ground_input(gs, left, right)
        if right and not left:
            s[S_FACING_RIGHT] = 1
        elif left and not right:
            s[S_FACING_RIGHT] = 0
    if gs > MAX_SPEED:
        gs = MAX_SPEED
    elif gs < -MAX_SPEED:
        gs = -MAX_SPEED

    if not rolling and down_held and abs(gs) >= ROLL_MIN_SPEED:
        rolling = True
        s[S_STATE] = ROLLING
        s[S_ROLLING] = 1
        _shift_down(f, s, RADIUS_SHIFT)
    elif rolling and abs(gs) < UNROLL_SPEED:
        rolling = False
        s[S_STATE] = STANDING
        s[S_ROLLING] = 0
        _shift_down(f, s, -RADIUS_SHIFT)

    mode = MODE_OF_ANGLE[angle]
    x_vel = gs * COS[angle]
    y_vel = -gs * SIN[angle]

    if gs != 0.0 and (angle <= 64 or angle >= 192):
        rx, ry = MODE_RIGHT_X[mode], MODE_RIGHT_Y[mode]
        sx = f[F_X] + x_vel
        sy = f[F_Y] + y_vel
        if mode == 0 and angle == 0:
            sy += WALL_SENSOR_FLAT_DROP
        if gs > 0.0:
            d = RIGHT_DIR[mode]
            sx += rx * WALL_SENSOR_REACH
            sy += ry * WALL_SENSOR_REACH
            sign = 1.0
        else:
            d = LEFT_DIR[mode]
            sx -= rx * WALL_SENSOR_REACH
            sy -= ry * WALL_SENSOR_REACH
            sign = -1.0
        dist, _ = cast(st, d, int(sx), int(sy), s[S_LAYER])
        if dist <= 0:
            x_vel += sign * rx * (dist - 1)
            y_vel += sign * ry * (dist - 1)
            gs = 0.0

    f[F_GROUND_SPEED] = gs
    if -SUBSTEP_SPEED <= gs <= SUBSTEP_SPEED or gs == 0.0:
        f[F_X] += x_vel
        f[F_Y] += y_vel
        f[F_X_VEL] = x_vel
        f[F_Y_VEL] = y_vel
        _ground_sensors(st, f, s)
    else:
        half = gs * 0.5
        for _ in range(2):
            a = s[S_ANGLE]
            f[F_X_VEL] = gs * COS[a]
            f[F_Y_VEL] = -gs * SIN[a]
            f[F_X] += half * COS[a]
            f[F_Y] -= half * SIN[a]
            _ground_sensors(st, f, s)
            if not s[S_ON_GROUND]:
                break

    if (s[S_ON_GROUND] and s[S_CONTROL_LOCK] == 0 and 32 < s[S_ANGLE] < 224
            and abs(f[F_GROUND_SPEED]) < SLIP_SPEED):
        s[S_CONTROL_LOCK] = SLIP_LOCK_FRAMES
        _leave_ground(s)
    return False


@frame_jit
def _ground_sensors(st, f, s):
    mode = MODE_OF_ANGLE[s[S_ANGLE]]
    wr, hr = radii(s)
    dx, dy = MODE_DOWN_X[mode], MODE_DOWN_Y[mode]
    rx, ry = MODE_RIGHT_X[mode], MODE_RIGHT_Y[mode]
    cx = f[F_X] + dx * hr
    cy = f[F_Y] + dy * hr
    d = FLOOR_DIR[mode]
    layer = s[S_LAYER]
    if d == DOWN:
        top_only = mode == 0
        da, aa = cast_down(st, int(cx - wr), int(cy), layer, top_only)
        db, ab = cast_down(st, int(cx + wr), int(cy), layer, top_only)
    else:
        da, aa = cast(st, d, int(cx - rx * wr), int(cy - ry * wr), layer)
        db, ab = cast(st, d, int(cx + rx * wr), int(cy + ry * wr), layer)
    speed = abs(f[F_X_VEL]) if mode == 0 or mode == 2 else abs(f[F_Y_VEL])
    reach = speed + GROUND_SNAP_MARGIN
    deepest = -(reach if reach > GROUND_SNAP_MAX else GROUND_SNAP_MAX)
    if da < deepest:
        da = NO_HIT if db >= deepest else da
    elif db < deepest:
        db = NO_HIT
    if db < da:
        da, db, aa, ab = db, da, ab, aa
    if not (aa & 63) and ab & 63 and db < NO_HIT:
        aa = ab
    if da > (reach if reach < GROUND_SNAP_MAX else GROUND_SNAP_MAX):
        _leave_ground(s)
        return
    if da < deepest:
        return
    f[F_X] += dx * da
    f[F_Y] += dy * da
    s[S_ANGLE] = aa


@frame_jit
def _leave_ground(s):
    s[S_ON_GROUND] = 0
    s[S_JUMPING] = 0
    s[S_STATE] = AIRBORNE


@frame_jit
def _spindash_frame(st, f, s, jump_pressed, down_held):
    if not down_held:
        speed = SPINDASH_BASE_SPEED + int(f[F_SPINREV]) / 2.0
        f[F_GROUND_SPEED] = speed if s[S_FACING_RIGHT] else -speed
        f[F_SPINREV] = 0.0
        s[S_STATE] = ROLLING
        return
    f[F_SPINREV] -= int(f[F_SPINREV] / 32.0 * 256.0) / 256.0
    if jump_pressed:
        f[F_SPINREV] = min(f[F_SPINREV] + SPINDASH_REV_PER_PRESS, SPINDASH_MAX_REV)
    f[F_X_VEL] = 0.0
    f[F_Y_VEL] = 0.0
    _ground_sensors(st, f, s)


@leaf_jit
def _air_frame(st, f, s, left, right, jump_held):
    hurt = s[S_STATE] == HURT
    x_vel, y_vel = f[F_X_VEL], f[F_Y_VEL]
    if not hurt:
        if s[S_JUMPING] and not jump_held and y_vel < JUMP_RELEASE_SPEED:
            y_vel = JUMP_RELEASE_SPEED
        x_vel = apply_air_input(x_vel, left, right)
        if right and not left:
            s[S_FACING_RIGHT] = 1
        elif left and not right:
            s[S_FACING_RIGHT] = 0
        x_vel = apply_air_drag(x_vel, y_vel)
    f[F_X] += x_vel
    f[F_Y] += y_vel
    y_vel += HURT_GRAVITY if hurt else GRAVITY
    if y_vel > FALL_SPEED_CAP:
        y_vel = FALL_SPEED_CAP
    f[F_X_VEL] = x_vel
    f[F_Y_VEL] = y_vel
    a = s[S_ANGLE]
    if a:
        if a < 128:
            s[S_ANGLE] = a - 2 if a > 2 else 0
        else:
            s[S_ANGLE] = a + 2 if a < 254 else 0
    _air_collision(st, f, s)


# Every cast of `_air_collision` starts within 16 px of the player's x
# and 32 px of its y: the reach of `open_air`.
assert max(WALL_SENSOR_REACH, STAND_WIDTH_RADIUS, ROLL_WIDTH_RADIUS) <= 16
assert max(STAND_HEIGHT_RADIUS, ROLL_HEIGHT_RADIUS) < 32


@leaf_jit
def _air_collision(st, f, s):
    wr, hr = radii(s)
    x_vel, y_vel = f[F_X_VEL], f[F_Y_VEL]
    layer = s[S_LAYER]
    ix = int(f[F_X])
    iy = int(f[F_Y])
    # In open air every cast below finds nothing, and nothing changes:
    # most frames of a flight, played many times a decision, are there.
    if open_air(st, layer, ix, iy):
        return
    vertical = abs(y_vel) > abs(x_vel)
    if x_vel >= 0.0 or vertical:
        dist, _ = cast_right(st, ix + WALL_SENSOR_REACH, iy, layer)
        if dist <= 0:
            f[F_X] += dist - 1
            if f[F_X_VEL] > 0.0:
                f[F_X_VEL] = 0.0
    if x_vel <= 0.0 or vertical:
        dist, _ = cast_left(st, ix - WALL_SENSOR_REACH, iy, layer)
        if dist <= 0:
            f[F_X] -= dist - 1
            if f[F_X_VEL] < 0.0:
                f[F_X_VEL] = 0.0
    ix = int(f[F_X])
    if y_vel < 0.0:
        top = int(f[F_Y] - hr)
        dc, _ = cast_up(st, ix - wr, top, layer)
        dd, _ = cast_up(st, ix + wr, top, layer)
        if dd < dc:
            dc = dd
        if dc <= 0:
            f[F_Y] -= dc - 1
            f[F_Y_VEL] = 0.0
        return
    bottom = int(f[F_Y] + hr)
    da, aa = cast_down(st, ix - wr, bottom, layer, True)
    db, ab = cast_down(st, ix + wr, bottom, layer, True)
    deepest = -(y_vel + 8.0)
    if da < deepest:
        da = NO_HIT
    if db < deepest:
        db = NO_HIT
    if db < da:
        da, aa = db, ab
    if da < 0:
        f[F_Y] += da
        _land(f, s, aa)


@frame_jit
def _land(f, s, angle):
    hurt = s[S_STATE] == HURT
    s[S_ANGLE] = angle
    s[S_ON_GROUND] = 1
    if hurt:
        f[F_GROUND_SPEED] = 0.0
        f[F_X_VEL] = 0.0
        s[S_INVULNERABLE] = INVULNERABLE_FRAMES
    else:
        f[F_GROUND_SPEED] = landing_speed(f[F_X_VEL], f[F_Y_VEL], angle)
    if s[S_ROLLING]:
        s[S_ROLLING] = 0
        _shift_down(f, s, -RADIUS_SHIFT)
    s[S_JUMPING] = 0
    s[S_STATE] = STANDING

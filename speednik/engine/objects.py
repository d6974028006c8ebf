"""Rings, springs, spikes, checkpoints, enemies and layer switches
(`speednik.objects` and `speednik.enemies`), compiled.

What is gone lives in one byte array, `gone`: the rings first, then the
enemies, then the checkpoints (`SimState.ring_taken`, `enemy_destroyed`
and `checkpoint_hit` end to end). Events are written as rows of `ev`
(see `layout`); every function that may add one takes the count so far
and returns the new count.
"""
from __future__ import annotations

from speednik.constants import (
    HURT_X_SPEED,
    HURT_Y_SPEED,
    SIDE_SPRING_LOCK_FRAMES,
    SPRING_RED_SPEED,
    SPRING_YELLOW_SPEED,
)
from speednik.enemies import ENEMY_HALF_HEIGHT, ENEMY_HALF_WIDTH
from speednik.engine.jit import frame_jit, leaf_jit
from speednik.engine.layout import (
    EV_CHECKPOINT,
    EV_DAMAGE,
    EV_DEATH,
    EV_ENEMY,
    EV_RING,
    EV_SPRING,
    F_GROUND_SPEED,
    F_X,
    F_X_VEL,
    F_Y,
    F_Y_VEL,
    MAX_EVENTS,
    S_ANGLE,
    S_CONTROL_LOCK,
    S_DEAD,
    S_DEATH_CAUSE,
    S_DEATHS,
    S_FACING_RIGHT,
    S_INVULNERABLE,
    S_JUMPING,
    S_LAYER,
    S_ON_GROUND,
    S_RINGS,
    S_RINGS_COLLECTED,
    S_ROLLING,
    S_STATE,
    SOURCE_SPIKES,
    SPRING_RED,
    SPRING_RIGHT,
    SPRING_UP,
    ENEMY_WALKER,
)
from speednik.engine.lowering import (
    I_CHECKPOINT_X,
    I_CHECKPOINT_Y,
    I_COLUMN_SPIKES,
    I_COLUMN_START,
    I_ENEMY_KIND,
    I_ENEMY_PERIOD,
    I_ENEMY_SPAN,
    I_ENEMY_X,
    I_ENEMY_Y,
    I_NUM_COLUMNS,
    I_NUM_ENEMIES,
    I_NUM_RINGS,
    I_O_BOX,
    I_O_INDEX,
    I_O_KIND,
    I_RING_X,
    I_RING_Y,
    I_SPRING_DIRECTION,
    I_SPRING_STRENGTH,
    I_SPRING_X,
    I_SPRING_Y,
    I_SWITCH_LEFT,
    I_SWITCH_RIGHT,
)
from speednik.engine.player import AIRBORNE, DEAD, HURT, in_ball, radii
from speednik.objects import (
    CHECKPOINT,
    COLUMN_SHIFT,
    ENEMY,
    RING,
    SPIKES,
    SPRING,
    SPRING_HALF_HEIGHT,
    SPRING_HALF_WIDTH,
    SWITCH,
)
from speednik.player import RADIUS_SHIFT


@frame_jit
def add_event(ev, n, code, a, b, c):
    if n < MAX_EVENTS:
        ev[n, 0] = code
        ev[n, 1] = a
        ev[n, 2] = b
        ev[n, 3] = c
    return n + 1


@frame_jit
def enemy_gone(st, gone, i):
    return gone[st.ints[I_NUM_RINGS] + i] != 0


@frame_jit
def checkpoint_slot(st, i):
    ints = st.ints
    return ints[I_NUM_RINGS] + ints[I_NUM_ENEMIES] + i


@frame_jit
def enemy_position(st, i, frame):
    ints, floats = st.ints, st.floats
    period = ints[ints[I_ENEMY_PERIOD] + i]
    if period <= 0:
        tri = 0.0
    else:
        phase = (frame % period) / period
        tri = 2.0 * phase if phase < 0.5 else 2.0 * (1.0 - phase)
    offset = floats[ints[I_ENEMY_SPAN] + i] * tri
    x, y = floats[ints[I_ENEMY_X] + i], floats[ints[I_ENEMY_Y] + i]
    if ints[ints[I_ENEMY_KIND] + i] == ENEMY_WALKER:
        return x + offset, y
    return x, y - offset


@frame_jit
def hurt_player(f, s, source_x, source, ev, n):
    if s[S_INVULNERABLE] > 0 or s[S_STATE] == HURT:
        return n
    if s[S_RINGS] == 0:
        return kill_player(s, source, ev, n)
    n = add_event(ev, n, EV_DAMAGE, s[S_RINGS], source, 0.0)
    s[S_RINGS] = 0
    if s[S_ROLLING]:
        s[S_ROLLING] = 0
        f[F_Y] -= RADIUS_SHIFT
    away = 1.0 if f[F_X] >= source_x else -1.0
    f[F_X_VEL] = HURT_X_SPEED * away
    f[F_Y_VEL] = HURT_Y_SPEED
    f[F_GROUND_SPEED] = 0.0
    s[S_ON_GROUND] = 0
    s[S_JUMPING] = 0
    s[S_ANGLE] = 0
    s[S_STATE] = HURT
    return n


@frame_jit
def kill_player(s, cause, ev, n):
    s[S_STATE] = DEAD
    s[S_DEAD] = 1
    s[S_DEATH_CAUSE] = cause
    s[S_DEATHS] += 1
    return add_event(ev, n, EV_DEATH, cause, 0.0, 0.0)


@leaf_jit
def _index_column(st, x):
    """The object index's column of x, clamped to the stage."""
    c = int(x) >> COLUMN_SHIFT
    last = st.ints[I_NUM_COLUMNS] - 1
    return 0 if c < 0 else (last if c > last else c)


@leaf_jit
def player_box(f, s):
    """`speednik.objects.player_box`."""
    wr, hr = radii(s)
    return f[F_X] - wr, f[F_Y] - hr, f[F_X] + wr, f[F_Y] + hr


@leaf_jit
def touches_spikes(st, f, s):
    """`speednik.objects.touches_spikes`."""
    ints, floats = st.ints, st.floats
    c = _index_column(st, f[F_X])
    # Most columns have none: a flight asks every frame.
    if ints[ints[I_COLUMN_SPIKES] + c] == 0:
        return False
    px0, py0, px1, py1 = player_box(f, s)
    starts = ints[I_COLUMN_START]
    kinds, boxes = ints[I_O_KIND], ints[I_O_BOX]
    for j in range(ints[starts + c], ints[starts + c + 1]):
        if ints[kinds + j] != SPIKES:
            continue
        b = boxes + 4 * j
        if not (px1 < floats[b] or px0 > floats[b + 2] or py1 < floats[b + 1]
                or py0 > floats[b + 3]):
            return True
    return False


@frame_jit
def interact(st, f, s, gone, frame, prev_x, ev, n):
    """Everything the player touches this frame, in index order."""
    ints, floats = st.ints, st.floats
    px0, py0, px1, py1 = player_box(f, s)
    c = _index_column(st, f[F_X])
    starts = ints[I_COLUMN_START]
    kinds, indices, boxes = ints[I_O_KIND], ints[I_O_INDEX], ints[I_O_BOX]
    for j in range(ints[starts + c], ints[starts + c + 1]):
        kind = ints[kinds + j]
        i = ints[indices + j]
        b = boxes + 4 * j
        x0, y0, x1, y1 = floats[b], floats[b + 1], floats[b + 2], floats[b + 3]
        if kind == SWITCH:
            if y0 <= f[F_Y] <= y1:
                if prev_x < x0 <= f[F_X]:
                    s[S_LAYER] = ints[ints[I_SWITCH_RIGHT] + i]
                elif f[F_X] < x0 <= prev_x:
                    s[S_LAYER] = ints[ints[I_SWITCH_LEFT] + i]
            continue
        if kind == ENEMY:
            if enemy_gone(st, gone, i):
                continue
            ex, ey = enemy_position(st, i, frame)
            if (px1 < ex - ENEMY_HALF_WIDTH or px0 > ex + ENEMY_HALF_WIDTH
                    or py1 < ey - ENEMY_HALF_HEIGHT
                    or py0 > ey + ENEMY_HALF_HEIGHT):
                continue
            enemy_kind = ints[ints[I_ENEMY_KIND] + i]
            if in_ball(s):
                gone[ints[I_NUM_RINGS] + i] = 1
                n = add_event(ev, n, EV_ENEMY, enemy_kind, ex, ey)
                if not s[S_ON_GROUND] and f[F_Y_VEL] > 0.0:
                    f[F_Y_VEL] = -f[F_Y_VEL]
            else:
                n = hurt_player(f, s, ex, enemy_kind, ev, n)
            continue
        if px1 < x0 or px0 > x1 or py1 < y0 or py0 > y1:
            continue
        if kind == RING:
            if not gone[i]:
                gone[i] = 1
                s[S_RINGS] += 1
                s[S_RINGS_COLLECTED] += 1
                n = add_event(ev, n, EV_RING, floats[ints[I_RING_X] + i],
                              floats[ints[I_RING_Y] + i], 0.0)
        elif kind == SPRING:
            n = _spring(st, f, s, i, ev, n)
        elif kind == SPIKES:
            n = hurt_player(f, s, (x0 + x1) / 2, SOURCE_SPIKES, ev, n)
        elif kind == CHECKPOINT:
            k = checkpoint_slot(st, i)
            if not gone[k]:
                gone[k] = 1
                n = add_event(ev, n, EV_CHECKPOINT, floats[ints[I_CHECKPOINT_X] + i],
                              floats[ints[I_CHECKPOINT_Y] + i], 0.0)
        if s[S_STATE] == DEAD:
            return n
    return n


@frame_jit
def _spring(st, f, s, i, ev, n):
    ints, floats = st.ints, st.floats
    strength = ints[ints[I_SPRING_STRENGTH] + i]
    speed = SPRING_RED_SPEED if strength == SPRING_RED else SPRING_YELLOW_SPEED
    direction = ints[ints[I_SPRING_DIRECTION] + i]
    if direction == SPRING_UP:
        if f[F_Y_VEL] < 0.0 and not s[S_ON_GROUND]:
            return n
        wr, hr = radii(s)
        if s[S_ROLLING]:
            s[S_ROLLING] = 0
            hr += RADIUS_SHIFT
        f[F_Y] = floats[ints[I_SPRING_Y] + i] - SPRING_HALF_HEIGHT - hr
        f[F_Y_VEL] = -speed
        s[S_ON_GROUND] = 0
        s[S_JUMPING] = 0
        s[S_ANGLE] = 0
        s[S_STATE] = AIRBORNE
    else:
        sign = 1.0 if direction == SPRING_RIGHT else -1.0
        if s[S_ON_GROUND]:
            f[F_GROUND_SPEED] = sign * speed
            s[S_CONTROL_LOCK] = SIDE_SPRING_LOCK_FRAMES
        f[F_X_VEL] = sign * speed
        s[S_FACING_RIGHT] = 1 if sign > 0 else 0
        wr, _ = radii(s)
        f[F_X] = floats[ints[I_SPRING_X] + i] + sign * (SPRING_HALF_WIDTH + wr + 1)
    return add_event(ev, n, EV_SPRING, direction, strength, 0.0)

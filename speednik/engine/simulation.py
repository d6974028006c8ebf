"""`sim_step` (`speednik.simulation`), compiled: one frame of a stage."""
from __future__ import annotations

from speednik.engine.jit import frame_jit
from speednik.engine.layout import (
    EV_DEATH,
    EV_GOAL,
    EV_JUMP,
    F_GROUND_SPEED,
    F_MAX_X,
    F_MAX_X_GAIN,
    F_X,
    F_X_VEL,
    F_Y,
    S_ANGLE,
    S_DEAD,
    S_DEATH_CAUSE,
    S_FRAME,
    S_GOAL_REACHED,
    S_JUMP_HELD,
    S_WITHOUT_GAIN,
    SOURCE_PIT,
)
from speednik.engine.lowering import G_GOAL_X, I_HEIGHT, I_WIDTH
from speednik.engine.objects import add_event, interact, kill_player
from speednik.engine.player import player_update, radii
from speednik.constants import EDGE_MARGIN


@frame_jit
def sim_step(st, f, s, gone, left, right, jump_pressed, jump_held, down_held, ev):
    """Advance one frame; returns how many events it wrote to `ev`."""
    s[S_JUMP_HELD] = 1 if jump_held else 0
    if s[S_DEAD]:
        f[F_MAX_X_GAIN] = 0.0
        s[S_WITHOUT_GAIN] += 1
        return add_event(ev, 0, EV_DEATH, s[S_DEATH_CAUSE], 0.0, 0.0)
    if s[S_GOAL_REACHED]:
        f[F_MAX_X_GAIN] = 0.0
        s[S_WITHOUT_GAIN] += 1
        return 0
    n = 0
    prev_x = f[F_X]
    if player_update(st, f, s, left, right, jump_pressed, jump_held, down_held):
        n = add_event(ev, n, EV_JUMP, f[F_X], f[F_Y], 0.0)

    if f[F_X] < EDGE_MARGIN:
        f[F_X] = EDGE_MARGIN
        if f[F_X_VEL] < 0.0:
            f[F_X_VEL] = 0.0
        if f[F_GROUND_SPEED] < 0.0 and (s[S_ANGLE] <= 32 or s[S_ANGLE] >= 224):
            f[F_GROUND_SPEED] = 0.0
    elif f[F_X] > st.ints[I_WIDTH] - EDGE_MARGIN:
        f[F_X] = st.ints[I_WIDTH] - EDGE_MARGIN
        if f[F_X_VEL] > 0.0:
            f[F_X_VEL] = 0.0
        if f[F_GROUND_SPEED] > 0.0 and (s[S_ANGLE] <= 32 or s[S_ANGLE] >= 224):
            f[F_GROUND_SPEED] = 0.0

    n = interact(st, f, s, gone, s[S_FRAME], prev_x, ev, n)

    if not s[S_DEAD] and f[F_Y] - radii(s)[1] > st.ints[I_HEIGHT]:
        n = kill_player(s, SOURCE_PIT, ev, n)

    s[S_FRAME] += 1
    if f[F_X] > f[F_MAX_X]:
        f[F_MAX_X_GAIN] = f[F_X] - f[F_MAX_X]
        f[F_MAX_X] = f[F_X]
        s[S_WITHOUT_GAIN] = 0
    else:
        f[F_MAX_X_GAIN] = 0.0
        s[S_WITHOUT_GAIN] += 1
    if not s[S_DEAD] and f[F_X] >= st.floats[G_GOAL_X]:
        s[S_GOAL_REACHED] = 1
        n = add_event(ev, n, EV_GOAL, s[S_FRAME], 0.0, 0.0)
    return n

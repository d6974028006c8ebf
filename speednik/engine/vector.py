"""Many episodes stepped one decision each in one call: the compiled
kernel of `speednik.vector_env`.

Each environment of the batch is a row of every state array: the
simulation's `f` and `s` (`layout`), what is gone, the flights of its
observation (`observation.flight_scratch`, one array per field with a
row per environment), the reward's state (`reward`) and a few integers
of its own (`ctrl`: the stage slot it plays, the slot drawn for its next
episode, whether jump was held, its steps, whether it waits for a reset).

A step plays, for every environment, the frames of its decision (the
action held for `repeat` frames, with jump edge detection as
`speednik.actions.action_to_input` does it) and ends its episode as the
Gymnasium environment does: terminated on the goal or a death,
truncated after `max_steps` frames or, where asked, `stall_frames`
frames without a new best x. The reward is the sum over those frames of
`reward.reward_step`, added in frame order; the observation is the one
after the last frame. Everything is in the order `SpeednikEnv.step`
computes it, so the numbers are the same.

Compiled without threads and without the GIL (`nogil`): a caller may
step disjoint slices of the batch on threads of its own.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from speednik.actions import NUM_ACTIONS
from speednik.engine.buttons import BUTTON_DOWN, BUTTON_JUMP, BUTTON_LEFT, BUTTON_RIGHT
from speednik.engine.layout import (
    F_MAX_X,
    F_MAX_X_GAIN,
    F_X,
    F_X_VEL,
    F_Y,
    S_DEAD,
    S_DEATHS,
    S_FRAME,
    S_GOAL_REACHED,
    S_RINGS_COLLECTED,
    S_WITHOUT_GAIN,
)
from speednik.engine.lowering import I_WIDTH
from speednik.engine.observation import OBSERVATION_KINDS, observe, observer
from speednik.engine.reward import R_SUMS, reward_reset, reward_step
from speednik.engine.simulation import sim_step

# Columns of `ctrl`, an environment's own integers.
C_SLOT = 0       # the stage slot its episode plays
C_NEXT = 1       # the stage slot its next episode plays
C_HELD = 2       # jump held on the last frame (1) or not (0)
C_STEPS = 3      # frames played since its reset
C_PENDING = 4    # 1: its episode ended and the next step resets it (next-step mode)
NUM_C = 5

# The entries of `config`.
K_MODE = 0       # AUTORESET_*
K_MAX_STEPS = 1
K_STALL = 2      # frames without a new best x that truncate (huge: never)
K_REPEAT = 3     # frames a decision is held for
NUM_K = 4

# Autoreset modes (gymnasium.vector.AutoresetMode).
AUTORESET_NEXT_STEP = 0
AUTORESET_SAME_STEP = 1
AUTORESET_DISABLED = 2

# Columns of the info arrays (a row per environment): SpeednikEnv's
# info, floats then integers.
INFO_FLOAT_KEYS = ("x", "y", "max_x")
INFO_INT_KEYS = ("frame", "rings", "deaths", "goal_reached")

# What `step_envs` returns when every action was in range.
ACTIONS_OK = -1


@njit(cache=True, nogil=True)
def _start(i, stages, start_f, start_s, ctrl, f, s, gone, flights, rstate):
    """Environment i starts the episode of its drawn slot."""
    slot = ctrl[i, C_NEXT]
    ctrl[i, C_SLOT] = slot
    ctrl[i, C_HELD] = 0
    ctrl[i, C_STEPS] = 0
    ctrl[i, C_PENDING] = 0
    f[i, :] = start_f[slot]
    s[i, :] = start_s[slot]
    gone[i, :] = 0
    # What the flights remember (flight_scratch starts them at zero).
    flights[4][i, :, :] = 0.0
    flights[7][i, :, :] = 0.0
    reward_reset(rstate[i], s[i, S_DEAD] != 0, len(rstate[i]) - R_SUMS)


@njit(cache=True, nogil=True)
def _observe(i, stages, ctrl, f, s, gone, flights, obs_kind, scratch, obs, info_f, info_i):
    """Environment i's observation into obs[i] and its info into row i
    of the info arrays."""
    fi = f[i]
    si = s[i]
    observe(obs_kind, stages[ctrl[i, C_SLOT]], fi, si, gone[i], scratch[i],
            (flights[0][i], flights[1][i], flights[2][i], flights[3][i], flights[4][i],
             flights[5][i], flights[6][i], flights[7][i]))
    for k in range(obs.shape[1]):
        obs[i, k] = scratch[i, k]
    info_f[i, 0] = fi[F_X]
    info_f[i, 1] = fi[F_Y]
    info_f[i, 2] = fi[F_MAX_X]
    info_i[i, 0] = si[S_FRAME]
    info_i[i, 1] = si[S_RINGS_COLLECTED]
    info_i[i, 2] = si[S_DEATHS]
    info_i[i, 3] = si[S_GOAL_REACHED]


@lru_cache(maxsize=None)
def stepper(obs_kind: int):
    """`step_envs` for observation `obs_kind` (an index of
    `observation.OBSERVATION_KINDS`), compiled for it alone:
    `stepper(obs_kind)(stages, start_f, ..., final_info_i)` takes
    `step_envs`'s arguments after the kind."""
    observer(obs_kind)

    def step(stages, start_f, start_s, ctrl, f, s, gone, flights, rstate, scratch, events,
             reward_ids, reward_weights, reward_constant, config, stepping, actions,
             reset_mask, obs, rewards, terminated, truncated, started, info_f, info_i,
             final_obs, final_info_f, final_info_i):
        return step_envs(obs_kind, stages, start_f, start_s, ctrl, f, s, gone, flights,
                         rstate, scratch, events, reward_ids, reward_weights,
                         reward_constant, config, stepping, actions, reset_mask, obs,
                         rewards, terminated, truncated, started, info_f, info_i,
                         final_obs, final_info_f, final_info_i)

    # Its own name, so its machine code has cache files of its own.
    step.__qualname__ = f"step_envs_{OBSERVATION_KINDS[obs_kind]}"
    return njit(cache=True, nogil=True)(step)


@njit(cache=True, nogil=True)
def step_envs(obs_kind, stages, start_f, start_s, ctrl, f, s, gone, flights, rstate, scratch, events,
              reward_ids, reward_weights, reward_constant, config, stepping, actions,
              reset_mask, obs, rewards, terminated, truncated, started, info_f, info_i,
              final_obs, final_info_f, final_info_i):
    """One call for the whole batch (`obs_kind` a compile-time constant:
    called through `stepper`).

    Environments with `reset_mask` set start the episode of their drawn
    slot (`C_NEXT`); so does, in next-step mode, one whose episode ended
    on the last step. When `stepping`, every other environment plays its
    action; otherwise it is left as it is. `started` says which
    environments started an episode; in same-step mode an episode that
    ends is followed at once by the next, its last observation and info
    kept in the `final_` rows. Returns ACTIONS_OK, or the index of the
    first action out of range (then nothing is played)."""
    n = len(ctrl)
    if stepping:
        for i in range(n):
            if actions[i] < 0 or actions[i] >= NUM_ACTIONS:
                return i
    mode = config[K_MODE]
    max_steps = config[K_MAX_STEPS]
    stall_frames = config[K_STALL]
    repeat = config[K_REPEAT]
    for i in range(n):
        if reset_mask[i] or (stepping and mode == AUTORESET_NEXT_STEP and ctrl[i, C_PENDING]):
            _start(i, stages, start_f, start_s, ctrl, f, s, gone, flights, rstate)
            _observe(i, stages, ctrl, f, s, gone, flights, obs_kind, scratch, obs,
                     info_f, info_i)
            rewards[i] = 0.0
            terminated[i] = False
            truncated[i] = False
            started[i] = True
            continue
        started[i] = False
        if not stepping:
            continue
        st = stages[ctrl[i, C_SLOT]]
        fi = f[i]
        si = s[i]
        gi = gone[i]
        ri = rstate[i]
        ev = events[i]
        width = st.ints[I_WIDTH]
        action = actions[i]
        left = BUTTON_LEFT[action]
        right = BUTTON_RIGHT[action]
        down = BUTTON_DOWN[action]
        jump = BUTTON_JUMP[action]
        held = ctrl[i, C_HELD] != 0
        steps = ctrl[i, C_STEPS]
        total = 0.0
        term = False
        trunc = False
        for _ in range(repeat):
            pressed = jump and not held
            held = jump
            rings_before = si[S_RINGS_COLLECTED]
            goal_before = si[S_GOAL_REACHED]
            count = sim_step(st, fi, si, gi, left, right, pressed, jump, down, ev)
            total += reward_step(reward_ids, reward_weights, reward_constant, max_steps,
                                 width, ri, fi[F_MAX_X_GAIN], fi[F_X_VEL], count,
                                 si[S_RINGS_COLLECTED] - rings_before,
                                 si[S_GOAL_REACHED] != 0 and goal_before == 0,
                                 si[S_DEAD] != 0)
            steps += 1
            term = si[S_GOAL_REACHED] != 0 or si[S_DEAD] != 0
            trunc = steps >= max_steps or si[S_WITHOUT_GAIN] >= stall_frames
            if term or trunc:
                break
        ctrl[i, C_HELD] = 1 if held else 0
        ctrl[i, C_STEPS] = steps
        rewards[i] = total
        terminated[i] = term
        truncated[i] = trunc
        _observe(i, stages, ctrl, f, s, gone, flights, obs_kind, scratch, obs, info_f, info_i)
        if term or trunc:
            if mode == AUTORESET_NEXT_STEP:
                ctrl[i, C_PENDING] = 1
            elif mode == AUTORESET_SAME_STEP:
                final_obs[i, :] = obs[i]
                final_info_f[i, :] = info_f[i]
                final_info_i[i, :] = info_i[i]
                _start(i, stages, start_f, start_s, ctrl, f, s, gone, flights, rstate)
                _observe(i, stages, ctrl, f, s, gone, flights, obs_kind, scratch, obs,
                         info_f, info_i)
                started[i] = True
    return ACTIONS_OK

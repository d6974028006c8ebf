"""Whole episodes of policies in compiled code: the loop of
`runners.episode.EpisodeRunner.run_episode`, and a batch of them spread
over threads.

An episode starts from a stage's initial state arrays, asks the policy
for an action every `repeat` frames, turns it into buttons with jump edge
detection, steps the simulation, adds the reward, and ends on the goal,
death, a stall or `max_steps`, checked in the runner's order.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit, prange

from speednik.actions import NUM_ACTIONS
from speednik.engine.layout import (
    DONE_DEATH,
    DONE_GOAL,
    DONE_STALLED,
    DONE_TIMEOUT,
    EVENT_WIDTH,
    F_MAX_X,
    F_MAX_X_GAIN,
    F_X,
    F_X_VEL,
    F_Y,
    MAX_EVENTS,
    S_DEAD,
    S_DEATH_CAUSE,
    S_DEATHS,
    S_FRAME,
    S_GOAL_REACHED,
    S_RINGS_COLLECTED,
    S_WITHOUT_GAIN,
)
from speednik.engine.buttons import BUTTON_DOWN, BUTTON_JUMP, BUTTON_LEFT, BUTTON_RIGHT
from speednik.engine.lowering import I_NUM_CHECKPOINTS, I_NUM_ENEMIES, I_NUM_RINGS, I_WIDTH
from speednik.engine.observation import (OBS_WIDEST, OBSERVATION_KINDS, flight_scratch, observe,
                                         observer)
from speednik.engine.policy import act
from speednik.engine.reward import R_SUMS, reward_reset, reward_step
from speednik.engine.simulation import sim_step


# Columns of an episode's float results ...
R_TOTAL = 0
R_MAX_X = 1
R_FINAL_X = 2
R_FINAL_Y = 3
NUM_FLOAT_RESULTS = 4
# ... and of its integer results.
R_FRAMES = 0
R_DONE = 1
R_RINGS = 2
R_GOAL = 3
R_SIM_FRAME = 4
R_DEATHS = 5
R_DEATH_CAUSE = 6    # a layout.SOURCES index, NO_CAUSE when the player lives
NUM_INT_RESULTS = 7


@njit(cache=True)
def run_episode(st, f0, s0, policy, params, obs_kind, obs_size,
                reward_ids, reward_weights, reward_constant,
                max_steps, stall_frames, repeat, out_f, out_i, out_sums):
    """One episode; results into `out_f`, `out_i` and the per-component
    reward sums into `out_sums`."""
    f = f0.copy()
    s = s0.copy()
    ints = st.ints
    gone = np.zeros(ints[I_NUM_RINGS] + ints[I_NUM_ENEMIES] + ints[I_NUM_CHECKPOINTS],
                    np.uint8)
    ev = np.empty((MAX_EVENTS, EVENT_WIDTH), np.float64)
    obs = np.empty(OBS_WIDEST, np.float32)
    flights = flight_scratch(f, s)
    # The action scores, then room for a hidden layer (never wider than
    # the parameters); zeros, as a recurrent policy's memory starts.
    scores = np.zeros(NUM_ACTIONS + len(params), np.float64)
    n_components = len(reward_ids)
    rstate = np.empty(R_SUMS + n_components, np.float64)
    reward_reset(rstate, s[S_DEAD] != 0, n_components)

    total = 0.0
    frames = 0
    held = False
    action = 0
    left = 0
    reason = DONE_TIMEOUT
    while True:
        if left == 0:
            observe(obs_kind, st, f, s, gone, obs, flights)
            action = act(policy, params, obs, obs_size, scores)
            left = repeat
        left -= 1
        jump = BUTTON_JUMP[action]
        pressed = jump and not held
        held = jump
        rings_before = s[S_RINGS_COLLECTED]
        goal_before = s[S_GOAL_REACHED]
        n = sim_step(st, f, s, gone, BUTTON_LEFT[action], BUTTON_RIGHT[action],
                     pressed, jump, BUTTON_DOWN[action], ev)
        total += reward_step(reward_ids, reward_weights, reward_constant,
                             max_steps, ints[I_WIDTH], rstate, f[F_MAX_X_GAIN], f[F_X_VEL],
                             n, s[S_RINGS_COLLECTED] - rings_before,
                             s[S_GOAL_REACHED] != 0 and goal_before == 0,
                             s[S_DEAD] != 0)
        frames += 1
        if n > 0 and (s[S_GOAL_REACHED] or s[S_DEAD]):
            reason = DONE_GOAL if s[S_GOAL_REACHED] else DONE_DEATH
            break
        if s[S_WITHOUT_GAIN] >= stall_frames:
            reason = DONE_STALLED
            break
        if frames >= max_steps:
            break

    out_f[R_TOTAL] = total
    out_f[R_MAX_X] = f[F_MAX_X]
    out_f[R_FINAL_X] = f[F_X]
    out_f[R_FINAL_Y] = f[F_Y]
    out_i[R_FRAMES] = frames
    out_i[R_DONE] = reason
    out_i[R_RINGS] = s[S_RINGS_COLLECTED]
    out_i[R_GOAL] = s[S_GOAL_REACHED]
    out_i[R_SIM_FRAME] = s[S_FRAME]
    out_i[R_DEATHS] = s[S_DEATHS]
    out_i[R_DEATH_CAUSE] = s[S_DEATH_CAUSE]
    for k in range(n_components):
        out_sums[k] = rstate[R_SUMS + k]


@lru_cache(maxsize=None)
def batch_runner(obs_kind: int):
    """`run_batch` compiled for one observation: the only one whose code
    it compiles (its kind is a constant of the closure, which
    `run_episode` and `observe` are specialised on). The policy family is
    chosen as the batch runs (`policy.act`): the four are compiled
    together, in seconds, where each observation takes tens of them.

    `batch_runner(obs_kind)(stages, initial_f, initial_s, episode_stage,
    episode_params, params, policy, obs_size, reward_ids, reward_weights,
    reward_constant, max_steps, stall_frames, repeat, out_f, out_i,
    out_sums)`: episode e plays stage `episode_stage[e]` (an index into
    `stages` and the initial state rows) with parameter row
    `episode_params[e]`. Episodes are independent, so threads may take
    them in any order."""
    observer(obs_kind)

    def run_batch(stages, initial_f, initial_s, episode_stage, episode_params, params,
                  policy, obs_size, reward_ids, reward_weights, reward_constant, max_steps,
                  stall_frames, repeat, out_f, out_i, out_sums):
        for e in prange(len(episode_stage)):
            k = episode_stage[e]
            run_episode(stages[k], initial_f[k], initial_s[k], policy,
                        params[episode_params[e]], obs_kind, obs_size,
                        reward_ids, reward_weights, reward_constant,
                        max_steps, stall_frames, repeat,
                        out_f[e], out_i[e], out_sums[e])

    # Its own name, so its machine code has cache files of its own.
    run_batch.__qualname__ = f"run_batch_{OBSERVATION_KINDS[obs_kind]}"
    return njit(cache=True, parallel=True)(run_batch)

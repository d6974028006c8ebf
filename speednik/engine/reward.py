"""The composite reward (`speednik.reward`), compiled, for the weights
of `make_reward`: the components in the composition's order, a zero
weight left out, state terms every frame and event terms only on frames
with events, summed in the same order as `CompositeReward.step`."""
from __future__ import annotations

import numpy as np

from speednik.constants import MAX_X_SPEED
from speednik.engine.jit import frame_jit
from speednik.reward import REWARD_COMPONENTS, GoalReward

REWARD_NAMES = tuple(REWARD_COMPONENTS)
PROGRESS = REWARD_NAMES.index("progress")
SPEED = REWARD_NAMES.index("speed")
GOAL = REWARD_NAMES.index("goal")
DEATH = REWARD_NAMES.index("death")
RING = REWARD_NAMES.index("ring")
TIME = REWARD_NAMES.index("time")
GOAL_BASE = float(GoalReward().base)
GOAL_TIME_BONUS = float(GoalReward().time_bonus)

# Per-episode reward state, in one float64 array: whether the death was
# counted, the steps, then one running sum per component of the
# composition.
R_DEAD = 0
R_STEPS = 1
R_SUMS = 2


@frame_jit
def reward_reset(state, dead, n_components):
    state[R_DEAD] = 1.0 if dead else 0.0
    state[R_STEPS] = 0.0
    for k in range(n_components):
        state[R_SUMS + k] = 0.0


@frame_jit
def reward_step(ids, weights, constant, max_steps, width, state, max_x_gain, x_vel,
                n_events, rings_gained, goal_event, death_event):
    """The reward of the frame just simulated."""
    state[R_STEPS] += 1.0
    step = int(state[R_STEPS])
    total = constant
    for k in range(len(ids)):
        w = weights[k]
        if w == 0.0:
            continue
        c = ids[k]
        v = 0.0
        if c == PROGRESS:
            if max_x_gain:
                v = max_x_gain * (w / width)
        elif c == SPEED:
            v = (x_vel if x_vel >= 0.0 else -x_vel) * (w / MAX_X_SPEED)
        else:
            continue
        if v != 0.0:
            state[R_SUMS + k] += v
            total += v
    if n_events > 0:
        for k in range(len(ids)):
            w = weights[k]
            if w == 0.0:
                continue
            c = ids[k]
            v = 0.0
            if c == GOAL:
                if goal_event:
                    left = 1.0 - step / max_steps
                    v = w * (GOAL_BASE + GOAL_TIME_BONUS * (left if left > 0.0 else 0.0))
            elif c == DEATH:
                if state[R_DEAD] == 0.0 and death_event:
                    state[R_DEAD] = 1.0
                    v = -w
            elif c == RING:
                v = rings_gained * w
            else:
                continue
            if v != 0.0:
                state[R_SUMS + k] += v
                total += v
    return total


def reward_arrays(weights) -> tuple[np.ndarray, np.ndarray, float]:
    """(component ids, weights, constant per-frame value) of a composition
    given as (name, weight) pairs, as `make_reward` builds it."""
    ids = np.array([REWARD_NAMES.index(name) for name, _ in weights], dtype=np.int64)
    w = np.array([float(v) for _, v in weights], dtype=np.float64)
    # As CompositeReward sums its live constant terms (`sum` starts at 0).
    constant = sum(-float(v) for name, v in weights if name == "time" and v != 0.0)
    return ids, w, float(constant)

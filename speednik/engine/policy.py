"""Policies the engine runs inside compiled code: one genome row of
float64 parameters and an observation in, an action out.

A policy family is a kind number, a parameter count and an `act`
branch; `runners.linear.LinearPolicy` is the readable twin of the linear
one. Scores are summed term by term in a fixed order (the bias first,
then each weight times its observation value), in float64, so both
engines choose the same action bit for bit.
"""
from __future__ import annotations

import math

from speednik.actions import NUM_ACTIONS
from speednik.engine.jit import frame_jit

POLICY_LINEAR = 0
POLICY_KINDS = ("linear",)


def linear_size(obs_dim: int) -> int:
    """Parameters of a linear policy: NUM_ACTIONS x obs_dim weights, row
    by row, then one bias per action."""
    return NUM_ACTIONS * obs_dim + NUM_ACTIONS


@frame_jit
def argmax(scores):
    """The first highest score (numpy's argmax: a NaN wins, first one)."""
    best = 0
    if math.isnan(scores[0]):
        return 0
    for a in range(1, len(scores)):
        v = scores[a]
        if math.isnan(v):
            return a
        if v > scores[best]:
            best = a
    return best


@frame_jit
def linear_scores(params, obs, n, scores):
    nw = NUM_ACTIONS * n
    for a in range(NUM_ACTIONS):
        acc = params[nw + a]
        row = a * n
        for j in range(n):
            acc += params[row + j] * obs[j]
        scores[a] = acc


@frame_jit
def act(kind, params, obs, n, scores):
    """The action of policy `kind` with `params` on observation `obs`."""
    linear_scores(params, obs, n, scores)
    return argmax(scores)

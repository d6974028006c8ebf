"""Policies the engine runs inside compiled code: one genome row of
float64 parameters and an observation in, an action out.

A policy family is a kind number, a parameter count and an `act`
branch; `runners.linear.LinearPolicy` and `runners.mlp.MLPPolicy` are
the readable twins. Scores are summed term by term in a fixed order (the
bias first, then each weight times its input value), in float64, so both
engines choose the same action bit for bit.

The MLP's hidden layer squashes with `soft_tanh`, tanh written as a fixed
rational formula (+, *, / only), so no library's `exp` or `tanh`, which
may round differently from one to another, decides an action.
"""
from __future__ import annotations

import math

from speednik.actions import NUM_ACTIONS
from speednik.engine.jit import frame_jit

POLICY_LINEAR = 0
POLICY_MLP = 1
POLICY_KINDS = ("linear", "mlp")

# Beyond this |x| the rational tanh below is clipped to +-1 (tanh is
# 0.9999 there, and the formula itself passes 1 soon after).
TANH_CLIP = 4.97


def linear_size(obs_dim: int) -> int:
    """Parameters of a linear policy: NUM_ACTIONS x obs_dim weights, row
    by row, then one bias per action."""
    return NUM_ACTIONS * obs_dim + NUM_ACTIONS


def mlp_size(obs_dim: int, hidden: int) -> int:
    """Parameters of a one-hidden-layer policy: hidden x obs_dim weights
    row by row and one bias per hidden unit, then NUM_ACTIONS x hidden
    weights row by row and one bias per action."""
    return hidden * obs_dim + hidden + NUM_ACTIONS * hidden + NUM_ACTIONS


@frame_jit
def mlp_hidden(obs_dim, size):
    """The hidden width a parameter vector of `size` numbers implies."""
    return (size - NUM_ACTIONS) // (obs_dim + 1 + NUM_ACTIONS)


@frame_jit
def soft_tanh(x):
    """tanh(x) by Lambert's continued fraction cut after seven terms,
    clipped to [-1, 1]: within 1e-6 of tanh for |x| < 3 and 1e-4 beyond,
    and
    the same bits wherever IEEE arithmetic runs (numpy's elementwise
    operations and Numba's give the same result for + * /)."""
    if x >= TANH_CLIP:
        return 1.0
    if x <= -TANH_CLIP:
        return -1.0
    x2 = x * x
    num = x * (135135.0 + x2 * (17325.0 + x2 * (378.0 + x2)))
    den = 135135.0 + x2 * (62370.0 + x2 * (3150.0 + x2 * 28.0))
    t = num / den
    if t > 1.0:
        return 1.0
    if t < -1.0:
        return -1.0
    return t


@frame_jit
def argmax(scores):
    """The first highest of the first NUM_ACTIONS scores (numpy's argmax:
    a NaN wins, first one)."""
    best = 0
    if math.isnan(scores[0]):
        return 0
    for a in range(1, NUM_ACTIONS):
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
def mlp_scores(params, obs, n, scores):
    """Hidden unit i: soft_tanh(b1[i] + sum_j W1[i, j] * obs[j]), kept in
    scores[NUM_ACTIONS + i]; then each action's score from the hidden
    values as the linear policy sums them."""
    h = mlp_hidden(n, len(params))
    nw1 = h * n
    for i in range(h):
        acc = params[nw1 + i]
        row = i * n
        for j in range(n):
            acc += params[row + j] * obs[j]
        scores[NUM_ACTIONS + i] = soft_tanh(acc)
    base = nw1 + h
    nw2 = NUM_ACTIONS * h
    for a in range(NUM_ACTIONS):
        acc = params[base + nw2 + a]
        row = base + a * h
        for i in range(h):
            acc += params[row + i] * scores[NUM_ACTIONS + i]
        scores[a] = acc


@frame_jit
def act(kind, params, obs, n, scores):
    """The action of policy `kind` with `params` on observation `obs`;
    `scores` holds at least NUM_ACTIONS numbers, plus the hidden layer's
    for an MLP."""
    if kind == POLICY_MLP:
        mlp_scores(params, obs, n, scores)
    else:
        linear_scores(params, obs, n, scores)
    return argmax(scores)

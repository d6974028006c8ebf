"""Policies the engine runs inside compiled code: one genome row of
float64 parameters and an observation in, an action out.

A policy family is a kind number, a parameter count and an `act`
branch; `runners.linear.LinearPolicy`, `runners.mlp.MLPPolicy`,
`runners.rnn.RecurrentPolicy` and `runners.neat_net.NeatPolicy` are the
readable twins. The `rnn` family remembers: its hidden values of the
decision before stay in the scratch row `act` is handed, which the
episode loop zeroes when an episode starts. Scores are summed
term by term in a fixed order (the bias first, then each weight times its
input value), in float64, so both engines choose the same action bit for
bit.

The MLP's hidden layer squashes with `soft_tanh`, tanh written as a fixed
rational formula (+, *, / only), so no library's `exp` or `tanh`, which
may round differently from one to another, decides an action. A `neat`
network (`speednik.neat_genome`: its parameter row says its own shape)
uses it too, beside activations that are exact (relu, identity, clamp).
A `gp` program (`speednik.gp_program`) is interpreted node by node: its
arithmetic is + - * / and comparisons on float64, so it is exact too.
"""
from __future__ import annotations

import math

from speednik.actions import NUM_ACTIONS
from speednik.engine.jit import frame_jit
from speednik.gp_program import (
    HEADER as GP_HEADER,
    NODE_WIDTH as GP_NODE_WIDTH,
    OP_ACTION,
    OP_ADD,
    OP_AND,
    OP_DIV,
    OP_GT,
    OP_IF,
    OP_INPUT,
    OP_LT,
    OP_MUL,
    OP_NOT,
    OP_OR,
    OP_SUB,
)
from speednik.neat_genome import (
    ACT_CLAMPED,
    ACT_RELU,
    ACT_SOFT_TANH,
    CONNECTION_WIDTH,
    HEADER,
    NODE_WIDTH,
)

POLICY_LINEAR = 0
POLICY_MLP = 1
POLICY_NEAT = 2
POLICY_GP = 3
POLICY_RNN = 4
POLICY_KINDS = ("linear", "mlp", "neat", "gp", "rnn")

# The action scores are summed four at a time (`mlp_scores`, `rnn_scores`).
assert NUM_ACTIONS % 4 == 0

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


def rnn_size(obs_dim: int, hidden: int) -> int:
    """Parameters of a recurrent policy: the MLP's hidden weights and
    biases, then hidden x hidden weights from the hidden values of the
    decision before, row by row, then the action weights and biases."""
    return hidden * obs_dim + hidden + hidden * hidden + NUM_ACTIONS * hidden + NUM_ACTIONS


@frame_jit
def rnn_hidden(obs_dim, size):
    """The hidden width a recurrent parameter vector of `size` numbers
    implies (`rnn_size` grows with the width, so the first that reaches
    it)."""
    h = 1
    while h * (obs_dim + 1 + h + NUM_ACTIONS) + NUM_ACTIONS < size:
        h += 1
    return h


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
    values as the linear policy sums them.

    Four hidden units (and then four actions) are summed side by side,
    each in its own order: the processor overlaps their additions, where
    one sum alone waits on each addition before the next, and each sum
    gets the same bits as alone."""
    h = mlp_hidden(n, len(params))
    nw1 = h * n
    i = 0
    while i + 4 <= h:
        r0 = i * n
        r1 = r0 + n
        r2 = r1 + n
        r3 = r2 + n
        a0 = params[nw1 + i]
        a1 = params[nw1 + i + 1]
        a2 = params[nw1 + i + 2]
        a3 = params[nw1 + i + 3]
        for j in range(n):
            o = obs[j]
            a0 += params[r0 + j] * o
            a1 += params[r1 + j] * o
            a2 += params[r2 + j] * o
            a3 += params[r3 + j] * o
        scores[NUM_ACTIONS + i] = soft_tanh(a0)
        scores[NUM_ACTIONS + i + 1] = soft_tanh(a1)
        scores[NUM_ACTIONS + i + 2] = soft_tanh(a2)
        scores[NUM_ACTIONS + i + 3] = soft_tanh(a3)
        i += 4
    while i < h:
        acc = params[nw1 + i]
        row = i * n
        for j in range(n):
            acc += params[row + j] * obs[j]
        scores[NUM_ACTIONS + i] = soft_tanh(acc)
        i += 1
    base = nw1 + h
    nw2 = NUM_ACTIONS * h
    for a in range(0, NUM_ACTIONS, 4):
        r0 = base + a * h
        r1 = r0 + h
        r2 = r1 + h
        r3 = r2 + h
        a0 = params[base + nw2 + a]
        a1 = params[base + nw2 + a + 1]
        a2 = params[base + nw2 + a + 2]
        a3 = params[base + nw2 + a + 3]
        for i in range(h):
            v = scores[NUM_ACTIONS + i]
            a0 += params[r0 + i] * v
            a1 += params[r1 + i] * v
            a2 += params[r2 + i] * v
            a3 += params[r3 + i] * v
        scores[a] = a0
        scores[a + 1] = a1
        scores[a + 2] = a2
        scores[a + 3] = a3


@frame_jit
def rnn_scores(params, obs, n, scores):
    """Hidden unit i: soft_tanh(b1[i] + sum_j W1[i, j] * obs[j] + sum_k
    U[i, k] * before[k]), where `before` is the hidden layer of the
    decision before (zeros at an episode's start), kept in
    scores[NUM_ACTIONS + h:NUM_ACTIONS + 2h]; the new values go to
    scores[NUM_ACTIONS:NUM_ACTIONS + h] and then over `before`, and each
    action's score is summed from them as the MLP's is. Each sum runs
    left to right, the observation's terms before the memory's; four
    units are summed side by side, as `mlp_scores` does. The blocks are
    written out in both: put in shared functions that return their four
    sums, they cost the MLP a seventh of its frame rate."""
    h = rnn_hidden(n, len(params))
    nw1 = h * n
    nu = nw1 + h
    before = NUM_ACTIONS + h
    i = 0
    while i < h:
        if i + 4 <= h:
            r0 = i * n
            r1 = r0 + n
            r2 = r1 + n
            r3 = r2 + n
            a0 = params[nw1 + i]
            a1 = params[nw1 + i + 1]
            a2 = params[nw1 + i + 2]
            a3 = params[nw1 + i + 3]
            for j in range(n):
                o = obs[j]
                a0 += params[r0 + j] * o
                a1 += params[r1 + j] * o
                a2 += params[r2 + j] * o
                a3 += params[r3 + j] * o
            r0 = nu + i * h
            r1 = r0 + h
            r2 = r1 + h
            r3 = r2 + h
            for k in range(h):
                m = scores[before + k]
                a0 += params[r0 + k] * m
                a1 += params[r1 + k] * m
                a2 += params[r2 + k] * m
                a3 += params[r3 + k] * m
            scores[NUM_ACTIONS + i] = soft_tanh(a0)
            scores[NUM_ACTIONS + i + 1] = soft_tanh(a1)
            scores[NUM_ACTIONS + i + 2] = soft_tanh(a2)
            scores[NUM_ACTIONS + i + 3] = soft_tanh(a3)
            i += 4
        else:
            acc = params[nw1 + i]
            row = i * n
            for j in range(n):
                acc += params[row + j] * obs[j]
            row = nu + i * h
            for k in range(h):
                acc += params[row + k] * scores[before + k]
            scores[NUM_ACTIONS + i] = soft_tanh(acc)
            i += 1
    for i in range(h):
        scores[before + i] = scores[NUM_ACTIONS + i]
    base = nu + h * h
    nw2 = NUM_ACTIONS * h
    for a in range(0, NUM_ACTIONS, 4):
        r0 = base + a * h
        r1 = r0 + h
        r2 = r1 + h
        r3 = r2 + h
        a0 = params[base + nw2 + a]
        a1 = params[base + nw2 + a + 1]
        a2 = params[base + nw2 + a + 2]
        a3 = params[base + nw2 + a + 3]
        for i in range(h):
            v = scores[NUM_ACTIONS + i]
            a0 += params[r0 + i] * v
            a1 += params[r1 + i] * v
            a2 += params[r2 + i] * v
            a3 += params[r3 + i] * v
        scores[a] = a0
        scores[a + 1] = a1
        scores[a + 2] = a2
        scores[a + 3] = a3


@frame_jit
def activation(code, x):
    """Activation `code` of `speednik.neat_genome.ACTIVATIONS` at x."""
    if code == ACT_SOFT_TANH:
        return soft_tanh(x)
    if code == ACT_RELU:
        return x if x > 0.0 else 0.0
    if code == ACT_CLAMPED:
        if x > 1.0:
            return 1.0
        if x < -1.0:
            return -1.0
        return x
    return x


@frame_jit
def neat_scores(params, obs, n, scores):
    """The network of a `neat` parameter row (any zeros after it are
    padding): node k's value, kept in scores[NUM_ACTIONS + k], is its
    activation of its bias plus each incoming weight times its source's
    value, in the listed order; the action scores are the last nodes'.
    Nodes below n are the observation's values."""
    n_outputs = int(params[1])
    n_hidden = int(params[2])
    n_connections = int(params[3])
    nodes = n_hidden + n_outputs
    c = 0
    base = HEADER + NODE_WIDTH * nodes
    for k in range(nodes):
        acc = params[HEADER + NODE_WIDTH * k]
        code = int(params[HEADER + NODE_WIDTH * k + 1])
        while c < n_connections:
            at = base + CONNECTION_WIDTH * c
            if int(params[at + 1]) != n + k:
                break
            source = int(params[at])
            if source < n:
                acc += params[at + 2] * obs[source]
            else:
                acc += params[at + 2] * scores[NUM_ACTIONS + source - n]
            c += 1
        scores[NUM_ACTIONS + k] = activation(code, acc)
    for a in range(NUM_ACTIONS):
        scores[a] = scores[NUM_ACTIONS + n_hidden + a]


@frame_jit
def gp_action(params, obs, stack):
    """The action of the `gp` program in `params` (any zeros after it are
    padding). The prefix row is read from its last node back, so that
    each operator finds its arguments' values on top of `stack` (its
    first argument's on the very top): leaves push, operators pop their
    arguments and push their value; the root's value is the action.
    Both branches of an if_then_else are evaluated (they have no effect
    but their value), and its condition picks one."""
    nodes = int(params[1])
    top = 0
    for k in range(nodes - 1, -1, -1):
        at = GP_HEADER + GP_NODE_WIDTH * k
        op = int(params[at])
        if op == OP_INPUT:
            stack[top] = obs[int(params[at + 1])]
            top += 1
        elif op <= OP_ACTION:
            # A constant, a truth value (0 or 1) or an action's index.
            stack[top] = params[at + 1]
            top += 1
        elif op == OP_NOT:
            stack[top - 1] = 0.0 if stack[top - 1] != 0.0 else 1.0
        elif op == OP_IF:
            condition = stack[top - 1]
            then = stack[top - 2]
            otherwise = stack[top - 3]
            top -= 2
            stack[top - 1] = then if condition != 0.0 else otherwise
        else:
            a = stack[top - 1]
            b = stack[top - 2]
            top -= 1
            if op == OP_ADD:
                v = a + b
            elif op == OP_SUB:
                v = a - b
            elif op == OP_MUL:
                v = a * b
            elif op == OP_DIV:
                v = a / b if b != 0.0 else 1.0
            elif op == OP_LT:
                v = 1.0 if a < b else 0.0
            elif op == OP_GT:
                v = 1.0 if a > b else 0.0
            elif op == OP_AND:
                v = 1.0 if (a != 0.0 and b != 0.0) else 0.0
            elif op == OP_OR:
                v = 1.0 if (a != 0.0 or b != 0.0) else 0.0
            else:
                v = 0.0
            stack[top - 1] = v
    return int(stack[0])


@frame_jit
def act(kind, params, obs, n, scores):
    """The action of policy `kind` with `params` on observation `obs`;
    `scores` holds at least NUM_ACTIONS numbers, plus the hidden layer's
    for an MLP, its two layers (now and the decision before) for an rnn,
    a node's value per two parameters for a neat network or a gp
    program's stack."""
    if kind == POLICY_GP:
        return gp_action(params, obs, scores)
    if kind == POLICY_MLP:
        mlp_scores(params, obs, n, scores)
    elif kind == POLICY_RNN:
        rnn_scores(params, obs, n, scores)
    elif kind == POLICY_NEAT:
        neat_scores(params, obs, n, scores)
    else:
        linear_scores(params, obs, n, scores)
    return argmax(scores)

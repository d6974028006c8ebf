"""Fitting a policy's action scores to examples: softmax cross-entropy,
minimised by Adam over shuffled batches, in numpy.

The policies are those whose genome is a fixed set of weights with the
action chosen by the highest score: "linear" (`W @ obs + b`) and "mlp"
(`W2 @ tanh(W1 @ obs + b1) + b2`). The genome's layout is the family's
(`runners.linear`, `runners.mlp`). The fit uses numpy's tanh where the
policies use `soft_tanh`, a rational formula equal to it within 1e-7
where it matters: the fitted genome is a search's starting point, not a
result that has to be reproduced bit for bit.
"""
from __future__ import annotations

import numpy as np

from runners.mlp import mlp_layers
from speednik.actions import NUM_ACTIONS

# The policy families a fit knows the layout of.
IMITATION_FAMILIES = ("linear", "mlp")
EPOCHS = 20
BATCH = 2048
LEARNING_RATE = 3e-3
# L2 pull towards zero: keeps weights near the scale a search's first
# step (CMA-ES's 0.15) moves them by.
WEIGHT_DECAY = 1e-4
BETAS = (0.9, 0.999)
# The most an example's weight may stand above another's: beyond it a
# handful of examples would be the whole fit.
MAX_BACK_WEIGHT = 100.0


def initial_genome(obs_dim: int, hidden: int | None, rng: np.random.Generator) -> np.ndarray:
    """Random weights of the usual 1/sqrt(fan-in) scale, zero biases."""
    if hidden is None:
        w = rng.normal(0.0, 1.0 / np.sqrt(obs_dim), (NUM_ACTIONS, obs_dim))
        return np.concatenate([w.ravel(), np.zeros(NUM_ACTIONS)])
    w1 = rng.normal(0.0, 1.0 / np.sqrt(obs_dim), (hidden, obs_dim))
    w2 = rng.normal(0.0, 1.0 / np.sqrt(hidden), (NUM_ACTIONS, hidden))
    return np.concatenate([w1.ravel(), np.zeros(hidden), w2.ravel(), np.zeros(NUM_ACTIONS)])


def _views(genome: np.ndarray, obs_dim: int, hidden: int | None) -> list[np.ndarray]:
    """The genome's layers as views, so that updating them updates it."""
    if hidden is None:
        nw = NUM_ACTIONS * obs_dim
        return [genome[:nw].reshape(NUM_ACTIONS, obs_dim), genome[nw:]]
    return list(mlp_layers(genome, hidden, obs_dim))


def scores(genome: np.ndarray, x: np.ndarray, hidden: int | None) -> np.ndarray:
    """The action scores of a batch of observations (n x NUM_ACTIONS)."""
    layers = _views(genome, x.shape[1], hidden)
    if hidden is None:
        w, b = layers
        return x @ w.T + b
    w1, b1, w2, b2 = layers
    return np.tanh(x @ w1.T + b1) @ w2.T + b2


def _gradients(layers: list[np.ndarray], x: np.ndarray, y: np.ndarray,
               w_ex: np.ndarray | None, hidden: int | None) -> list[np.ndarray]:
    """Gradients of the mean cross-entropy over the batch, by layer; with
    `w_ex`, each example's term weighted by it."""
    if hidden is None:
        w, b = layers
        h = x
        z = x @ w.T + b
    else:
        w1, b1, w2, b2 = layers
        h = np.tanh(x @ w1.T + b1)
        z = h @ w2.T + b2
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(len(y)), y] -= 1.0
    g = p / len(y) if w_ex is None else p * (w_ex / len(y))[:, None]
    if hidden is None:
        return [g.T @ h + WEIGHT_DECAY * w, g.sum(axis=0)]
    gh = (g @ w2) * (1.0 - h * h)
    return [gh.T @ x + WEIGHT_DECAY * w1, gh.sum(axis=0),
            g.T @ h + WEIGHT_DECAY * w2, g.sum(axis=0)]


def fit_policy(genome: np.ndarray, x: np.ndarray, y: np.ndarray, hidden: int | None,
               rng: np.random.Generator, epochs: int = EPOCHS,
               weights: np.ndarray | None = None) -> np.ndarray:
    """`genome` (a copy) fitted to choose action `y[i]` on observation
    `x[i]`: `epochs` passes over the examples in an order drawn from
    `rng`; with `weights`, example i's error counts `weights[i]` times
    (a weight of 1 for all: the fit without weights)."""
    if len(x) != len(y) or len(y) == 0:
        raise ValueError(f"fitting needs as many actions as observations, at least one; "
                         f"got {len(x)} observations and {len(y)} actions")
    if weights is not None and (len(weights) != len(y) or not np.all(np.asarray(weights) > 0)):
        raise ValueError(f"fitting needs one weight > 0 per example; got {len(weights)} "
                         f"weights for {len(y)} examples")
    w_ex = None if weights is None else np.asarray(weights, dtype=np.float64)
    genome = np.array(genome, dtype=np.float64)
    layers = _views(genome, x.shape[1], hidden)
    first = [np.zeros_like(v) for v in layers]
    second = [np.zeros_like(v) for v in layers]
    b1, b2 = BETAS
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(y))
        for start in range(0, len(y), BATCH):
            batch = order[start:start + BATCH]
            step += 1
            for v, m, s, g in zip(layers, first, second,
                                  _gradients(layers, x[batch], y[batch],
                                             None if w_ex is None else w_ex[batch], hidden)):
                m *= b1
                m += (1 - b1) * g
                s *= b2
                s += (1 - b2) * g * g
                v -= LEARNING_RATE * (m / (1 - b1 ** step)) / (
                    np.sqrt(s / (1 - b2 ** step)) + 1e-8)
    return genome


def accuracy(genome: np.ndarray, x: np.ndarray, y: np.ndarray, hidden: int | None) -> float:
    """The share of examples whose highest score is their action."""
    return float((scores(genome, x, hidden).argmax(axis=1) == y).mean()) if len(y) else 0.0

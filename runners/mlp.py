"""A one-hidden-layer policy: `argmax(W2 @ soft_tanh(W1 @ obs + b1) + b2)`.

Its parameters are one flat float vector: the `hidden x obs_dim` matrix W1
row by row, the `hidden` biases b1, the `NUM_ACTIONS x hidden` matrix W2
row by row, then the `NUM_ACTIONS` biases b2. Specs
`("mlp", (observation_name, hidden, genome))` build one in any process.

The readable twin of the compiled engine's MLP (`speednik.engine.policy`):
every sum runs in float64 in the engine's fixed order (the bias first,
then each weight times its input, left to right), and `soft_tanh` is the
same rational formula, so both choose the same action bit for bit.
"""
from __future__ import annotations

import numpy as np

from runners.agent import BaseAgent
from runners.linear import checked_genome
from speednik.actions import NUM_ACTIONS
from speednik.observation import get_observation

# The compiled engine's clip (speednik.engine.policy.TANH_CLIP), written
# here again so this module needs no compiled code.
TANH_CLIP = 4.97
MAX_HIDDEN = 4096


def checked_hidden(hidden) -> int:
    """`hidden` as an int, or a ValueError saying what is accepted."""
    if (isinstance(hidden, bool) or not isinstance(hidden, (int, np.integer))
            or not 1 <= hidden <= MAX_HIDDEN):
        raise ValueError(f"hidden must be a whole number from 1 to {MAX_HIDDEN}, "
                         f"got {hidden!r}")
    return int(hidden)


def mlp_genome_size(obs_dim: int, hidden: int) -> int:
    return hidden * obs_dim + hidden + NUM_ACTIONS * hidden + NUM_ACTIONS


def mlp_layers(genome: np.ndarray, hidden: int, obs_dim: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Views of a genome's layers: the hidden weights (hidden x obs_dim)
    and biases, then the action weights (NUM_ACTIONS x hidden) and
    biases, in the order `mlp_genome_size` counts them."""
    nw1 = hidden * obs_dim
    base = nw1 + hidden
    return (genome[:nw1].reshape(hidden, obs_dim), genome[nw1:base],
            genome[base:base + NUM_ACTIONS * hidden].reshape(NUM_ACTIONS, hidden),
            genome[base + NUM_ACTIONS * hidden:])


def soft_tanh(x: np.ndarray) -> np.ndarray:
    """tanh by Lambert's continued fraction cut after seven terms, clipped
    to [-1, 1] (beyond |x| = TANH_CLIP it is +-1): only + * /, each
    rounded once as IEEE says, in the compiled engine's order."""
    x = np.asarray(x, dtype=np.float64)
    inside = np.clip(x, -TANH_CLIP, TANH_CLIP)   # unchanged where it matters
    x2 = inside * inside
    num = inside * (135135.0 + x2 * (17325.0 + x2 * (378.0 + x2)))
    den = 135135.0 + x2 * (62370.0 + x2 * (3150.0 + x2 * 28.0))
    t = np.clip(num / den, -1.0, 1.0)
    t = np.where(x >= TANH_CLIP, 1.0, t)
    return np.where(x <= -TANH_CLIP, -1.0, t)


def _ordered_sums(columns: np.ndarray, bias: np.ndarray, values: np.ndarray) -> np.ndarray:
    """bias + columns[0] * values[0] + columns[1] * values[1] + ..., each
    output summed left to right. A running sum is left to right by
    definition; `np.add.reduce` is not: with one output the column is
    contiguous and numpy sums it pairwise."""
    terms = np.empty((len(values) + 1, len(bias)))
    terms[0] = bias
    np.multiply(columns, np.asarray(values)[:, None], out=terms[1:])
    return np.add.accumulate(terms, axis=0)[-1]


class MLPPolicy(BaseAgent):
    """Acts with the highest score of a one-hidden-layer network (lowest
    index on a tie)."""

    def __init__(self, genome, hidden: int, observation: str = "basic") -> None:
        encoder = get_observation(observation)
        hidden = checked_hidden(hidden)
        expected = mlp_genome_size(encoder.size, hidden)
        genome = checked_genome(
            genome, expected,
            f"an mlp policy with {hidden} hidden units over the {encoder.name!r} "
            f"observation ({encoder.size} values) needs a genome of {expected} "
            f"numbers ({hidden} x {encoder.size} + {hidden} + {NUM_ACTIONS} x "
            f"{hidden} + {NUM_ACTIONS})")
        self.genome = genome
        self.hidden = hidden
        self.observation = encoder.name
        w1, self.b1, w2, self.b2 = mlp_layers(genome, hidden, encoder.size)
        self._w1_columns = np.ascontiguousarray(w1.T)
        self._w2_columns = np.ascontiguousarray(w2.T)

    def hidden_values(self, obs) -> np.ndarray:
        return soft_tanh(_ordered_sums(self._w1_columns, self.b1, obs))

    def get_action(self, obs) -> int:
        h = self.hidden_values(obs)
        return int(_ordered_sums(self._w2_columns, self.b2, h).argmax())

    def reset(self) -> None:
        pass

    def __repr__(self) -> str:
        return (f"MLPPolicy(observation={self.observation!r}, hidden={self.hidden}, "
                f"genome={self.genome.size} numbers)")


def mlp_policy(params: tuple[str, int, np.ndarray]) -> MLPPolicy:
    """Agent factory for `("mlp", (observation_name, hidden, genome))` specs."""
    observation, hidden, genome = params
    return MLPPolicy(genome, hidden, observation)

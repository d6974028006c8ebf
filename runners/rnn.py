"""A recurrent policy: the MLP's hidden layer also reads its own values of
the decision before (an Elman network),

    h_t = soft_tanh(W1 @ obs + b1 + U @ h_(t-1)),  action = argmax(W2 @ h_t + b2),

with h zero when an episode starts. A reactive policy sees only the
present; this one can carry what it was doing (going back for a run-up,
say) from one decision to the next.

Its parameters are one flat float vector: the `hidden x obs_dim` matrix W1
row by row, the `hidden` biases b1, the `hidden x hidden` matrix U row by
row, the `NUM_ACTIONS x hidden` matrix W2 row by row, then the
`NUM_ACTIONS` biases b2. Specs `("rnn", (observation_name, hidden,
genome))` build one in any process.

The readable twin of the compiled engine's `rnn_scores`
(`speednik.engine.policy`): every sum runs in float64 left to right, the
bias first, then the observation's terms, then the memory's, so both
engines choose the same action bit for bit.
"""
from __future__ import annotations

import numpy as np

from runners.agent import BaseAgent
from runners.linear import checked_genome
from runners.mlp import _ordered_sums, checked_hidden, soft_tanh
from speednik.actions import NUM_ACTIONS
from speednik.observation import get_observation


def rnn_genome_size(obs_dim: int, hidden: int) -> int:
    return (hidden * obs_dim + hidden + hidden * hidden + NUM_ACTIONS * hidden
            + NUM_ACTIONS)


def rnn_layout(obs_dim: int, hidden: int) -> str:
    return (f"{hidden} x {obs_dim} + {hidden} + {hidden} x {hidden} + {NUM_ACTIONS} x "
            f"{hidden} + {NUM_ACTIONS}")


def rnn_layers(genome: np.ndarray, hidden: int, obs_dim: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Views of a genome's layers in the order `rnn_genome_size` counts
    them: W1 (hidden x obs_dim), b1, U (hidden x hidden), W2
    (NUM_ACTIONS x hidden), b2."""
    nw1 = hidden * obs_dim
    nu = nw1 + hidden
    base = nu + hidden * hidden
    return (genome[:nw1].reshape(hidden, obs_dim), genome[nw1:nu],
            genome[nu:base].reshape(hidden, hidden),
            genome[base:base + NUM_ACTIONS * hidden].reshape(NUM_ACTIONS, hidden),
            genome[base + NUM_ACTIONS * hidden:])


class RecurrentPolicy(BaseAgent):
    """Acts with the highest score of a one-hidden-layer network whose
    hidden units also read their values of the decision before (lowest
    index on a tie); `reset` forgets them."""

    def __init__(self, genome, hidden: int, observation: str = "basic") -> None:
        encoder = get_observation(observation)
        hidden = checked_hidden(hidden)
        expected = rnn_genome_size(encoder.size, hidden)
        genome = checked_genome(
            genome, expected,
            f"an rnn policy with {hidden} hidden units over the {encoder.name!r} "
            f"observation ({encoder.size} values) needs a genome of {expected} "
            f"numbers ({rnn_layout(encoder.size, hidden)})")
        self.genome = genome
        self.hidden = hidden
        self.observation = encoder.name
        w1, self.b1, u, w2, self.b2 = rnn_layers(genome, hidden, encoder.size)
        # The observation's columns, then the memory's: one left-to-right
        # sum over both, as the compiled loop runs it.
        self._in_columns = np.ascontiguousarray(np.concatenate((w1, u), axis=1).T)
        self._w2_columns = np.ascontiguousarray(w2.T)
        self.memory = np.zeros(hidden)

    def hidden_values(self, obs) -> np.ndarray:
        """The hidden layer for `obs` after the memory held now (which
        this leaves as it is)."""
        values = np.concatenate((np.asarray(obs, np.float64), self.memory))
        return soft_tanh(_ordered_sums(self._in_columns, self.b1, values))

    def get_action(self, obs) -> int:
        self.memory = self.hidden_values(obs)
        return int(_ordered_sums(self._w2_columns, self.b2, self.memory).argmax())

    def reset(self) -> None:
        self.memory = np.zeros(self.hidden)

    def __repr__(self) -> str:
        return (f"RecurrentPolicy(observation={self.observation!r}, hidden={self.hidden}, "
                f"genome={self.genome.size} numbers)")

"""A linear policy: `argmax(W @ obs + b)` over the 8 actions.

Its parameters are one flat float vector (the genome evolution evolves):
the `NUM_ACTIONS x obs_dim` weight matrix row by row, then one bias per
action. It works for any vector observation and remembers which one it
was sized for. Specs `("linear", (observation_name, genome))` build one in
any process, so a genome crosses to a worker as a plain array.
"""
from __future__ import annotations

import numpy as np

from runners.agent import BaseAgent
from speednik.actions import NUM_ACTIONS
from speednik.observation import get_observation


def checked_genome(genome, expected: int, needs: str) -> np.ndarray:
    """`genome` as a flat float64 array of `expected` finite numbers, or a
    ValueError: "<needs> a genome of ..." names what the policy wanted."""
    genome = np.asarray(genome, dtype=np.float64)
    if genome.ndim != 1 or genome.size != expected:
        raise ValueError(f"{needs}, got shape {genome.shape}")
    if not np.all(np.isfinite(genome)):
        raise ValueError("the genome holds NaN or infinite weights")
    return genome


def genome_size(obs_dim: int) -> int:
    return NUM_ACTIONS * obs_dim + NUM_ACTIONS


class LinearPolicy(BaseAgent):
    """Acts with the action of highest score `W @ obs + b` (lowest index on
    a tie, so the choice is exactly reproducible).

    Each score is summed in float64 in one fixed order, the bias first and
    then each weight times its observation value, left to right: the order
    the compiled engine (`speednik.engine.policy`) uses, so both choose the
    same action bit for bit. (A BLAS dot product sums in the library's own
    order, which differs between machines.)"""

    def __init__(self, genome, observation: str = "basic") -> None:
        encoder = get_observation(observation)
        expected = genome_size(encoder.size)
        genome = checked_genome(
            genome, expected,
            f"a linear policy over the {encoder.name!r} observation "
            f"({encoder.size} values) needs a genome of {expected} "
            f"numbers ({NUM_ACTIONS} x {encoder.size} weights + "
            f"{NUM_ACTIONS} biases)")
        self.genome = genome
        self.observation = encoder.name
        n = NUM_ACTIONS * encoder.size
        self.weights = genome[:n].reshape(NUM_ACTIONS, encoder.size)
        self.bias = genome[n:]
        # Row 0 the biases, row 1 + j the weights of observation value j:
        # numpy sums a C-ordered array down its rows (axis 0, not the fast
        # axis) one row after another, which gives every score in the
        # fixed order.
        self._terms = np.empty((encoder.size + 1, NUM_ACTIONS))
        self._terms[0] = self.bias
        self._products = self._terms[1:]
        self._columns = np.ascontiguousarray(self.weights.T)
        self._scores = np.empty(NUM_ACTIONS)

    def get_action(self, obs) -> int:
        np.multiply(self._columns, np.asarray(obs)[:, None], out=self._products)
        return int(np.add.reduce(self._terms, axis=0, out=self._scores).argmax())

    def reset(self) -> None:
        pass

    def __repr__(self) -> str:
        return (f"LinearPolicy(observation={self.observation!r}, "
                f"genome={self.genome.size} numbers)")


def linear_policy(params: tuple[str, np.ndarray]) -> LinearPolicy:
    """Agent factory for `("linear", (observation_name, genome))` specs."""
    observation, genome = params
    return LinearPolicy(genome, observation)



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


def genome_size(obs_dim: int) -> int:
    return NUM_ACTIONS * obs_dim + NUM_ACTIONS


class LinearPolicy(BaseAgent):
    """Acts with the action of highest score `W @ obs + b` (lowest index on
    a tie, so the choice is exactly reproducible)."""

    def __init__(self, genome, observation: str = "basic") -> None:
        encoder = get_observation(observation)
        genome = np.asarray(genome, dtype=np.float64)
        expected = genome_size(encoder.size)
        if genome.ndim != 1 or genome.size != expected:
            raise ValueError(
                f"a linear policy over the {encoder.name!r} observation "
                f"({encoder.size} values) needs a genome of {expected} "
                f"numbers ({NUM_ACTIONS} x {encoder.size} weights + "
                f"{NUM_ACTIONS} biases), got shape {genome.shape}")
        if not np.all(np.isfinite(genome)):
            raise ValueError("the genome holds NaN or infinite weights")
        self.genome = genome
        self.observation = encoder.name
        n = NUM_ACTIONS * encoder.size
        # float32 like the observations: a mixed-type product costs a cast
        # every frame, and this runs on every frame of every episode.
        self.weights = genome[:n].reshape(NUM_ACTIONS, encoder.size).astype(np.float32)
        self.bias = genome[n:].astype(np.float32)

    def get_action(self, obs) -> int:
        return int((self.weights.dot(obs) + self.bias).argmax())

    def reset(self) -> None:
        pass

    def __repr__(self) -> str:
        return (f"LinearPolicy(observation={self.observation!r}, "
                f"genome={self.genome.size} numbers)")


def linear_policy(params: tuple[str, np.ndarray]) -> LinearPolicy:
    """Agent factory for `("linear", (observation_name, genome))` specs."""
    observation, genome = params
    return LinearPolicy(genome, observation)



"""A policy of evolving topology: the feed-forward network a `neat` genome
encodes (`speednik.neat_genome`), then argmax over its action nodes.

The readable twin of the compiled engine's `neat` policy
(`speednik.engine.policy.neat_scores`): nodes are evaluated in the
genome's order, each summing in float64 its bias and then each weight
times its source's value in the listed order, and the activations are
the same formulas (`soft_tanh` the MLP's rational tanh), computed on
Python floats, which are IEEE doubles like the engine's; so both choose
the same action bit for bit. Specs `("neat", (observation_name, genome))`
build one in any process.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from runners.agent import BaseAgent
from runners.mlp import TANH_CLIP
from speednik import neat_genome
from speednik.observation import get_observation


def soft_tanh(x: float) -> float:
    """The MLP's rational tanh on one float, in the compiled engine's
    order of operations."""
    if x >= TANH_CLIP:
        return 1.0
    if x <= -TANH_CLIP:
        return -1.0
    x2 = x * x
    t = (x * (135135.0 + x2 * (17325.0 + x2 * (378.0 + x2)))
         / (135135.0 + x2 * (62370.0 + x2 * (3150.0 + x2 * 28.0))))
    if t > 1.0:
        return 1.0
    if t < -1.0:
        return -1.0
    return t


def relu(x: float) -> float:
    return x if x > 0.0 else 0.0


def identity(x: float) -> float:
    return x


def clamped(x: float) -> float:
    if x > 1.0:
        return 1.0
    if x < -1.0:
        return -1.0
    return x


# By activation code, in `speednik.neat_genome.ACTIVATIONS` order.
ACTIVATION_FUNCTIONS: tuple[Callable[[float], float], ...] = (soft_tanh, relu, identity,
                                                              clamped)


def needs(observation: str) -> str:
    """What a neat policy over `observation` needs, for error messages."""
    encoder = get_observation(observation)
    return (f"a neat policy over the {encoder.name!r} observation ({encoder.size} "
            f"values) needs a genome laid out as {neat_genome.LAYOUT}")


def checked_network(genome, observation: str) -> np.ndarray:
    """`genome` as a float64 array encoding a network over `observation`,
    or one ValueError naming what the policy needs and what is wrong."""
    encoder = get_observation(observation)
    genome = np.asarray(genome, dtype=np.float64)
    found = neat_genome.problem(genome, encoder.size)
    if found is not None:
        raise ValueError(f"{needs(encoder.name)}: {found}")
    return genome


class NeatPolicy(BaseAgent):
    """Acts with the highest action node of the network (lowest index on
    a tie; a NaN wins, the first one, as numpy's argmax has it)."""

    def __init__(self, genome, observation: str = "basic") -> None:
        encoder = get_observation(observation)
        genome = checked_network(genome, encoder.name)
        self.genome = genome
        self.observation = encoder.name
        n_inputs, n_outputs, n_hidden, n_connections = (int(v) for v in genome[:4])
        self.n_inputs = n_inputs
        self.n_hidden = n_hidden
        nodes = n_hidden + n_outputs
        node_part = genome[neat_genome.HEADER:neat_genome.HEADER + 2 * nodes].reshape(nodes, 2)
        links = genome[neat_genome.HEADER + 2 * nodes:].reshape(n_connections, 3)
        incoming: list[list[tuple[int, float]]] = [[] for _ in range(nodes)]
        for source, target, weight in links.tolist():
            incoming[int(target) - n_inputs].append((int(source), weight))
        # (bias, activation, [(source, weight), ...]) per node, in order.
        self._nodes = [(bias, ACTIVATION_FUNCTIONS[int(code)], incoming[k])
                       for k, (bias, code) in enumerate(node_part.tolist())]

    def node_values(self, obs) -> list[float]:
        """Every node's value, the observation's first."""
        values = np.asarray(obs).tolist()   # float32 -> float64, exactly
        for bias, activation, links in self._nodes:
            acc = bias
            for source, weight in links:
                acc += weight * values[source]
            values.append(activation(acc))
        return values

    def get_action(self, obs) -> int:
        values = self.node_values(obs)
        return int(np.argmax(values[self.n_inputs + self.n_hidden:]))

    def reset(self) -> None:
        pass

    def __repr__(self) -> str:
        return (f"NeatPolicy(observation={self.observation!r}, hidden={self.n_hidden}, "
                f"connections={sum(len(n[2]) for n in self._nodes)})")

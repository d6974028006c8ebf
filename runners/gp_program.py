"""A policy that is a program: the typed expression tree a `gp` genome
encodes (`speednik.gp_program`), evaluated on each observation to one of
the 8 actions.

The readable twin of the compiled engine's `gp` policy
(`speednik.engine.policy.gp_action`): the same operations on float64
(Python floats are IEEE doubles), the same protected division (a divisor
of zero gives 1.0), truth values as Python bools; so both choose the
same action bit for bit. Here the tree is walked from its root, and an
if_then_else evaluates only the branch its condition picks, as the
Python DEAP compiles a tree to would. Specs `("gp", (observation_name,
genome))` build one in any process.
"""
from __future__ import annotations

import numpy as np

from runners.agent import BaseAgent
from speednik import gp_program as program
from speednik.gp_program import (
    ARITY,
    OP_ACTION,
    OP_ADD,
    OP_AND,
    OP_BOOL,
    OP_CONST,
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
from speednik.observation import get_observation


def div(a: float, b: float) -> float:
    """Protected division: a divisor of zero gives 1.0."""
    return a / b if b != 0.0 else 1.0


def needs(observation: str) -> str:
    """What a gp policy over `observation` needs, for error messages."""
    encoder = get_observation(observation)
    return (f"a gp policy over the {encoder.name!r} observation ({encoder.size} "
            f"values) needs a genome laid out as {program.LAYOUT}")


def checked_program(genome, observation: str) -> np.ndarray:
    """`genome` as a float64 array encoding a program over `observation`,
    or one ValueError naming what the policy needs and what is wrong."""
    encoder = get_observation(observation)
    genome = np.asarray(genome, dtype=np.float64)
    found = program.problem(genome, encoder.size)
    if found is not None:
        raise ValueError(f"{needs(encoder.name)}: {found}")
    return genome


class GPPolicy(BaseAgent):
    """Acts with the action its program gives for the observation."""

    def __init__(self, genome, observation: str = "basic") -> None:
        encoder = get_observation(observation)
        self.genome = checked_program(genome, encoder.name)
        self.observation = encoder.name
        self.names = encoder.feature_names
        self._nodes = program.nodes_of(self.genome)
        # Where each node's subtree ends (one past its last node).
        self._ends = [0] * len(self._nodes)
        pending: list[int] = []
        for k in range(len(self._nodes) - 1, -1, -1):
            # Scanning back, a node's arguments' subtrees are the last
            # ARITY ones seen; its subtree ends where its last one does.
            end = k + 1
            for _ in range(ARITY[self._nodes[k][0]]):
                end = pending.pop()
            self._ends[k] = end
            pending.append(end)

    def value(self, at: int, obs: list[float]):
        """The value of the subtree rooted at node `at`: a float, a bool
        or an action's index."""
        op, operand = self._nodes[at]
        if op == OP_INPUT:
            return obs[int(operand)]
        if op == OP_CONST:
            return operand
        if op == OP_BOOL:
            return operand != 0.0
        if op == OP_ACTION:
            return int(operand)
        first = at + 1
        if op == OP_NOT:
            return not self.value(first, obs)
        second = self._ends[first]
        if op == OP_IF:
            if self.value(first, obs):
                return self.value(second, obs)
            return self.value(self._ends[second], obs)
        a = self.value(first, obs)
        b = self.value(second, obs)
        if op == OP_ADD:
            return a + b
        if op == OP_SUB:
            return a - b
        if op == OP_MUL:
            return a * b
        if op == OP_DIV:
            return div(a, b)
        if op == OP_LT:
            return a < b
        if op == OP_GT:
            return a > b
        if op == OP_AND:
            return a and b
        if op == OP_OR:
            return a or b
        raise AssertionError(f"opcode {op} passed the genome check")

    def get_action(self, obs) -> int:
        return int(self.value(0, np.asarray(obs).tolist()))   # float32 -> float64, exactly

    def reset(self) -> None:
        pass

    def text(self) -> str:
        """The program in DEAP's form: `if_then_else(lt(x_vel, 0.5), right, jump)`."""
        return program.text(self.genome, self.names)

    def listing(self, fold: bool = True) -> str:
        """The program as indented code (constant conditions folded)."""
        return program.listing(self.genome, self.names, fold=fold)

    def __repr__(self) -> str:
        nodes, depth = program.sizes(self.genome)
        return f"GPPolicy(observation={self.observation!r}, nodes={nodes}, depth={depth})"

"""Genetic programming (Koza 1992) with DEAP's `gp` module: programs that
read the observation's values by name and choose an action, evolved as
typed expression trees.

The primitive set is strongly typed (`gp.PrimitiveSetTyped`): float
inputs named as the observation names its values, float constants drawn
at random and rounded to two decimals, `add`, `sub`, `mul` and a
protected `div` (a divisor of zero gives 1.0); the comparisons `lt`,
`gt` from floats to bools, `and_`, `or_`, `not_` and the bools True and
False; and at the root `if_then_else(bool, action, action)` over the 8
actions, named as `speednik.actions` names them. A program reads as
DEAP writes it:

    if_then_else(gt(pit_ahead, 0.19), right_jump, right)

DEAP does most of the search with its own operators: `genHalfAndHalf`
for the first trees, `mutUniform` (a subtree replaced by a new one) and
point mutations (`mutNodeReplacement`, `mutEphemeral`); the crossover is
this module's one-point crossover of typed trees (`one_point_crossover`;
DEAP's `cxOnePoint` draws the type to swap in an order that changes from
one process to the next). Crossover and mutations are each kept within
`gp_max_height` by `gp.staticLimit`, and the double tournament
`tools.selDoubleTournament` (fitness, then the smaller of two with
probability gp_parsimony_size / 2) works against bloat; the elite of the
run's hall of fame comes back unchanged.

The genome the run holds is the tree lowered to a `gp` policy row
(`speednik.gp_program`), which the compiled engine interprets and which
reads back into the same tree (`to_tree`), so the population, the hall of
fame and the checkpoint are arrays. Every draw goes through Python's
`random`, which the run seeds and checkpoints; the strategy keeps no
state of its own, and a resumed run goes on exactly as a straight one.
"""
from __future__ import annotations

import copy
import operator
import random
from functools import partial
from typing import Any

import numpy as np
from deap import base, gp, tools

from evolution.individual import Individual, make_individual
from evolution.strategies.base import SearchSettings, Strategy
from runners.gp_program import div
from speednik import gp_program as program
from speednik.actions import ACTION_NAMES
from speednik.observation import get_observation

# The constants' range, before rounding: the observation's values are of
# order 1.
CONSTANT_RANGE = 1.0
CONSTANT_NAME = "const"


class Action:
    """The type of the tree's root and of `if_then_else`'s branches; its
    leaves are the action indices."""


def if_then_else(condition: bool, then: int, otherwise: int) -> int:
    return then if condition else otherwise


def random_constant() -> float:
    """A constant of the tree: uniform in [-1, 1], two decimals, so that
    the program's text stays readable."""
    return round(random.uniform(-CONSTANT_RANGE, CONSTANT_RANGE), 2)


# Each operator's function, by its opcode (names and types are in
# speednik.gp_program.OPERATORS).
FUNCTIONS = {
    program.OP_ADD: operator.add, program.OP_SUB: operator.sub,
    program.OP_MUL: operator.mul, program.OP_DIV: div,
    program.OP_LT: operator.lt, program.OP_GT: operator.gt,
    program.OP_AND: operator.and_, program.OP_OR: operator.or_,
    program.OP_NOT: operator.not_, program.OP_IF: if_then_else,
}
DEAP_TYPES = {program.T_FLOAT: float, program.T_BOOL: bool, program.T_ACTION: Action}


def primitive_set(names) -> gp.PrimitiveSetTyped:
    """The typed primitive set over observation values `names`: its
    arguments are named after them, in order."""
    taken = {*(name for name, _ in program.OPERATORS.values()), *ACTION_NAMES, "True",
             "False", CONSTANT_NAME}
    clash = [name for name in names if name in taken or not name.isidentifier()]
    if clash or len(set(names)) != len(names):
        raise ValueError(f"a gp program names its inputs after the observation's values, "
                         f"and {clash[0] if clash else 'a repeated name'!r} cannot be one: "
                         f"accepted are Python names other than the primitives' and the "
                         f"actions' ({', '.join(sorted(taken))})")
    pset = gp.PrimitiveSetTyped("program", [float] * len(names), Action)
    pset.renameArguments(**{f"ARG{i}": name for i, name in enumerate(names)})
    for op, (name, args) in program.OPERATORS.items():
        pset.addPrimitive(FUNCTIONS[op], [DEAP_TYPES[t] for t in args],
                          DEAP_TYPES[program.RETURNS[op]], name=name)
    for index, name in enumerate(ACTION_NAMES):
        pset.addTerminal(index, Action, name=name)
    pset.addTerminal(True, bool)
    pset.addTerminal(False, bool)
    pset.addEphemeralConstant(CONSTANT_NAME, random_constant, float)
    return pset


class Lowering:
    """Trees of one primitive set to `gp` rows and back."""

    def __init__(self, names) -> None:
        self.names = tuple(names)
        self.pset = primitive_set(self.names)
        self.operators = {name: op for op, (name, _) in program.OPERATORS.items()}
        # A leaf's text -> its (opcode, operand); constants aside.
        self.leaves: dict[str, tuple[int, float]] = {
            **{name: (program.OP_INPUT, float(i)) for i, name in enumerate(self.names)},
            **{name: (program.OP_ACTION, float(i)) for i, name in enumerate(ACTION_NAMES)},
            "True": (program.OP_BOOL, 1.0), "False": (program.OP_BOOL, 0.0),
        }
        self.constant = self.pset.mapping[CONSTANT_NAME]

    def lower(self, tree) -> np.ndarray:
        """The row of a DEAP tree."""
        nodes = []
        for node in tree:
            if isinstance(node, gp.Primitive):
                nodes.append((self.operators[node.name], 0.0))
            elif isinstance(node, self.constant) or (
                    node.ret is float and node.format() not in self.leaves):
                # A constant drawn by the search, or written as a number in
                # a text (`PrimitiveTree.from_string`).
                nodes.append((program.OP_CONST, float(node.value)))
            else:
                nodes.append(self.leaves[node.format()])
        return program.encode(len(self.names), nodes)

    def to_tree(self, genome: np.ndarray) -> gp.PrimitiveTree:
        """The DEAP tree of a (checked) row: the one it was lowered from."""
        mapping = self.pset.mapping
        out = []
        for op, operand in program.nodes_of(genome):
            if op in program.OPERATORS:
                out.append(mapping[program.OPERATORS[op][0]])
            elif op == program.OP_CONST:
                constant = self.constant.__new__(self.constant)
                constant.value = operand
                out.append(constant)
            else:
                out.append(mapping[program.terminal_text(op, operand, self.names)])
        return gp.PrimitiveTree(out)


def build_toolbox(config: SearchSettings, pset: gp.PrimitiveSetTyped) -> base.Toolbox:
    o = config.options
    limit = gp.staticLimit(key=operator.attrgetter("height"),
                           max_value=int(o["gp_max_height"]))
    tb = base.Toolbox()
    tb.register("expr", gp.genHalfAndHalf, pset=pset, min_=int(o["gp_init_min"]),
                max_=int(o["gp_init_max"]))
    tb.register("select", tools.selDoubleTournament, fitness_size=int(o["gp_tournament"]),
                parsimony_size=float(o["gp_parsimony_size"]), fitness_first=True)
    tb.register("mate", one_point_crossover)
    tb.register("expr_mut", gp.genFull, min_=0, max_=2)
    tb.register("mutate", gp.mutUniform, expr=tb.expr_mut, pset=pset)
    tb.register("point", point_mutation, pset=pset)
    for name in ("mate", "mutate", "point"):
        tb.decorate(name, limit)
    return tb


def type_key(type_: type) -> tuple[str, str]:
    """The order in which the crossover lists the types of nodes: by name
    (`Action`, `bool`, `float`), the same in every process."""
    return type_.__name__, type_.__module__


def one_point_crossover(first: gp.PrimitiveTree, second: gp.PrimitiveTree):
    """Two typed trees swap one subtree each, in place, both of one type:
    a type of which both trees have a node below the root is drawn (the
    types listed by `type_key`), then one such node in each tree, and the
    subtrees rooted there are exchanged. A tree of one node, or two trees
    sharing no type below their roots, are left as they are. The roots
    are never swapped, so a child's root keeps its parent's type.

    What DEAP's `gp.cxOnePoint` does, but with the types in a fixed order:
    it draws the type from a set of classes, ordered by their hashes (their
    addresses in memory), which differ from one process to the next, so the
    same seed gave different runs."""
    if len(first) < 2 or len(second) < 2:
        return first, second
    below_root = []
    for tree in (first, second):
        where: dict[type, list[int]] = {}
        for index in range(1, len(tree)):
            where.setdefault(tree[index].ret, []).append(index)
        below_root.append(where)
    shared = sorted((t for t in below_root[0] if t in below_root[1]), key=type_key)
    if not shared:
        return first, second
    type_ = random.choice(shared)
    one = first.searchSubtree(random.choice(below_root[0][type_]))
    two = second.searchSubtree(random.choice(below_root[1][type_]))
    first[one], second[two] = second[two], first[one]
    return first, second


def point_mutation(tree, pset):
    """One node changed in place of a whole subtree: a node replaced by
    another of its type and arity, or a constant drawn again (either by
    half)."""
    if random.random() < 0.5:
        return gp.mutNodeReplacement(tree, pset=pset)
    return gp.mutEphemeral(tree, mode="one")


class GeneticProgramming(Strategy):
    """Random trees first (ramped half-and-half); then each generation is
    the elite of the hall of fame unchanged and the winners of double
    tournaments crossed and mutated."""

    def __init__(self, config: SearchSettings, size: int | None) -> None:
        super().__init__(config, size)
        observation = config.policy_spec().observation
        self.lowering = Lowering(get_observation(observation).feature_names)
        self.toolbox = build_toolbox(config, self.lowering.pset)
        self._numbers: dict[str, float] = {}

    # -- the search

    def initial(self) -> list:
        return [make_individual(self.lowering.lower(gp.PrimitiveTree(self.toolbox.expr())))
                for _ in range(self.config.population)]

    def ask(self, population: list, hall_of_fame) -> list:
        o = self.config.options
        n_elite = min(int(o["gp_elite"]), len(hall_of_fame))
        trees = []
        for ind in population:
            tree = self.lowering.to_tree(ind)
            tree.fitness = ind.fitness
            trees.append(tree)
        chosen = self.toolbox.select(trees, len(population) - n_elite)
        offspring = [gp.PrimitiveTree(tree) for tree in chosen]
        for i in range(1, len(offspring), 2):
            if random.random() < o["gp_cx_prob"]:
                offspring[i - 1], offspring[i] = self.toolbox.mate(offspring[i - 1],
                                                                   offspring[i])
        for i in range(len(offspring)):
            if random.random() < o["gp_mut_prob"]:
                offspring[i], = self.toolbox.mutate(offspring[i])
            if random.random() < o["gp_point_prob"]:
                offspring[i], = self.toolbox.point(offspring[i])
        elites = [copy.deepcopy(ind) for ind in hall_of_fame[:n_elite]]
        # Unchanged trees lower to their parents' rows, which the run
        # remembers: they are not played again.
        return elites + [make_individual(self.lowering.lower(t)) for t in offspring]

    def tell(self, individuals: list, summaries: list[dict] | None = None) -> None:
        sizes = np.array([program.sizes(ind) for ind in individuals], dtype=np.float64)
        best = int(np.argmax([ind.fitness.values[0] for ind in individuals]))
        self._numbers = {
            "mean_nodes": float(sizes[:, 0].mean()), "max_nodes": float(sizes[:, 0].max()),
            "mean_depth": float(sizes[:, 1].mean()), "max_depth": float(sizes[:, 1].max()),
            "best_nodes": float(sizes[best, 0]), "best_depth": float(sizes[best, 1]),
        }

    def numbers(self) -> dict[str, Any]:
        """The size of the programs of the generation just told: mean and
        most nodes and depth (a single leaf has depth 0), and those of its
        best program (the first of the highest fitness); none after a
        resume until the next generation is told."""
        return dict(self._numbers)

    def program_text(self, genome: Individual | np.ndarray) -> str:
        """DEAP's text of a genome's tree."""
        return str(self.lowering.to_tree(genome))

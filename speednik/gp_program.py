"""The genome of the `gp` policy family: a typed expression tree (genetic
programming) lowered to one flat float64 row, its one check, and its
text.

A program is a tree whose root gives an action. Its nodes are of three
types: float (the observation's values, constants, arithmetic), bool
(comparisons, logic, True/False) and action (the 8 actions, and
`if_then_else(bool, action, action)`). The row lists the nodes in prefix
order, each as (opcode, operand):

    [n_inputs, n_nodes,  opcode, operand,  opcode, operand, ...]

The operand is the observation value's index (INPUT), the number itself
(CONST), 0 or 1 (BOOL), the action's index (ACTION), and 0 for the
operators, whose operands are the subtrees that follow. The row is read
back into the very tree it came from (DEAP's `gp.PrimitiveTree`, in
`evolution.strategies.gp_strategy`), and its text is DEAP's text of
that tree: `if_then_else(lt(x_vel, 0.19), right_jump, right)`.

The readable agent (`runners.gp_program`) and the compiled engine
(`speednik.engine.policy`) evaluate it with the same float64 operations,
so both choose the same action bit for bit. `div` is protected: a
divisor of zero gives 1.0. This module is plain Python: both import it.
"""
from __future__ import annotations

import numpy as np

from speednik.actions import ACTION_NAMES, NUM_ACTIONS
from speednik.checks import header_counts, whole

HEADER = 2
NODE_WIDTH = 2          # opcode, operand
# The deepest tree a row may hold (DEAP's own `gp.compile` cannot
# evaluate a deeper one); a single leaf has depth 0.
MAX_DEPTH = 90

# Opcodes, and each one's name in the program's text (the terminals'
# names come from the observation, the number and the action).
(OP_INPUT, OP_CONST, OP_BOOL, OP_ACTION, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_LT, OP_GT,
 OP_AND, OP_OR, OP_NOT, OP_IF) = range(14)
NUM_OPCODES = 14
T_FLOAT, T_BOOL, T_ACTION = range(3)
TYPE_NAMES = ("float", "bool", "action")

# Each operator's name and its arguments' types; the result type is RETURNS.
OPERATORS: dict[int, tuple[str, tuple[int, ...]]] = {
    OP_ADD: ("add", (T_FLOAT, T_FLOAT)),
    OP_SUB: ("sub", (T_FLOAT, T_FLOAT)),
    OP_MUL: ("mul", (T_FLOAT, T_FLOAT)),
    OP_DIV: ("div", (T_FLOAT, T_FLOAT)),
    OP_LT: ("lt", (T_FLOAT, T_FLOAT)),
    OP_GT: ("gt", (T_FLOAT, T_FLOAT)),
    OP_AND: ("and_", (T_BOOL, T_BOOL)),
    OP_OR: ("or_", (T_BOOL, T_BOOL)),
    OP_NOT: ("not_", (T_BOOL,)),
    OP_IF: ("if_then_else", (T_BOOL, T_ACTION, T_ACTION)),
}
RETURNS = (T_FLOAT, T_FLOAT, T_BOOL, T_ACTION, T_FLOAT, T_FLOAT, T_FLOAT, T_FLOAT,
           T_BOOL, T_BOOL, T_BOOL, T_BOOL, T_BOOL, T_ACTION)
ARITY = tuple(len(OPERATORS[op][1]) if op in OPERATORS else 0 for op in range(NUM_OPCODES))

LAYOUT = (f"[inputs, nodes] + (opcode 0-{NUM_OPCODES - 1}, operand) per node in prefix "
          f"order, one typed tree whose root is an action")


def encoded_size(n_nodes: int) -> int:
    return HEADER + NODE_WIDTH * n_nodes


def stated_size(genome: np.ndarray) -> int | None:
    """The length the header of `genome` gives, or None when the header
    is not two whole numbers >= 0 (or the array too short to hold one)."""
    head = header_counts(genome, HEADER)
    return None if head is None else encoded_size(head[1])


def problem(genome: np.ndarray, n_inputs: int) -> str | None:
    """What is wrong with `genome` (a 1-d float64 array) as a program over
    `n_inputs` observation values, in a few words; None when nothing is."""
    if genome.ndim != 1:
        return f"the genome has shape {genome.shape}, not a flat array"
    if genome.size < HEADER:
        return f"the genome has {genome.size} numbers, fewer than the {HEADER} of its header"
    if not np.all(np.isfinite(genome)):
        return "the genome holds NaN or infinite numbers"
    head = genome[:HEADER]
    if not all(whole(v) and v >= 0 for v in head):
        return f"the header {head.tolist()} is not two whole numbers >= 0"
    inputs, nodes = int(head[0]), int(head[1])
    if inputs != n_inputs:
        return f"the header gives {inputs} inputs, not the observation's {n_inputs}"
    if nodes < 1:
        return "the header gives no nodes: a program has one at least"
    size = encoded_size(nodes)
    if genome.size != size:
        return (f"the header gives {nodes} nodes, {size} numbers, but the genome has "
                f"{genome.size}")
    body = genome[HEADER:].reshape(nodes, NODE_WIDTH).tolist()
    # The types still to be filled and their depths, the next one last.
    wanted = [T_ACTION]
    depths = [0]
    for k, (op, operand) in enumerate(body):
        if not wanted:
            return f"node {k} follows a complete tree: the row has {nodes - k} nodes too many"
        depth = depths.pop()
        if depth > MAX_DEPTH:
            return f"node {k} is at depth {depth}, deeper than the {MAX_DEPTH} accepted"
        if not (whole(op) and 0 <= op < NUM_OPCODES):
            return f"node {k} has opcode {op:g}, not a whole number from 0 to {NUM_OPCODES - 1}"
        op = int(op)
        want = wanted.pop()
        if RETURNS[op] != want:
            return (f"node {k} ({_node_name(op, operand)}) gives {_a(RETURNS[op])} "
                    f"where {_a(want)} is needed")
        if op == OP_INPUT and not (whole(operand) and 0 <= operand < n_inputs):
            return (f"node {k} reads input {operand:g}, not a whole number from 0 to "
                    f"{n_inputs - 1}")
        if op == OP_ACTION and not (whole(operand) and 0 <= operand < NUM_ACTIONS):
            return (f"node {k} is action {operand:g}, not a whole number from 0 to "
                    f"{NUM_ACTIONS - 1}")
        if op == OP_BOOL and operand not in (0.0, 1.0):
            return f"node {k} is truth value {operand:g}, not 0 or 1"
        if op in OPERATORS and operand != 0.0:
            return f"node {k} ({OPERATORS[op][0]}) has operand {operand:g}, not 0"
        if op in OPERATORS:
            wanted.extend(reversed(OPERATORS[op][1]))
            depths.extend([depth + 1] * ARITY[op])
    if wanted:
        return (f"the tree is cut short: {len(wanted)} more node(s) needed after "
                f"node {nodes - 1}")
    return None


def _a(kind: int) -> str:
    name = TYPE_NAMES[kind]
    return ("an " if name[0] in "aeiou" else "a ") + name


def _node_name(op: int, operand: float) -> str:
    if op in OPERATORS:
        return OPERATORS[op][0]
    return ("input", "constant", "truth value", "action")[op]


def check(genome, n_inputs: int) -> np.ndarray:
    """`genome` as a flat float64 array holding a program over `n_inputs`
    values, or a ValueError saying what is wrong."""
    genome = np.asarray(genome, dtype=np.float64)
    found = problem(genome, n_inputs)
    if found is not None:
        raise ValueError(found)
    return genome


def encode(n_inputs: int, nodes) -> np.ndarray:
    """The row of a program given as (opcode, operand) pairs in prefix
    order."""
    nodes = list(nodes)
    out = [float(n_inputs), float(len(nodes))]
    for op, operand in nodes:
        out += [float(op), float(operand)]
    return np.array(out, dtype=np.float64)


def nodes_of(genome: np.ndarray) -> list[tuple[int, float]]:
    """The (opcode, operand) pairs of a checked row, in prefix order."""
    n = int(genome[1])
    return [(int(op), operand) for op, operand
            in genome[HEADER:HEADER + NODE_WIDTH * n].reshape(n, NODE_WIDTH).tolist()]


def terminal_text(op: int, operand: float, names) -> str:
    """A leaf as DEAP writes it: the value's name, the number's repr,
    True/False, the action's name."""
    if op == OP_INPUT:
        return names[int(operand)]
    if op == OP_CONST:
        return repr(operand)
    if op == OP_BOOL:
        return "True" if operand else "False"
    return ACTION_NAMES[int(operand)]


def sizes(genome: np.ndarray) -> tuple[int, int]:
    """(nodes, depth) of a checked row; depth as DEAP's `height` counts
    it: a single leaf has depth 0."""
    depth = 0
    # The depths of the arguments still to come, the next one last.
    pending = [0]
    nodes = nodes_of(genome)
    for op, _ in nodes:
        d = pending.pop()
        depth = max(depth, d)
        pending.extend([d + 1] * ARITY[op])
    return len(nodes), depth


def _tree(genome: np.ndarray):
    """The row as nested (op, operand, children) tuples."""
    nodes = nodes_of(genome)
    at = 0

    def read():
        nonlocal at
        op, operand = nodes[at]
        at += 1
        return op, operand, [read() for _ in range(ARITY[op])]

    return read()


def text(genome: np.ndarray, names) -> str:
    """The program in DEAP's form (`str(tree)`), `names` being the
    observation's value names."""
    def write(node) -> str:
        op, operand, children = node
        if op in OPERATORS:
            return f"{OPERATORS[op][0]}({', '.join(write(c) for c in children)})"
        return terminal_text(op, operand, names)

    return write(_tree(genome))


def folded(node):
    """The tree (as `_tree` gives it) with what its constants decide
    already decided: `not_`, `and_` and `or_` of True or False, an
    if_then_else whose condition is True or False, or whose branches are
    the same. It chooses the same action on every observation (the
    folded parts have no effect but their value)."""
    op, operand, children = node
    children = [folded(c) for c in children]
    constant = [c[1] if c[0] == OP_BOOL else None for c in children]
    true, false = (OP_BOOL, 1.0, []), (OP_BOOL, 0.0, [])
    if op == OP_NOT and constant[0] is not None:
        return false if constant[0] else true
    if op in (OP_AND, OP_OR):
        # and_: False decides, True leaves the other; or_: the reverse.
        decides = 0.0 if op == OP_AND else 1.0
        if decides in constant:
            return false if op == OP_AND else true
        for k in (0, 1):
            if constant[k] is not None:
                return children[1 - k]
    if op == OP_IF:
        condition, then, otherwise = children
        if constant[0] is not None:
            return then if constant[0] else otherwise
        if then == otherwise:
            return then
    return op, operand, children


def fold(genome: np.ndarray) -> np.ndarray:
    """The row of the checked program `genome` with what its constants
    decide already decided (`folded`)."""
    pairs: list[tuple[int, float]] = []

    def flatten(node) -> None:
        pairs.append((node[0], node[1]))
        for child in node[2]:
            flatten(child)

    flatten(folded(_tree(genome)))
    return encode(int(genome[0]), pairs)


def listing(genome: np.ndarray, names, indent: str = "    ", fold: bool = False) -> str:
    """The program as indented code: each `if_then_else` an
    `if ...: / else:` (nested ones in the else branch as `elif`), the
    conditions in DEAP's form, the actions as lines; with `fold`, what
    its constants decide already decided (`folded`)."""
    def expression(node) -> str:
        op, operand, children = node
        if op in OPERATORS:
            return f"{OPERATORS[op][0]}({', '.join(expression(c) for c in children)})"
        return terminal_text(op, operand, names)

    lines: list[str] = []

    def block(node, depth: int, keyword: str = "if") -> None:
        op, operand, children = node
        pad = indent * depth
        if op != OP_IF:
            lines.append(pad + expression(node))
            return
        condition, then, otherwise = children
        lines.append(f"{pad}{keyword} {expression(condition)}:")
        block(then, depth + 1)
        if otherwise[0] == OP_IF:
            block(otherwise, depth, "elif")
        else:
            lines.append(f"{pad}else:")
            block(otherwise, depth + 1)

    tree = _tree(genome)
    block(folded(tree) if fold else tree, 0)
    return "\n".join(lines)

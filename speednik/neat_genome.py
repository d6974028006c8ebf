"""The genome of the `neat` policy family: a feed-forward network of any
topology as one flat float64 array, and the one check of its structure.

NEAT evolves the network's shape with its weights, so its genomes differ
in length; the run, the hall of fame, the checkpoint and the agent specs
carry each as the array

    [n_inputs, n_outputs, n_hidden, n_connections,
     bias, activation            (per node: n_hidden + n_outputs of them)
     source, target, weight      (per connection: n_connections of them)]

Nodes are numbered as they are evaluated: 0 .. n_inputs - 1 are the
observation's values, then the listed nodes in their order, the last
n_outputs of them the action scores (action a is node n_inputs + n_hidden
+ a). A node's value is its activation of its bias plus, in the listed
order, each weight times its source's value; its connections are the
ones targeting it, listed together, and a connection always comes from an
earlier node (source < target), so one pass in list order evaluates the
network and no cycle can be written down.

The readable agent (`runners.neat_net`) and the compiled engine
(`speednik.engine.policy`) evaluate it this way with the same formulas, so
both choose the same action bit for bit. This module is plain numpy: both
import it.
"""
from __future__ import annotations

import numpy as np

from speednik.actions import NUM_ACTIONS
from speednik.checks import header_counts, whole

HEADER = 4
NODE_WIDTH = 2          # bias, activation
CONNECTION_WIDTH = 3    # source, target, weight
# Each is +, *, / and comparisons only, so no library's rounding decides
# an action: soft_tanh is the MLP's rational tanh (speednik.engine.policy).
ACTIVATIONS = ("soft_tanh", "relu", "identity", "clamped")
ACT_SOFT_TANH, ACT_RELU, ACT_IDENTITY, ACT_CLAMPED = range(len(ACTIVATIONS))

LAYOUT = (f"[inputs, {NUM_ACTIONS} outputs, hidden, connections] + (bias, activation "
          f"0-{len(ACTIVATIONS) - 1}) per node, hidden ones first + (source, target, "
          f"weight) per connection, grouped by target, each from an earlier node")


def encoded_size(n_hidden: int, n_outputs: int, n_connections: int) -> int:
    return HEADER + NODE_WIDTH * (n_hidden + n_outputs) + CONNECTION_WIDTH * n_connections


def stated_size(genome: np.ndarray) -> int | None:
    """The length the header of `genome` gives, or None when the header
    is not four whole numbers >= 0 (or the array too short to hold one)."""
    head = header_counts(genome, HEADER)
    return None if head is None else encoded_size(head[2], head[1], head[3])


def problem(genome: np.ndarray, n_inputs: int) -> str | None:
    """What is wrong with `genome` (a 1-d float64 array) as a network over
    `n_inputs` observation values, in a few words; None when nothing is."""
    if genome.ndim != 1:
        return f"the genome has shape {genome.shape}, not a flat array"
    if genome.size < HEADER:
        return f"the genome has {genome.size} numbers, fewer than the {HEADER} of its header"
    if not np.all(np.isfinite(genome)):
        return "the genome holds NaN or infinite numbers"
    head = genome[:HEADER]
    if not all(whole(v) and v >= 0 for v in head):
        return f"the header {head.tolist()} is not four whole numbers >= 0"
    inputs, outputs, hidden, connections = (int(v) for v in head)
    if inputs != n_inputs:
        return f"the header gives {inputs} inputs, not the observation's {n_inputs}"
    if outputs != NUM_ACTIONS:
        return f"the header gives {outputs} outputs, not one per action ({NUM_ACTIONS})"
    size = encoded_size(hidden, outputs, connections)
    if genome.size != size:
        return (f"the header gives {hidden} hidden nodes and {connections} connections, "
                f"{size} numbers, but the genome has {genome.size}")
    nodes = hidden + outputs
    codes = genome[HEADER + 1:HEADER + NODE_WIDTH * nodes:NODE_WIDTH].tolist()
    bad = [i for i, c in enumerate(codes) if not (whole(c) and 0 <= c < len(ACTIVATIONS))]
    if bad:
        return (f"node {inputs + bad[0]} has activation {codes[bad[0]]:g}, not a whole "
                f"number from 0 to {len(ACTIVATIONS) - 1}")
    links = genome[HEADER + NODE_WIDTH * nodes:].reshape(connections,
                                                         CONNECTION_WIDTH).tolist()
    last = inputs
    for c, (source, target, _) in enumerate(links):
        if not (whole(source) and whole(target)):
            return f"connection {c} joins {source:g} to {target:g}, not node numbers"
        source, target = int(source), int(target)
        if not inputs <= target < inputs + nodes:
            return (f"connection {c} targets node {target}, not one of the listed nodes "
                    f"{inputs} to {inputs + nodes - 1}")
        if not 0 <= source < target:
            return (f"connection {c} goes from node {source} to node {target}: a source "
                    f"must be an earlier node (0 to {target - 1})")
        if target < last:
            return (f"connection {c} targets node {target} after a connection to node "
                    f"{last}: connections are grouped by target in node order")
        last = target
    return None


def check(genome, n_inputs: int) -> np.ndarray:
    """`genome` as a flat float64 array holding a network over `n_inputs`
    values, or a ValueError saying what is wrong."""
    genome = np.asarray(genome, dtype=np.float64)
    found = problem(genome, n_inputs)
    if found is not None:
        raise ValueError(found)
    return genome


def encode(n_inputs: int, biases, activations, links, n_hidden: int) -> np.ndarray:
    """The genome of a network: `biases` and `activations` per node (the
    hidden nodes first, then one per action), `links` its connections as
    (source, target, weight) in evaluation order."""
    biases = list(biases)
    links = list(links)
    out = [float(n_inputs), float(len(biases) - n_hidden), float(n_hidden),
           float(len(links))]
    for bias, code in zip(biases, activations, strict=True):
        out += [float(bias), float(code)]
    for source, target, weight in links:
        out += [float(source), float(target), float(weight)]
    return np.array(out, dtype=np.float64)

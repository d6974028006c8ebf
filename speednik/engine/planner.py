"""A privileged planner: beam search over held actions on the compiled
simulation, from a copied state, to the goal.

The search knows the whole state (it steps the simulation itself), so it
is no player to learn from; it answers "can this stage be finished, and
how". A node is a full copy of the engine's state arrays (`f`, `s`, the
gone flags) and whether jump was held. Each round every node in the beam
plays each action for `hold` frames; the children that die, stall (no new
best x for `stall_frames` frames, which would end a runner's episode) or
run out of frames are dropped. Of the rest, one per cell of (x, y, speed,
on-ground) is kept, the best by progress, so the beam holds different
ways of being at a place (slow and fast, on a ledge and under it) rather
than many copies of the same one. Progress is x plus a bonus for speed
to the right, since a run-up or a half-pipe needs speed built before it
pays. The first child to reach the goal ends the search, and the actions
that led to it are read back through parent links.

Everything is a pure function of the stage and the settings: the same
stage always gives the same plan.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from speednik.actions import NUM_ACTIONS
from speednik.constants import DEFAULT_MAX_STEPS, DEFAULT_STALL_FRAMES
from speednik.engine.layout import (
    EVENT_WIDTH,
    F_X,
    F_X_VEL,
    F_Y,
    MAX_EVENTS,
    S_DEAD,
    S_FRAME,
    S_GOAL_REACHED,
    S_ON_GROUND,
    S_WITHOUT_GAIN,
)
from speednik.engine.buttons import BUTTON_DOWN, BUTTON_JUMP, BUTTON_LEFT, BUTTON_RIGHT
from speednik.engine.lowering import compiled_stage, start_arrays
from speednik.engine.simulation import sim_step

# Frames each action is held: short enough to time a jump off a ledge,
# long enough that a stage of a few thousand frames is a few hundred rounds.
DEFAULT_HOLD = 6
DEFAULT_BEAM = 96
# When that finds nothing: finer timing and a wider beam, tried in turn.
RETRIES = ((4, 256), (3, 768))
# Cells that tell nodes apart: px in x and y, px/frame in speed.
CELL_X = 8.0
CELL_Y = 16.0
CELL_SPEED = 1.0
# Progress counts each px/frame of speed to the right as this many px.
SPEED_WEIGHT = 24.0


@njit(cache=True)
def _cell_key(f, s):
    cx = np.int64(np.floor(f[F_X] / CELL_X))
    cy = np.int64(np.floor(f[F_Y] / CELL_Y))
    cv = np.int64(np.floor(f[F_X_VEL] / CELL_SPEED)) + 64
    return ((cx * 4096 + cy) * 256 + cv) * 2 + s[S_ON_GROUND]


@njit(cache=True)
def beam_search(st, f0, s0, gone0, held0, hold, width, max_frames, stall_frames,
                out_actions):
    """Search from state (f0, s0, gone0) with jump held `held0`; writes the
    actions of the first plan to reach the goal, one per frame, into
    `out_actions` and returns their number, or -1 when none was found
    (every node died or stalled, or `max_frames` ran out). Also returns
    the furthest x any node reached."""
    nf = f0.shape[0]
    ns = s0.shape[0]
    ng = gone0.shape[0]
    rounds = max_frames // hold
    n_children = width * NUM_ACTIONS
    bf = np.empty((width, nf), np.float64)
    bs = np.empty((width, ns), np.int64)
    bg = np.empty((width, ng), np.uint8)
    bh = np.zeros(width, np.bool_)
    cf = np.empty((n_children, nf), np.float64)
    cs = np.empty((n_children, ns), np.int64)
    cg = np.empty((n_children, ng), np.uint8)
    ch = np.zeros(n_children, np.bool_)
    score = np.empty(n_children, np.float64)
    alive = np.zeros(n_children, np.bool_)
    parent = np.zeros((rounds + 1, width), np.int64)
    taken = np.zeros((rounds + 1, width), np.int64)
    child_parent = np.empty(n_children, np.int64)
    child_action = np.empty(n_children, np.int64)
    ev = np.empty((MAX_EVENTS, EVENT_WIDTH), np.float64)
    table_size = 1
    while table_size < 4 * n_children:
        table_size *= 2
    table = np.full(table_size, -1, np.int64)
    keys = np.empty(n_children, np.int64)

    bf[0] = f0
    bs[0] = s0
    bg[0] = gone0
    bh[0] = held0
    n_beam = 1
    furthest = f0[F_X]
    for r in range(rounds):
        # Expand every node by every action held `hold` frames.
        for i in range(n_beam):
            for a in range(NUM_ACTIONS):
                c = i * NUM_ACTIONS + a
                cf[c] = bf[i]
                cs[c] = bs[i]
                cg[c] = bg[i]
                held = bh[i]
                child_parent[c] = i
                child_action[c] = a
                ok = True
                goal = False
                for _ in range(hold):
                    jump = BUTTON_JUMP[a]
                    pressed = jump and not held
                    held = jump
                    sim_step(st, cf[c], cs[c], cg[c], BUTTON_LEFT[a], BUTTON_RIGHT[a], pressed, jump,
                             BUTTON_DOWN[a], ev)
                    if cs[c, S_GOAL_REACHED]:
                        goal = True
                        break
                    if cs[c, S_DEAD] or cs[c, S_WITHOUT_GAIN] >= stall_frames:
                        ok = False
                        break
                ch[c] = held
                if goal:
                    # Read the plan back: this round's frames, then each
                    # ancestor's `hold` frames, newest first.
                    total = r * hold
                    last = cs[c, S_FRAME] - bs[i, S_FRAME]
                    n = total + last
                    for k in range(last):
                        out_actions[total + k] = a
                    node = i
                    for rr in range(r - 1, -1, -1):
                        act = taken[rr + 1, node]
                        for k in range(hold):
                            out_actions[rr * hold + k] = act
                        node = parent[rr + 1, node]
                    return n, cf[c, F_X]
                alive[c] = ok
                if ok:
                    score[c] = cf[c, F_X] + SPEED_WEIGHT * cf[c, F_X_VEL]
                    if cf[c, F_X] > furthest:
                        furthest = cf[c, F_X]
        # Keep the best child of each cell, then the best cells.
        n_c = n_beam * NUM_ACTIONS
        order = np.argsort(-score[:n_c], kind="mergesort")
        table[:] = -1
        kept = 0
        for j in range(n_c):
            c = order[j]
            if not alive[c]:
                continue
            key = _cell_key(cf[c], cs[c])
            slot = (key * 0x9E3779B97F4A7C15) & (table_size - 1)
            seen = False
            while table[slot] >= 0:
                if keys[table[slot]] == key:
                    seen = True
                    break
                slot = (slot + 1) & (table_size - 1)
            if seen:
                continue
            keys[kept] = key
            table[slot] = kept
            # Write the survivor into the next beam (after all reads of
            # the old one: the children are a separate buffer).
            bf[kept] = cf[c]
            bs[kept] = cs[c]
            bg[kept] = cg[c]
            bh[kept] = ch[c]
            parent[r + 1, kept] = child_parent[c]
            taken[r + 1, kept] = child_action[c]
            kept += 1
            if kept == width:
                break
        if kept == 0:
            return -1, furthest
        n_beam = kept
    return -1, furthest


@dataclass(frozen=True)
class Plan:
    """What a search found: `actions` (one per frame) reach the goal when
    `found`; `furthest` is the largest x any searched state reached."""

    found: bool
    actions: tuple[int, ...]
    furthest: float


def plan_stage(stage, *, hold: int = DEFAULT_HOLD, width: int = DEFAULT_BEAM,
               max_frames: int = DEFAULT_MAX_STEPS,
               stall_frames: int = DEFAULT_STALL_FRAMES, retry: bool = True) -> Plan:
    """Search a plan from a built `Stage`'s start; see `plan_from`."""
    f, s, gone = start_arrays(stage)
    return plan_from(compiled_stage(stage), f, s, gone, hold=hold, width=width,
                     max_frames=max_frames, stall_frames=stall_frames, retry=retry)


def plan_from(compiled, f, s, gone, *, held: bool = False, hold: int = DEFAULT_HOLD,
              width: int = DEFAULT_BEAM, max_frames: int = DEFAULT_MAX_STEPS,
              stall_frames: int = DEFAULT_STALL_FRAMES, retry: bool = True) -> Plan:
    """Search a plan from a state of the compiled engine (a lowered stage,
    its `f`, `s` and gone arrays, and whether jump is held; the arrays are
    not changed). With `retry`, a search that finds nothing is tried again
    with each of RETRIES' (hold, width) in turn."""
    for name, value in (("hold", hold), ("width", width), ("max_frames", max_frames),
                        ("stall_frames", stall_frames)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")
    furthest = float(f[F_X])
    for h, w in ((hold, width), *(RETRIES if retry else ())):
        out = np.zeros(max_frames + h, np.int64)
        n, far = beam_search(compiled, f, s, gone, bool(held), h, w, max_frames,
                             stall_frames, out)
        furthest = max(furthest, float(far))
        if n >= 0:
            return Plan(True, tuple(int(a) for a in out[:n]), furthest)
    return Plan(False, (), furthest)

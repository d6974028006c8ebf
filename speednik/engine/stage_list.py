"""Numba typed lists of lowered stages, the form in which the batch and
vector kernels take the stages they play.

A typed list's methods called from Python are compiled afresh in every
process (about a second for `append`, a third of one for `[i] =`), and
every run, test command and worker process starts by building one. The
same methods called from the cached functions here load from the
engine's cache instead.
"""
from __future__ import annotations

from typing import Iterable

from numba import njit
from numba.typed import List

from speednik.engine.lowering import CompiledStage


@njit(cache=True)
def _list_of(first):
    out = List()
    out.append(first)
    return out


@njit(cache=True)
def _append(out, stage):
    out.append(stage)


@njit(cache=True)
def _put(out, slot, stage):
    out[slot] = stage


def stage_list(lowered: Iterable[CompiledStage]) -> List:
    """A typed list of the lowered stages, in order (at least one)."""
    items = iter(lowered)
    try:
        out = _list_of(next(items))
    except StopIteration:
        raise ValueError("a stage list needs at least one stage") from None
    for stage in items:
        _append(out, stage)
    return out


def put_stage(out: List, slot: int, lowered: CompiledStage) -> None:
    """Replace the stage at `slot` of a list from `stage_list`."""
    _put(out, slot, lowered)

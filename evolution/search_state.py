"""A search strategy's state as a checkpoint keeps it: the prefix of its
arrays in `checkpoint.npz`, the error of a state that cannot be read
back, and the check that a float of it is finite.

The strategies (`state()` / `from_state()`) and the loop's checkpoint
both import this module, which imports neither.
"""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["SEARCH_PREFIX", "CheckpointError", "finite_state"]

# A strategy's arrays are stored in the checkpoint under this prefix.
SEARCH_PREFIX = "search_"


class CheckpointError(ValueError):
    """A checkpoint that is missing, damaged, or from something else."""


def finite_state(name: str, value: Any) -> np.ndarray:
    """A float array (or number) of a search strategy's state as float64;
    CheckpointError naming it when it holds NaN or an infinity, as a
    genome or fitness that does is refused: the first episode would fail
    on it, after the run's files were rewritten."""
    array = np.array(value, dtype=np.float64)
    bad = array[~np.isfinite(array)]
    if bad.size:
        raise CheckpointError(f"{name} holds {bad.flat[0]}; accepted: finite numbers")
    return array

"""Checks of arguments, one of each, for every layer of the project."""
from __future__ import annotations

import numbers


def positive_int(value: object, what: str) -> int:
    """`value` as an `int` when it is a positive integer (numpy integers
    included, bools not); otherwise a ValueError that names `what`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{what} must be a positive integer, got {value!r}")
    return int(value)

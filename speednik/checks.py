"""Checks of arguments, one of each, for every layer of the project."""
from __future__ import annotations

import numbers


def positive_int(value: object, what: str) -> int:
    """`value` as an `int` when it is a positive integer (numpy integers
    included, bools not); otherwise a ValueError that names `what`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{what} must be a positive integer, got {value!r}")
    return int(value)


def whole(x: float) -> bool:
    """Whether the number `x` is a whole number (a float row's count or code)."""
    return float(x).is_integer()


def header_counts(row, width: int) -> tuple[int, ...] | None:
    """The first `width` numbers of a flat float row as counts, or None
    when the row is not flat, too short, or they are not all finite whole
    numbers >= 0: the header a variable-size genome states its shape by."""
    import numpy as np

    if row.ndim != 1 or row.size < width:
        return None
    head = row[:width]
    if not np.all(np.isfinite(head)) or not all(whole(v) and v >= 0 for v in head):
        return None
    return tuple(int(v) for v in head)

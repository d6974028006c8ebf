"""Sweeps over stages, seeds, sizes or settings: the first values run in
`make test`, which proves the behaviour once, and the rest are marked
broad and run in `make test-broad`.

    @pytest.mark.parametrize("name", sweep(list_stages()))
    @pytest.mark.parametrize("seed, every", sweep([(10058, 1), (10062, 2)]))

Crossed, two sweeps leave one case in `make test`: their first values. A
test that loops over seeds takes them as two cases instead:

    @pytest.mark.parametrize("seeds", first_and_rest(range(12)))

Two lists whose values are each worth proving once, but not in every
pairing, are crossed with `crossed`: `make test` keeps a diagonal that
holds every value of both, the other pairs are broad.

    @pytest.mark.parametrize("mode, observation", crossed(MODES, OBSERVATIONS))"""
from __future__ import annotations

from collections.abc import Iterable

import pytest


def sweep(values: Iterable, keep: int = 1) -> list:
    """`values` for `pytest.mark.parametrize`, all but the first `keep`
    marked broad. A tuple value fills several argument names."""
    if keep < 1:
        raise ValueError(f"keep must be 1 or more, not {keep}")
    out = []
    for i, value in enumerate(values):
        if i < keep:
            out.append(value)
        else:
            args = value if isinstance(value, tuple) else (value,)
            out.append(pytest.param(*args, marks=pytest.mark.broad))
    return out


def first_and_rest(values: Iterable, keep: int = 1) -> list:
    """`values` as two cases for a test that loops over them: the first
    `keep` (id "first") and the rest, marked broad (id "rest")."""
    values = list(values)
    if not 1 <= keep < len(values):
        raise ValueError(f"keep must be 1 to {len(values) - 1}, not {keep}")
    return [pytest.param(values[:keep], id="first"),
            pytest.param(values[keep:], id="rest", marks=pytest.mark.broad)]


def _args(value) -> tuple:
    return value if isinstance(value, tuple) else (value,)


def crossed(first: Iterable, second: Iterable) -> list:
    """Every pair of a value of `first` and a value of `second`, for
    `pytest.mark.parametrize`: the pairs (first[k], second[k]), the shorter
    list taken round again, run in `make test`, so each value of each list
    runs there once; the other pairs are marked broad. A tuple value fills
    several argument names."""
    first, second = list(first), list(second)
    if not first or not second:
        raise ValueError("crossed needs values in both lists")
    kept = {(k % len(first), k % len(second)) for k in range(max(len(first), len(second)))}
    return [pytest.param(*_args(a), *_args(b),
                         marks=() if (i, j) in kept else (pytest.mark.broad,))
            for i, a in enumerate(first) for j, b in enumerate(second)]

"""What every fitness chart of the dashboard shares, as TensorBoard's
scalars do: a smoothing (an exponential moving average, debiased, so the
first points are not pulled towards zero; 0 is off), a log scale for the
fitness axis (values at or below zero cannot be drawn on it: they are left
out, and the chart says how many), ticks that read as numbers (`0.5M`,
`250k`, never `5.000e+5`), and one colour per run, the same in every chart
and in the runs table, derived from the run's name.
"""
from __future__ import annotations

import math
import zlib
from typing import Sequence

from bokeh.models import CustomJSTickFormatter
from bokeh.palettes import Category10, Dark2

# Strong colours only (no pale halves of Category20): each readable on white.
PALETTE = tuple(Category10[10]) + tuple(Dark2[8])
SMOOTHING_MAX = 0.99


def run_colour(name: str) -> str:
    """The run's colour: a stable hash of its name (CRC-32, the same in
    every process and every session) into `PALETTE`."""
    return PALETTE[zlib.crc32(name.encode("utf-8")) % len(PALETTE)]


def check_weight(weight: float) -> float:
    w = float(weight)
    if not (0.0 <= w <= SMOOTHING_MAX):
        raise ValueError(f"smoothing {weight!r} is out of range; accepted: 0 (off) to "
                         f"{SMOOTHING_MAX}")
    return w


def smooth(values: Sequence[float], weight: float) -> list[float]:
    """TensorBoard's smoothing: an exponential moving average with weight
    `weight` on the past, divided by (1 - weight ** n) after n finite
    values so it starts at the first value rather than near zero. NaN and
    infinite values stay as they are and do not enter the average; 0 gives
    the values back."""
    w = check_weight(weight)
    out: list[float] = []
    last, count = 0.0, 0
    for v in values:
        v = float(v)
        if not math.isfinite(v):
            out.append(v)
            continue
        if w == 0.0:
            out.append(v)
            continue
        last = last * w + (1.0 - w) * v
        count += 1
        out.append(last / (1.0 - w ** count))
    return out


def positive_only(values: Sequence[float]) -> tuple[list[float], int]:
    """The values a log axis can draw (those at or below zero as NaN), and
    how many were left out."""
    out, dropped = [], 0
    for v in values:
        v = float(v)
        if math.isfinite(v) and v <= 0.0:
            out.append(math.nan)
            dropped += 1
        else:
            out.append(v)
    return out, dropped


# Every tick of an axis in one unit, chosen by the largest tick: 0, 0.5M,
# 1M, 1.5M; 250k; 12.5; integers as integers. At most 3 significant digits.
TICK_CODE = """
let top = 0;
for (const t of ticks) { if (isFinite(t)) { top = Math.max(top, Math.abs(t)); } }
const units = [[1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]];
let scale = 1, suffix = "";
for (const [size, name] of units) { if (top >= size) { scale = size; suffix = name; break; } }
const v = tick / scale;
if (v === 0) { return "0"; }
if (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e15) { return v.toExponential(2); }
return String(Number(v.toPrecision(3))) + suffix;
"""


def number_ticks() -> CustomJSTickFormatter:
    """A formatter of an axis's ticks as `TICK_CODE` says (a new model for
    each axis: a Bokeh model belongs to one document)."""
    return CustomJSTickFormatter(code=TICK_CODE)


"""Runs grouped, as W&B groups them and as `evolution.compare` draws its
methods: the runs ticked in the table (or, with none ticked, those the
table's filters show) gathered by method or by any setting, and per group
the median over its runs of the best fitness so far against frames
played, with a band from the lowest to the highest run (min-max, what
`plots methods` draws) or from the 25th to the 75th percentile
(interquartile). The curves are the comparison's own (`plots.methods.
step_values` on a grid of `POINTS` frames from 0 to the most any run has
played), so an `evolution.compare` directory shows here what its picture
shows, and they move as the runs write their logbooks.

A run whose logbook has no frames column (one written before it existed)
cannot be placed on frames played: it is left out, and the view says so.
A group's curves are downloadable as CSV (the grid, the median, the band,
each run's best so far).
"""
from __future__ import annotations

import csv
import html
import io
import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import (
    Button,
    ColumnDataSource,
    DataTable,
    Div,
    HoverTool,
    Legend,
    LegendItem,
    RadioButtonGroup,
    Select,
    TableColumn,
)
from bokeh.plotting import figure

from plots.dashboard.charts import PALETTE, number_ticks
from plots.dashboard.runs import Run, best_curve
from plots.methods import POINTS, step_values

METHOD = "method"
BANDS = ("min-max", "interquartile")
NAME = "group-chart"
NOTE = "<p><i>tick runs in the table to group them (none ticked: the runs the table shows)</i></p>"


def group_key(run: Run, by: str, flat: Mapping[str, Any] | None = None) -> str:
    """The group `run` falls in: its method, or its setting `by` as text
    (flattened as the table's setting columns are; "(unset)" where it has
    none)."""
    if by == METHOD:
        return str(run.settings.get("algorithm") or "(unset)")
    value = (flat or {}).get(by, "")
    return "(unset)" if value in ("", None) else str(value)


@dataclass
class Group:
    """One group's curves on the grid of frames played."""

    name: str
    runs: list[str]
    frames: np.ndarray
    curves: np.ndarray          # one row a run, NaN before its first generation
    median: np.ndarray
    low: np.ndarray
    high: np.ndarray

    def csv(self) -> str:
        """The group's curves as CSV: frames, median, band, each run."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["frames", "median", "low", "high", *self.runs])
        for k, x in enumerate(self.frames):
            writer.writerow([_cell(x), _cell(self.median[k]), _cell(self.low[k]),
                             _cell(self.high[k]), *(_cell(c[k]) for c in self.curves)])
        return out.getvalue()


def _cell(v: float) -> str:
    v = float(v)
    if not math.isfinite(v):
        return ""
    return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)


def run_points(run: Run) -> tuple[list[float], list[float]] | None:
    """A run's (frames played, best so far) per generation, or None
    without frames."""
    frames = run.logbook.get("frames") or []
    best = best_curve(run.logbook)
    pairs = [(f, b) for f, b in zip(frames, best) if math.isfinite(f)]
    if not pairs:
        return None
    return [f for f, _ in pairs], [b for _, b in pairs]


def group_runs(runs: Sequence[Run], by: str, band: str = BANDS[0],
               flat: Mapping[str, Mapping[str, Any]] | None = None
               ) -> tuple[list[Group], list[str]]:
    """The groups of `runs` by `by` (in order of their names, as numbers
    where every name is one) and the
    names of the runs left out (no frames played logged)."""
    if band not in BANDS:
        raise ValueError(f"band {band!r} is not one of {', '.join(BANDS)}")
    members: dict[str, list[tuple[str, list[float], list[float]]]] = {}
    left_out = []
    for run in runs:
        points = run_points(run)
        if points is None:
            left_out.append(run.name)
            continue
        key = group_key(run, by, (flat or {}).get(run.name))
        members.setdefault(key, []).append((run.name, *points))
    if not members:
        return [], left_out
    top = max(f[-1] for group in members.values() for _, f, _ in group)
    grid = np.linspace(0.0, float(top), POINTS)
    groups = []
    for key in sorted(members, key=_order(list(members))):
        group = members[key]
        curves = np.array([step_values(f, b, grid) for _, f, b in group])
        with np.errstate(all="ignore"):
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)   # all-NaN columns
                median = np.nanmedian(curves, axis=0)
                if band == BANDS[0]:
                    low, high = np.nanmin(curves, axis=0), np.nanmax(curves, axis=0)
                else:
                    low, high = np.nanpercentile(curves, [25, 75], axis=0)
        groups.append(Group(key, [n for n, _, _ in group], grid, curves, median, low, high))
    return groups, left_out


def _order(names: list[str]):
    try:
        [float(n) for n in names]
        return float
    except ValueError:
        return str


def group_colour(k: int) -> str:
    return PALETTE[k % len(PALETTE)]


def _data(group: Group) -> dict[str, list]:
    shown = np.isfinite(group.median)
    return {"x": group.frames[shown].tolist(), "median": group.median[shown].tolist(),
            "low": group.low[shown].tolist(), "high": group.high[shown].tolist(),
            "group": [group.name] * int(shown.sum()),
            "runs": [len(group.runs)] * int(shown.sum())}


class GroupView:
    """The grouping's controls, its figure (made again only when the
    groups' names change; otherwise their data change in place) and the
    download of a group's curves."""

    def __init__(self, options: Sequence[str] = (), on_download=None) -> None:
        self.by = Select(title="group by", value=METHOD, options=[METHOD, *options],
                         width=220, name="group-by")
        self.band = RadioButtonGroup(labels=["band: min to max", "band: 25th to 75th percentile"],
                                     active=0, name="group-band")
        self.pick = Select(title="group to download", value="", options=[], width=220,
                           name="group-download-pick")
        self.button = Button(label="download group curves (CSV)", width=220, align="end",
                             disabled=True, name="group-download")
        if on_download is not None:
            self.button.on_click(on_download)
        self.note = Div(text=NOTE, name="group-note")
        self.box = column(Div(text=""), name="group-box")
        self.layout = column(row(self.by, self.band, self.pick, self.button), self.note,
                             self.box)
        self.groups: list[Group] = []
        self.names: tuple | None = None
        self.sources: list[ColumnDataSource] = []
        self.figure = None

    @property
    def band_name(self) -> str:
        return BANDS[self.band.active or 0]

    def offer(self, settings: Sequence[str]) -> None:
        options = [METHOD, *[s for s in settings if s != METHOD]]
        if list(self.by.options) != options:
            self.by.options = options
            if self.by.value not in options:
                self.by.value = METHOD

    def show(self, runs: Sequence[Run], flat: Mapping[str, Mapping[str, Any]] | None,
             what: str) -> None:
        """Group `runs` (described by `what`, e.g. "the 3 runs ticked")."""
        groups, left_out = group_runs(runs, self.by.value, self.band_name, flat)
        self.groups = groups
        band = "lowest to highest run" if self.band_name == BANDS[0] else \
            "25th to 75th percentile"
        note = (f"<p>{html.escape(what)}, grouped by {html.escape(self.by.value)}: median "
                f"over each group's runs of the best fitness so far, band from the {band}"
                + (f"; left out (no frames played logged): "
                   f"{html.escape(', '.join(left_out))}" if left_out else "") + "</p>")
        if not groups:
            note = NOTE if not runs else note
        if self.note.text != note:
            self.note.text = note
        names = [g.name for g in groups]
        if list(self.pick.options) != names:
            self.pick.options = names
        if self.pick.value not in names:
            self.pick.value = names[0] if names else ""
        self.button.disabled = not names
        key = tuple((g.name, len(g.runs)) for g in groups)
        if key != self.names:
            self._build(groups)
            return
        for source, group in zip(self.sources, groups):
            data = _data(group)
            if data != dict(source.data):
                source.data = data

    def _build(self, groups: Sequence[Group]) -> None:
        self.names = tuple((g.name, len(g.runs)) for g in groups)
        if self.figure is not None:
            # The browser may keep the figure replaced a while: unnamed, it
            # is not found in place of the new one.
            self.figure.name = None
        if not groups:
            self.box.children = [Div(text="")]
            self.figure, self.sources = None, []
            return
        fig = figure(height=420, width=1250, name=NAME, title="best fitness by group",
                     x_axis_label="frames played", y_axis_label="best fitness (median)",
                     tools="pan,wheel_zoom,box_zoom,reset")
        fig.xaxis.formatter = number_ticks()
        fig.yaxis.formatter = number_ticks()
        items, self.sources = [], []
        for k, group in enumerate(groups):
            source = ColumnDataSource(_data(group))
            colour = group_colour(k)
            band = fig.varea(x="x", y1="low", y2="high", source=source, color=colour,
                             alpha=0.2, name=f"group-band-{k}")
            line = fig.line(x="x", y="median", source=source, color=colour, line_width=2)
            items.append(LegendItem(label=f"{group.name} ({len(group.runs)} runs)",
                                    renderers=[line, band]))
            self.sources.append(source)
        fig.add_tools(HoverTool(renderers=[r for item in items for r in item.renderers[:1]],
                                tooltips=[("group", "@group"), ("runs", "@runs"),
                                          ("frames", "@x{0,0}"), ("median", "@median{0.000}"),
                                          ("band", "@low{0.000} to @high{0.000}")]))
        fig.add_layout(Legend(items=items, click_policy="hide", title="groups (click to hide)",
                              label_text_font_size="9pt"), "right")
        self.figure = fig
        self.box.children = [fig]

    def chosen_group(self) -> Group | None:
        return next((g for g in self.groups if g.name == self.pick.value), None)


# -- an evolution.compare directory's tables ------------------------------------------------

def markdown_tables(text: str) -> list[tuple[str, list[str], list[list[str]]]]:
    """The Markdown tables of `text` (what `evolution.compare` prints):
    each as (the line before it, its header, its rows)."""
    from plots.dashboard.views import _cells, _is_rule

    out = []
    lines = text.splitlines()
    caption = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if (line.lstrip().startswith("|") and i + 1 < len(lines)
                and _is_rule(_cells(lines[i + 1]))):
            head = _cells(line)
            i += 2
            body = []
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                body.append(_cells(lines[i]))
                i += 1
            out.append((caption, head, body))
            caption = ""
            continue
        if line.strip():
            caption = line.strip()
        i += 1
    return out


def data_table(head: Sequence[str], body: Sequence[Sequence[str]], name: str) -> DataTable:
    """A Bokeh table of text cells (each drawn as text, never as HTML)."""
    fields = [f"c{k}" for k in range(len(head))]
    data = {f: [r[k] if k < len(r) else "" for r in body] for k, f in enumerate(fields)}
    widths = [max(60, min(260, 8 * max([len(h), *(len(r[k]) if k < len(r) else 0
                                                    for r in body)])))
              for k, h in enumerate(head)]
    return DataTable(source=ColumnDataSource(data), name=name, index_position=None,
                     sortable=True, selectable=False, width=sum(widths) + 20,
                     height=30 + 26 * max(1, len(body)),
                     columns=[TableColumn(field=f, title=html.escape(h), width=w)
                              for f, h, w in zip(fields, head, widths)])

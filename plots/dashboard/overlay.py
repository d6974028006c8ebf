"""The best-fitness curves of the runs picked to compare, overlaid in one
Bokeh figure of the page: one line a run, named in a legend beside the
plot (outside it, on the right, so no curve hides under it and no name is
cut off) whose entries hide and show their run's line when clicked.

"Best" is what the runs table says it is (`runs.best_curve`): the
logbook's `best` column where it has one, else the running maximum of the
population's `max`. The lines move as the runs write their logbooks: the
figure is made again only when the runs picked change, and otherwise its
data change in place.
"""
from __future__ import annotations

import math
from typing import Sequence

from bokeh.layouts import column
from bokeh.models import ColumnDataSource, Div, HoverTool, Legend, LegendItem
from bokeh.plotting import figure

from plots.dashboard.charts import number_ticks, positive_only, run_colour, smooth
from plots.dashboard.runs import Run, best_curve

TITLE = "best fitness of the chosen runs"
NAME = "compare-overlay"
PICK_NOTE = "<p><i>pick runs to overlay their best-fitness curves</i></p>"


# The x axes: the logbook's column and the axis's label.
X_LABELS = {"gen": "generation", "frames": "frames played", "seconds": "wall time (s)"}


def x_column(book: dict[str, list[float]], x: str) -> str:
    """The logbook column drawn on x: `x` where the logbook has it, else
    generations."""
    return x if x in X_LABELS and book.get(x) else "gen"


def x_values(book: dict[str, list[float]], x: str) -> list[float]:
    """The x of each generation: its number, the frames played so far
    (the logbook counts them so), or the wall time so far (the running sum
    of each generation's `seconds`, a generation without one adding 0)."""
    name = x_column(book, x)
    if name != "seconds":
        return list(book.get(name, []))
    out, total = [], 0.0
    for v in book["seconds"]:
        total += v if math.isfinite(v) else 0.0
        out.append(round(total, 3))
    return out


def overlay_data(run: Run, x: str, smoothing: float = 0.0,
                 log: bool = False) -> dict[str, list]:
    """A run's line: x generations (or frames played or wall time, where
    `x` asks for them and the run's logbook has them) and its best fitness smoothed (`charts.smooth`;
    `raw` as logged), with its name for the hover; on a log axis, values
    at or below 0 left out."""
    book = run.logbook
    xs = x_values(book, x)
    best = best_curve(book)
    best = (best + [math.nan] * (len(xs) - len(best)))[:len(xs)]
    shown = smooth(best, smoothing)
    if log:
        shown, _ = positive_only(shown)
    return {"x": xs, "best": shown, "raw": best, "run": [run.name] * len(xs)}


class Overlay:
    """The figure (or, with no run picked, a line saying what to do)."""

    def __init__(self) -> None:
        self.layout = column(Div(text=PICK_NOTE), name="compare-box")
        self.names: tuple[str, ...] | None = None
        self.x = "gen"
        self.log = False
        self.figure = None
        self.sources: list[ColumnDataSource] = []

    def show(self, runs: Sequence[Run], x: str = "gen", smoothing: float = 0.0,
             log: bool = False) -> None:
        names = tuple(r.name for r in runs)
        if not names:
            if self.names != names:
                self.layout.children = [Div(text=PICK_NOTE)]
                if self.figure is not None:
                    self.figure.name = None
                self.names, self.figure, self.sources = names, None, []
            return
        if names != self.names or x != self.x or log != self.log:
            self._build(runs, x, smoothing, log)
            return
        for source, run in zip(self.sources, runs):
            data = overlay_data(run, x, smoothing, log)
            if data != dict(source.data):
                source.data = data

    def _build(self, runs: Sequence[Run], x: str, smoothing: float,
               log: bool) -> None:
        self.names, self.x, self.log = tuple(r.name for r in runs), x, log
        if self.figure is not None:
            # The browser may keep the figure replaced a while: unnamed, it
            # is not found in place of the new one.
            self.figure.name = None
        fig = figure(height=420, width=1250, title=TITLE, name=NAME,
                     x_axis_label=X_LABELS.get(x, "generation"),
                     y_axis_label="best fitness" + (" (log; values <= 0 left out)"
                                                    if log else ""),
                     y_axis_type="log" if log else "linear",
                     tools="pan,wheel_zoom,box_zoom,reset")
        fig.xaxis.formatter = number_ticks()
        if not log:
            fig.yaxis.formatter = number_ticks()
        items, self.sources = [], []
        used: set[str] = set()
        for run in runs:
            source = ColumnDataSource(overlay_data(run, x, smoothing, log))
            # The run's own colour (as in every chart); dashed when another
            # run picked has the same one.
            colour = run_colour(run.name)
            dash = "dashed" if colour in used else "solid"
            used.add(colour)
            line = fig.line(x="x", y="best", source=source, line_width=2, color=colour,
                            line_dash=dash)
            dots = fig.scatter(x="x", y="best", source=source, size=4, color=colour)
            items.append(LegendItem(label=run.name, renderers=[line, dots]))
            self.sources.append(source)
        fig.add_tools(HoverTool(tooltips=[("run", "@run"), ("x", "@x{0,0}"),
                                          ("best fitness", "@raw{0.000}"),
                                          ("smoothed", "@best{0.000}")]))
        legend = Legend(items=items, click_policy="hide", title="runs (click to hide)",
                        label_text_font_size="9pt")
        fig.add_layout(legend, "right")
        self.figure = fig
        self.layout.children = [fig]

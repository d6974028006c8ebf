"""The dashboard's page, one Bokeh document per browser tab: the runs
table (sortable, filtered by method or stage), and the run chosen in it:
its fitness curves against generations or frames played, its held-out and
validation completion, and its settings. A callback every second reads
what changed on disk, so a running run's row and curves move, and a run
started after the page opened appears, without reloading the page.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from bokeh.document import Document
from bokeh.layouts import column, row
from bokeh.models import (
    AllIndices,
    ColumnDataSource,
    DataTable,
    Div,
    NumberFormatter,
    RadioButtonGroup,
    Select,
    TableColumn,
    TextInput,
)
from bokeh.plotting import figure

from plots.dashboard.runs import COLUMNS, RunsDir, stage_count

REFRESH_MS = 1000
ALL = "all methods"
TITLES = {"name": "run", "method": "method", "policy": "policy / observation",
          "stages": "stages", "generation": "generation", "best": "best fitness",
          "held_out": "held-out", "validation": "validation", "frames": "frames",
          "status": "status", "updated": "updated"}
# Number formats by column (a Bokeh model belongs to one document: each
# page makes its own formatters).
FORMATS = {"best": "0.000", "held_out": "0.0%", "validation": "0.0%", "frames": "0,0"}
CURVES = ("gen", "max", "mean", "min", "frames")


class Page:
    """The widgets of one document and how they follow the runs."""

    def __init__(self, runs: RunsDir) -> None:
        self.runs = runs
        self.all_rows: list[dict[str, Any]] = []
        self.chosen: str | None = None
        self.table_source = ColumnDataSource({c: [] for c in COLUMNS})
        self.method = Select(title="method", value=ALL, options=[ALL], width=160)
        self.stage = TextInput(title="stage contains", value="", width=200)
        self.count = Div(text="")
        self.table = DataTable(
            source=self.table_source, sortable=True, index_position=None, width=1250,
            height=320, columns=[_column(c) for c in COLUMNS])
        self.axis = RadioButtonGroup(labels=["generations", "frames played"], active=0)
        self.curve_source = ColumnDataSource({c: [] for c in (*CURVES, "x")})
        self.test_source = ColumnDataSource({"x": [], "held_out": [], "validation": []})
        self.fitness = figure(height=300, width=700, title="fitness",
                              x_axis_label="generation", y_axis_label="fitness")
        self.fitness.varea(x="x", y1="min", y2="max", source=self.curve_source, alpha=0.2,
                           legend_label="min to max")
        self.fitness.line(x="x", y="max", source=self.curve_source, line_width=2,
                          legend_label="best")
        self.fitness.line(x="x", y="mean", source=self.curve_source, color="orange",
                          legend_label="mean")
        self.fitness.legend.location = "bottom_right"
        self.tests = figure(height=300, width=520, title="held-out and validation completion",
                            x_axis_label="generation", y_range=(-0.02, 1.02))
        self.tests.scatter(x="x", y="held_out", source=self.test_source, size=6,
                           legend_label="held-out")
        self.tests.scatter(x="x", y="validation", source=self.test_source, size=6,
                           color="green", marker="square", legend_label="validation")
        self.tests.legend.location = "bottom_right"
        self.detail = Div(text="<i>choose a run in the table</i>", width=1250)

        self.method.on_change("value", lambda attr, old, new: self.show_rows())
        self.stage.on_change("value", lambda attr, old, new: self.show_rows())
        self.axis.on_change("active", lambda attr, old, new: self.show_run())
        self.table_source.selected.on_change("indices", self.on_select)

    def layout(self):
        return column(Div(text=f"<h2>Speednik Evolve: runs in {self.runs.root}</h2>"),
                      row(self.method, self.stage, self.count), self.table, self.detail,
                      self.axis, row(self.fitness, self.tests))

    # -- the table ---------------------------------------------------------------------

    def refresh(self) -> None:
        self.all_rows = self.runs.rows()
        methods = sorted({r["method"] for r in self.all_rows if r["method"]})
        self.method.options = [ALL, *methods]
        self.show_rows()
        self.show_run()

    def shown_rows(self) -> list[dict[str, Any]]:
        want, text = self.method.value, self.stage.value.strip()
        return [r for r in self.all_rows
                if (want == ALL or r["method"] == want) and text in r["stages"]]

    def show_rows(self) -> None:
        rows = self.shown_rows()
        data = {c: [r[c] for r in rows] for c in COLUMNS}
        if data != dict(self.table_source.data):
            self.table_source.data = data
            # Bokeh's table redraws when its view changes, which new data of
            # as many rows as before does not do: a fresh filter (all rows,
            # as before) makes it.
            self.table.view.filter = AllIndices()
            names = data["name"]
            keep = [names.index(self.chosen)] if self.chosen in names else []
            if list(self.table_source.selected.indices) != keep:
                self.table_source.selected.indices = keep
        self.count.text = f"<br>{len(rows)} of {len(self.all_rows)} runs"

    def on_select(self, attr, old, new) -> None:
        if new:
            self.chosen = self.table_source.data["name"][new[0]]
            self.show_run()

    # -- the chosen run ----------------------------------------------------------------

    def show_run(self) -> None:
        run = next((r for r in self.runs.runs() if r.name == self.chosen), None)
        if run is None:
            return
        log = run.logbook
        x_name = "frames" if self.axis.active == 1 and log.get("frames") else "gen"
        xs = log.get(x_name, [])
        curves = {c: log.get(c, [math.nan] * len(xs)) for c in CURVES}
        self.curve_source.data = {**curves, "x": xs}
        held = run.row()
        tests = {"x": xs,
                 "held_out": _fractions(log.get("test_goals"), run.settings, "test_stages"),
                 "validation": _fractions(log.get("val_goals"), run.settings,
                                          "validation_stages")}
        self.test_source.data = {k: (v if v else [math.nan] * len(xs)) for k, v in tests.items()}
        label = "frames played" if x_name == "frames" else "generation"
        self.fitness.xaxis.axis_label = label
        self.tests.xaxis.axis_label = label
        self.fitness.title.text = f"fitness: {run.name}"
        settings = json.dumps(run.settings, indent=1, default=str)
        self.detail.text = (f"<b>{run.name}</b>: {held['method']}, {held['policy']}, "
                            f"{held['status']}, {held['generation']} generations"
                            f"<details><summary>settings</summary><pre>{_escape(settings)}"
                            f"</pre></details>")


def _column(name: str) -> TableColumn:
    if name in FORMATS:
        return TableColumn(field=name, title=TITLES[name],
                           formatter=NumberFormatter(format=FORMATS[name]))
    return TableColumn(field=name, title=TITLES[name])


def _fractions(goals: list[float] | None, settings: dict, key: str) -> list[float]:
    count = stage_count(settings.get(key))
    if not goals or not count:
        return []
    return [g / count for g in goals]


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def make_document(root: Path):
    """A function Bokeh calls for each new tab: its document. The tabs
    share one reading of the runs (Bokeh calls them all on one thread)."""
    runs = RunsDir(root)

    def build(doc: Document) -> None:
        page = Page(runs)
        page.refresh()
        doc.title = "Speednik Evolve dashboard"
        doc.add_root(page.layout())
        doc.add_periodic_callback(page.refresh, REFRESH_MS)

    return build

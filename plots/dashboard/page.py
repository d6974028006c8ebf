"""The dashboard's page, one Bokeh document per browser tab: the runs
table (sortable, filtered by method or stage; a tick box a row, a click on
a row chooses its run), and the run chosen in it:
its fitness curves against generations, frames played or wall time, its
held-out and validation completion, its settings, and what its search
method has of its own (per generation, `history`; at the last checkpoint,
`views.method_view`; a MAP-Elites archive as a figure whose cells replay
their elite when clicked, `archive_map`); a replay of its
best genome (or an elite) on a stage picked in the page; the best-fitness
curves of the runs ticked (`overlay`), the runs grouped by method or by a
setting (`groups`), an `evolution.compare` output directory's tables and
curves, and an `evolution.tune` study (`study`).
The fitness charts share `charts`' controls; the page's address names
what it shows (`address`); the chosen run's logbook and settings, and a
group's curves, can be saved from it.
A callback every second reads what changed on disk, so a running run's
row, curves and method view move, and a run started after the page opened
appears, without reloading the page; of the table only the cells that
changed are sent. The table is sent first, of its first FIRST_ROWS rows;
once the browser has drawn them, the other rows, then the rest of the
page made a figure at a time (the server answers other tabs between
them) and sent a part at a time; a method's own figures are made the
first time one of its runs is chosen. Pictures are drawn and replays
played on one drawing thread, so the page stays live while they are.
"""
from __future__ import annotations

import html
import json
import math
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, Callable

from bokeh.document import Document
from bokeh.layouts import column, row
from bokeh.models import (
    AllIndices,
    Button,
    Checkbox,
    ColumnDataSource,
    CustomJS,
    DataTable,
    Div,
    HoverTool,
    LabelSet,
    MultiChoice,
    NumberFormatter,
    RadioButtonGroup,
    Select,
    Slider,
    StringFormatter,
    TableColumn,
    TextInput,
)
from bokeh.plotting import figure

from evolution.loop.method_file import METHOD_NAME, read_method_file
from evolution.loop.outputs import CONFIG_NAME, LOGBOOK_NAME, RunFileError
from plots import PlotError
from plots.fitness import repeat_rows, start_rows
from plots.dashboard import views
from plots.dashboard.address import REPLACE_JS, X_AXES, View, query, read_view
from plots.dashboard.charts import SMOOTHING_MAX, number_ticks, positive_only, run_colour, smooth
from plots.dashboard.study import StudyBusyError, StudyReadError, StudyView, read_study
from plots.dashboard.archive_map import ArchiveMap, archive_cells
from plots.dashboard.first_rows import ELEMENT_ID as FIRST_ROWS_ID
from plots.dashboard.first_rows import TEMPLATE as FIRST_ROWS_TEMPLATE
from plots.dashboard.first_rows import first_rows_html
from plots.dashboard.history import MethodHistory
from plots.dashboard.groups import METHOD, GroupView, data_table, markdown_tables
from plots.dashboard.overlay import X_LABELS, Overlay, x_column, x_values
from plots.dashboard.runs import (
    COLUMNS,
    STUDY_FILE,
    Run,
    RunsDir,
    best_curve,
    file_stamp,
    stage_count,
)
from runners.archive_file import ARCHIVE_NAME, ArchiveFileError

REFRESH_MS = 1000
REST_AFTER_MS = 3000
# The tabs open at once read the runs once within this (s): each refreshes
# every REFRESH_MS, and each refresh would otherwise walk RUNS_DIR.
REUSE_SECONDS = 0.5
# Rows the table is first sent with (about as many as it shows before it
# scrolls); the rest follow once the browser has drawn them.
FIRST_ROWS = 20
# The runs table's rows (px) and the most it grows to before it scrolls.
ROW_HEIGHT = 25
TABLE_HEIGHT = 420
ALL = "all methods"
TITLES = {"name": "run", "method": "method", "policy": "policy / observation",
          "stages": "stages", "generation": "generation", "best": "best fitness",
          "held_out": "held-out", "validation": "validation", "frames": "frames",
          "status": "status", "updated": "updated"}
# Column widths (px, of the table's 1250): room for "598 (100% of 720 M
# frames)" and for a damaged run's status.
WIDTHS = {"name": 170, "method": 80, "policy": 120, "stages": 120, "generation": 200,
          "best": 80, "held_out": 70, "validation": 70, "frames": 90, "status": 170,
          "updated": 80}
# Number formats by column (a Bokeh model belongs to one document: each
# page makes its own formatters).
FORMATS = {"best": "0.000", "held_out": "0.0%", "validation": "0.0%", "frames": "0,0"}
# The logbook's columns drawn, and "best" (`runs.best_curve`).
CURVES = ("gen", "max", "mean", "min", "frames", "best")
# Every tab's pictures and replays are drawn here, one at a time, off the
# server's event loop (which then keeps the pages live) and on one thread
# (matplotlib is not thread-safe).
DRAWING = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dashboard-drawing")
# A running run's pictures (its last checkpoint's) are drawn again at most
# this often (s): a fast run checkpoints several times a second, and each
# drawing takes a tenth of a second or more of a core the run could use.
PICTURE_SECONDS = 10.0
NO_COMPARISON = "(none)"
NO_STUDY = "(none)"
# The curves of the run's fitness chart that the smoothing smooths (drawn
# as "NAME_s"; the raw best is drawn faint behind its smoothed line).
SMOOTHED = ("best", "max", "mean")
# Sent to the browser as a file when a download button is pressed:
# (button label, the run's file, the name it is saved as, its type).
DOWNLOADS = (("download logbook (CSV)", LOGBOOK_NAME, "logbook.csv", "text/csv"),
             ("download settings (JSON)", CONFIG_NAME, "config.json", "application/json"))
# A click on a row of the runs table (not on its tick box) chooses that
# run: the table's selection is the runs ticked, so the click is read from
# the grid itself and written into a hidden text box the server follows.
# Installed once the page's views exist; the grid is looked up at each
# click (the table draws a new one when its columns change). Then, once
# the table's first rows are on the screen, it says the table is drawn,
# and the server sends the rest of the page.
CLICK_JS = """
function install() {
  const view = Bokeh.index.find_one(table);
  if (view == null || view.shadow_el == null) { setTimeout(install, 100); return; }
  view.shadow_el.addEventListener("click", (ev) => {
    const grid = view.grid;
    if (grid == null) { return; }
    const cell = grid.getCellFromEvent(ev);
    if (cell == null) { return; }
    const col = grid.getColumns()[cell.cell];
    if (col == null || col.id === "_checkbox_selector") { return; }
    const name = view.data.getField(cell.row, "name");
    if (name != null && chooser.value !== name) { chooser.value = name; }
  });
  drawn();
}
function drawn() {
  // Once its first rows are on the screen (a frame after they are in it).
  const view = Bokeh.index.find_one(table);
  const grid = view.grid;
  if (grid == null || (grid.getDataLength() > 0
                       && view.shadow_el.querySelector(".slick-cell") == null)) {
    setTimeout(drawn, 50);
    return;
  }
  requestAnimationFrame(() => {
    // The interactive table is on the screen: the plain one over it goes.
    document.getElementById(first_rows)?.remove();
    ready.value = "drawn";
  });
}
install();
"""
REDRAW_JS = """
const view = Bokeh.index.find_one(table);
if (view != null && view.grid != null) { view.updateGrid(); }
"""
DOWNLOAD_JS = """
const d = cb_obj.data;
if (!d.text || d.text.length === 0) { return; }
const blob = new Blob([d.text[0]], {type: d.type[0]});
const a = document.createElement("a");
a.href = URL.createObjectURL(blob);
a.download = d.file[0];
document.body.appendChild(a);
a.click();
a.remove();
setTimeout(() => URL.revokeObjectURL(a.href), 10000);
"""


class Page:
    """The widgets of one document and how they follow the runs."""

    def __init__(self, runs: RunsDir, doc: Document | None = None,
                 view: View | None = None, lazy: bool = False) -> None:
        self.runs = runs
        self.doc = doc
        self.all_rows: list[dict[str, Any]] = []
        # The runs as the last refresh read them (one reading a refresh).
        self.current: list[Run] = []
        self.rows_key: tuple | None = None
        # The most rows the table is sent (None: all), while the page
        # opens (`make_document`).
        self.first_rows: int | None = None
        self.chosen: str | None = None
        # The view the page's address asked for, applied at its first refresh.
        self.asked = view if view is not None else View()
        self.table_source = ColumnDataSource({c: [] for c in (*COLUMNS, "colour")})
        self.method = Select(title="method", value=ALL, options=[ALL], width=160)
        self.stage = TextInput(title="stage contains", value="", width=200)
        self.count = Div(text="")
        self.table = DataTable(
            source=self.table_source, sortable=True, index_position=None, width=1250,
            height=ROW_HEIGHT * 2, row_height=ROW_HEIGHT, selectable="checkbox",
            columns=[_column(c) for c in COLUMNS], name="runs-table")
        # Bokeh's table redraws when its view changes, which a patch or new
        # data of as many rows does not do (a fresh filter would, at the
        # cost of the server walking the whole document): it is told to.
        for event in ("data", "patching"):
            self.table_source.js_on_change(event, CustomJS(args={"table": self.table},
                                                           code=REDRAW_JS))
        # The run clicked in the table (CLICK_JS writes it).
        self.run_click = TextInput(value="", visible=False, name="run-click")
        self.run_click.on_change("value", lambda attr, old, new: self.on_click_run(new))
        # "drawn" once the browser has drawn the table (CLICK_JS writes it).
        self.drawn = TextInput(value="", visible=False, name="page-drawn")
        # Settings shown as more columns of the table, picked by name.
        self.settings_of: dict[str, dict[str, Any]] = {}
        self.flat_cache: dict[str, tuple[Run, dict[str, Any]]] = {}
        self.setting_pick = MultiChoice(title="settings as columns", value=[], options=[],
                                        width=600, name="setting-columns")
        self.setting_pick.on_change("value", lambda attr, old, new: self.on_setting_columns())
        self.axis = RadioButtonGroup(labels=["generations", "frames played", "wall time"],
                                     active=X_AXES.index(self.asked.x), name="x-axis")
        # The fitness charts' controls (TensorBoard's): smoothing, log y.
        self.smoothing = Slider(title="smoothing (0 = off)", start=0.0, end=SMOOTHING_MAX,
                                step=0.01, value=0.0, width=250, name="smoothing")
        self.log_y = Checkbox(label="log y (values at or below 0 are left out)",
                              active=False, name="log-y")
        self.compare_pick = MultiChoice(title="runs to overlay (or tick them in the table)",
                                        value=[], options=[], width=1000, name="compare-runs")
        self.comparison = Select(title="evolution.compare output", value=NO_COMPARISON,
                                 options=[NO_COMPARISON], width=400)
        self.study_pick = Select(title="evolution.tune study", value=NO_STUDY,
                                 options=[NO_STUDY], width=400, name="study")
        # The page's address (?run=...&overlay=...), written into the
        # browser's address bar whenever it changes.
        self.address = TextInput(value=query(self.asked), visible=False, name="address")
        self.address.js_on_change("value", CustomJS(code=REPLACE_JS))
        self.download_source = ColumnDataSource({"file": [], "text": [], "type": [], "n": []})
        self.download_source.js_on_change("data", CustomJS(code=DOWNLOAD_JS))

        self.method.on_change("value", lambda attr, old, new: self.show_rows())
        self.stage.on_change("value", lambda attr, old, new: self.show_rows())
        self.table_source.selected.on_change("indices", self.on_select)
        self.compare_pick.on_change("value", lambda attr, old, new: self.on_compare_pick())
        # The rest (its figures take a while to make), now or, for a
        # page a browser waits for, once it has drawn the table.
        self.whole = self.building = False
        if not lazy:
            self.build_rest()

    def build_rest(self) -> None:
        """The widgets and figures of all but the runs table."""
        for build, _ in self.rest_parts():
            build()

    def rest_parts(self) -> list[tuple[Callable[[], None], Callable[[], Any] | None]]:
        """`build_rest` in steps of about one figure each, each with the
        part of the page it completes (or None): a served page takes them
        one at a time, so that the server's event loop answers other tabs
        between them, and sends the parts one at a time. Empty once
        begun."""
        if self.whole or self.building:
            return []
        self.building = True
        return [(self.build_run, None), (self.build_fitness, None),
                (self.build_tests, self.section_run),
                (self.build_method, self.section_method),
                (self.build_compare, self.section_compare),
                (self.build_groups, self.section_groups),
                (self.build_study, self.section_study), (self.build_done, None)]

    def build_run(self) -> None:
        self.chart_note = Div(text="", name="chart-note")
        self.curve_source = ColumnDataSource(
            {c: [] for c in (*CURVES, "x", *(f"{c}_s" for c in SMOOTHED))})
        self.test_source = ColumnDataSource({"x": [], "held_out": [], "validation": []})
        # Where a run of several starts (--starts) changed its search.
        self.start_source = ColumnDataSource({"x": [], "label": []})
        self.detail = Div(text="<i>choose a run in the table</i>", width=1250)
        self.downloads = []
        for label, file, saved, kind in DOWNLOADS:
            button = Button(label=label, width=200, disabled=True,
                            name=f"download-{saved}")
            button.on_click(partial(self.on_download, file, saved, kind))
            self.downloads.append(button)

    def build_fitness(self) -> None:
        # Linear, and log once asked for (a Bokeh figure's axis type is
        # fixed; one made again would leave two of one name in the
        # browser): the one of the log y box shown.
        self.best_lines: list = []
        self.fitness_figures = {False: self.fitness_figure(log=False)}
        self.fitness_box = column(self.fitness_figures[False])

    def build_tests(self) -> None:
        self.tests = figure(height=300, width=430, title="held-out and validation completion",
                            x_axis_label="generation", y_range=(-0.02, 1.02))
        self.tests.xaxis.formatter = number_ticks()
        self.tests.scatter(x="x", y="held_out", source=self.test_source, size=6,
                           legend_label="held-out")
        self.tests.scatter(x="x", y="validation", source=self.test_source, size=6,
                           color="green", marker="square", legend_label="validation")
        self.tests.legend.location = "bottom_right"

    def build_method(self) -> None:
        self.method_head = Div(text="", width=1250)
        self.archive_map = ArchiveMap(self.on_archive_cell)
        self.history = MethodHistory()
        self.history_key: tuple | None = None
        self.method_view = Div(text="", width=1250)
        self.method_key: tuple | None = None
        # The key the method view's pictures were last drawn for, and when.
        self.picture_key: tuple | None = None
        self.picture_at = 0.0
        self.replay_stage = Select(title="stage", value="", options=[], width=220)
        self.replay_gen = TextInput(title="or a generated stage", value="",
                                    placeholder="gen:easy:7", width=180)
        self.replay_who = Select(title="who plays", value=views.BEST_GENOME[0],
                                 options=[views.BEST_GENOME], width=300, name="replay-who")
        self.replay_button = Button(label="replay", button_type="primary", width=120,
                                    align="end")
        self.replay_view = Div(text="", width=1250)
        self.replaying = False

    def build_compare(self) -> None:
        self.overlay = Overlay()

    def build_groups(self) -> None:
        self.groups = GroupView(on_download=self.on_group_download)
        self.group_key: tuple | None = None
        self.comparison_tables = column(Div(text=""), name="comparison-tables")
        self.comparison_view = Div(text="", width=1300)
        self.comparison_key: tuple | None = None

    def build_study(self) -> None:
        self.study = StudyView()
        self.study_key: tuple | None = None

    def build_done(self) -> None:
        """The page whole: its controls now act on what they show."""
        self.whole = True
        self.groups.by.on_change("value", lambda attr, old, new: self.show_groups())
        self.groups.band.on_change("active", lambda attr, old, new: self.show_groups())
        self.study_pick.on_change("value", lambda attr, old, new: (self.show_study(),
                                                                   self.write_address()))
        self.axis.on_change("active", lambda attr, old, new: self.on_chart_control())
        self.smoothing.on_change("value",
                                 lambda attr, old, new: self.on_chart_control())
        self.log_y.on_change("active", lambda attr, old, new: self.on_log())
        self.replay_button.on_click(self.on_replay)
        self.comparison.on_change("value", lambda attr, old, new: (self.show_comparison(),
                                                                    self.show_groups(),
                                                                    self.write_address()))

    def head(self):
        """What the page shows first: the runs table and its filters."""
        return column(Div(text=f"<h2>{html.escape(self.heading())}</h2>"),
                      row(self.method, self.stage, self.count, self.setting_pick), self.table,
                      # In the page from the first: it follows every choice.
                      self.run_click, self.drawn, self.address)

    def heading(self) -> str:
        return f"Speednik Evolve: runs in {self.runs.root}"

    def plain_table(self) -> str:
        """The table's first rows as the page's HTML shows them."""
        shown = self.shown_rows()[:FIRST_ROWS]
        return first_rows_html(self.heading(), len(self.all_rows), shown, COLUMNS, TITLES,
                               WIDTHS, FORMATS, [run_colour(r["name"]) for r in shown])

    def body(self):
        """The rest of the page, sent after the table."""
        return column(self.section_run(), self.section_method(), self.section_compare(),
                      self.section_groups(), self.section_study())

    def section_run(self):
        return column(self.detail, row(*self.downloads),
                      row(self.axis, self.smoothing, self.log_y, self.chart_note),
                      row(self.fitness_box, self.tests))

    def section_method(self):
        return column(Div(text="<h3>the method's own</h3>"), self.method_head,
                      self.archive_map.figure, self.history.layout, self.method_view,
                      Div(text="<h3>replay</h3>"),
                      row(self.replay_who, self.replay_stage, self.replay_gen,
                          self.replay_button), self.replay_view)

    def section_compare(self):
        return column(Div(text="<h3>compare runs</h3>"), self.compare_pick,
                      self.overlay.layout)

    def section_groups(self):
        # A comparison chosen is what the groups show.
        return column(Div(text="<h3>groups</h3>"), self.comparison, self.groups.layout,
                      self.comparison_tables, self.comparison_view)

    def section_study(self):
        return column(Div(text="<h3>tuning studies</h3>"), self.study_pick,
                      self.study.layout)

    def layout(self):
        return column(self.head(), self.body())

    def fitness_figure(self, log: bool):
        """The chosen run's fitness chart, on a linear or a log y axis."""
        fig = figure(height=300, width=820, title="fitness", x_axis_label="generation",
                     y_axis_label="fitness (log)" if log else "fitness",
                     y_axis_type="log" if log else "linear",
                     name="fitness-log" if log else "fitness")
        fig.xaxis.formatter = number_ticks()
        if not log:
            fig.yaxis.formatter = number_ticks()
        src = self.curve_source
        # "best" is the genome the run would hand back (the logbook's
        # `best`); the others are the population's statistics.
        fig.varea(x="x", y1="min", y2="max", source=src, alpha=0.2,
                  legend_label="population min to max")
        fig.line(x="x", y="max_s", source=src, line_width=1, color="steelblue",
                 line_dash="dashed", legend_label="population max")
        fig.line(x="x", y="mean_s", source=src, color="orange",
                 legend_label="population mean")
        colour = run_colour(self.chosen) if self.chosen else "black"
        raw = fig.line(x="x", y="best", source=src, line_width=1, color=colour, alpha=0.3)
        best = fig.line(x="x", y="best_s", source=src, line_width=2, color=colour,
                        legend_label="best")
        self.best_lines += [raw, best]
        fig.vspan(x="x", source=self.start_source, line_color="grey", line_alpha=0.7)
        fig.add_layout(LabelSet(x="x", y=4, y_units="screen", x_offset=3, text="label",
                                source=self.start_source, text_font_size="8pt",
                                text_color="#444444"))
        # Hovered through its points (a line's own hit test answers twice
        # where two segments meet).
        points = fig.scatter(x="x", y="best_s", source=src, size=8, alpha=0.0)
        fig.add_tools(HoverTool(renderers=[points], mode="vline", tooltips=[
            ("x", "@x{0,0}"), ("best", "@best{0.000}"), ("best smoothed", "@best_s{0.000}"),
            ("population max", "@max{0.000}"), ("population mean", "@mean{0.000}")]))
        # Beside the plot, never over the start of the curves.
        legend = fig.legend[0]
        fig.center.remove(legend)
        legend.click_policy = "hide"
        legend.label_text_font_size = "9pt"
        fig.add_layout(legend, "right")
        return fig

    @property
    def fitness(self):
        """The fitness chart shown."""
        return self.fitness_figures[bool(self.log_y.active)]

    def on_chart_control(self) -> None:
        self.show_run()
        self.show_compare()
        self.write_address()

    @property
    def x_axis(self) -> str:
        return X_AXES[self.axis.active or 0]

    def on_log(self) -> None:
        if self.log_y.active and True not in self.fitness_figures:
            self.fitness_figures[True] = self.fitness_figure(log=True)
            self.fitness_box.children = [*self.fitness_box.children, self.fitness_figures[True]]
        for log, fig in self.fitness_figures.items():
            fig.visible = log == self.log_y.active
        self.show_run()
        self.show_compare()

    # -- the address -------------------------------------------------------------------

    def view(self) -> View:
        """What the page shows now, as its address names it."""
        return View(run=self.chosen, overlay=tuple(self.compare_pick.value),
                    columns=tuple(self.setting_pick.value),
                    study=None if self.study_pick.value == NO_STUDY else self.study_pick.value,
                    comparison=(None if self.comparison.value == NO_COMPARISON
                                else self.comparison.value),
                    x=self.x_axis)

    def write_address(self) -> None:
        if self.asked is not None:
            return                          # not yet the view asked for
        text = query(self.view())
        if self.address.value != text:
            self.address.value = text

    def apply_asked(self) -> None:
        """The view the address asked for, once the runs are read."""
        asked, self.asked = self.asked, None
        if asked is None:
            return
        names = [r["name"] for r in self.all_rows]
        if asked.run:
            self.chosen = asked.run
            if asked.run not in names:
                self.detail.text = views.note(f"no run named {asked.run} under "
                                              f"{self.runs.root} (yet)")
            self.show_rows()
            self.show_run()
        if asked.overlay:
            self.compare_pick.value = list(asked.overlay)
        if asked.columns:
            offered = [value for value, _ in self.setting_pick.options]
            self.setting_pick.value = [c for c in asked.columns if c in offered]
        if asked.comparison and asked.comparison in self.comparison.options:
            self.comparison.value = asked.comparison
        if asked.study and asked.study in self.study_pick.options:
            self.study_pick.value = asked.study
        self.show_compare()
        self.show_comparison()
        self.show_study()
        if asked.study and asked.study not in self.study_pick.options:
            self.study.problem(f"no evolution.tune study named {asked.study} under "
                               f"{self.runs.root}")
        # What was chosen before the page was whole (runs ticked or clicked).
        self.write_address()

    # -- the table ---------------------------------------------------------------------

    def refresh(self) -> None:
        """Everything the page shows, read again where its files changed."""
        self.refresh_table()
        self.show_run()
        # Its labels are HTML (Choices.js): each a name escaped.
        names = [(r["name"], html.escape(r["name"])) for r in self.all_rows]
        if [tuple(o) for o in self.compare_pick.options] != names:
            self.compare_pick.options = names
        self.show_compare()
        found = [self.comparison_name(p) for p in self.runs.comparisons]
        if list(self.comparison.options) != [NO_COMPARISON, *found]:
            self.comparison.options = [NO_COMPARISON, *found]
        self.show_comparison()
        self.show_groups()
        studies = [self.comparison_name(p) for p in self.runs.studies]
        if list(self.study_pick.options) != [NO_STUDY, *studies]:
            self.study_pick.options = [NO_STUDY, *studies]
        self.show_study()
        if self.asked is not None:
            self.apply_asked()

    def refresh_table(self) -> None:
        """The runs table, and what its filters offer."""
        runs = self.current = self.runs.runs()
        self.all_rows = self.runs.rows(runs)
        # Made again only for a run read again (RunsDir keeps the others).
        held = self.flat_cache
        self.flat_cache = {r.name: held[r.name] if r.name in held and held[r.name][0] is r
                           else (r, flat_settings(r.settings)) for r in runs}
        self.settings_of = {name: flat for name, (_, flat) in self.flat_cache.items()}
        names = sorted({k for flat in self.settings_of.values() for k in flat})
        # Its labels are HTML (Choices.js): each a name escaped.
        offered = [(n, html.escape(n)) for n in names]
        if [tuple(o) for o in self.setting_pick.options] != offered:
            self.setting_pick.options = offered
        methods = [ALL, *sorted({r["method"] for r in self.all_rows if r["method"]})]
        if list(self.method.options) != methods:
            self.method.options = methods
        # The same runs read, of the same ages: the table is as it was.
        key = (tuple(map(id, runs)), tuple(r["updated"] for r in self.all_rows))
        if key != self.rows_key:
            self.rows_key = key
            self.show_rows()

    def shown_rows(self) -> list[dict[str, Any]]:
        want, text = self.method.value, self.stage.value.strip()
        return [r for r in self.all_rows
                if (want == ALL or r["method"] == want) and text in r["stages"]]

    def show_rows(self) -> None:
        rows = self.shown_rows()
        sent = rows[:self.first_rows] if self.first_rows is not None else rows
        data = {c: [r[c] for r in sent] for c in COLUMNS}
        data["colour"] = [run_colour(name) for name in data["name"]]
        for k, name in enumerate(self.setting_pick.value):
            data[f"setting_{k}"] = [self.settings_of.get(r["name"], {}).get(name, "")
                                    for r in sent]
        old = self.table_source.data
        if data.keys() == old.keys() and list(data["name"]) == list(old["name"]):
            # The same rows: only the cells that changed are sent.
            patches = {c: [(i, v) for i, (v, was) in enumerate(zip(values, old[c]))
                           if not _same(v, was)] for c, values in data.items()}
            patches = {c: p for c, p in patches.items() if p}
            if patches:
                self.table_source.patch(patches)        # REDRAW_JS redraws it
        else:
            self.table_source.data = data
            # Rows added or gone (rare): a fresh filter makes the browser
            # count them again (it costs the server a walk of the document).
            self.table.view.filter = AllIndices()
        self.tick_rows()
        # As tall as its rows (no empty space under them), up to TABLE_HEIGHT.
        height = min(TABLE_HEIGHT, ROW_HEIGHT * (len(rows) + 1) + 4)
        if self.table.height != height:
            self.table.height = height
        text = f"<br>{len(rows)} of {len(self.all_rows)} runs"
        if self.count.text != text:
            self.count.text = text

    def on_setting_columns(self) -> None:
        """The table's columns: its own, then each setting picked (its
        title escaped: the table's headers are HTML)."""
        self.show_rows()
        picked = [TableColumn(field=f"setting_{k}", title=html.escape(name), width=110)
                  for k, name in enumerate(self.setting_pick.value)]
        self.table.columns = [_column(c) for c in COLUMNS] + picked
        self.table.width = 1250 + 110 * len(picked)
        self.write_address()

    def on_select(self, attr, old, new) -> None:
        """The runs ticked in the table are the runs overlaid: those the
        table shows as ticked, and those ticked before that its filters
        hide now."""
        names = self.table_source.data["name"]
        shown = set(names)
        ticked = [names[i] for i in sorted(new) if i < len(names)]
        kept = [n for n in self.compare_pick.value if n not in shown]
        # In the order they were ticked: those already picked first.
        value = [n for n in self.compare_pick.value if n in ticked or n in kept]
        value += [n for n in ticked if n not in value]
        if list(self.compare_pick.value) != value:
            self.compare_pick.value = value

    def on_click_run(self, name: str) -> None:
        """A run clicked in the table is the run chosen."""
        if name and name != self.chosen:
            self.chosen = name
            if self.whole:
                self.show_run()
            self.write_address()

    def on_compare_pick(self) -> None:
        self.tick_rows()
        if self.whole:
            self.show_compare()
            self.show_groups()
        self.write_address()

    def tick_rows(self) -> None:
        """The table's ticks: the runs overlaid among those it shows."""
        names = self.table_source.data["name"]
        picked = set(self.compare_pick.value)
        keep = [i for i, n in enumerate(names) if n in picked]
        if list(self.table_source.selected.indices) != keep:
            self.table_source.selected.indices = keep

    # -- the chosen run ----------------------------------------------------------------

    def chosen_run(self) -> Run | None:
        return next((r for r in self.current if r.name == self.chosen), None)

    def show_run(self) -> None:
        run = self.chosen_run()
        if run is None:
            return
        log = run.logbook
        x_name = x_column(log, self.x_axis)
        xs = x_values(log, self.x_axis)
        curves = {c: log.get(c, [math.nan] * len(xs)) for c in CURVES}
        curves["best"] = best_curve(log)
        for c in SMOOTHED:
            curves[f"{c}_s"] = smooth(curves[c], self.smoothing.value)
        note = ""
        if self.log_y.active:
            left_out = 0
            for c in ("max", "mean", "min", "best", *(f"{c}_s" for c in SMOOTHED)):
                curves[c], dropped = positive_only(curves[c])
                left_out += dropped if c in SMOOTHED else 0
            if left_out:
                note = (f"<i>log y: {left_out} values at or below 0 are not drawn "
                        f"(uncheck it to see them)</i>")
        self.chart_note.text = note
        data = {**curves, "x": xs}
        if data != dict(self.curve_source.data):
            self.curve_source.data = data
        changes = start_rows(log.get("start")) + repeat_rows(log.get("action_repeat"))
        starts = {"x": [xs[i] for i, _ in changes], "label": [label for _, label in changes]}
        if starts != dict(self.start_source.data):
            self.start_source.data = starts
        colour = run_colour(run.name)
        for line in self.best_lines:
            if line.glyph.line_color != colour:
                line.glyph.line_color = colour
        for button in self.downloads:
            button.disabled = False
        held = run.row()
        tests = {"x": xs,
                 "held_out": _fractions(log.get("test_goals"), run.settings, "test_stages"),
                 "validation": _fractions(log.get("val_goals"), run.settings,
                                          "validation_stages")}
        self.test_source.data = {k: (v if v else [math.nan] * len(xs)) for k, v in tests.items()}
        label = X_LABELS[x_name]
        for fig in self.fitness_figures.values():
            fig.xaxis.axis_label = label
            fig.title.text = f"fitness: {run.name}"
        self.tests.xaxis.axis_label = label
        settings = json.dumps(run.settings, indent=1, default=str)
        gens = log.get("gen", [])
        done = f"{held['generation']} generations" if gens else ""
        if run.settings.get("max_frames") is not None:
            done = f"generation {held['generation']}" if gens else ""
        self.detail.text = (f"<b>{html.escape(run.name)}</b>: "
                            + ", ".join(html.escape(str(v)) for v in (
                                held["method"], held["policy"], held["status"], done) if v)
                            + f"<details><summary>settings</summary><pre>"
                            f"{html.escape(settings)}</pre></details>")
        self.show_history(run)
        self.show_method(run)
        choices = views.replay_choices(run.settings)
        if list(self.replay_stage.options) != choices:
            self.replay_stage.options = choices
            if self.replay_stage.value not in choices:
                self.replay_stage.value = choices[0]

    def off_loop(self, then, work, *args) -> None:
        """Draw `work(*args)` (HTML) on the drawing thread, then call
        `then(html)` back on the document's own thread (at once, for a
        page no server holds)."""
        if self.doc is None:
            then(guarded(work, *args))
            return
        future = DRAWING.submit(guarded, work, *args)
        doc = self.doc
        future.add_done_callback(
            lambda done: doc.add_next_tick_callback(partial(then, done.result())))

    def show_history(self, run: Run) -> None:
        """The method's numbers per generation, sent again when the
        logbook or method.jsonl changed (read here: both are small)."""
        key = (run.path, file_stamp(run.path / LOGBOOK_NAME),
               file_stamp(run.path / METHOD_NAME))
        if key == self.history_key:
            return
        self.history_key = key
        records, problem = [], ""
        try:
            records = read_method_file(run.path)
        except RunFileError as e:
            problem = str(e)
        self.history.show(run.settings.get("algorithm", ""), run.logbook, records, problem)

    def show_method(self, run: Run) -> None:
        """The method view: the archive and who may play follow its files
        at once; its pictures are drawn again when their files changed,
        and for the same run at most every PICTURE_SECONDS."""
        algorithm = run.settings.get("algorithm", "")
        key = (run.path, algorithm,
               tuple(file_stamp(run.path / n) for n in views.view_files(algorithm)),
               views.has_history(run.path))
        if key != self.method_key:
            self.method_key = key
            self.method_head.text = (f"<p><b>{html.escape(run.name)}</b>: "
                                     f"{html.escape(algorithm)}</p>")
            self.show_archive(run)
            who = views.elite_choices(run.path)
            if [tuple(o) for o in self.replay_who.options] != who:
                self.replay_who.options = who
                if self.replay_who.value not in [value for value, _ in who]:
                    self.replay_who.value = views.BEST_GENOME[0]
        if key == self.picture_key:
            return
        now = time.monotonic()
        same_run = self.picture_key is not None and self.picture_key[:2] == key[:2]
        if same_run and now - self.picture_at < PICTURE_SECONDS:
            return                              # drawn at a later refresh
        self.picture_key, self.picture_at = key, now

        def shown(html: str) -> None:
            if self.picture_key == key:         # not a run chosen since
                self.method_view.text = html
        self.off_loop(shown, views.method_view, run.path, run.settings, run.logbook)

    def show_archive(self, run: Run) -> None:
        """The archive figure of a MAP-Elites run (its file is small: read
        here, on the document's thread); hidden for any other run, or one
        whose archive cannot be read (the method view says why)."""
        cells = None
        if (run.path / ARCHIVE_NAME).is_file():
            try:
                cells = archive_cells(run.path)
            except ArchiveFileError:
                cells = None
        self.archive_map.show(cells)

    def on_archive_cell(self, cell: str) -> None:
        """A filled cell of the archive was clicked: its elite plays, as
        if chosen in "who plays" and the replay button pressed."""
        if self.replaying:
            return
        if cell not in [value for value, _ in self.replay_who.options]:
            return
        self.replay_who.value = cell
        self.on_replay()

    # -- replay ------------------------------------------------------------------------

    def on_replay(self) -> None:
        run = self.chosen_run()
        if run is None:
            self.replay_view.text = views.note("choose a run in the table first")
            return
        if self.replaying:
            return
        stage = self.replay_gen.value.strip() or self.replay_stage.value
        self.replaying = True
        self.replay_button.disabled = True
        self.replay_view.text = views.note(f"playing {run.name} on {stage} ...")
        self.off_loop(self.show_replay, views.replay_view, run.path, run.settings, stage,
                      self.replay_who.value)

    def show_replay(self, html: str) -> None:
        self.replaying = False
        self.replay_button.disabled = False
        self.replay_view.text = html

    # -- compare -----------------------------------------------------------------------

    def show_compare(self) -> None:
        """The picked runs' best-fitness curves, against generations or
        frames played as the run's curves are; their data change as the
        runs write their logbooks."""
        runs = {r.name: r for r in self.current}
        picked = [runs[n] for n in self.compare_pick.value if n in runs]
        self.overlay.show(picked, x=self.x_axis,
                          smoothing=self.smoothing.value, log=self.log_y.active)

    # -- groups ------------------------------------------------------------------------

    def grouped_runs(self) -> tuple[list[Run], str]:
        """The runs the group view gathers, and what they are: an
        evolution.compare directory's (when one is chosen), else the runs
        ticked, else those the table shows."""
        runs = self.current
        chosen = self.chosen_comparison()
        if chosen is not None:
            inside = [r for r in runs if chosen in r.path.parents]
            return inside, f"the {len(inside)} runs of {self.comparison.value}"
        if self.compare_pick.value:
            by_name = {r.name: r for r in runs}
            ticked = [by_name[n] for n in self.compare_pick.value if n in by_name]
            return ticked, f"the {len(ticked)} runs ticked"
        shown = {r["name"] for r in self.shown_rows()}
        listed = [r for r in runs if r.name in shown]
        return listed, f"the {len(listed)} runs the table shows"

    def show_groups(self) -> None:
        """The groups drawn again when their runs, their grouping or any
        of their runs' files changed (a run read again is a new Run)."""
        self.groups.offer(sorted({k for flat in self.settings_of.values() for k in flat}))
        runs, what = self.grouped_runs()
        key = (self.groups.by.value, self.groups.band.active, what,
               tuple(id(r) for r in runs))
        if key == self.group_key:
            return
        self.group_key = key
        self.groups.show(runs, self.settings_of, what)

    def on_group_download(self) -> None:
        group = self.groups.chosen_group()
        if group is None:
            return
        name = f"group-{self.groups.by.value}-{group.name}".replace("/", "-").replace("\\", "-")
        self.send_file(f"{name}.csv", group.csv(), "text/csv")

    # -- downloads ---------------------------------------------------------------------

    def on_download(self, file: str, saved: str, kind: str) -> None:
        """The chosen run's `file`, as it is on disk, sent to the browser
        to be saved as NAME-`saved` (read here: the server serves no file
        of RUNS_DIR)."""
        run = self.chosen_run()
        if run is None:
            return
        try:
            text = (run.path / file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            self.chart_note.text = views.note(f"{run.name}: {file} cannot be read ({e})")
            return
        name = run.name.replace("/", "-").replace("\\", "-") + "-" + saved
        self.send_file(name, text, kind)

    def send_file(self, name: str, text: str, kind: str) -> None:
        """`text` sent to the browser, to be saved as `name`."""
        count = (self.download_source.data.get("n") or [0])[0] + 1
        self.download_source.data = {"file": [name], "text": [text], "type": [kind],
                                     "n": [count]}

    # -- tuning studies ----------------------------------------------------------------

    def show_study(self) -> None:
        """The chosen evolution.tune study, read again (off the event
        loop: fANOVA takes a moment) when its file changed."""
        chosen = next((p for p in self.runs.studies
                       if self.comparison_name(p) == self.study_pick.value), None)
        key = None if chosen is None else (chosen, file_stamp(chosen / STUDY_FILE))
        if key == self.study_key:
            return
        self.study_key = key
        if chosen is None:
            self.study.clear()
            return

        def shown(result) -> None:
            if self.study_key != key:
                return
            if isinstance(result, StudyBusyError):
                self.study.busy(str(result))
                self.study_key = None           # read again at the next refresh
            elif isinstance(result, str):
                self.study.problem(result)
            else:
                self.study.show(result)
        self.off_loop(shown, study_or_problem, chosen, self.runs.root)

    def comparison_name(self, path: Path) -> str:
        return str(path.relative_to(self.runs.root)) if path != self.runs.root else path.name

    def chosen_comparison(self) -> Path | None:
        return next((p for p in self.runs.comparisons
                     if self.comparison_name(p) == self.comparison.value), None)

    def show_comparison(self) -> None:
        """The chosen evolution.compare directory: its tables (Bokeh
        tables, their cells text), and off the event loop its picture."""
        chosen = self.chosen_comparison()
        key = None if chosen is None else (chosen, file_stamp(chosen / "compare.json"))
        if key == self.comparison_key:
            return
        self.comparison_key = key
        if chosen is None:
            self.comparison_view.text = ""
            self.comparison_tables.children = [Div(text="")]
            return
        try:
            tables = markdown_tables(views.comparison_text(chosen))
        except PlotError as e:
            self.comparison_tables.children = [Div(text=views.note(str(e)))]
        else:
            shown = []
            for k, (caption, head, body) in enumerate(tables):
                if caption:
                    shown.append(Div(text=f"<p>{html.escape(caption)}</p>"))
                shown.append(data_table(head, body, f"comparison-table-{k}"))
            self.comparison_tables.children = shown or [Div(text="")]
        if self.groups.by.value != METHOD:
            self.groups.by.value = METHOD

        def shown(html: str) -> None:
            if self.comparison_key == key:
                self.comparison_view.text = html
        self.off_loop(shown, views.comparison_view, chosen)


def study_or_problem(path: Path, root: Path):
    """The study's data, one line saying why it cannot be shown, or the
    StudyBusyError of a file being written (read again later)."""
    try:
        return read_study(path, root)
    except StudyBusyError as e:
        return e
    except StudyReadError as e:
        return str(e)
    except Exception as e:          # noqa: BLE001 (the page must say, not hang)
        return f"{path.name}: the study cannot be shown: {type(e).__name__}: {e}"


def guarded(work, *args) -> str:
    """`work(*args)`, or one line saying why it could not be drawn: a
    failure is shown in the page, never lost on the drawing thread."""
    try:
        return work(*args)
    except (views.ViewError, PlotError) as e:
        return views.note(str(e))
    except Exception as e:          # noqa: BLE001 (the page must say, not hang)
        return views.note(f"could not draw it: {type(e).__name__}: {e}")


def replay_html(run_dir: Path, settings: dict, stage: str, cell: str) -> str:
    """The replay view, or one line saying why there is none."""
    return guarded(views.replay_view, run_dir, settings, stage, cell)


def flat_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """A run's settings as table cells: each setting by its name, the
    method's own (`options`) among them; numbers as numbers, anything
    else as text (a list's items joined)."""
    out: dict[str, Any] = {}
    items = [(k, v) for k, v in settings.items() if k != "options"]
    options = settings.get("options")
    if isinstance(options, dict):
        items += list(options.items())
    for key, value in items:
        if isinstance(value, bool) or value is None:
            out[str(key)] = "" if value is None else str(value).lower()
        elif isinstance(value, (int, float)):
            out[str(key)] = value
        elif isinstance(value, (list, tuple)):
            out[str(key)] = ", ".join(str(v) for v in value)
        elif not isinstance(value, dict):
            out[str(key)] = str(value)
    return out


def _same(a: Any, b: Any) -> bool:
    """Whether two cells are the same (NaN the same as NaN)."""
    if a == b:
        return True
    return (isinstance(a, float) and isinstance(b, float) and math.isnan(a)
            and math.isnan(b))


def _column(name: str) -> TableColumn:
    if name == "name":              # in the run's colour, as in every chart
        return TableColumn(field=name, title=TITLES[name], width=WIDTHS[name],
                           formatter=StringFormatter(text_color="colour",
                                                     font_style="bold"))
    if name in FORMATS:
        return TableColumn(field=name, title=TITLES[name], width=WIDTHS[name],
                           formatter=NumberFormatter(format=FORMATS[name]))
    return TableColumn(field=name, title=TITLES[name], width=WIDTHS[name])


def _fractions(goals: list[float] | None, settings: dict, key: str) -> list[float]:
    count = stage_count(settings.get(key))
    if not goals or not count:
        return []
    return [g / count for g in goals]



def make_document(root: Path):
    """A function Bokeh calls for each new tab: its document. The tabs
    share one reading of the runs (Bokeh calls them all on one thread),
    made here once, before the first tab asks."""
    runs = RunsDir(root, reuse_seconds=REUSE_SECONDS)
    runs.runs()

    def build(doc: Document) -> None:
        arguments = doc.session_context.request.arguments if doc.session_context else {}
        read = runs.runs()
        page = Page(runs, doc, read_view(arguments, [r.name for r in read]), lazy=True)
        # The table first, of its first rows; the rest once the browser
        # has drawn it (or after REST_AFTER_MS, should it never say so).
        page.first_rows = FIRST_ROWS
        page.refresh_table()
        doc.title = "Speednik Evolve dashboard"
        doc.template = FIRST_ROWS_TEMPLATE
        doc.template_variables["first_rows"] = page.plain_table()
        doc.add_root(page.head())
        doc.add_root(page.download_source)
        doc.js_on_event("document_ready", CustomJS(args={"table": page.table,
                                                         "chooser": page.run_click,
                                                         "ready": page.drawn,
                                                         "first_rows": FIRST_ROWS_ID},
                                                   code=CLICK_JS))
        steps: list[Callable[[], Any]] = []

        def every_row() -> None:
            page.first_rows = None
            page.show_rows()

        def rest(*_) -> None:
            if steps or page.building:
                return
            # Every row; then the rest made a step at a time, filled by a
            # refresh, and sent a part of the page at a time.
            steps.append(every_row)
            parts = page.rest_parts()
            steps.extend(make for make, _ in parts)
            steps.append(page.refresh)
            steps.extend(partial(lambda section: doc.add_root(section()), section)
                         for _, section in parts if section is not None)
            steps.append(lambda: doc.add_periodic_callback(page.refresh, REFRESH_MS))
            doc.add_next_tick_callback(step)

        def step() -> None:
            steps.pop(0)()
            if steps:
                doc.add_next_tick_callback(step)

        page.drawn.on_change("value", lambda attr, old, new: rest())
        doc.add_timeout_callback(rest, REST_AFTER_MS)

    return build

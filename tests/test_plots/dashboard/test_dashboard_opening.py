"""How a served page opens: its HTML holds the table's first rows as a
plain table, shown before BokehJS loads; then the interactive table, of
its first rows only; once the browser says it has drawn them, every row, then the rest of the
page made a step at a time (the server answers other tabs between steps)
and sent a part at a time; a method's own figures only once one of its
runs is chosen. (How long it takes: benchmarks/bench_dashboard.py.)"""
from __future__ import annotations

import re

from bokeh.document import Document

from plots.dashboard import page as page_module
from plots.dashboard.page import FIRST_ROWS, Page, make_document
from plots.dashboard.runs import RunsDir
from test_dashboard_safety import write_run

RUNS = FIRST_ROWS + 7


class Steps:
    """A document's callbacks, run when the test says (no server)."""

    def __init__(self, doc: Document) -> None:
        self.ticks: list = []
        self.timeouts: list = []
        self.periodic: list = []
        doc.add_next_tick_callback = self.ticks.append
        doc.add_timeout_callback = lambda callback, ms: self.timeouts.append(callback)
        doc.add_periodic_callback = lambda callback, ms: self.periodic.append(callback)


def test_the_table_comes_first_and_the_rest_a_part_at_a_time(tmp_path):
    root = tmp_path / "runs"
    for k in range(RUNS):
        write_run(root / f"run{k:02d}")
    doc = Document()
    steps = Steps(doc)
    make_document(root)(doc)
    table = doc.select_one({"name": "runs-table"})
    assert len(table.source.data["name"]) == FIRST_ROWS
    # The page's HTML holds the same first rows, in the same order, each
    # linking to its run's view, the runs counted.
    plain = doc.template_variables["first_rows"]
    linked = re.findall(r'<a href="\?run=([^"]+)"[^>]*>([^<]+)</a>', plain)
    assert [text for _, text in linked] == list(table.source.data["name"])
    assert all(link == text for link, text in linked)
    assert f"{RUNS} runs" in plain and plain.count("<tr") == FIRST_ROWS + 1
    assert 'id="first-rows"' in doc.template and "{{ first_rows }}" in doc.template
    assert f"{RUNS} of {RUNS} runs" in doc.roots[0].children[1].children[2].text
    assert table.height == page_module.TABLE_HEIGHT          # as tall as with every row
    assert len(doc.roots) == 2 and steps.ticks == [] and len(steps.timeouts) == 1
    # The browser has drawn the table: one step a tick, each part of the
    # page added alone, after the refresh that fills them.
    doc.select_one({"name": "page-drawn"}).value = "drawn"
    roots, ran = [len(doc.roots)], 0
    while steps.ticks:
        steps.ticks.pop(0)()
        ran += 1
        roots.append(len(doc.roots))
    assert len(table.source.data["name"]) == RUNS
    assert sorted(table.source.data["name"]) == [f"run{k:02d}" for k in range(RUNS)]
    assert all(b - a in (0, 1) for a, b in zip(roots, roots[1:]))
    assert roots[-1] == 2 + 5 and ran > 5
    assert doc.select_one({"name": "fitness"}) is not None
    assert len(steps.periodic) == 1
    # Drawn again, or its timeout come: nothing is made twice.
    doc.select_one({"name": "page-drawn"}).value = "again"
    steps.timeouts[0]()
    assert steps.ticks == [] and len(doc.roots) == 7


def test_a_method_s_figures_are_made_when_one_of_its_runs_is_chosen(tmp_path):
    root = tmp_path / "runs"
    write_run(root / "es", {"algorithm": "cmaes"})
    write_run(root / "ga", {"algorithm": "ga"})
    page = Page(RunsDir(root))
    page.refresh()
    assert page.history.blocks == {}
    page.chosen = "es"
    page.show_run()
    assert list(page.history.blocks) == ["cmaes"]
    page.chosen = "ga"                      # no panels of its own
    page.show_run()
    assert list(page.history.blocks) == ["cmaes"]
    assert not page.history.blocks["cmaes"].visible


def test_tabs_opened_at_once_share_a_walk_of_the_runs(tmp_path):
    root = tmp_path / "runs"
    write_run(root / "a")
    runs = RunsDir(root, reuse_seconds=60.0)
    first = runs.runs()
    write_run(root / "b")
    assert [r.name for r in runs.runs()] == [r.name for r in first] == ["a"]
    assert [r.name for r in RunsDir(root).runs()] == ["a", "b"]
    runs.reuse_seconds = 0.0
    assert [r.name for r in runs.runs()] == ["a", "b"]

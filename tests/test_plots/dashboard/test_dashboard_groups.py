"""Runs ticked in the table, grouped, and followed live: the runs ticked
are the runs overlaid (and the address's `?overlay=`), groups by method or
by any setting draw per group the median and a band (min-max or
interquartile) of the best fitness on frames played, as `evolution.compare`
does, downloadable as CSV; an `evolution.compare` directory's tables are
Bokeh tables; a logbook is read on from where it was last read. In
headless Chromium: ticking two runs overlays them and the overlay moves as
a running run's logbook gains a row; a pasted `?overlay=` link ticks and
overlays its runs; grouping by method draws one band per method; the
compare directory's tables are tables and a group's curves download."""
from __future__ import annotations

import csv
import fcntl
import io
import json
import math
import os
import re
from pathlib import Path

import numpy as np
import pytest

from plots.dashboard.address import View
from plots.dashboard.groups import BANDS, group_runs, markdown_tables
from plots.dashboard.page import Page
from plots.dashboard.runs import RunsDir, read_logbook, read_logbook_table
from plots.methods import POINTS, step_values
from test_dashboard import CHROMIUM, dashboard
from test_dashboard_safety import write_run

HEADER = "gen,max,mean,min,best,seconds,frames\n"


def logbook(bests: list[float], step: int = 100) -> str:
    rows = [f"{g},{b},{b / 2},0,{b},0.5,{(g + 1) * step}" for g, b in enumerate(bests)]
    return HEADER + "\n".join(rows) + "\n"


def grouped_root(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    write_run(root / "ga-a", {"algorithm": "ga", "population": 6}, logbook([1, 2, 3]))
    write_run(root / "ga-b", {"algorithm": "ga", "population": 8}, logbook([2, 4, 6]))
    write_run(root / "ga-c", {"algorithm": "ga", "population": 8}, logbook([0, 0, 9]))
    write_run(root / "es-a", {"algorithm": "openai-es", "population": 6},
              logbook([5, 5, 5], step=200))
    return root


def test_groups_are_the_median_and_band_of_each_method_on_frames_played(tmp_path):
    root = grouped_root(tmp_path)
    runs = RunsDir(root).runs()
    groups, left_out = group_runs(runs, "method")
    assert left_out == [] and [g.name for g in groups] == ["ga", "openai-es"]
    ga = groups[0]
    assert sorted(ga.runs) == ["ga-a", "ga-b", "ga-c"]
    # The comparison's own curves: each run's best so far on one grid.
    grid = np.linspace(0, 600, POINTS)
    assert np.array_equal(ga.frames, grid)
    at = 350.0
    k = int(np.searchsorted(grid, at))
    values = [step_values([100, 200, 300], b, grid)[k] for b in ([1, 2, 3], [2, 4, 6],
                                                                  [0, 0, 9])]
    assert ga.median[k] == np.median(values) and ga.low[k] == min(values)
    assert ga.high[k] == max(values)
    # Before any run's first generation, nothing is drawn.
    assert math.isnan(ga.median[0])
    quartiles, _ = group_runs(runs, "method", band=BANDS[1])
    assert np.allclose([quartiles[0].low[k], quartiles[0].high[k]],
                       np.percentile(values, [25, 75]))
    # By a setting: the runs of each value together.
    page = Page(RunsDir(root))
    page.refresh()
    by_pop, _ = group_runs(runs, "population", flat=page.settings_of)
    assert {g.name: sorted(g.runs) for g in by_pop} == {"6": ["es-a", "ga-a"],
                                                        "8": ["ga-b", "ga-c"]}
    with pytest.raises(ValueError, match="band 'x' is not one of min-max, interquartile"):
        group_runs(runs, "method", band="x")


def test_a_group_downloads_as_csv_and_a_run_without_frames_is_said(tmp_path):
    root = grouped_root(tmp_path)
    write_run(root / "old", {"algorithm": "ga"}, "gen,max\n0,1\n1,2\n")
    page = Page(RunsDir(root))
    page.refresh()
    assert [g.name for g in page.groups.groups] == ["ga", "openai-es"]
    assert "left out (no frames played logged): old" in page.groups.note.text
    page.groups.pick.value = "ga"
    page.on_group_download()
    sent = page.download_source.data
    assert sent["file"] == ["group-method-ga.csv"] and sent["type"] == ["text/csv"]
    table = list(csv.reader(io.StringIO(sent["text"][0])))
    assert table[0] == ["frames", "median", "low", "high", "ga-a", "ga-b", "ga-c"]
    assert len(table) == POINTS + 1
    last = table[-1]
    assert [float(v) for v in last] == [600.0, 6.0, 3.0, 9.0, 3.0, 6.0, 9.0]
    # Ticked runs are the ones grouped.
    page.compare_pick.value = ["ga-a", "es-a"]
    assert sorted(n for g in page.groups.groups for n in g.runs) == ["es-a", "ga-a"]
    assert "the 2 runs ticked" in page.groups.note.text


def test_a_logbook_is_read_on_from_where_it_was_read(tmp_path):
    path = tmp_path / "logbook.csv"
    rows = [HEADER.strip()]
    reading = None
    for g in range(30):
        rows.append(f"{g},{g * 0.5},{'' if g % 4 else 1},0,{g},0.1,{g * 10}")
        path.write_text("\n".join(rows) + "\n")
        reading = read_logbook(path, reading)
        assert json.dumps(reading.table) == json.dumps(read_logbook_table(path))
    # A file rewritten with other lines before is read whole again.
    path.write_text(HEADER + "0,9,9,9,9,9,9\n")
    assert read_logbook(path, reading).table["max"] == [9.0]
    path.write_text(HEADER + "0,1,1,1,1,1,1\n1,x,1,1,1,1,1\n")
    with pytest.raises(ValueError, match="line 3: max is 'x'"):
        read_logbook(path, None)


def test_a_comparisons_tables_are_bokeh_tables_of_text(tmp_path):
    root = compare_dir(tmp_path)
    page = Page(RunsDir(root), view=View(comparison="cmp"))
    page.refresh()
    tables = [c for c in page.comparison_tables.children if type(c).__name__ == "DataTable"]
    assert len(tables) == 2
    head = [c.title for c in tables[0].columns]
    assert head[:2] == ["method", "runs"]
    assert tables[0].source.data["c0"] == ["ga", "<b>es</b>"]
    assert tables[0].source.data["c1"] == ["2", "2"]
    assert [g.name for g in page.groups.groups] == ["<b>es</b>", "ga"]
    assert "<b>es" not in page.groups.note.text
    text = "caption\n\n| a | b |\n| --- | ---: |\n| 1 | 2 |\n\nnot a table"
    assert markdown_tables(text) == [("caption", ["a", "b"], [["1", "2"]])]


def compare_dir(tmp_path: Path) -> Path:
    """RUNS_DIR holding an evolution.compare output directory `cmp` of two
    methods (one named in HTML), two seeds each, with its compare.json."""
    from evolution.stats import improvement_table, summarise

    root = tmp_path / "runs"
    out = root / "cmp"
    methods, runs = {}, {}
    for method, scale in (("ga", 1.0), ("<b>es</b>", 2.0)):
        scores = []
        for seed in (0, 1):
            bests = [scale * (seed + 1) * g for g in (1, 2, 3)]
            write_run(out / f"{method}-seed{seed}", {"algorithm": method},
                      logbook(bests))
            runs[f"{method}-seed{seed}"] = {"frames": [100, 200, 300], "best": bests,
                                           "fitness": bests[-1], "held_out": None}
            scores.append(bests[-1])
        methods[method] = {"runs": 2, "fitness": summarise(scores), "held_out": None,
                           "wall_seconds": 3.0}
    (out / "compare.json").write_text(json.dumps({
        "methods": methods, "runs": runs, "seeds": [0, 1], "frames": 300, "task": [],
        "improvement": {"on": "fitness", "pairs": improvement_table(
            {m: methods[m]["fitness"]["values"] for m in methods})}, "wall_seconds": 6}))
    return root


browser = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine (Debian "
                                                      "package 'chromium'; .ci/run installs it)")
MODEL = "Bokeh.documents[0].get_model_by_name"
SHOTS = Path(os.environ.get("DASHBOARD_SHOTS", "")) if os.environ.get("DASHBOARD_SHOTS") \
    else None


def shot(page, tmp_path: Path, name: str) -> None:
    path = (SHOTS or tmp_path) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=True)


def tick(page, name: str) -> None:
    row = page.locator(".slick-row", has=page.locator(".slick-cell").get_by_text(
        name, exact=True))
    row.locator("input[type=checkbox]").click()


def overlay_points(page, name: str) -> int:
    return page.evaluate(f"""() => {{ const f = {MODEL}('compare-overlay');
        if (!f) {{ return -1; }}
        for (const r of f.renderers) {{ const d = r.data_source.data;
            if (d.run && d.run[0] === {json.dumps(name)}) {{ return d.x.length; }} }}
        return -1; }}""")


@pytest.mark.slow
@browser
def test_ticked_runs_overlay_live_and_a_pasted_link_ticks_them(tmp_path):
    playwright = pytest.importorskip("playwright.sync_api",
                                     reason="Playwright not installed (the dev extra has it)")
    root = grouped_root(tmp_path)
    live = write_run(root / "live", {"algorithm": "ga", "generations": 10}, logbook([1, 2]))
    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)           # as a run holds it while it runs
    try:
        with dashboard(root) as (url, _), playwright.sync_playwright() as p:
            chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = chromium.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(url)
            page.locator(".slick-cell").get_by_text("live", exact=True).wait_for(
                timeout=20000)
            tick(page, "live")
            tick(page, "ga-b")
            page.wait_for_function(f"() => {{ const f = {MODEL}('compare-overlay'); "
                                   "return f && f.visible; }", timeout=10000)
            page.wait_for_function("() => window.location.search === "
                                   "'?overlay=live,ga-b'", timeout=10000)
            assert page.evaluate(f"{MODEL}('compare-runs').value") == ["live", "ga-b"]
            assert overlay_points(page, "live") == 2
            # The running run logs a generation: its line gains a point, no reload.
            (live / "logbook.csv").write_text(logbook([1, 2, 5]))
            page.wait_for_function(f"() => {{ const f = {MODEL}('compare-overlay'); "
                                   "return f.renderers.some(r => r.data_source.data.run "
                                   "&& r.data_source.data.run[0] === 'live' "
                                   "&& r.data_source.data.x.length === 3); }",
                                   timeout=5000)
            # A click on a row (not its box) chooses the run; the ticks stay.
            page.locator(".slick-cell").get_by_text("es-a", exact=True).click()
            page.locator("b", has_text="es-a").first.wait_for(timeout=10000)
            assert page.evaluate(f"{MODEL}('fitness').title.text") == "fitness: es-a"
            assert page.evaluate(f"{MODEL}('compare-runs').value") == ["live", "ga-b"]
            page.wait_for_function("() => window.location.search === "
                                   "'?run=es-a&overlay=live,ga-b'", timeout=10000)
            # The legend is beside the plot, not over its curves.
            assert page.evaluate(f"{MODEL}('fitness').right.length") == 1
            assert page.evaluate(f"{MODEL}('fitness').center.filter(m => "
                                 "m.items !== undefined).length") == 0
            shot(page, tmp_path, "ticked-overlay.png")
            # Unticking takes the run out of the overlay and the address.
            tick(page, "live")
            page.wait_for_function("() => window.location.search === "
                                   "'?run=es-a&overlay=ga-b'", timeout=10000)
            # A pasted link: its runs ticked in the table and overlaid.
            other = chromium.new_page(viewport={"width": 1400, "height": 1000})
            other.goto(url + "?overlay=ga-a,es-a&x=frames")
            other.locator(".slick-cell").first.wait_for(timeout=20000)
            other.wait_for_function(f"() => {{ const f = {MODEL}('compare-overlay'); "
                                    "return f && f.visible; }", timeout=20000)
            assert overlay_points(other, "es-a") == 3
            assert other.evaluate(f"{MODEL}('compare-overlay').below[0].axis_label") \
                == "frames played"
            other.wait_for_function(f"() => {MODEL}('runs-table').source.selected.indices"
                                    ".length === 2", timeout=10000)
            names = other.evaluate(f"() => {{ const t = {MODEL}('runs-table'); "
                                   "return t.source.selected.indices.map("
                                   "i => t.source.data.name[i]).sort(); }")
            assert names == ["es-a", "ga-a"]
            assert other.locator("input[type=checkbox]:checked").count() == 2
            chromium.close()
    finally:
        os.close(fd)


@pytest.mark.slow
@browser
def test_groups_by_method_draw_one_band_each_and_a_comparison_is_tables(tmp_path):
    playwright = pytest.importorskip("playwright.sync_api",
                                     reason="Playwright not installed (the dev extra has it)")
    root = compare_dir(tmp_path)
    for name, settings in (("ga-a", {"algorithm": "ga"}), ("ga-b", {"algorithm": "ga"}),
                           ("es-a", {"algorithm": "openai-es"}),
                           ("ppo-a", {"algorithm": "cmaes"})):
        write_run(root / "own" / name, settings, logbook([1, 3, 4]))
    bands = (f"() => {{ const f = {MODEL}('group-chart'); return f ? f.renderers.filter("
             "r => r.name && r.name.startsWith('group-band')).length : 0; }")
    with dashboard(root) as (url, _), playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = chromium.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        page.goto(url)
        page.locator(".slick-cell").get_by_text("own/ppo-a", exact=True).wait_for(
            timeout=20000)
        # None ticked: the runs the table shows (8), one band per method (4).
        page.wait_for_function(f"() => ({bands})() === 4", timeout=10000)
        tick(page, "own/ga-a")
        tick(page, "own/es-a")
        page.wait_for_function(f"() => ({bands})() === 2", timeout=10000)
        shot(page, tmp_path, "groups.png")
        # The comparison: its runs by method, its tables Bokeh tables.
        other = chromium.new_page(viewport={"width": 1400, "height": 1000},
                                  accept_downloads=True)
        other.goto(url + "?comparison=cmp")
        other.locator(".slick-cell").first.wait_for(timeout=20000)
        other.wait_for_function(f"() => {MODEL}('comparison-table-0') != null",
                                timeout=20000)
        other.wait_for_function(f"() => ({bands})() === 2", timeout=10000)
        first = other.evaluate(f"{MODEL}('comparison-table-0').source.data.c0")
        assert first == ["ga", "<b>es</b>"]
        assert other.evaluate(f"{MODEL}('comparison-table-1') != null")
        other.locator(".slick-cell").get_by_text("<b>es</b>", exact=True).first.wait_for(
            timeout=10000)
        assert other.locator("b").filter(has_text=re.compile(r"^es$")).count() == 0
        shot(other, tmp_path, "comparison.png")
        with other.expect_download(timeout=10000) as got:
            other.get_by_text("download group curves (CSV)").click()
        text = Path(got.value.path()).read_text()
        head = "frames,median,low,high,cmp/<b>es</b>-seed0,cmp/<b>es</b>-seed1\n"
        assert text.startswith(head) and text.endswith("\n300,9,6,12,6,12\n")
        chromium.close()

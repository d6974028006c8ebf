"""The fitness charts' controls: TensorBoard's debiased smoothing, a log y
axis (values at or below zero left out, and counted), ticks that read as
`0.5M` (in headless Chromium, BokehJS's own formatting), hover values,
and one colour per run in every chart and in the runs table."""
from __future__ import annotations

import math
import os
import subprocess
import sys
import time

import pytest

from paths import REPO_ROOT
from plots.dashboard.address import X_AXES, View
from plots.dashboard.charts import PALETTE, positive_only, run_colour, smooth
from plots.dashboard.page import Page
from plots.dashboard.runs import RunsDir
from test_dashboard import CHROMIUM, dashboard
from test_dashboard_safety import write_run


def tensorboard_smooth(values, weight):
    """TensorBoard's scalar smoothing as its dashboard writes it."""
    out, last, n = [], 0.0, 0
    for v in values:
        last = last * weight + (1 - weight) * v
        n += 1
        out.append(last / (1 - weight ** n))
    return out


def test_smoothing_is_tensorboard_s_debiased_average():
    values = [1.0, 5.0, 2.0, 8.0, 3.0, 3.5]
    assert smooth(values, 0.0) == values
    for w in (0.3, 0.6, 0.9, 0.99):
        assert smooth(values, w) == pytest.approx(tensorboard_smooth(values, w))
    # Debiased: the first point is itself, not pulled towards 0.
    assert smooth([10.0, 10.0], 0.9) == pytest.approx([10.0, 10.0])
    # A missing value stays missing and does not enter the average.
    out = smooth([1.0, math.nan, 3.0], 0.5)
    assert math.isnan(out[1]) and out[2] == pytest.approx(
        tensorboard_smooth([1.0, 3.0], 0.5)[1])
    with pytest.raises(ValueError, match="accepted: 0 .off. to 0.99"):
        smooth(values, 1.0)


def test_a_log_axis_leaves_out_values_at_or_below_zero():
    assert positive_only([2.0, 0.0, -1.0, math.nan, 3.0])[1] == 2
    kept = positive_only([2.0, 0.0, -1.0, 3.0])[0]
    assert kept[0] == 2.0 and kept[3] == 3.0 and math.isnan(kept[1]) and math.isnan(kept[2])


def test_a_run_s_colour_is_its_name_s_in_every_process():
    names = [f"run{k}" for k in range(40)]
    here = [run_colour(n) for n in names]
    assert set(here) <= set(PALETTE) and len(set(here)) > len(PALETTE) // 2
    there = subprocess.run(
        [sys.executable, "-c", "from plots.dashboard.charts import run_colour; "
         f"print(' '.join(run_colour(n) for n in {names!r}))"],
        capture_output=True, text=True, cwd=REPO_ROOT, check=True,
        env={**os.environ, "PYTHONHASHSEED": "12345"}).stdout.split()
    assert there == here


LOGBOOK = ("gen,max,mean,min,frames,best\n"
           "1,-2.0,-3.0,-4.0,250000,-2.0\n"
           "2,4.0,1.0,-1.0,500000,4.0\n"
           "3,2.0,1.5,0.5,750000,4.0\n"
           "4,8.0,3.0,1.0,1000000,8.0\n")


def test_the_page_smooths_logs_and_colours_the_chosen_run_and_the_overlay(tmp_path):
    root = tmp_path / "runs"
    write_run(root / "a", logbook=LOGBOOK)
    write_run(root / "b")
    page = Page(RunsDir(root), view=View(run="a", overlay=("a", "b")))
    page.refresh()
    data = page.curve_source.data
    assert data["best_s"] == data["best"] == [-2.0, 4.0, 4.0, 8.0]
    page.smoothing.value = 0.6
    assert page.curve_source.data["best_s"] == pytest.approx(
        tensorboard_smooth([-2.0, 4.0, 4.0, 8.0], 0.6))
    assert page.curve_source.data["best"] == [-2.0, 4.0, 4.0, 8.0]     # drawn faint
    overlay = page.overlay.sources[0].data
    assert overlay["best"] == pytest.approx(tensorboard_smooth([-2.0, 4.0, 4.0, 8.0], 0.6))
    assert overlay["raw"] == [-2.0, 4.0, 4.0, 8.0]
    # The run's colour on its best line, in the overlay and in the table.
    assert {line.glyph.line_color for line in page.best_lines} == {run_colour("a")}
    lines = [r for r in page.overlay.figure.renderers if hasattr(r.glyph, "line_color")
             and r.glyph.__class__.__name__ == "Line"]
    assert [r.glyph.line_color for r in lines] == [run_colour("a"), run_colour("b")]
    table = page.table_source.data
    assert table["colour"][table["name"].index("b")] == run_colour("b")
    # Log y: a log axis, the values at or below 0 left out and counted.
    page.smoothing.value = 0.0
    page.log_y.active = True
    assert page.fitness.y_scale.__class__.__name__ == "LogScale"
    assert page.fitness.visible and not page.fitness_figures[False].visible
    best = page.curve_source.data["best_s"]
    assert math.isnan(best[0]) and best[1:] == [4.0, 4.0, 8.0]
    assert "values at or below 0 are not drawn" in page.chart_note.text
    assert page.overlay.figure.y_scale.__class__.__name__ == "LogScale"
    assert math.isnan(page.overlay.sources[0].data["best"][0])
    page.log_y.active = False
    assert page.fitness.y_scale.__class__.__name__ == "LinearScale"
    assert page.curve_source.data["best_s"][0] == -2.0 and page.chart_note.text == ""


def test_the_fitness_chart_marks_where_each_start_began(tmp_path):
    root = tmp_path / "runs"
    write_run(root / "starts", logbook="gen,max,mean,min,frames,best,start\n" + "".join(
        f"{g},1.0,0.5,0.0,{100 * (g + 1)},1.0,{k}\n"
        for g, k in enumerate([0, 0, 1, 1, 1, 0, 0])))
    write_run(root / "one")
    page = Page(RunsDir(root), view=View(run="starts"))
    page.refresh()
    assert dict(page.start_source.data) == {"x": [2, 5],
                                            "label": ["start 2", "start 1 goes on"]}
    # Against frames played, at the frames of those generations.
    page.axis.active = X_AXES.index("frames")
    assert page.start_source.data["x"] == [300, 600]
    # A run of one start has none.
    page.chosen = "one"
    page.show_run()
    assert page.start_source.data["x"] == []


def test_the_fitness_chart_marks_where_the_run_began_deciding_at_its_final_repeat(tmp_path):
    root = tmp_path / "runs"
    write_run(root / "final", logbook="gen,max,mean,min,frames,best,action_repeat\n" + "".join(
        f"{g},1.0,0.5,0.0,{100 * (g + 1)},1.0,{k}\n"
        for g, k in enumerate([2, 2, 2, 2, 1, 1])))
    page = Page(RunsDir(root), view=View(run="final"))
    page.refresh()
    assert dict(page.start_source.data) == {"x": [4], "label": ["deciding every frame"]}


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine (Debian package "
                                             "'chromium'; .ci/run installs it)")
@pytest.mark.slow
def test_frames_read_as_millions_and_the_controls_work_in_a_browser(tmp_path):
    playwright = pytest.importorskip("playwright.sync_api",
                                     reason="Playwright not installed (the dev extra has it)")
    root = tmp_path / "runs"
    write_run(root / "a", logbook=LOGBOOK)
    write_run(root / "b")
    model = "Bokeh.documents[0].get_model_by_name"
    with dashboard(root) as (url, _), playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.goto(url + "?run=a&overlay=a,b&x=frames")
        page.locator("b", has_text="a").first.wait_for(timeout=20000)
        page.wait_for_function(f"() => {model}('compare-overlay') != null", timeout=10000)
        # BokehJS formats the ticks the browser draws.
        for name in ("fitness", "compare-overlay"):
            ticks = page.evaluate(f"{model}('{name}').below[0].formatter.doFormat("
                                  "[0, 250000, 500000, 1000000, 1500000], {loc: 0})")
            assert ticks == ["0", "0.25M", "0.5M", "1M", "1.5M"], name
        assert page.evaluate(f"{model}('fitness').below[0].formatter.doFormat("
                             "[0, 5, 10], {loc: 0})") == ["0", "5", "10"]
        assert page.evaluate(f"{model}('fitness').below[0].formatter.doFormat("
                             "[0, 2500, 5000], {loc: 0})") == ["0", "2.5k", "5k"]
        # The smoothing slider, moved in the page, smooths the curve.
        page.evaluate(f"{model}('smoothing').value = 0.6")
        want = tensorboard_smooth([-2.0, 4.0, 4.0, 8.0], 0.6)
        smoothed = ("() => Array.from(Bokeh.documents[0].get_model_by_name('fitness')"
                    ".renderers[0].data_source.get_column('best_s'))")
        deadline = time.monotonic() + 10
        while page.evaluate(smoothed) != pytest.approx(want):
            assert time.monotonic() < deadline, page.evaluate(smoothed)
            page.wait_for_timeout(100)
        # Log y: the chart is on a log axis and says what it left out.
        # The last box of the page (the runs table's tick boxes come first).
        page.get_by_role("checkbox").last.click()
        page.wait_for_function(f"() => {{ const f = {model}('fitness-log'); return f != null"
                               f" && f.visible && !{model}('fitness').visible; }}",
                               timeout=10000)
        page.get_by_text("values at or below 0 are not drawn").first.wait_for(timeout=10000)
        # Hovering over the best line shows its values.
        point = f"""() => {{
            const f = {model}('fitness-log');
            const view = Bokeh.index.find_one(f);
            view.el.scrollIntoView({{block: "center"}});
            const box = view.el.getBoundingClientRect();
            return [box.left + view.frame.x_scale.compute(750000),
                    box.top + view.frame.y_scale.compute(4.0)];
        }}"""
        # Under load one move can land before the chart has laid out after
        # the scroll, and the page can still reflow under it: find the
        # point again, move off and back, until the tooltip shows.
        tooltip = page.get_by_text("best smoothed").first
        deadline = time.monotonic() + 30
        while True:
            at = page.evaluate(point)
            page.mouse.move(at[0] - 40, at[1])
            page.mouse.move(*at)
            try:
                tooltip.wait_for(timeout=2000)
                break
            except playwright.TimeoutError:
                assert time.monotonic() < deadline, "no tooltip over the best line"
        page.screenshot(path=str(tmp_path / "charts.png"), full_page=True)
        browser.close()

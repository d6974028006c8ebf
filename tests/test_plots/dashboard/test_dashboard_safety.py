"""The dashboard against what run directories may hold: names and values
that are HTML (shown as text, never run as script), settings of the wrong
type (one damaged row, the rest of the page unharmed), a host open to the
network (said on stderr); and what the page shows of a run: frames of the
budget for a frame-budget run, the logbook's `best` as the best fitness,
an `evolution.compare` directory's tables as tables and its task as text.
(The browser half: test_dashboard_browser_safety.py.)"""
from __future__ import annotations

import html as html_text
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from paths import REPO_ROOT
from plots.dashboard import views
from plots.dashboard.page import Page
from plots.dashboard import server
from plots.dashboard.runs import RunsDir

SCRIPT = "<img src=x onerror=alert(1)>"
SETTINGS = {"algorithm": "ga", "policy": None, "observation": "basic", "generations": 3,
            "population": 6, "stages": ["hillside"], "test_stages": [],
            "validation_stages": [], "max_frames": None, "options": {}}
LOGBOOK = ("gen,max,mean,min,frames\n"
           "1,1.5,0.5,0.0,100\n"
           "2,2.5,1.0,0.1,200\n"
           "3,2.0,1.2,0.2,300\n")


def write_run(path: Path, settings: dict | None = None, logbook: str = LOGBOOK) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.json").write_text(json.dumps({"format": 1,
                                                  "settings": {**SETTINGS, **(settings or {})}}))
    (path / "logbook.csv").write_text(logbook)
    return path


def rows_of(root: Path) -> dict[str, dict]:
    return {r["name"]: r for r in RunsDir(root).rows()}


# -- settings of the wrong type -----------------------------------------------------------

TYPE_CONFUSED = [
    ("generations", "5"), ("generations", [5]), ("generations", 2.5),
    ("stages", 3), ("stages", [1, 2]), ("test_stages", 4), ("validation_stages", "hillside"),
    ("max_frames", "100"), ("max_frames", True), ("algorithm", 7), ("algorithm", ["ga"]),
    ("policy", 3), ("observation", ["basic"]), ("options", [1]),
]


@pytest.mark.parametrize("key, value", TYPE_CONFUSED)
def test_a_setting_of_the_wrong_type_is_one_damaged_row(tmp_path, key, value):
    root = tmp_path / "runs"
    write_run(root / "good")
    write_run(root / "bad", {key: value})
    rows = rows_of(root)
    assert rows["good"]["status"] == "finished" and rows["good"]["generation"] == "3 of 3"
    status = rows["bad"]["status"]
    assert status.startswith("damaged: ") and f"settings.{key}" in status and \
        "accepted" in status


def test_the_page_over_runs_of_every_wrong_type_shows_each(tmp_path):
    # One page over all of them (a page takes a third of a second to make):
    # it refreshes, shows each damaged run when chosen, and a run added
    # afterwards appears.
    root = tmp_path / "runs"
    write_run(root / "good")
    bad = [f"bad-{k}" for k in range(len(TYPE_CONFUSED))]
    for name, (key, value) in zip(bad, TYPE_CONFUSED):
        write_run(root / name, {key: value})
    page = Page(RunsDir(root))
    page.refresh()
    for name, (key, _) in zip(bad, TYPE_CONFUSED):
        page.chosen = name
        page.show_run()
        assert "damaged" in page.detail.text and f"settings.{key}" in page.detail.text, name
    write_run(root / "later")
    page.refresh()
    assert "later" in page.table_source.data["name"]


def test_a_run_whose_row_cannot_be_made_is_damaged_not_an_error(tmp_path, monkeypatch):
    """Whatever a file holds that the checks miss, one run never takes
    the listing down."""
    from plots.dashboard import runs as runs_module

    root = tmp_path / "runs"
    write_run(root / "a")
    write_run(root / "b", {"generations": 4})

    def broken(settings, log):
        if settings.get("generations") == 4:
            raise TypeError("a surprise")
        return "fine"
    monkeypatch.setattr(runs_module, "progress", broken)
    rows = rows_of(root)
    assert rows["a"]["generation"] == "fine"
    assert rows["b"]["status"].startswith("damaged: ") and "a surprise" in rows["b"]["status"]


# -- names and values that are HTML -------------------------------------------------------

def test_names_and_values_from_disk_are_escaped_in_the_page(tmp_path):
    root = tmp_path / "runs"
    write_run(root / SCRIPT, {"algorithm": SCRIPT, "policy": SCRIPT})
    write_run(root / "damaged")
    (root / "damaged" / "logbook.csv").write_text(f"gen,max\n0,{SCRIPT}\n")
    page = Page(RunsDir(root))
    page.refresh()
    for name in (SCRIPT, "damaged"):
        page.chosen = name
        page.show_run()
        for div in (page.detail, page.method_head):
            assert "<img" not in div.text
        assert SCRIPT in html_text.unescape(page.detail.text)
    # The overlay's choices are HTML (Choices.js): escaped labels.
    labels = dict(tuple(o) for o in page.compare_pick.options)
    assert labels[SCRIPT] == html_text.escape(SCRIPT)
    assert "<img" not in page.head().children[0].text
    # The plain table the page's HTML opens with: every name and value text.
    plain = page.plain_table()
    assert "<img" not in plain and html_text.escape(SCRIPT) in plain
    # The run's link holds its name percent-encoded, in a quoted attribute.
    assert 'href="?run=%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E"' in plain
    # Grouped by a setting whose value is HTML: the legend and the note are text.
    page.groups.by.value = "algorithm"
    page.show_groups()
    assert "<img" not in page.groups.note.text


def test_the_header_escapes_the_runs_directory(tmp_path):
    root = tmp_path / SCRIPT
    root.mkdir()
    page = Page(RunsDir(root))
    page.refresh()
    header = page.head().children[0].text
    assert "<img" not in header and SCRIPT in html_text.unescape(header)
    assert "<img" not in page.plain_table()


# -- the host -----------------------------------------------------------------------------

@pytest.mark.parametrize("host, open_", [("127.0.0.1", False), ("localhost", False),
                                         ("::1", False), ("127.0.0.2", False),
                                         ("0.0.0.0", True), ("::", True),
                                         ("192.168.1.5", True), ("myhost.example", True)])
def test_a_host_open_to_the_network_is_warned_of(host, open_):
    assert server.is_loopback(host) is not open_
    warning = server.exposure_warning(host)
    assert (warning is not None) is open_
    if open_:
        assert "no authentication" in warning and "network" in warning
        assert "\n" not in warning


def _open_dashboard(runs_dir: Path) -> tuple[subprocess.Popen, int]:
    """`python -m plots dashboard RUNS_DIR --host 0.0.0.0` on a free port."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "plots", "dashboard", str(runs_dir),
                             "--port", str(port), "--host", "0.0.0.0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=REPO_ROOT)
    return proc, port


def test_the_command_warns_on_stderr_when_open_to_the_network(tmp_path):
    import signal
    import socket
    import time

    proc, port = _open_dashboard(tmp_path)
    try:
        # Stopped once it says it serves (the port answers a moment before).
        announced = proc.stdout.readline()
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "no authentication" in lines[0] and "0.0.0.0" in lines[0]
    assert "Traceback" not in err and announced.startswith("dashboard of ")
    assert proc.returncode == 0


def test_a_ctrl_c_while_the_dashboard_starts_stops_it_quietly(tmp_path):
    import signal

    proc, _ = _open_dashboard(tmp_path)
    try:
        # The warning comes just before the server is made: interrupt that.
        warning = proc.stderr.readline()
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert "no authentication" in warning
    assert err.strip() == "" and proc.returncode == 0, (err, proc.returncode)


# -- what a run shows ---------------------------------------------------------------------

def test_a_frame_budget_run_shows_frames_of_its_budget(tmp_path):
    root = tmp_path / "runs"
    write_run(root / "budget", {"generations": 1000000, "max_frames": 1000})
    write_run(root / "gens")
    write_run(root / "millions", {"max_frames": 2_000_000},
              logbook=LOGBOOK.replace("300\n", "2000150\n"))
    rows = rows_of(root)
    assert rows["budget"]["generation"] == "3 (30% of 1,000 frames)"
    # Past the budget by the last generation's few frames: all of it.
    assert rows["millions"]["generation"] == "3 (100% of 2 M frames)"
    assert rows["gens"]["generation"] == "3 of 3"
    page = Page(RunsDir(root))
    page.refresh()
    page.chosen = "budget"
    page.show_run()
    head = page.detail.text.split("<details>")[0]
    assert "generation 3 (30% of 1,000 frames)" in head and "1000000" not in head


def test_the_best_fitness_is_the_logbooks_best_column_where_it_has_one(tmp_path):
    root = tmp_path / "runs"
    # An ES's best is its mean's fitness, below the best sample's.
    write_run(root / "new", logbook="gen,max,mean,min,frames,best\n"
                                    "1,1.5,0.5,0.0,100,0.7\n"
                                    "2,2.5,1.0,0.1,200,0.9\n"
                                    "3,2.0,1.2,0.2,300,0.8\n")
    write_run(root / "old")
    rows = rows_of(root)
    assert rows["new"]["best"] == 0.8
    assert rows["old"]["best"] == 2.5            # the running max of "max"
    page = Page(RunsDir(root))
    page.refresh()
    page.chosen = "new"
    page.show_run()
    assert page.curve_source.data["best"] == [0.7, 0.9, 0.8]
    assert page.curve_source.data["max"] == [1.5, 2.5, 2.0]
    labels = [item.label["value"] for item in page.fitness.legend[0].items]
    assert "best" in labels and "population max" in labels and "population mean" in labels
    page.chosen = "old"
    page.show_run()
    assert page.curve_source.data["best"] == [1.5, 2.5, 2.5]
    # The overlay draws the same best.
    page.compare_pick.value = ["new", "old"]
    page.show_compare()
    sources = page.overlay.sources
    assert [s.data["best"] for s in sources] == [[0.7, 0.9, 0.8], [1.5, 2.5, 2.5]]


def test_best_curve_skips_what_a_generation_left_empty():
    from plots.dashboard.runs import best_curve

    assert best_curve({"max": [math.nan, 1.0, math.nan, 0.5]})[1:] == [1.0, 1.0, 1.0]
    assert math.isnan(best_curve({"max": [math.nan, 1.0]})[0])
    assert best_curve({"max": [1.0, 3.0], "best": [math.nan, math.nan]}) == [1.0, 3.0]


def test_the_overlay_names_each_run_in_a_legend_beside_the_plot_that_hides_lines(tmp_path):
    root = tmp_path / "runs"
    long = "a-run-with-a-rather-long-name-" * 2
    write_run(root / long)
    write_run(root / "short")
    page = Page(RunsDir(root))
    page.refresh()
    page.compare_pick.value = [long, "short"]
    page.show_compare()
    fig = page.overlay.figure
    legend = fig.right[0]
    assert legend.click_policy == "hide"
    assert [i.label["value"] for i in legend.items] == [long, "short"]
    assert not fig.center or all(type(r).__name__ != "Legend" for r in fig.center)
    page.compare_pick.value = []
    page.show_compare()
    assert page.overlay.figure is None


# -- an evolution.compare directory -------------------------------------------------------

def test_markdown_tables_become_tables_whose_cells_are_text():
    from plots.dashboard.groups import data_table, markdown_tables

    text = ("| method | runs | wall |\n| --- | ---: | ---: |\n"
            f"| {SCRIPT} | 2 | 1.0 min |\n| ga | 3 | 2.0 min |\n\n"
            "probability that a run beats (training fitness; 95% CI):\n\n"
            f"| method | {SCRIPT} | b |\n| --- | --- | --- |\n| a | - | 0.50 [0.1, 0.9] |")
    tables = markdown_tables(text)
    assert [(caption, head) for caption, head, _ in tables] == [
        ("", ["method", "runs", "wall"]),
        ("probability that a run beats (training fitness; 95% CI):", ["method", SCRIPT, "b"])]
    assert tables[0][2] == [[SCRIPT, "2", "1.0 min"], ["ga", "3", "2.0 min"]]
    shown = data_table(*tables[1][1:], name="t")
    # Headers are HTML in a Bokeh table: escaped; cells are drawn as text.
    assert [c.title for c in shown.columns] == ["method", html_text.escape(SCRIPT), "b"]
    assert shown.source.data["c2"] == ["0.50 [0.1, 0.9]"]
    first = data_table(*tables[0][1:], name="u")
    assert first.source.data["c0"] == [SCRIPT, "ga"]


def test_a_comparisons_task_is_text():
    assert views.task_text(["--stages", "gen:easy:0-31", "pipeworks", "--population", "4"]) \
        == "stages gen:easy:0-31, pipeworks; --population 4"
    assert views.task_text([]) == "evolution.run's defaults"
    assert "[" not in views.task_text(["--max-steps", "200"])

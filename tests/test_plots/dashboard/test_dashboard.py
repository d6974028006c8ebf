"""`python -m plots dashboard`: the runs under a directory as table rows
(nested, damaged and running ones included), read without writing; the
server's safety (404 for a path that climbs out, one-line errors, Ctrl-C);
and the page in a real browser (headless Chromium): the runs, a live
run's new generation and a new run appearing without a reload; a
MAP-Elites run's archive, whose cells replay their elite when clicked (an
empty one does nothing), an elite picked in the list replayed, a NEAT
run's species and network, and runs overlaid (the views themselves:
test_dashboard_views.py)."""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from commands import call
from paths import REPO_ROOT
from plots import __main__ as plots_cli
from plots.dashboard.runs import RunsDir
from runners.archive_file import load_archive

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def one_run(tmp_path_factory) -> Path:
    from evolution.config import EvolutionConfig
    from evolution.loop.evolve import evolve

    out = tmp_path_factory.mktemp("dash") / "one"
    evolve(EvolutionConfig(generations=3, population=6, max_steps=300, workers=1, seed=1,
                           test_stages=("gen:easy:100-101",), test_every=1), out)
    return out


def runs_dir(tmp_path: Path, one_run: Path) -> Path:
    root = tmp_path / "runs"
    shutil.copytree(one_run, root / "finished")
    shutil.copytree(one_run, root / "group" / "nested")
    shutil.copytree(one_run, root / "broken")
    (root / "broken" / "config.json").write_text("{ not json")
    shutil.copytree(one_run, root / "stopped")
    settings = json.loads((root / "stopped" / "config.json").read_text())
    settings["settings"]["generations"] = 10
    (root / "stopped" / "config.json").write_text(json.dumps(settings))
    (root / "not-a-run").mkdir()
    (root / "not-a-run" / "notes.txt").write_text("hello")
    return root


def snapshot(root: Path) -> dict:
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_every_run_gets_a_row_saying_what_it_is(tmp_path, one_run):
    root = runs_dir(tmp_path, one_run)
    before = snapshot(root)
    rows = {r["name"]: r for r in RunsDir(root).rows()}
    assert set(rows) == {"finished", "group/nested", "broken", "stopped"}
    assert rows["finished"]["status"] == "finished"
    assert rows["finished"]["generation"] == "3 of 3"
    assert rows["finished"]["method"] == "ga" and rows["finished"]["stages"] == "hillside"
    assert rows["stopped"]["status"] == "stopped" and rows["stopped"]["generation"] == "3 of 10"
    assert rows["broken"]["status"].startswith("damaged: ")
    log = np.genfromtxt(one_run / "logbook.csv", delimiter=",", names=True)
    assert rows["finished"]["best"] == pytest.approx(log["max"].max())
    assert 0.0 <= rows["finished"]["held_out"] <= 1.0
    # Reading wrote nothing.
    assert snapshot(root) == before


def test_a_run_holding_its_lock_is_running(tmp_path, one_run):
    root = runs_dir(tmp_path, one_run)
    fd = os.open(root / "stopped", os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        rows = {r["name"]: r for r in RunsDir(root).rows()}
        assert rows["stopped"]["status"] == "running"
    finally:
        os.close(fd)
    assert {r["name"]: r for r in RunsDir(root).rows()}["stopped"]["status"] == "stopped"


def test_an_empty_directory_has_no_rows(tmp_path):
    assert RunsDir(tmp_path).rows() == []


@pytest.mark.parametrize("args, said", [
    (["dashboard", "no/such/dir"], "is not a directory"),
    (["dashboard", ".", "--port", "70000"], "--port 70000"),
])
def test_bad_input_is_one_line(args, said):
    done = call(plots_cli.main, *args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def dashboard(root: Path):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "plots", "dashboard", str(root), "--port",
                             str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=REPO_ROOT)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, proc.communicate()
        try:
            urllib.request.urlopen(url, timeout=5).read()
            break
        except (urllib.error.URLError, ConnectionError):
            assert time.monotonic() < deadline, "the dashboard never answered"
            time.sleep(0.2)
    try:
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=20)
        if proc.poll() is None:
            proc.kill()


def status_of(url: str) -> int:
    try:
        return urllib.request.urlopen(url, timeout=5).status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_the_server_serves_nothing_outside_and_stops_on_ctrl_c(tmp_path, one_run):
    root = runs_dir(tmp_path, one_run)
    (tmp_path / "secret.txt").write_text("do not serve")
    with dashboard(root) as (url, proc):
        assert status_of(url) == 200
        for path in ("../secret.txt", "static/../../secret.txt", "static/..%2F..%2Fsecret.txt",
                     "static/%2e%2e/%2e%2e/secret.txt", "runs/finished/config.json",
                     "finished/config.json"):
            assert status_of(url + path) == 404, path
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "Traceback" not in err
    assert out.startswith("dashboard of ") and "http://127.0.0.1:" in out


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine (Debian package "
                                             "'chromium'; .ci/run installs it)")
def test_the_page_in_a_browser_follows_a_live_run(tmp_path, one_run):
    playwright = pytest.importorskip("playwright.sync_api",
                                     reason="Playwright not installed (the dev extra has it)")
    root = runs_dir(tmp_path, one_run)
    live = root / "stopped"
    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)           # as a run holds it while it runs
    try:
        with dashboard(root) as (url, _), playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1300, "height": 900})
            # The page's HTML holds the first rows as a plain table, ahead
            # of BokehJS's scripts, which would hold back what follows them.
            served = urllib.request.urlopen(url, timeout=5).read().decode()
            assert "group/nested" in served
            assert served.index('id="first-rows"') < served.index("<script")
            page.goto(url)
            page.wait_for_selector("text=group/nested", timeout=20000)
            # Once the interactive table is drawn, the plain one goes.
            page.locator(".slick-cell").first.wait_for(timeout=20000)
            page.wait_for_function("() => document.getElementById('first-rows') == null",
                                   timeout=5000)
            # The table comes first; the rest of the page once it is drawn.
            page.wait_for_function("() => Bokeh.documents[0].get_model_by_name("
                                   "'compare-runs') != null", timeout=20000)
            for name in ("finished", "stopped", "broken"):
                assert page.get_by_text(name, exact=True).count() >= 1
            assert page.get_by_text("running").count() >= 1
            shot = tmp_path / "runs.png"
            page.screenshot(path=str(shot), full_page=True)
            from PIL import Image

            pixels = np.asarray(Image.open(shot).convert("L"), dtype=float)
            assert pixels.std() > 10, "a blank page"
            # A new generation of the live run shows, no reload. The page
            # refreshes every second; how soon is bench_dashboard.py's to
            # measure, and the bound here leaves room for a busy machine.
            lines = (live / "logbook.csv").read_text().splitlines()
            last = lines[-1].split(",")
            last[0] = str(int(last[0]) + 1)
            (live / "logbook.csv").write_text("\n".join([*lines, ",".join(last)]) + "\n")
            page.wait_for_selector("text=4 of 10", timeout=15000)
            # A run started after the page opened appears.
            shutil.copytree(one_run, root / "later")
            page.wait_for_selector("text=later", timeout=15000)
            # Choosing a run shows its curves.
            page.get_by_text("finished", exact=True).first.click()
            page.wait_for_selector("text=3 of 3 generations", timeout=5000)
            page.screenshot(path=str(tmp_path / "run.png"), full_page=True)
            browser.close()
    finally:
        os.close(fd)


ARCHIVE_FIGURE = "const f = Bokeh.documents[0].get_model_by_name('archive')"


def click_cell(page, archive, cell) -> None:
    """A real mouse click on the centre of archive cell (I, J) of the
    page's archive figure, found through Bokeh's view of it."""
    (x0, y0), (x1, y1) = archive.lower, archive.upper
    x = x0 + (cell[0] + 0.5) * (x1 - x0) / archive.dims[0]
    y = y0 + (cell[1] + 0.5) * (y1 - y0) / archive.dims[1]
    # Once the figure is laid out over the archive's ranges (its part of
    # the page may have been sent a moment ago).
    page.wait_for_function(f"""() => {{
        {ARCHIVE_FIGURE};
        const view = f && Bokeh.index.find_one(f);
        return view != null && view.has_finished() && view.frame.bbox.width > 0
            && view.frame.x_range.end === {x1} && view.frame.y_range.end === {y1};
    }}""", timeout=30000)
    at = page.evaluate(f"""() => {{
        {ARCHIVE_FIGURE};
        const view = Bokeh.index.find_one(f);
        view.el.scrollIntoView({{block: "center"}});
        const box = view.el.getBoundingClientRect();
        return [box.left + view.frame.x_scale.compute({x}),
                box.top + view.frame.y_scale.compute({y})];
    }}""")
    page.mouse.click(*at)


def who_plays(page) -> str:
    return page.evaluate("Bokeh.documents[0].get_model_by_name('replay-who').value")


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine (Debian package "
                                             "'chromium'; .ci/run installs it)")
@pytest.mark.slow
def test_the_page_shows_a_method_replays_and_compares_in_a_browser(tmp_path):
    playwright = pytest.importorskip("playwright.sync_api",
                                     reason="Playwright not installed (the dev extra has it)")
    from evolution.config import EvolutionConfig
    from evolution.loop.evolve import evolve

    root = tmp_path / "runs"
    for algorithm in ("map-elites", "neat"):
        evolve(EvolutionConfig(algorithm=algorithm, generations=2, population=6,
                               max_steps=200, workers=1, seed=3), root / algorithm)
    before = snapshot(root)
    with dashboard(root) as (url, _), playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.goto(url)
        cells = page.locator(".slick-cell")
        cells.get_by_text("map-elites", exact=True).first.click()
        page.wait_for_function(f"() => {{ {ARCHIVE_FIGURE}; return f && f.visible; }}",
                               timeout=30000)
        archive = load_archive(root / "map-elites")
        # A click on the least fit elite's cell (not the one "who plays"
        # starts with) plays it.
        k = int(np.argmin(archive.objective))
        cell = f"{archive.cell[k][0]},{archive.cell[k][1]}"
        click_cell(page, archive, archive.cell[k])
        page.wait_for_selector(f"p.replay-result:has-text('elite of cell {cell} on')",
                               timeout=120000)
        assert who_plays(page) == cell
        page.screenshot(path=str(tmp_path / "archive-clicked.png"), full_page=True)
        # A click on an empty cell does nothing.
        shown = page.locator("p.replay-result").inner_text()
        empty = next((i, j) for i in range(archive.dims[0]) for j in range(archive.dims[1])
                     if not ((archive.cell[:, 0] == i) & (archive.cell[:, 1] == j)).any())
        click_cell(page, archive, empty)
        time.sleep(2)
        assert who_plays(page) == cell
        assert page.locator("p.replay-result").inner_text() == shown
        assert page.get_by_text("playing map-elites").count() == 0
        # The fittest elite, picked in the list, plays; the episode's line,
        # its map and animation show.
        page.locator("select[name='replay-who']").select_option(index=1)
        best = archive.cell[int(np.argmax(archive.objective))]
        page.get_by_role("button", name="replay").click()
        page.wait_for_selector(f"p.replay-result:has-text('elite of cell {best[0]},{best[1]} on')",
                               timeout=120000)
        gif = page.wait_for_selector("img[alt='replay animation']", timeout=30000)
        assert gif.evaluate("img => img.naturalWidth") > 300
        # How the episode ended, as runners.replay prints it.
        ending = re.compile(r"hillside: \w.* after \d+ frames")
        assert page.locator("pre", has_text=ending).count() == 1
        cells.get_by_text("neat", exact=True).first.click()
        page.wait_for_selector("img[alt='best network']", timeout=30000)
        # Its species sizes per generation, a live figure of the page.
        page.wait_for_function("() => { const f = Bokeh.documents[0].get_model_by_name("
                               "'history-species-sizes'); return f && f.visible; }", timeout=10000)
        page.wait_for_function(f"() => {{ {ARCHIVE_FIGURE}; return !f.visible; }}",
                               timeout=10000)
        # Picked as the widget does (its typing and clicking is Bokeh's own).
        page.evaluate("Bokeh.documents[0].get_model_by_name('compare-runs').value = "
                      "['map-elites', 'neat']")
        page.wait_for_function("() => { const f = Bokeh.documents[0].get_model_by_name("
                               "'compare-overlay'); return f && f.visible; }", timeout=30000)
        page.wait_for_selector("text=runs (click to hide)", timeout=10000)
        browser.close()
    assert snapshot(root) == before

"""The dashboard in headless Chromium over run directories whose names
and values are HTML, and over a damaged configuration: nothing read from
disk runs as script (no dialog opens, neither on load nor on choosing
the runs), the text shows as it is written, a damaged run is one row and
a run added after the page opened still appears. (The server side of the
same: test_dashboard_safety.py.)"""
from __future__ import annotations

import json

import pytest

from test_dashboard import CHROMIUM, dashboard
from test_dashboard_safety import SCRIPT, write_run

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine "
                                 "(Debian package 'chromium'; .ci/run installs it)")]


def test_names_and_values_that_are_html_show_as_text_and_never_run(tmp_path):
    playwright = pytest.importorskip("playwright.sync_api",
                                     reason="Playwright not installed (the dev extra has it)")
    root = tmp_path / "runs"
    write_run(root / SCRIPT, {"algorithm": SCRIPT, "policy": SCRIPT})
    write_run(root / "cell")
    (root / "cell" / "logbook.csv").write_text(f"gen,max\n1,{SCRIPT}\n")
    write_run(root / "typed", {"generations": "5"})
    write_run(root / "plain")
    dialogs: list[str] = []
    with dashboard(root) as (url, _), playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(url)
        # The plain table the page's HTML opens with, then the interactive one.
        page.wait_for_selector("text=plain", timeout=20000)
        assert page.locator("img[src='x']").count() == 0
        cells = page.locator(".slick-cell")
        cells.get_by_text("plain", exact=True).first.wait_for(timeout=20000)
        # The runs table: the name and the method as written.
        assert cells.get_by_text(SCRIPT, exact=True).count() == 2
        # A configuration of the wrong type: one damaged row, saying which.
        assert cells.get_by_text("settings.generations", exact=False).count() == 1
        page.wait_for_timeout(500)          # an image's onerror would have fired by now
        assert dialogs == [], "script ran on load"
        # The overlay's choices list the name as text (opened, as a person would).
        page.locator(".choices", has=page.locator("select[name='compare-runs']")).click()
        page.locator(".choices__item--choice", has_text=SCRIPT).first.wait_for(
            timeout=5000)
        page.keyboard.press("Escape")
        # Choosing the run: its detail box names it, its method, its policy.
        cells.get_by_text(SCRIPT, exact=True).first.click()
        page.locator("b", has_text=SCRIPT).first.wait_for(timeout=10000)
        page.get_by_text(f"{SCRIPT}, {SCRIPT} / basic").first.wait_for(timeout=10000)
        # The damaged logbook: its message carries the cell's text.
        cells.get_by_text("cell", exact=True).first.click()
        page.get_by_text(f"max is '{SCRIPT}'").first.wait_for(timeout=10000)
        page.wait_for_timeout(500)
        assert dialogs == [], "script ran on choosing a run"
        # Overlaid, the name is in the legend.
        page.evaluate("Bokeh.documents[0].get_model_by_name('compare-runs').value = "
                      f"[{json.dumps(SCRIPT)}, 'plain']")
        page.wait_for_function("() => { const f = Bokeh.documents[0].get_model_by_name("
                               "'compare-overlay'); return f && f.visible; }", timeout=10000)
        page.screenshot(path=str(tmp_path / "html-names.png"), full_page=True)
        # A run added afterwards appears, the damaged one notwithstanding.
        write_run(root / "later")
        page.wait_for_selector("text=later", timeout=5000)
        assert page.locator("img[src='x']").count() == 0
        browser.close()
    assert dialogs == []

"""Settings as more columns of the runs table, picked by name (the
method's own settings among them), in the page's address too; a setting
whose name is HTML is a header shown as text (in headless Chromium)."""
from __future__ import annotations

import pytest

from plots.dashboard.address import View
from plots.dashboard.page import Page, flat_settings
from plots.dashboard.runs import RunsDir
from test_dashboard import CHROMIUM, dashboard
from test_dashboard_safety import SCRIPT, write_run


def test_settings_are_cells_numbers_as_numbers():
    flat = flat_settings({"population": 16, "stages": ["hillside", "gen:easy:0-3"],
                          "max_frames": None, "quiet": True,
                          "options": {"es_lr": 0.005, "nested": {"x": 1}}})
    assert flat == {"population": 16, "stages": "hillside, gen:easy:0-3", "max_frames": "",
                    "quiet": "true", "es_lr": 0.005}


def test_picked_settings_are_columns_and_in_the_address(tmp_path):
    root = tmp_path / "runs"
    write_run(root / "a", {"population": 6, "options": {"es_lr": 0.01}})
    write_run(root / "b", {"population": 32, "options": {SCRIPT: 3}})
    page = Page(RunsDir(root), view=View(columns=("es_lr", "population", "absent")))
    page.refresh()
    offered = dict(page.setting_pick.options)
    assert offered[SCRIPT] == "&lt;img src=x onerror=alert(1)&gt;"
    assert list(page.setting_pick.value) == ["es_lr", "population"]
    data = page.table_source.data
    assert data["setting_0"] == [0.01, ""] and data["setting_1"] == [6, 32]
    assert [c.title for c in page.table.columns][-2:] == ["es_lr", "population"]
    assert page.address.value == "?columns=es_lr,population"
    page.setting_pick.value = [SCRIPT]
    assert page.table.columns[-1].title == "&lt;img src=x onerror=alert(1)&gt;"
    assert page.table_source.data["setting_0"] == ["", 3]
    assert "setting_1" not in page.table_source.data
    page.setting_pick.value = []
    assert len(page.table.columns) == 11 and page.address.value == ""


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine (Debian package "
                                             "'chromium'; .ci/run installs it)")
@pytest.mark.slow
def test_a_setting_column_shows_in_a_browser_and_its_name_is_text(tmp_path):
    playwright = pytest.importorskip("playwright.sync_api",
                                     reason="Playwright not installed (the dev extra has it)")
    root = tmp_path / "runs"
    write_run(root / "a", {"population": 6, "options": {SCRIPT: 7}})
    write_run(root / "b", {"population": 32})
    dialogs: list[str] = []
    with dashboard(root) as (url, _), playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(url + "?columns=population")
        page.locator(".slick-column-name", has_text="population").first.wait_for(
            timeout=20000)
        assert page.locator(".slick-cell").get_by_text("32", exact=True).count() == 1
        page.evaluate("Bokeh.documents[0].get_model_by_name('setting-columns').value = "
                      f"['population', {SCRIPT!r}]")
        page.locator(".slick-column-name", has_text=SCRIPT).first.wait_for(timeout=10000)
        assert page.locator(".slick-cell").get_by_text("7", exact=True).count() == 1
        page.wait_for_function("() => window.location.search.startsWith('?columns=population,')",
                               timeout=10000)
        page.wait_for_timeout(500)
        browser.close()
    assert dialogs == []

"""A run's logbook (CSV) and settings (config.json) are saved from the
page as they are on disk: sent over the page's own connection when a
button is pressed, never served from RUNS_DIR (in headless Chromium:
the browser saves both files, byte for byte)."""
from __future__ import annotations

import pytest

from plots.dashboard.address import View
from plots.dashboard.page import Page
from plots.dashboard.runs import RunsDir
from test_dashboard import CHROMIUM, dashboard, status_of
from test_dashboard_safety import SCRIPT, write_run


def test_the_buttons_send_the_chosen_run_s_files(tmp_path):
    root = tmp_path / "runs"
    write_run(root / "group" / "one", {"algorithm": SCRIPT})
    page = Page(RunsDir(root))
    page.refresh()
    assert all(b.disabled for b in page.downloads)       # no run chosen yet
    page.on_download("logbook.csv", "logbook.csv", "text/csv")
    assert page.download_source.data["text"] == []
    page = Page(RunsDir(root), view=View(run="group/one"))
    page.refresh()
    assert not any(b.disabled for b in page.downloads)
    page.on_download("logbook.csv", "logbook.csv", "text/csv")
    first = dict(page.download_source.data)
    assert first["file"] == ["group-one-logbook.csv"]
    assert first["text"] == [(root / "group" / "one" / "logbook.csv").read_text()]
    page.on_download("config.json", "config.json", "application/json")
    assert page.download_source.data["text"] == [
        (root / "group" / "one" / "config.json").read_text()]
    # The same file twice is two downloads (the data differ each time).
    page.on_download("config.json", "config.json", "application/json")
    assert page.download_source.data["n"] == [first["n"][0] + 2]
    # A file gone since is one line, not an exception.
    (root / "group" / "one" / "logbook.csv").unlink()
    page.on_download("logbook.csv", "logbook.csv", "text/csv")
    assert "logbook.csv cannot be read" in page.chart_note.text


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine (Debian package "
                                             "'chromium'; .ci/run installs it)")
@pytest.mark.slow
def test_a_run_s_files_download_from_the_page_in_a_browser(tmp_path):
    playwright = pytest.importorskip("playwright.sync_api",
                                     reason="Playwright not installed (the dev extra has it)")
    root = tmp_path / "runs"
    run = write_run(root / "group" / "one")
    with dashboard(root) as (url, _), playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1300, "height": 900},
                                accept_downloads=True)
        page.goto(url + "?run=group/one")
        page.locator("b", has_text="group/one").first.wait_for(timeout=20000)
        for label, name, saved in (("download logbook (CSV)", "logbook.csv",
                                    "group-one-logbook.csv"),
                                   ("download settings (JSON)", "config.json",
                                    "group-one-config.json")):
            button = page.get_by_role("button", name=label)
            page.wait_for_function(
                "(n) => !Bokeh.documents[0].get_model_by_name(n).disabled",
                arg=f"download-{name}", timeout=10000)
            with page.expect_download(timeout=20000) as info:
                button.click()
            download = info.value
            assert download.suggested_filename == saved
            assert open(download.path(), "rb").read() == (run / name).read_bytes()
        # The files themselves are not served.
        for path in ("group/one/logbook.csv", "runs/group/one/config.json"):
            assert status_of(url + path) == 404
        browser.close()

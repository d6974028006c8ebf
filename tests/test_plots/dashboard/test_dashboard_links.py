"""Every view of the dashboard has its own address: `?run=NAME`,
`?overlay=A,B`, `?study=NAME`, `?comparison=NAME`, `?x=frames`; the page
opens the view its address names, and writes the address as the choice
changes (in headless Chromium: a pasted link opens the view it names, a
choice made in the page shows in the address bar, and a reload keeps it)."""
from __future__ import annotations

import pytest

from plots.dashboard.address import View, query, read_view, split_names
from plots.dashboard.page import Page
from plots.dashboard.runs import RunsDir
from test_dashboard import CHROMIUM, dashboard
from test_dashboard_safety import write_run


def test_an_address_reads_back_as_the_view_it_was_written_from():
    views = [View(), View(run="a"), View(run="g/b c", overlay=("a", "g/b c")),
             View(study="tune/x", comparison="cmp", x="frames"),
             View(overlay=("a,1", "b")), View(x="seconds")]
    for view in views:
        text = query(view)
        # tornado's request.arguments: the query decoded, each name's values as bytes.
        from urllib.parse import parse_qs
        arguments = {k: [v.encode() for v in vs]
                     for k, vs in parse_qs(text.lstrip("?")).items()}
        assert read_view(arguments, ["a", "g/b c", "a,1", "b"]) == view, text


def test_overlay_names_split_on_commas_unless_a_run_is_named_so():
    assert split_names(["a,b", "c"]) == ("a", "b", "c")
    assert split_names(["a,b", "a"], known=["a,b"]) == ("a,b", "a")
    assert split_names(["a,,a, b "]) == ("a", "b")
    assert read_view({"x": [b"gens"]}).frames is False
    assert read_view({"x": [b"gens"]}).x == "gen"
    assert read_view({"x": [b"seconds"]}).x == "seconds"
    assert read_view({"run": [b"", b"r1"]}).run == "r1"
    assert read_view(None) == View()


def test_a_page_opened_at_an_address_shows_its_view_and_writes_what_changes(tmp_path):
    root = tmp_path / "runs"
    for name in ("one", "two", "group/three"):
        write_run(root / name)
    page = Page(RunsDir(root), view=View(run="two", overlay=("one", "group/three"),
                                         x="frames"))
    page.refresh()
    assert page.chosen == "two"
    # The runs overlaid are the runs ticked in the table.
    ticked = [page.table_source.data["name"][i] for i in page.table_source.selected.indices]
    assert sorted(ticked) == ["group/three", "one"]
    assert page.fitness.title.text == "fitness: two"
    assert list(page.compare_pick.value) == ["one", "group/three"]
    assert page.axis.active == 1 and page.curve_source.data["x"] == [100, 200, 300]
    assert page.address.value == "?run=two&overlay=one,group/three&x=frames"
    # A choice made in the page is written into the address.
    page.run_click.value = "one"            # a click on its row
    page.compare_pick.value = ["two"]
    assert [page.table_source.data["name"][i]
            for i in page.table_source.selected.indices] == ["two"]
    page.axis.active = 0
    assert page.address.value == "?run=one&overlay=two"
    page.axis.active = 2
    assert page.address.value == "?run=one&overlay=two&x=seconds"
    # A run the address names that is not there is said, escaped.
    page = Page(RunsDir(root), view=View(run="<b>gone</b>"))
    page.refresh()
    assert "no run named &lt;b&gt;gone&lt;/b&gt;" in page.detail.text


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine (Debian package "
                                             "'chromium'; .ci/run installs it)")
@pytest.mark.slow
def test_a_link_opens_the_view_it_names_in_a_browser(tmp_path):
    playwright = pytest.importorskip("playwright.sync_api",
                                     reason="Playwright not installed (the dev extra has it)")
    root = tmp_path / "runs"
    for name in ("alpha", "beta", "group/gamma"):
        write_run(root / name)
    href = "() => window.location.href"
    with dashboard(root) as (url, _), playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.goto(url + "?run=beta&overlay=alpha,group/gamma")
        # The run's detail and curves, and the overlay of the two named.
        page.locator("b", has_text="beta").first.wait_for(timeout=20000)
        page.wait_for_function("() => { const f = Bokeh.documents[0].get_model_by_name("
                               "'compare-overlay'); return f && f.visible; }", timeout=10000)
        assert page.evaluate("Bokeh.documents[0].get_model_by_name('fitness').title.text") \
            == "fitness: beta"
        assert page.evaluate("Bokeh.documents[0].get_model_by_name('compare-runs').value") \
            == ["alpha", "group/gamma"]
        page.get_by_text("alpha").first.wait_for(timeout=5000)
        # Choosing another run in the table writes it into the address bar.
        page.locator(".slick-cell").get_by_text("alpha", exact=True).first.click()
        page.wait_for_function(f"() => window.location.search.includes('run=alpha')",
                               timeout=10000)
        assert page.evaluate(href).endswith("?run=alpha&overlay=alpha,group/gamma")
        page.evaluate("Bokeh.documents[0].get_model_by_name('compare-runs').value = ['beta']")
        page.wait_for_function("() => window.location.search === '?run=alpha&overlay=beta'",
                               timeout=10000)
        # A reload opens the same view.
        page.reload()
        page.locator("b", has_text="alpha").first.wait_for(timeout=20000)
        page.wait_for_function("() => { const m = Bokeh.documents[0].get_model_by_name("
                               "'compare-runs'); return m && m.value.join() === 'beta'; }",
                               timeout=10000)
        assert page.evaluate("Bokeh.documents[0].get_model_by_name('fitness').title.text") \
            == "fitness: alpha"
        page.screenshot(path=str(tmp_path / "link.png"), full_page=True)
        browser.close()

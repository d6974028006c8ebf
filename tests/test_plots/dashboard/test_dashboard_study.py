"""An `evolution.tune` directory under RUNS_DIR is a study in the page:
its trials (number, state, score, settings, a link to the trial's run),
the best score so far, parallel coordinates, and Optuna's importance of
each setting (from 2 complete trials on); all read without writing the
study file (its bytes and modification time unchanged, no journal made),
and in headless Chromium the trials table lists every trial the SQLite
file holds and a trial's link opens its run."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from commands import call
from evolution import tune as tune_module
from plots.dashboard.address import View
from plots.dashboard.page import Page
from plots.dashboard.runs import RunsDir
from plots.dashboard.study import parallel_data, read_study, trials_html
from test_dashboard import CHROMIUM, dashboard
from test_dashboard_safety import SCRIPT

TASK = ["--stage", "gen:easy:0-1", "--validation-stage", "gen:easy:2000-2001",
        "--population", "8", "--workers", "1"]


@pytest.fixture(scope="module")
def tuned(tmp_path_factory) -> Path:
    """RUNS_DIR holding one tiny tuning (3 trials of 20,000 frames)."""
    root = tmp_path_factory.mktemp("study") / "runs"
    done = call(tune_module.main, "--method", "openai-es", "--trials", "3", "--frames",
                "20000", "--out", root / "tune", "--", *TASK)
    assert done.returncode == 0, done.stderr
    return root


def stamp(path: Path) -> dict[str, tuple[bytes, int]]:
    """Every file beside the study (a journal would show here) and its
    bytes and modification time."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in path.iterdir()
            if p.is_file()}


def sqlite_trials(db: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute("SELECT number, state FROM trials ORDER BY number").fetchall()


def test_a_study_is_read_whole_and_never_written(tuned):
    before = stamp(tuned / "tune")
    data = read_study(tuned / "tune", tuned)
    page = Page(RunsDir(tuned), view=View(study="tune"))
    page.refresh()
    assert stamp(tuned / "tune") == before
    held = sqlite_trials(tuned / "tune" / "study.db")
    assert [(t.number, t.state) for t in data.trials] == held and len(held) == 3
    assert data.params == ["es_sigma", "es_lr", "es_weight_decay"]
    assert [t.run for t in data.trials] == [f"tune/trials/{n:04d}" for n in range(3)]
    assert data.identity["method"] == "openai-es" and data.direction == "maximize"
    # Optuna's own importance, over the three settings.
    assert set(data.importance) == set(data.params)
    assert sum(data.importance.values()) == pytest.approx(1.0)
    # The page lists the study, and shows it when the address names it.
    assert list(page.study_pick.options) == ["(none)", "tune"]
    assert page.study_pick.value == "tune" and page.study.layout.visible
    for t in data.trials:
        assert f"<a href='?run=tune%2Ftrials%2F{t.number:04d}'>" in page.study.table.text
    best = max(data.trials, key=lambda t: t.value)
    assert f"best: trial {best.number}" in page.study.summary.text
    assert page.study.best_source.data["best"][-1] == best.value
    # The trials' runs are runs of the table too.
    assert {f"tune/trials/{n:04d}" for n in range(3)} <= {r["name"] for r in page.all_rows}


def make_study(path: Path, scores: list[float | None]) -> Path:
    """An Optuna study file of trials of these scores (None: failed), one
    of its settings named as HTML."""
    import optuna
    from optuna.distributions import CategoricalDistribution, FloatDistribution

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    path.mkdir(parents=True)
    study = optuna.create_study(study_name="tune", direction="maximize",
                                storage=f"sqlite:///{path / 'study.db'}")
    spaces = {"rate": FloatDistribution(0.001, 1.0, log=True),
              SCRIPT: CategoricalDistribution(["a", SCRIPT])}
    for value in scores:
        trial = study.ask(spaces)
        state = optuna.trial.TrialState.FAIL if value is None else None
        study.tell(trial, value, state=state)
    return path


def test_one_complete_trial_has_no_importance_and_names_from_disk_are_text(tmp_path):
    root = tmp_path / "runs"
    make_study(root / "s", [0.5, None])
    before = stamp(root / "s")
    data = read_study(root / "s", root)
    assert [t.state for t in data.trials] == ["COMPLETE", "FAIL"]
    assert data.importance is None
    assert data.importance_note == "importance needs at least 2 complete trials; 1 so far"
    text = trials_html(data)
    assert SCRIPT not in text and "&lt;img src=x onerror=alert(1)&gt;" in text
    assert [t.run for t in data.trials] == [None, None]
    # The failed trial is no line of the parallel coordinates.
    assert len(parallel_data(data)["xs"]) == 1
    page = Page(RunsDir(root), view=View(study="s"))
    page.refresh()
    assert "1 so far" in page.study.importance.text
    assert stamp(root / "s") == before


def test_a_study_file_that_is_not_one_is_one_line_in_the_page(tmp_path):
    root = tmp_path / "runs"
    (root / "bad").mkdir(parents=True)
    (root / "bad" / "study.db").write_bytes(b"not a database at all" * 50)
    page = Page(RunsDir(root), view=View(study="bad"))
    page.refresh()
    assert "bad/study.db cannot be read" in page.study.summary.text
    assert page.study.table.text == ""


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine (Debian package "
                                             "'chromium'; .ci/run installs it)")
@pytest.mark.slow
def test_the_trials_table_lists_every_trial_of_the_file_in_a_browser(tuned, tmp_path):
    playwright = pytest.importorskip("playwright.sync_api",
                                     reason="Playwright not installed (the dev extra has it)")
    before = stamp(tuned / "tune")
    held = sqlite_trials(tuned / "tune" / "study.db")
    with dashboard(tuned) as (url, _), playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.goto(url + "?study=tune")
        rows = page.locator("tr.study-trial")
        rows.first.wait_for(timeout=30000)
        cells = rows.evaluate_all("rs => rs.map(r => [...r.cells].map(c => c.innerText))")
        assert [(int(c[0]), c[1].upper()) for c in cells] == held
        # Its figures: best so far, parallel coordinates, importance.
        for name in ("study-best", "study-parallel-figure", "study-importance-figure"):
            page.wait_for_function(f"() => {{ const f = Bokeh.documents[0]"
                                   f".get_model_by_name('{name}'); return f && f.visible; }}",
                                   timeout=20000)
        page.screenshot(path=str(tmp_path / "study.png"), full_page=True)
        # A trial's link opens its run.
        page.get_by_role("link", name="tune/trials/0001").click()
        page.wait_for_function("() => window.location.search.startsWith('?run=tune')",
                               timeout=10000)
        page.get_by_text("tune/trials/0001: openai-es").first.wait_for(timeout=20000)
        browser.close()
    assert stamp(tuned / "tune") == before


def test_a_study_being_written_keeps_what_was_shown_and_is_read_again(tmp_path):
    root = tmp_path / "runs"
    make_study(root / "s", [0.5, 0.7])
    page = Page(RunsDir(root), view=View(study="s"))
    page.refresh()
    assert page.study.table.text.count("class='study-trial'") == 2
    db = root / "s" / "study.db"
    # Another program (a tuning committing a trial) holds the file locked.
    import optuna

    optuna.create_study(study_name="tune", storage=f"sqlite:///{db}",
                        load_if_exists=True).enqueue_trial({"rate": 0.5, SCRIPT: "a"})
    lock = sqlite3.connect(db, isolation_level=None)
    lock.execute("BEGIN EXCLUSIVE")
    try:
        page.refresh()
        assert page.study.table.text.count("class='study-trial'") == 2
        assert "s/study.db is being written; read again at the next refresh" \
            in page.study.summary.text
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    page.refresh()
    assert page.study.table.text.count("class='study-trial'") == 3
    assert "being written" not in page.study.summary.text


def test_an_address_naming_no_study_says_so(tmp_path):
    root = tmp_path / "runs"
    make_study(root / "s", [0.5])
    page = Page(RunsDir(root), view=View(study=SCRIPT))
    page.refresh()
    assert page.study_pick.value == "(none)"
    assert "no evolution.tune study named &lt;img src=x onerror=alert(1)&gt; under" \
        in page.study.summary.text

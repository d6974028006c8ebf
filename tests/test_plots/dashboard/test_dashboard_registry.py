"""A method's dashboard view lives with the method: its registry entry
declares its panels (numbers per generation) and its view (a kind the
dashboard draws, or a function of its own, and the run's files it is
drawn from). The dashboard's code names no registered method and none of
their settings, every registered method's page shows what its entry
declares, and a method registered with the dashboard untouched shows
too."""
from __future__ import annotations

import ast
import dataclasses
import html
import json
from pathlib import Path

import pytest

from evolution.loop.checkpoint import CHECKPOINT_NAME
from evolution.loop.method_file import METHOD_NAME, write_method_file
from evolution.strategies import registry
from evolution.strategies.registry import STRATEGIES, MethodView, Panel, StrategyEntry
from paths import REPO_ROOT
from plots.dashboard import views
from plots.dashboard.page import PICTURE_SECONDS
from runners.archive_file import ARCHIVE_NAME
from runners.genome_file import BEST_NAME
from test_dashboard_history import page_on
from test_dashboard_safety import LOGBOOK, write_run

DASHBOARD = REPO_ROOT / "plots" / "dashboard"


def string_literals(path: Path) -> list[tuple[int, str]]:
    """Every string constant of a module (f-strings' text parts included),
    with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return sorted((node.lineno, node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str))


def named_in_dashboard(names: set[str], root: Path = DASHBOARD) -> list[str]:
    return [f"{path.name}:{line} {value!r}" for path in sorted(root.glob("*.py"))
            for line, value in string_literals(path) if value in names]


def test_the_dashboard_names_no_registered_method_nor_setting():
    methods = set(STRATEGIES)
    settings = {s.name for entry in STRATEGIES.values() for s in entry.settings}
    assert named_in_dashboard(methods) == []
    assert named_in_dashboard(settings) == []


def test_the_check_sees_a_method_named_again(tmp_path):
    (tmp_path / "views.py").write_text(
        'def view(algorithm):\n    if algorithm == "neat":\n        return f"{algorithm}"\n'
        'FILES = {"cmaes": ()}\n')
    assert named_in_dashboard({"neat", "cmaes"}, tmp_path) == [
        "views.py:2 'neat'", "views.py:4 'cmaes'"]


def test_every_declared_view_is_one_the_dashboard_draws_from_run_files():
    run_files = {CHECKPOINT_NAME, BEST_NAME, ARCHIVE_NAME}
    assert {registry.CHECKPOINT_FILE, registry.BEST_FILE, registry.ARCHIVE_FILE} == run_files
    declared = {name: entry.view for name, entry in STRATEGIES.items() if entry.view}
    assert declared, "no method declares a view"
    for name, view in declared.items():
        assert callable(views.view_drawing(view.kind, name)), name
        assert view.files and set(view.files) <= run_files, name
        assert views.view_files(name) == view.files
    assert views.view_files("no-such-method") == ()


def method_records(entry: StrategyEntry, gens: int) -> list[dict]:
    """method.jsonl's lines of a run of `entry`: each of its method.jsonl
    panels a number per generation."""
    return [{"gen": g, **{p.name: 0.5 * (g + 1) + k for k, p in enumerate(entry.panels)
                          if not p.logbook}} for g in range(gens)]


def logbook_text(entry: StrategyEntry) -> str:
    """LOGBOOK with the method's own logbook columns."""
    own = [p.name for p in entry.panels if p.logbook]
    lines = LOGBOOK.strip().splitlines()
    head = lines[0] + "".join(f",{c}" for c in own)
    body = [line + "".join(f",{2.0 * g + k}" for k in range(len(own)))
            for g, line in enumerate(lines[1:], 1)]
    return "\n".join([head, *body]) + "\n"


def registered_runs(root: Path) -> None:
    for name, entry in STRATEGIES.items():
        run = write_run(root / name, {"algorithm": name}, logbook_text(entry))
        write_method_file(run, method_records(entry, 3))


@pytest.mark.parametrize("name", list(STRATEGIES))
def test_each_registered_method_shows_what_its_entry_declares(tmp_path, name):
    """Its page shows its panels with its numbers, and its view (here of a
    run without a checkpoint, a best genome or an archive: the view says
    what it lacks, never that it could not be drawn)."""
    root = tmp_path / "runs"
    registered_runs(root)
    entry = STRATEGIES[name]
    page = page_on(root, name)
    assert page.detail.text.startswith(f"<b>{name}</b>: {name}")
    shown = page.history
    if entry.panels:
        assert [n for n, block in shown.blocks.items() if block.visible] == [name]
        # The logbook's first, then method.jsonl's, each in the entry's order.
        ordered = sorted(entry.panels, key=lambda p: not p.logbook)
        assert [f.name for f in shown.panels[name]] == [f"history-{name}-{p.name}"
                                                        for p in ordered]
        for k, p in enumerate(entry.panels):
            source = shown.logbook_source if p.logbook else shown.method_source
            values = [2.0 * g + k for g in (1, 2, 3)] if p.logbook else \
                [r[p.name] for r in method_records(entry, 3)]
            assert source.data[p.name] == values, p.name
    else:
        assert not any(block.visible for block in shown.blocks.values())
    text = page.method_view.text
    assert "could not draw it" not in text
    assert page.method_head.text == f"<p><b>{name}</b>: {name}</p>"
    if entry.view is None:
        assert ("keeps nothing of its own" in text) or ("are its figures" in text)
    elif entry.view.kind == "archive":
        assert not page.archive_map.figure.visible and ARCHIVE_NAME in text
    else:
        assert text.startswith("<p><i>no ") and ("checkpoint" in text or BEST_NAME in text)


def toy_view(run_dir: Path, settings: dict, logbook: dict) -> str:
    """A view of its own, as a method outside the dashboard might draw."""
    best = json.loads((run_dir / BEST_NAME).read_text())
    return (f"<p class='toy'>{html.escape(settings['algorithm'])}: best "
            f"{best['fitness']} after {len(logbook['gen'])} generations</p>")


def test_a_method_shows_by_its_registry_entry_alone(tmp_path, monkeypatch):
    toy = StrategyEntry("toy", "a method the dashboard has never seen", "toys:Toy",
                        panels=(Panel("toy_score", "the toy's score"),
                                Panel("toy_count", "the toy's count", logbook=True)),
                        view=MethodView(f"{__name__}:toy_view", files=(registry.BEST_FILE,)))
    monkeypatch.setitem(STRATEGIES, "toy", toy)
    root = tmp_path / "runs"
    run = write_run(root / "toy", {"algorithm": "toy"}, logbook_text(toy))
    write_method_file(run, [{"gen": g, "toy_score": 10.0 + g} for g in range(3)])
    (run / BEST_NAME).write_text(json.dumps({"fitness": 7.5}))
    page = page_on(root, "toy")
    assert page.method_view.text == "<p class='toy'>toy: best 7.5 after 3 generations</p>"
    assert views.view_files("toy") == (BEST_NAME,)
    assert [f.name for f in page.history.panels["toy"]] == ["history-toy-toy_count",
                                                            "history-toy-toy_score"]
    assert page.history.method_source.data["toy_score"] == [10.0, 11.0, 12.0]
    assert page.history.logbook_source.data["toy_count"] == [2.0, 4.0, 6.0]
    assert page.history.blocks["toy"].visible
    # Its best file written again: its view is drawn again (not sooner
    # than PICTURE_SECONDS after the last drawing).
    (run / BEST_NAME).write_text(json.dumps({"fitness": 19.0}))
    page.picture_at -= PICTURE_SECONDS
    page.refresh()
    assert page.method_view.text == "<p class='toy'>toy: best 19.0 after 3 generations</p>"


@pytest.mark.parametrize("kind, said", [
    ("heatmap", "unknown view kind 'heatmap' (the view of toy); accepted: archive, "
                "network, search-distribution, program, or module:function"),
    ("no_such_module_here:draw", "view 'no_such_module_here:draw' (the view of toy) "
                                 "cannot be loaded"),
    ("math:pi", "view 'math:pi' (the view of toy) is not a function"),
])
def test_a_view_the_dashboard_cannot_draw_is_one_line(tmp_path, monkeypatch, kind, said):
    toy = dataclasses.replace(STRATEGIES["ga"], name="toy", view=MethodView(kind))
    monkeypatch.setitem(STRATEGIES, "toy", toy)
    run = write_run(tmp_path / "toy", {"algorithm": "toy"})
    text = views.method_view(run, {"algorithm": "toy"}, {"gen": [1.0]})
    assert text.startswith("<p><i>") and said in html.unescape(text)
    assert text.count("<p>") == 1

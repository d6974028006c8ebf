"""The dashboard's views of one run besides its curves, drawn on the
server: each method's own state at its last checkpoint, the MAP-Elites
archive whose cells replay their elite when clicked, a replay of the best
genome or an elite, and comparisons of runs and of an `evolution.compare`
directory. Each is checked against what it shows (the picture `plots`
draws, the numbers the checkpoint holds), and none writes into the run
directory. (The numbers per generation: test_dashboard_history.py.)"""
from __future__ import annotations

import base64
import html as html_text
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from evolution.loop.checkpoint import load_checkpoint
from evolution.loop.method_file import METHOD_NAME
from paths import REPO_ROOT
from plots import PlotError, new_figure
from plots.dashboard import views
from plots.dashboard.page import replay_html
from plots.dashboard.runs import RunsDir, read_logbook_table
from runners.agents import BASELINES
from runners.archive_file import load_archive
from runners.genome_file import load_genome_file
from runners.replay import format_result, replay_episode

ALGORITHMS = ("map-elites", "neat", "cmaes", "openai-es")


@pytest.fixture(scope="module")
def method_runs(tmp_path_factory) -> Path:
    from evolution.config import EvolutionConfig
    from evolution.loop.evolve import evolve

    root = tmp_path_factory.mktemp("methods")
    for algorithm in ALGORITHMS:
        evolve(EvolutionConfig(algorithm=algorithm, generations=2, population=6,
                               max_steps=200, workers=1, seed=2), root / algorithm)
    return root


def snapshot(root: Path) -> dict:
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


def settings_of(run_dir: Path) -> dict:
    return json.loads((run_dir / "config.json").read_text())["settings"]


def images(html: str) -> dict[str, bytes]:
    """The pictures embedded in `html`, by their alt text."""
    found = re.findall(r'<img alt="([^"]*)"[^>]*src="data:image/\w+;base64,([^"]+)"', html)
    return {alt: base64.b64decode(data) for alt, data in found}


def method_html(run_dir: Path) -> str:
    return views.method_view(run_dir, settings_of(run_dir),
                             read_logbook_table(run_dir / "logbook.csv"))


def png_of(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi)
    return buf.getvalue()


def test_the_archive_figure_colours_its_cells_as_plots_archive_does(method_runs):
    from matplotlib.colors import to_hex

    from plots.archive import draw_archive
    from plots.dashboard.archive_map import archive_cells

    run = method_runs / "map-elites"
    before = snapshot(method_runs)
    cells = archive_cells(run)
    archive = load_archive(run)
    image = draw_archive(new_figure(7, 5), run).axes[0].images[0]
    grid = np.ma.getdata(image.get_array())          # the heatmap, rows up the rings axis
    assert cells.data["cell"] == [f"{i},{j}" for i, j in archive.cell]
    assert cells.data["fitness"] == archive.objective.tolist()
    for (i, j), fitness, colour in zip(archive.cell, cells.data["fitness"],
                                       cells.data["colour"]):
        assert grid[j, i] == fitness
        assert colour == to_hex(image.cmap(image.norm(grid[j, i])))
    assert len(set(cells.data["colour"])) > 1
    best = archive.cell[int(np.argmax(archive.objective))]
    assert cells.best == f"{best[0]},{best[1]}"
    # The page draws the archive as the figure, not as a picture.
    assert "<img" not in method_html(run)
    assert snapshot(method_runs) == before


def test_a_point_of_the_archive_names_its_cell_only_when_filled(method_runs):
    from plots.dashboard.archive_map import archive_cells

    cells = archive_cells(method_runs / "map-elites")
    (x0, y0), (x1, y1) = cells.lower, cells.upper
    w, h = (x1 - x0) / cells.dims[0], (y1 - y0) / cells.dims[1]
    filled = set(cells.data["cell"])
    for i in range(cells.dims[0]):
        for j in range(cells.dims[1]):
            # Anywhere inside the square, not only its centre.
            for fx, fy in ((0.5, 0.5), (0.05, 0.95), (0.95, 0.05)):
                found = cells.cell_at(x0 + (i + fx) * w, y0 + (j + fy) * h)
                assert found == (f"{i},{j}" if f"{i},{j}" in filled else None)
    assert cells.cell_at(x0 - w, y0 + h / 2) is None
    assert cells.cell_at(x1 + 0.1, y0 + h / 2) is None
    assert cells.cell_at(float("nan"), 0.0) is None


def test_a_damaged_archive_is_said_not_drawn(method_runs, tmp_path):
    import shutil

    run = tmp_path / "me"
    shutil.copytree(method_runs / "map-elites", run)
    (run / "archive.npz").write_bytes(b"not an archive")
    html = method_html(run)
    assert "archive.npz: unreadable archive" in html and "<img" not in html
    from plots.dashboard.page import Page

    page = Page(RunsDir(tmp_path))
    page.refresh()
    page.chosen = "me"
    page.show_run()
    assert not page.archive_map.figure.visible


def test_neat_shows_species_and_the_best_network(method_runs):
    run = method_runs / "neat"
    shown = images(method_html(run))
    # Its species per generation are the page's live figures (history).
    assert set(shown) == {"best network"}
    generation, sizes = views.species_sizes(run)
    ckpt = load_checkpoint(run)
    assert generation == ckpt.generation
    assert sum(n for _, n in sizes) == len(ckpt.population)
    assert [n for _, n in sizes] == sorted((n for _, n in sizes), reverse=True)


def test_the_network_drawing_has_every_node_and_connection(method_runs):
    genome = load_genome_file(method_runs / "neat" / "best.json").genome
    n_in, n_out, n_hidden, n_conn = (int(v) for v in genome[:4])
    fig = views.draw_network(genome)
    ax = fig.axes[0]
    assert len(ax.lines) == n_conn
    assert sum(len(c.get_offsets()) for c in ax.collections) == n_in + n_hidden + n_out
    assert f"{n_conn} connections" in ax.get_title()


def test_cmaes_shows_its_step_size_from_the_checkpoint(method_runs):
    run = method_runs / "cmaes"
    html = method_html(run)
    sigma = load_checkpoint(run).search["meta"]["sigma"]
    assert f"<td>step size sigma</td><td style='text-align:right'>{sigma:.6g}</td>" in html
    assert "axes of the search distribution" in images(html)


def test_openai_es_shows_its_adam_state_from_the_checkpoint(method_runs):
    run = method_runs / "openai-es"
    html = method_html(run)
    search = load_checkpoint(run).search
    theta = np.asarray(search["arrays"]["theta"])
    assert f"<td>Adam steps t</td><td style='text-align:right'>{search['meta']['t']}</td>" in html
    assert f"{np.linalg.norm(theta):.6g}" in html
    assert "mean of the search distribution" in images(html)
    # The method's own settings, as its registry entry names them.
    from evolution.strategies.registry import STRATEGIES

    options = settings_of(run)["options"]
    for setting in STRATEGIES["openai-es"].settings:
        value = options.get(setting.name, setting.default)
        assert (f"<td>setting {setting.name}</td><td style='text-align:right'>"
                f"{value:.6g}</td>") in html


@pytest.mark.parametrize("algorithm, from_checkpoint", [
    ("cmaes", "axes of the search distribution"),
    ("openai-es", "mean of the search distribution"),
    ("neat", "species sizes"),
])
def test_a_run_from_before_the_method_file_shows_its_last_checkpoint(
        method_runs, tmp_path, algorithm, from_checkpoint):
    import shutil

    html = method_html(method_runs / algorithm)
    assert f"no {METHOD_NAME}" not in html
    run = tmp_path / algorithm
    shutil.copytree(method_runs / algorithm, run)
    (run / METHOD_NAME).unlink()
    html = method_html(run)
    assert from_checkpoint in images(html)
    assert f"no {METHOD_NAME}" in html and "at the last checkpoint only" in html


def test_a_run_without_a_checkpoint_says_so(method_runs, tmp_path):
    import shutil

    run = tmp_path / "cm"
    shutil.copytree(method_runs / "cmaes", run)
    (run / "checkpoint.npz").unlink()
    html = method_html(run)
    assert "no search distribution to show" in html and "<img" not in html
    (run / METHOD_NAME).unlink()
    html = method_html(run)
    assert "no search distribution to show" in html and "<img" not in html


def test_the_replay_plays_the_best_genome_and_writes_nothing(method_runs):
    run = method_runs / "neat"
    before = snapshot(method_runs)
    html = views.replay_view(run, settings_of(run), "gen:easy:4")
    assert snapshot(method_runs) == before
    record = load_genome_file(run / "best.json")
    result = replay_episode(record.policy(), "gen:easy:4", record.observation,
                            record.max_steps, record.stall_frames)
    assert format_result(result).strip() in html_text.unescape(html)
    shown = images(html)
    stage_map = Image.open(io.BytesIO(shown["replay over the stage map"]))
    assert stage_map.width > 800
    gif = Image.open(io.BytesIO(shown["replay animation"]))
    assert gif.format == "GIF" and gif.n_frames > 10


def test_the_replay_of_an_elite_plays_that_cell(method_runs):
    run = method_runs / "map-elites"
    choices = views.elite_choices(run)
    archive = load_archive(run)
    assert choices[0] == views.BEST_GENOME
    elites = len(archive.objective)
    assert len(choices) == 1 + elites + len(BASELINES)
    best_cell = archive.cell[int(np.argmax(archive.objective))]
    assert choices[1][0] == f"{best_cell[0]},{best_cell[1]}"
    html = views.replay_view(run, settings_of(run), "hillside", choices[elites][0])
    assert f"elite of cell {choices[elites][0]}" in html
    assert [value for value, _ in views.elite_choices(method_runs / "neat")] == \
        ["", *(f"agent:{name}" for name in BASELINES)]


def test_the_replay_of_a_baseline_agent_plays_it(method_runs):
    from runners.agents import make_baseline
    from runners.episode import DEFAULT_STALL_FRAMES
    from speednik.constants import DEFAULT_MAX_STEPS

    run = method_runs / "neat"
    html = views.replay_view(run, settings_of(run), "pipeworks", "agent:jump-runner")
    result = replay_episode(make_baseline("jump-runner"), "pipeworks", "basic",
                            DEFAULT_MAX_STEPS, DEFAULT_STALL_FRAMES)
    assert "baseline agent jump-runner on pipeworks" in html
    assert format_result(result).strip() in html_text.unescape(html)
    with pytest.raises(views.ViewError, match="unknown agent 'nobody'; accepted: idle"):
        views.replay_view(run, settings_of(run), "pipeworks", "agent:nobody")


@pytest.mark.parametrize("stage, said", [
    ("gen:easy:1-3", "names 3 stages"),
    ("/etc/passwd", "accepted: the run's own stages"),
    ("../../x.toml", "accepted: the run's own stages"),
    ("gen:nightmare:1", "nightmare"),
])
def test_a_stage_the_replay_does_not_take_is_said(method_runs, stage, said):
    run = method_runs / "neat"
    with pytest.raises(views.ViewError, match=re.escape(said)):
        views.replay_view(run, settings_of(run), stage)
    # The page shows it as a line, not a traceback.
    assert said in html_text.unescape(replay_html(run, settings_of(run), stage, ""))


def test_runs_compared_are_overlaid_with_their_best_fitness(method_runs, tmp_path):
    import shutil

    from plots.dashboard.page import Page
    from plots.dashboard.runs import best_curve

    root = tmp_path / "runs"
    for name in ("cmaes", "neat"):
        shutil.copytree(method_runs / name, root / name)
    page = Page(RunsDir(root))
    page.refresh()
    page.compare_pick.value = ["cmaes", "neat"]
    page.show_compare()
    for source, name in zip(page.overlay.sources, ("cmaes", "neat")):
        logbook = read_logbook_table(root / name / "logbook.csv")
        assert source.data["x"] == logbook["gen"]
        assert source.data["best"] == best_curve(logbook)


def test_a_comparison_view_draws_the_methods_picture_of_its_directory(tmp_path):
    from plots.methods import draw_methods
    from test_dashboard_groups import compare_dir

    out = compare_dir(tmp_path) / "cmp"
    html = views.comparison_view(out)
    assert "<pre>" not in html and "[&quot;" not in html and "['" not in html
    assert images(html)["methods compared"] == png_of(draw_methods(new_figure(13, 5), out))
    (out / "compare.json").write_text("{}")
    with pytest.raises(PlotError, match="not a comparison"):
        views.comparison_view(out)


@pytest.mark.slow
def test_an_evolution_compare_directory_shows_its_table_and_curves(tmp_path):
    from evolution.compare import table
    from plots.methods import draw_methods

    out = tmp_path / "runs" / "cmp"
    done = subprocess.run([sys.executable, "-m", "evolution.compare", "--methods", "ga",
                           "openai-es", "--seeds", "0", "1", "--frames", "2000", "--out",
                           str(out), "--", "--population", "4", "--max-steps", "200",
                           "--workers", "1"], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    runs = RunsDir(tmp_path / "runs")
    assert {r.name for r in runs.runs()} == {f"cmp/{m}-seed{s}" for m in ("ga", "openai-es")
                                             for s in (0, 1)}
    assert runs.comparisons == [out]
    html = views.comparison_view(out)
    data = json.loads((out / "compare.json").read_text())
    # The tables as tables (the page's Bokeh tables): the header as printed.
    from plots.dashboard.groups import markdown_tables

    head = [c.strip() for c in table(data["methods"]).splitlines()[0].strip("|").split("|")]
    tables = markdown_tables(views.comparison_text(out))
    assert tables[0][1] == head and [r[0] for r in tables[0][2]] == ["ga", "openai-es"]
    assert len(tables) == 2                     # and which method beats which
    assert "<pre>" not in html and "[&quot;" not in html and "['" not in html
    assert images(html)["methods compared"] == png_of(draw_methods(new_figure(13, 5), out))
    (out / "compare.json").write_text("{}")
    with pytest.raises(PlotError, match="not a comparison"):
        views.comparison_view(out)


class ImmediateDoc:
    """A document whose next-tick callbacks run at once, on the drawing
    thread: enough for a page no browser holds."""

    def add_next_tick_callback(self, callback) -> None:
        callback()


def drawn() -> None:
    from plots.dashboard.page import DRAWING

    DRAWING.submit(lambda: None).result(timeout=60)


def test_the_archive_in_the_page_follows_the_run(method_runs, tmp_path):
    import shutil

    from plots.dashboard.page import Page

    root = tmp_path / "runs"
    shutil.copytree(method_runs / "map-elites", root / "me")
    shutil.copytree(method_runs / "neat", root / "neat")
    page = Page(RunsDir(root), ImmediateDoc())
    page.refresh()
    page.chosen = "me"
    page.show_run()
    drawn()
    archive = load_archive(root / "me")
    assert page.archive_map.figure.visible
    assert page.archive_map.source.data["cell"] == [f"{i},{j}" for i, j in archive.cell]
    logbook = read_logbook_table(root / "me" / "logbook.csv")
    assert page.history.blocks["map-elites"].visible
    assert page.history.logbook_source.data["qd_score"] == logbook["qd_score"]
    assert len(page.replay_who.options) == 1 + len(archive.objective) + len(BASELINES)
    # The run writes its archive again (here one elite fewer, which a
    # real run never writes, but any change must show).
    with np.load(root / "me" / "archive.npz") as held:
        arrays = {k: held[k] for k in held.files}
    for name in ("solution", "objective", "measures", "cell"):
        arrays[name] = arrays[name][1:]
    from runners.archive_file import write_archive_file

    write_archive_file(root / "me" / "archive.npz", arrays)
    page.refresh()
    drawn()
    archive = load_archive(root / "me")
    assert page.archive_map.source.data["cell"] == [f"{i},{j}" for i, j in archive.cell]
    assert len(page.replay_who.options) == 1 + len(archive.objective) + len(BASELINES)
    # A run without an archive hides it.
    page.chosen = "neat"
    page.show_run()
    assert not page.archive_map.figure.visible


def test_a_click_on_a_filled_cell_replays_its_elite_and_on_an_empty_one_nothing(
        method_runs, tmp_path):
    import shutil

    from bokeh.events import Tap

    from plots.dashboard.page import Page
    from runners.replay import elite_record

    root = tmp_path / "runs"
    shutil.copytree(method_runs / "map-elites", root / "me")
    page = Page(RunsDir(root))                  # no server: drawn at once
    page.refresh()
    page.chosen = "me"
    page.show_run()
    archive = load_archive(root / "me")
    # The least fit elite: not the one "who plays" starts with.
    k = int(np.argmin(archive.objective))
    cell = f"{archive.cell[k][0]},{archive.cell[k][1]}"
    data = page.archive_map.source.data
    at = data["cell"].index(cell)
    figure = page.archive_map.figure
    page.replay_stage.value = "hillside"
    figure._trigger_event(Tap(figure, x=data["x"][at] + 0.3 * data["width"][at],
                              y=data["y"][at] - 0.3 * data["height"][at]))
    assert page.replay_who.value == cell
    assert f"elite of cell {cell} on hillside" in page.replay_view.text
    record = elite_record(load_genome_file(root / "me" / "best.json"), cell)
    result = replay_episode(record.policy(), "hillside", record.observation,
                            record.max_steps, record.stall_frames)
    assert format_result(result).strip() in html_text.unescape(page.replay_view.text)
    # An empty cell: nothing changes, nothing plays.
    cells = page.archive_map.cells
    (x0, y0), (x1, y1) = cells.lower, cells.upper
    w, h = (x1 - x0) / cells.dims[0], (y1 - y0) / cells.dims[1]
    empty = next((i, j) for i in range(cells.dims[0]) for j in range(cells.dims[1])
                 if f"{i},{j}" not in data["cell"])
    shown = page.replay_view.text
    figure._trigger_event(Tap(figure, x=x0 + (empty[0] + 0.5) * w, y=y0 + (empty[1] + 0.5) * h))
    assert page.replay_who.value == cell and page.replay_view.text == shown
    assert not page.replaying


def test_the_stages_offered_for_replay_are_the_runs_own_then_the_built_in_ones():
    from speednik.stages import list_stages

    settings = {"stages": ["pipeworks", "gen:easy:0-31"], "test_stages": ["gen:hard:100-101"],
                "validation_stages": None}
    offered = views.replay_choices(settings)
    own = ["pipeworks", *(f"gen:easy:{i}" for i in range(views.SET_STAGES_OFFERED)),
           "gen:hard:100", "gen:hard:101"]
    assert offered == own + [s for s in list_stages() if s != "pipeworks"]


def test_a_page_no_server_holds_draws_at_once(method_runs, tmp_path):
    import shutil

    from plots.dashboard.page import Page

    root = tmp_path / "runs"
    shutil.copytree(method_runs / "neat", root / "neat")
    page = Page(RunsDir(root))
    page.refresh()
    page.chosen = "neat"
    page.compare_pick.value = ["neat"]
    page.show_run()
    assert "best network" in images(page.method_view.text)
    assert page.overlay.figure is not None

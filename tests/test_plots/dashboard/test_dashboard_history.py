"""What the dashboard draws of a method per generation, as live figures
of the page: CMA-ES's sigma (log scale) and condition number, OpenAI-ES's
learning statistics and NEAT's species sizes (a stacked area) from the
run's method.jsonl, and the logbook's own columns of MAP-Elites and NEAT.
Each figure's data is checked against the files, the figures follow a
running run, and following it draws the checkpoint's pictures again only
at a checkpoint, and not more often than every few seconds."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from bokeh.models import LogScale

from evolution.config import EvolutionConfig
from evolution.loop.checkpoint import load_checkpoint
from evolution.loop.evolve import evolve
from evolution.loop.method_file import METHOD_NAME, read_method_file, write_method_file
from plots.dashboard import history, views
from plots.dashboard.page import PICTURE_SECONDS, Page
from plots.dashboard.runs import RunsDir, read_logbook_table


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("history")
    for algorithm in ("cmaes", "openai-es", "map-elites"):
        evolve(EvolutionConfig(algorithm=algorithm, generations=3, population=6,
                               max_steps=200, workers=1, seed=2), root / algorithm)
    # A low threshold: several species, born and gone.
    evolve(EvolutionConfig(algorithm="neat", generations=4, population=12, max_steps=200,
                           workers=1, seed=5, options={"neat_compat_threshold": 1.0}),
           root / "neat")
    return root


def page_on(root: Path, name: str) -> Page:
    page = Page(RunsDir(root))             # no server: drawn at once
    page.refresh()
    page.chosen = name
    page.show_run()
    return page


def test_cmaes_shows_sigma_and_condition_per_generation_on_log_scales(runs):
    page = page_on(runs, "cmaes")
    shown = page.history
    records = read_method_file(runs / "cmaes")
    assert [r["gen"] for r in records] == [0, 1, 2, 3]
    data = shown.method_source.data
    assert data["gen"] == [0.0, 1.0, 2.0, 3.0]
    assert data["sigma"] == [r["sigma"] for r in records]
    assert data["sigma"][-1] == load_checkpoint(runs / "cmaes").search["meta"]["sigma"]
    assert data["condition"] == [r["condition"] for r in records]
    assert [isinstance(f.y_scale, LogScale) for f in shown.panels["cmaes"]] == [True, True]
    assert [name for name, block in shown.blocks.items() if block.visible] == ["cmaes"]


def test_openai_es_shows_its_learning_statistics_per_generation(runs):
    page = page_on(runs, "openai-es")
    records = read_method_file(runs / "openai-es")
    data = page.history.method_source.data
    for name in ("learning_rate", "noise_sigma", "mean_norm", "first_moment_norm"):
        assert data[name] == [r[name] for r in records]
    theta = load_checkpoint(runs / "openai-es").search["arrays"]["theta"]
    assert data["mean_norm"][-1] == np.linalg.norm(theta)
    assert [f.name for f in page.history.panels["openai-es"]] == [
        "history-openai-es-learning_rate", "history-openai-es-noise_sigma",
        "history-openai-es-mean_norm",
        "history-openai-es-first_moment_norm"]


def test_neat_species_sizes_are_a_stacked_area(runs):
    page = page_on(runs, "neat")
    records = read_method_file(runs / "neat")
    gens, keys, sizes = history.species_table(records)
    assert gens == [float(r["gen"]) for r in records]
    assert len(keys) > 1 and keys == sorted(keys, key=int)
    for j, record in enumerate(records):
        assert {k: int(sizes[i, j]) for i, k in enumerate(keys) if sizes[i, j]} \
            == record["species_sizes"]
    bands = page.history.species_source.data
    assert bands["species"] == [f"species {k}" for k in keys]
    # Each band lies on the one below it, and the top one's top is the
    # whole population in every generation.
    n = len(gens)
    for i in range(len(keys)):
        top, bottom = bands["ys"][i][:n], bands["ys"][i][n:][::-1]
        assert np.allclose(np.subtract(top, bottom), sizes[i])
        assert bands["xs"][i] == gens + gens[::-1]
        if i:
            assert bottom == bands["ys"][i - 1][:n]
    assert bands["ys"][-1][:n] == [12.0] * n
    assert page.history.species.visible
    # The logbook's species count and connections, per generation.
    logbook = read_logbook_table(runs / "neat" / "logbook.csv")
    data = page.history.logbook_source.data
    assert data["species"] == logbook["species"] == [float(len(r["species_sizes"]))
                                                     for r in records]
    assert data["connections"] == logbook["connections"]


def test_map_elites_shows_qd_score_and_coverage_per_generation(runs):
    page = page_on(runs, "map-elites")
    logbook = read_logbook_table(runs / "map-elites" / "logbook.csv")
    data = page.history.logbook_source.data
    assert data["qd_score"] == logbook["qd_score"] and data["coverage"] == logbook["coverage"]
    assert not (runs / "map-elites" / METHOD_NAME).exists()
    assert [name for name, block in page.history.blocks.items() if block.visible] == \
        ["map-elites"]


def test_a_damaged_method_file_is_said(runs, tmp_path):
    root = tmp_path / "runs"
    shutil.copytree(runs / "cmaes", root / "cm")
    (root / "cm" / METHOD_NAME).write_text('{"gen": 0}\n{ torn')
    page = page_on(root, "cm")
    assert f"{METHOD_NAME}: line 2 is not JSON" in page.history.note.text
    assert page.history.method_source.data["sigma"] == []
    # The checkpoint's part still shows.
    assert "axes of the search distribution" in page.method_view.text


def test_a_run_from_before_the_file_shows_no_numbers_per_generation(runs, tmp_path):
    root = tmp_path / "runs"
    shutil.copytree(runs / "neat", root / "neat")
    (root / "neat" / METHOD_NAME).unlink()
    page = page_on(root, "neat")
    assert page.history.method_source.data["gen"] == []
    assert not page.history.species.visible
    assert page.history.logbook_source.data["species"]         # the logbook's still are
    assert "species sizes" in page.method_view.text      # the checkpoint's bars


def test_the_figures_follow_a_running_run_and_pictures_wait(
        runs, tmp_path, monkeypatch):
    root = tmp_path / "runs"
    shutil.copytree(runs / "cmaes", root / "cm")
    drawn = []
    method_view = views.method_view
    monkeypatch.setattr(views, "method_view",
                        lambda *args: drawn.append(args[0]) or method_view(*args))
    page = page_on(root, "cm")
    assert len(drawn) == 1
    # A new generation: the logbook and method.jsonl grow (as the run
    # writes them between checkpoints).
    run = root / "cm"
    records = read_method_file(run)
    write_method_file(run, records + [{"gen": 4, "sigma": 0.25, "condition": 3.0}])
    lines = (run / "logbook.csv").read_text().splitlines()
    last = lines[-1].split(",")
    last[0] = "4"
    (run / "logbook.csv").write_text("\n".join([*lines, ",".join(last)]) + "\n")
    page.refresh()
    data = page.history.method_source.data
    assert data["gen"][-1] == 4.0 and data["sigma"][-1] == 0.25
    assert len(drawn) == 1            # no picture drawn again for it
    # A checkpoint (here the same one, written again): drawn again, but
    # not sooner than PICTURE_SECONDS after the last drawing.
    stamp = (run / "checkpoint.npz").stat().st_mtime_ns + 10_000_000
    os.utime(run / "checkpoint.npz", ns=(stamp, stamp))
    page.refresh()
    assert len(drawn) == 1
    page.picture_at -= PICTURE_SECONDS          # as if that long had passed
    page.refresh()
    assert len(drawn) == 2
    page.refresh()
    assert len(drawn) == 2


def test_the_figures_the_browser_finds_by_name_have_one_name_each(runs):
    page = page_on(runs, "neat")
    names = [m.name for m in page.layout().references() if m.name]
    assert "history-species-sizes" in names and "archive" in names
    assert len(names) == len(set(names))

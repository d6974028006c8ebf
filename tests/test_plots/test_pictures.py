"""The pictures: fitness curves, run comparisons, stage maps, replay GIFs.

Every picture is opened again with Pillow and checked for its size, its
frame count and that it is not blank; the figures themselves are checked
for what they must show (curves, markers, labels).
"""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from plots import PlotError
from plots import __main__ as plots_cli
from plots.animation import (
    DEFAULT_MAX_FRAMES,
    PANEL,
    TEXT,
    ReplayMismatchError,
    draw_text,
    overlay_font,
    gif_plan,
    replay_frames,
    write_replay_gif,
)
from plots.compare import draw_compare, plot_compare, run_labels
from plots.fitness import draw_fitness, plot_fitness, read_run, repeat_changes, start_changes
from plots.stage_map import (
    EARTH,
    GRASS,
    LEDGE,
    LOOP,
    SKY,
    _strips,
    draw_stage_map,
    plot_stage_map,
    terrain_image,
    visible_rows,
)
from runners import EpisodeRunner, make_baseline
from paths import REPO_ROOT

REPO = REPO_ROOT

SETTINGS = dict(generations=12, population=20, stages=["hillside"], observation="terrain",
                seed=1, workers=2, max_steps=900, stall_frames=240, checkpoint_every=10,
                hall_of_fame=2, options=dict(cx_prob=0.5, mut_prob=0.4, mut_sigma=0.3,
                                             mut_indpb=0.15, tournament=3, elite=2,
                                             init_sigma=1.0))


def make_run(path: Path, first_goal: int | None = 8, generations: int = 12,
             **settings) -> Path:
    """A run directory as evolution writes it: config.json and logbook.csv."""
    path.mkdir(parents=True, exist_ok=True)
    s = dict(SETTINGS, generations=generations, **settings)
    (path / "config.json").write_text(json.dumps(
        {"format": "speednik-evolve-run", "settings": s, "seed": s["seed"], "versions": {}}))
    rng = np.random.default_rng(s["seed"])
    with open(path / "logbook.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["gen", "evals", "min", "mean", "max", "std", "best_progress",
                    "completions", "seconds"])
        for g in range(generations + 1):
            best = 30 * (1 - np.exp(-g / 4)) + rng.normal(0, 0.2)
            done = 0 if first_goal is None or g < first_goal else g - first_goal + 1
            w.writerow([g, s["population"], best - 12, best - 6, best, 2.5,
                        min(1.0, 0.3 + 0.06 * g), done, 1.25])
    return path


def open_png(path: Path) -> Image.Image:
    assert path.is_file(), f"{path} was not written"
    im = Image.open(path)
    im.load()
    assert im.format == "PNG"
    return im


def colour_codes(rgb: np.ndarray) -> np.ndarray:
    """Each pixel's colour as one integer, so np.unique stays quick."""
    c = rgb.reshape(-1, 3).astype(np.int64)
    return np.unique((c[:, 0] << 16) | (c[:, 1] << 8) | c[:, 2])


def distinct_colours(im: Image.Image) -> int:
    return len(colour_codes(np.asarray(im.convert("RGB"))))


@pytest.fixture(scope="module")
def recorded():
    """Short recorded episodes: a run that dies (hit, then a pit) and one
    that reaches the goal with jumps."""
    dies = EpisodeRunner("hillside", record=True).run_episode(make_baseline("hold-right"))
    wins = EpisodeRunner("hillside", record=True).run_episode(make_baseline("jump-runner"))
    assert dies.done_reason == "death" and wins.done_reason == "goal"
    return dies, wins


# -- fitness.png -------------------------------------------------------------------

def test_fitness_png_is_written_into_the_run_and_is_not_blank(tmp_path):
    run = make_run(tmp_path / "run")
    out = plot_fitness(run)
    assert out == run / "fitness.png"
    im = open_png(out)
    assert im.size == (1100, 700)
    assert distinct_colours(im) > 20
    assert not list(run.glob(".*.tmp")), "the temporary file of the atomic write was left"


BAND = "population mean ± 1 std (within min–max)"


def test_fitness_figure_has_best_mean_band_worst_and_labels(tmp_path):
    run = read_run(make_run(tmp_path / "run"))
    fig = draw_fitness(run)
    ax = fig.axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    # A logbook without the best column: the running max of the max.
    best = next(v for k, v in lines.items() if k.startswith("best so far: running max"))
    np.testing.assert_allclose(best.get_ydata(), np.maximum.accumulate(run.columns["max"]))
    np.testing.assert_allclose(lines["population max"].get_ydata(), run.columns["max"])
    np.testing.assert_allclose(lines["population mean"].get_ydata(), run.columns["mean"])
    np.testing.assert_allclose(lines["population min"].get_ydata(), run.columns["min"])
    # The one-standard-deviation band spans mean - std .. mean + std
    # (inside the population's range here).
    band = [c for c in ax.collections if c.get_label() == BAND]
    assert band
    ys = band[0].get_paths()[0].vertices[:, 1]
    assert ys.min() == pytest.approx((run.columns["mean"] - run.columns["std"]).min())
    assert ys.max() == pytest.approx((run.columns["mean"] + run.columns["std"]).max())
    assert "fitness" in ax.get_ylabel()
    assert fig.axes[1].get_xlabel() == "generation"
    title = fig._suptitle.get_text()
    for part in ("hillside", "seed 1", "population 20"):
        assert part in title


@pytest.mark.parametrize("stages", [
    ["gen:medium:0-15", "gen:hard:0-15", "gen:expert:200-327", "gen:skills:0-63"],
    [f"gen:expert:{k}" for k in range(0, 400, 7)],
])
def test_a_long_fitness_title_stays_inside_the_figure_above_its_subtitle(tmp_path, stages):
    fig = draw_fitness(read_run(make_run(tmp_path / "run", stages=stages, policy="rnn",
                                         hidden=12)))
    renderer = fig.canvas.get_renderer()
    title = fig._suptitle
    box = title.get_window_extent(renderer)
    assert fig.bbox.x0 <= box.x0 and box.x1 <= fig.bbox.x1
    assert title.get_fontsize() >= 10
    text = " ".join(title.get_text().split())   # wherever it wrapped
    assert "gen:expert:200-327" in text or "... gen:expert:399 (58 in all)" in text
    assert "rnn policy (12 hidden)" in text
    subtitle = next(t for t in fig.texts if t.get_text().startswith("run: "))
    assert subtitle.get_window_extent(renderer).y1 <= box.y0


def test_fitness_marks_the_first_generation_at_the_goal(tmp_path):
    fig = draw_fitness(read_run(make_run(tmp_path / "run", first_goal=8)))
    ax = fig.axes[0]
    verticals = [l for l in ax.get_lines() if list(l.get_xdata()) == [8, 8]]
    assert verticals, "no vertical line at generation 8"
    assert any("first goal: generation 8" in t.get_text() for t in ax.texts)


def test_fitness_marks_where_each_start_began_and_the_best_went_on(tmp_path):
    run = make_run(tmp_path / "run", generations=12)
    rows = (run / "logbook.csv").read_text().splitlines()
    starts = [0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 0, 0, 0]
    (run / "logbook.csv").write_text("\n".join(
        [rows[0] + ",start"] + [f"{r},{k}" for r, k in zip(rows[1:], starts)]) + "\n")
    data = read_run(run)
    assert start_changes(data) == [(4, "start 2"), (7, "start 3"), (10, "start 1 goes on")]
    ax = draw_fitness(data).axes[0]
    verticals = {l.get_xdata()[0] for l in ax.get_lines()
                 if len(set(l.get_xdata())) == 1 and len(l.get_xdata()) == 2}
    assert verticals >= {4, 7, 10}
    assert {"start 2", "start 3", "start 1 goes on"} <= {t.get_text().strip()
                                                         for t in ax.texts}
    # A run of one start has no such lines.
    assert start_changes(read_run(make_run(tmp_path / "one"))) == []


def test_fitness_marks_where_the_run_began_deciding_at_its_final_repeat(tmp_path):
    run = make_run(tmp_path / "run", generations=12)
    rows = (run / "logbook.csv").read_text().splitlines()
    repeats = [2] * 9 + [1] * 4
    (run / "logbook.csv").write_text("\n".join(
        [rows[0] + ",action_repeat"] + [f"{r},{k}" for r, k in zip(rows[1:], repeats)]) + "\n")
    data = read_run(run)
    assert repeat_changes(data) == [(9, "deciding every frame")]
    ax = draw_fitness(data).axes[0]
    verticals = {l.get_xdata()[0] for l in ax.get_lines()
                 if len(set(l.get_xdata())) == 1 and len(l.get_xdata()) == 2}
    assert 9 in verticals
    assert "deciding every frame" in {t.get_text().strip() for t in ax.texts}
    assert repeat_changes(read_run(make_run(tmp_path / "plain"))) == []


def test_fitness_of_a_run_its_frame_budget_ended_says_so(tmp_path):
    run = make_run(tmp_path / "run", generations=6, max_frames=5000)
    rows = (run / "logbook.csv").read_text().splitlines()
    (run / "logbook.csv").write_text("\n".join(
        [rows[0] + ",frames"] + [f"{r},{1000 * i}" for i, r in enumerate(rows[1:])]) + "\n")
    fig = draw_fitness(read_run(run))
    subtitle = " ".join(t.get_text() for t in fig.texts)
    assert "its budget of 0.005 million frames played" in subtitle
    assert "still running" not in subtitle


def test_fitness_without_a_goal_says_so(tmp_path):
    fig = draw_fitness(read_run(make_run(tmp_path / "run", first_goal=None)))
    ax = fig.axes[0]
    assert not any("first goal" in t.get_text() for t in ax.texts)
    assert any("no genome has reached the goal" in t.get_text() for t in ax.texts)


def add_best_column(run_dir: Path, best: list[float], std: float | None = None) -> None:
    rows = list(csv.reader(open(run_dir / "logbook.csv")))
    rows[0].insert(6, "best")
    for row, value in zip(rows[1:], best):
        row.insert(6, str(value))
        if std is not None:
            row[5] = str(std)
    with open(run_dir / "logbook.csv", "w", newline="") as f:
        csv.writer(f).writerows(rows)


def test_fitness_draws_the_logged_best_as_the_main_line(tmp_path):
    run_dir = make_run(tmp_path / "run", generations=4)
    logged = [1.0, 0.5, 3.0, 2.0, 2.5]     # an ES's mean: it may fall
    add_best_column(run_dir, logged)
    fig = draw_fitness(read_run(run_dir))
    ax = fig.axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    best = lines["best: the run's genome (now 2.50)"]
    np.testing.assert_allclose(best.get_ydata(), logged)
    assert best.get_linewidth() > lines["population max"].get_linewidth()
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[0].startswith("best: the run's genome")


def test_fitness_band_stays_within_the_population_range(tmp_path):
    run_dir = make_run(tmp_path / "run", generations=4)
    # A std wider than the spread to max (6 above the mean here).
    add_best_column(run_dir, [0.0] * 5, std=20.0)
    run = read_run(run_dir)
    ax = draw_fitness(run).axes[0]
    band = next(c for c in ax.collections if c.get_label() == BAND)
    ys = band.get_paths()[0].vertices[:, 1]
    assert ys.max() <= run.columns["max"].max() + 1e-9
    assert ys.min() >= run.columns["min"].min() - 1e-9


def test_fitness_of_a_stage_set_says_how_many_stages_the_best_finished(tmp_path):
    run_dir = make_run(tmp_path / "run", first_goal=None,
                       stages=["gen:easy:0-3"])
    results = {f"gen:easy:{i}": {"steps": 10, "metrics": {"goal_reached": i != 2}}
               for i in range(4)}
    (run_dir / "best.json").write_text(json.dumps({"results": results}))
    ax = draw_fitness(read_run(run_dir)).axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert "best genome finished 3 of 4 stages" in texts
    assert not any("no genome has reached" in t for t in texts)


def test_fitness_of_a_run_with_only_generation_zero(tmp_path):
    out = plot_fitness(make_run(tmp_path / "run", generations=0), tmp_path / "f.png")
    assert distinct_colours(open_png(out)) > 10


def test_fitness_draws_around_values_that_are_not_finite(tmp_path):
    run = make_run(tmp_path / "run")
    lines = (run / "logbook.csv").read_text().splitlines()
    cells = lines[3].split(",")
    cells[5] = "nan"                       # std of generation 2
    lines[3] = ",".join(cells)
    (run / "logbook.csv").write_text("\n".join(lines) + "\n")
    assert distinct_colours(open_png(plot_fitness(run))) > 20


@pytest.mark.parametrize("damage, message", [
    (lambda run: (run / "logbook.csv").unlink(), "logbook.csv: missing"),
    (lambda run: (run / "logbook.csv").write_text("gen,max\n0,1\n"), "no column(s)"),
    (lambda run: (run / "logbook.csv").write_text(
        "gen,evals,min,mean,max,std,best_progress,completions,seconds\n"), "no generations"),
    (lambda run: (run / "logbook.csv").write_text(
        "gen,evals,min,mean,max,std,best_progress,completions,seconds\n"
        "0,20,1,2,x,1,0.5,0,1\n"), "row 2, column max"),
    (lambda run: (run / "config.json").write_text("{"), "config.json: not readable JSON"),
    (lambda run: (run / "config.json").write_text('{"format": "other"}'), "not a run"),
])
def test_malformed_run_directories_are_named_errors(tmp_path, damage, message):
    run = make_run(tmp_path / "run")
    damage(run)
    with pytest.raises(PlotError, match=None) as err:
        plot_fitness(run)
    assert message in str(err.value) and str(run) in str(err.value)


# -- compare -------------------------------------------------------------------------

def test_compare_labels_show_the_seed_and_only_the_settings_that_differ(tmp_path):
    a = read_run(make_run(tmp_path / "a", seed=1))
    b = read_run(make_run(tmp_path / "b", seed=2, population=60, observation="basic"))
    c = read_run(make_run(tmp_path / "c", seed=3))
    assert run_labels([a, b, c]) == ["seed 1, pop 20, terrain obs",
                                     "seed 2, pop 60, basic obs",
                                     "seed 3, pop 20, terrain obs"]
    assert run_labels([a, c]) == ["seed 1", "seed 3"]
    # The same seed and settings twice: the directories tell them apart.
    d = read_run(make_run(tmp_path / "d", seed=1))
    labels = run_labels([a, d])
    assert len(set(labels)) == 2 and all(label.startswith("seed 1") for label in labels)
    # Runs of different methods are told apart by the method first.
    e = read_run(make_run(tmp_path / "e", seed=1, algorithm="cmaes"))
    f = read_run(make_run(tmp_path / "f", seed=1, algorithm="map-elites", population=60))
    assert run_labels([e, f]) == ["seed 1, cmaes, pop 20", "seed 1, map-elites, pop 60"]


def test_compare_draws_one_best_curve_per_run(tmp_path):
    runs = [make_run(tmp_path / "a", seed=1),
            make_run(tmp_path / "b", seed=2, population=60, first_goal=None),
            make_run(tmp_path / "c", seed=3, generations=20)]
    fig = draw_compare(runs)
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "seed 2, pop 60, 12 gens" in legend
    curves = [l for l in fig.axes[0].get_lines() if l.get_label() in legend[:3]]
    assert [len(c.get_xdata()) for c in curves] == [13, 13, 21]
    out = plot_compare(runs, tmp_path / "cmp.png")
    im = open_png(out)
    assert im.size == (1100, 600) and distinct_colours(im) > 20


def test_compare_legend_of_long_labels_fits_inside_the_figure(tmp_path):
    many = dict(stages=["gen:medium:0-31", "hillside", "pipeworks", "skybridge"])
    runs = [make_run(tmp_path / "a", seed=1, algorithm="map-elites", population=60),
            make_run(tmp_path / "b", seed=2, observation="basic", max_steps=3600, **many),
            make_run(tmp_path / "c", seed=3, generations=20, algorithm="openai-es",
                     stall_frames=None, hall_of_fame=5,
                     options=dict(es_sigma=0.05, es_lr=0.1, es_weight_decay=0.003))]
    fig = draw_compare(runs)
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    legend = ax.get_legend().get_window_extent(renderer)
    figure = fig.bbox
    assert legend.x0 >= figure.x0 and legend.x1 <= figure.x1 + 0.5
    assert legend.y0 >= figure.y0 and legend.y1 <= figure.y1 + 0.5
    # Beside the curves, not over them.
    assert legend.x0 >= ax.get_window_extent(renderer).x1
    open_png(plot_compare(runs, tmp_path / "cmp.png"))


def test_compare_draws_the_logged_best(tmp_path):
    run_dir = make_run(tmp_path / "a", generations=4)
    add_best_column(run_dir, [1.0, 0.5, 3.0, 2.0, 2.5])
    old = make_run(tmp_path / "b", seed=2, generations=4)
    fig = draw_compare([run_dir, old])
    lines = [l for l in fig.axes[0].get_lines() if l.get_label().startswith("seed")]
    np.testing.assert_allclose(lines[0].get_ydata(), [1.0, 0.5, 3.0, 2.0, 2.5])
    np.testing.assert_allclose(lines[1].get_ydata(),
                               np.maximum.accumulate(read_run(old).columns["max"]))


# -- stage map -------------------------------------------------------------------------

def test_terrain_colours_keep_ground_loops_and_ledges_apart():
    from speednik.stages import load_stage
    img = terrain_image(load_stage("hillside"))
    codes = set(colour_codes(img).tolist())
    for colour in (SKY, EARTH, LOOP, LEDGE, GRASS):
        assert (colour[0] << 16) | (colour[1] << 8) | colour[2] in codes, colour


def test_the_empty_sky_is_cropped_and_the_figure_is_wide():
    from speednik.stages import load_stage
    stage = load_stage("hillside")
    top, bottom = visible_rows(stage)
    assert top > 300 and bottom < stage.height
    # One strip when cropped stages keep a readable height, strips otherwise.
    assert _strips(7500, bottom - top, False)[0] == 1
    n, _, height = _strips(7500, 60, False)
    assert n > 1 and height > 0.9


def test_empty_stage_map_has_every_object_in_the_legend(tmp_path):
    out = plot_stage_map("hillside", tmp_path / "map.png")
    im = open_png(out)
    assert im.size[0] == 2400 and 250 < im.size[1] < 700
    assert distinct_colours(im) > 50
    fig = draw_stage_map("skybridge")
    labels = " ".join(t.get_text() for t in fig.legends[0].get_texts())
    for thing in ("ground", "top-only platform", "start", "goal", "rings", "spring",
                  "flyer", "checkpoint"):
        assert thing in labels
    labels = " ".join(t.get_text() for t in draw_stage_map("pipeworks").legends[0].get_texts())
    assert "spikes" in labels and "walker" in labels
    labels = " ".join(t.get_text() for t in draw_stage_map("hillside").legends[0].get_texts())
    assert "loop" in labels


def test_stage_map_with_a_run_marks_its_events_and_colours_by_speed(tmp_path, recorded):
    dies, wins = recorded
    fig = draw_stage_map("hillside", dies, label="hold-right")
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "hit (rings lost) (1)" in labels and "death (1)" in labels
    assert any(ax.get_ylabel() == "speed (px/frame)" for ax in fig.axes), "no colorbar"
    assert "hold-right on hillside: death" in fig._suptitle.get_text()

    labels = [t.get_text() for t in draw_stage_map("hillside", wins).legends[0].get_texts()]
    jumps = sum("jump" in ev for ev in wins.trajectory.events)
    assert f"jump ({jumps})" in labels and "goal reached (1)" in labels

    out = plot_stage_map("hillside", tmp_path / "run.png", dies)
    im = open_png(out)
    assert im.size[0] == 2400 and distinct_colours(im) > 50
    # The run is drawn: the map differs from the empty one.
    empty = open_png(plot_stage_map("hillside", tmp_path / "empty.png"))
    assert im.size != empty.size or np.any(np.asarray(im) != np.asarray(empty))


def test_a_result_without_trajectory_is_refused(recorded):
    result = EpisodeRunner("hillside", max_steps=30).run_episode(make_baseline("idle"))
    with pytest.raises(ValueError, match="not recorded"):
        draw_stage_map("hillside", result)


# -- replay GIF -------------------------------------------------------------------------

def test_gif_plan_plays_at_real_speed_and_caps_frames():
    assert gif_plan(3600) == (3, 1201, 50)
    assert 1201 <= DEFAULT_MAX_FRAMES
    stride, frames, ms = gif_plan(3600, 3, 900)
    assert frames <= 900 and stride > 3 and ms == 10 * round(stride * 1000 / 60 / 10)
    # Squeezed harder, it plays faster than real time rather than as slides.
    stride, frames, ms = gif_plan(3600, 3, 100)
    assert frames <= 100 and ms == 100
    assert gif_plan(1) == (3, 1, 50)


def test_gif_has_the_right_frames_size_and_timing(tmp_path, recorded):
    dies, _ = recorded
    out = write_replay_gif(dies, "hillside", tmp_path / "run.gif")
    im = Image.open(out)
    assert im.format == "GIF" and im.size == (640, 448)
    steps = len(dies.trajectory)
    assert im.n_frames == gif_plan(steps)[1]
    assert abs(im.n_frames - steps / 3) <= 2
    assert im.info["duration"] == 50
    im.seek(im.n_frames - 1)
    assert im.info["duration"] == 2000, "the last frame holds the ending"
    first = np.asarray(Image.open(out).convert("RGB"))
    last = np.asarray(im.convert("RGB"))
    assert len(colour_codes(first)) > 5
    assert np.any(first != last)
    # The overlay: a dark panel with white text at the top left.
    corner = first[8:60, 4:90].reshape(-1, 3)
    assert (corner == PANEL).all(axis=1).any() and (corner == TEXT).all(axis=1).any()


def test_gif_respects_max_frames_and_scale(tmp_path, recorded):
    dies, _ = recorded
    out = write_replay_gif(dies, "hillside", tmp_path / "small.gif", max_frames=20, scale=1)
    im = Image.open(out)
    assert im.size == (320, 224) and 2 <= im.n_frames <= 20


def test_replayed_frames_follow_the_recorded_path(recorded):
    dies, _ = recorded
    got = [i for i, _ in replay_frames("hillside", dies.trajectory, stride=50)]
    assert got == list(range(0, len(dies.trajectory), 50)) + [len(dies.trajectory) - 1]
    # The same actions on another stage leave the recorded path.
    with pytest.raises(ReplayMismatchError, match="leaves the recorded path"):
        for _ in replay_frames("pipeworks", dies.trajectory, stride=50):
            pass


def test_gif_of_a_tampered_recording_is_refused_and_nothing_written(tmp_path, recorded):
    dies, _ = recorded
    traj = type(dies.trajectory).from_dict(dies.trajectory.to_dict())
    traj.x[40] += 5.0
    with pytest.raises(ReplayMismatchError, match="frame 41"):
        write_replay_gif(traj, "hillside", tmp_path / "bad.gif")
    assert not list(tmp_path.iterdir())


def test_gif_frames_are_the_game_frames(tmp_path, recorded):
    dies, _ = recorded
    out = write_replay_gif(dies, "hillside", tmp_path / "run.gif", stride=20, scale=1)
    im = Image.open(out)
    frames = list(replay_frames("hillside", dies.trajectory, stride=20))
    assert im.n_frames == len(frames)
    for k, (_, rgb) in enumerate(frames[:-1]):      # the last one carries the ending
        im.seek(k)
        got = np.asarray(im.convert("RGB"))
        # Below the overlay panels, exactly what the game renders.
        assert np.array_equal(got[40:], rgb[40:]), f"GIF frame {k} differs"


def test_overlay_digits_are_drawn_in_whole_pixels_of_its_colour():
    a, b = Image.new("RGB", (80, 24)), Image.new("RGB", (80, 24))
    draw_text(a, 1, 1, "FRAME 12", TEXT, overlay_font(2))
    draw_text(b, 1, 1, "FRAME 13", TEXT, overlay_font(2))
    pixels = np.asarray(a).reshape(-1, 3)
    assert pixels.any() and np.any(np.asarray(a) != np.asarray(b))
    # No smoothed edges: only the text's colour and the background.
    assert {tuple(c) for c in np.unique(pixels, axis=0)} == {(0, 0, 0), TEXT}


# -- the command line ---------------------------------------------------------------------

def test_cli_redraws_fitness_into_the_run_or_elsewhere(tmp_path, capsys):
    run = make_run(tmp_path / "run")
    assert plots_cli.main(["fitness", str(run)]) == 0
    open_png(run / "fitness.png")
    assert plots_cli.main(["fitness", str(run), "--out", str(tmp_path / "x.png")]) == 0
    open_png(tmp_path / "x.png")
    assert plots_cli.main(["compare", str(run), str(run), "--out",
                           str(tmp_path / "c.png")]) == 0
    open_png(tmp_path / "c.png")


@pytest.mark.parametrize("argv", [
    ["fitness", "no-such-run"],
    ["stage", "no-such-stage"],
    ["compare", "no-such-run"],
])
def test_cli_errors_are_one_line(tmp_path, capsys, argv):
    assert plots_cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("plots: error: ") and err.count("\n") == 1
    assert "accepted" in err or "run directory" in err


def test_cli_usage_errors_are_one_line(capsys):
    with pytest.raises(SystemExit) as e:
        plots_cli.main(["paint"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("plots: error: ") and err.count("\n") == 1


def test_pictures_need_no_display(tmp_path):
    """With no display and a GUI backend asked for, the pictures are still
    drawn: plots never goes through pyplot."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["MPLBACKEND"] = "TkAgg"
    env["PYTHONPATH"] = str(REPO)
    out = tmp_path / "stage.png"
    proc = subprocess.run(
        [sys.executable, "-c",
         "import sys; from plots.__main__ import main; code = main(sys.argv[1:]); "
         "assert 'matplotlib.pyplot' not in sys.modules; sys.exit(code)",
         "stage", "pipeworks", "--out", str(out)],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert distinct_colours(open_png(out)) > 50


def test_fitness_draws_held_out_results_beside_training(tmp_path):
    run_dir = make_run(tmp_path / "run", test_stages=["gen:medium:100-109"])
    rows = list(csv.reader(open(run_dir / "logbook.csv")))
    rows[0] += ["test_goals", "test_progress"]
    for g, row in enumerate(rows[1:]):
        row += ([str(g // 2), str(0.05 * g)] if g % 4 == 0 else ["", ""])
    with open(run_dir / "logbook.csv", "w", newline="") as f:
        csv.writer(f).writerows(rows)
    fig = draw_fitness(read_run(run_dir))
    lines = {line.get_label(): line for line in fig.axes[1].get_lines()}
    progress = lines["held-out progress (best genome)"]
    np.testing.assert_array_equal(progress.get_xdata(), [0, 4, 8, 12])
    np.testing.assert_allclose(progress.get_ydata(), [0, 20, 40, 60])
    done = lines["held-out completed (% of 10)"]
    np.testing.assert_allclose(done.get_ydata(), [0, 20, 40, 60])


def test_the_methods_picture_draws_a_performance_profile_per_method(tmp_path):
    from matplotlib.figure import Figure

    from plots.methods import draw_methods

    held = {"ga": [0.2, 0.6, 0.9], "cmaes": [0.5, 0.95, 1.0]}
    data = {"frames": 1000, "seeds": [0, 1, 2],
            "methods": {m: {"held_out": {"values": v}, "fitness": {"values": [1, 2, 3]}}
                        for m, v in held.items()},
            "runs": {f"{m}-seed{s}": {"frames": [0, 1000], "best": [1.0, 2.0 + s]}
                     for m in held for s in range(3)}}
    (tmp_path / "compare.json").write_text(json.dumps(data))
    fig = draw_methods(Figure(), tmp_path)
    profiles = fig.axes[1]
    assert profiles.get_xlabel() == "held-out completion"
    lines = {line.get_label().split(" ")[0]: line for line in profiles.get_lines()}
    assert set(lines) == {"ga", "cmaes"}
    x, y = lines["ga"].get_xdata(), lines["ga"].get_ydata()
    at = {round(float(a), 3): float(b) for a, b in zip(x, y)}
    below_all = min(at)
    assert at[below_all] == 1.0 and y[-1] == 0.0
    # Between 0.6 and 0.9 one of ga's three runs is above.
    assert any(abs(v - 1 / 3) < 1e-9 for k, v in at.items() if 0.6 < k < 0.9)


def test_the_methods_picture_draws_the_methods_asked_for_in_their_own_colours(tmp_path, capsys):
    from matplotlib.colors import to_hex
    from matplotlib.figure import Figure

    from plots.methods import draw_methods

    held = {"ga": [0.2, 0.6], "cmaes": [0.5, 0.9], "ppo": [0.7, 0.8]}
    data = {"frames": 2_000_000, "seeds": [0, 1],
            "methods": {m: {"held_out": {"values": v}, "fitness": {"values": [1, 2]}}
                        for m, v in held.items()},
            "runs": {f"{m}-seed{s}": {"frames": [0, 2_000_000], "best": [1.0, 2.0 + s]}
                     for m in held for s in range(2)}}
    (tmp_path / "compare.json").write_text(json.dumps(data))

    def colours(fig):
        return [{line.get_label().split(" ")[0]: to_hex(line.get_color())
                 for line in ax.get_lines()} for ax in fig.axes]

    everything = colours(draw_methods(Figure(), tmp_path))
    some = draw_methods(Figure(), tmp_path, ["ppo", "cmaes"])
    # Only those asked for, in both panels, each coloured as among all.
    assert colours(some) == [{m: everything[0][m] for m in ("cmaes", "ppo")},
                             {m: everything[1][m] for m in ("cmaes", "ppo")}]
    # Frames in millions: the last point of a curve is the budget's 2.
    assert some.axes[0].get_lines()[0].get_xdata()[-1] == pytest.approx(2.0)
    assert plots_cli.main(["methods", str(tmp_path), "--methods", "ppo", "dqn"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "dqn not in this comparison" in err[0] and "ga, cmaes, ppo" in err[0]

"""One meaning of "best": the logbook's `best` column is the fitness of the
genome the run would give at that generation (best.json's at the end),
apart from the population's min/mean/max; the console prints it as
"best", the comparison scores and draws it."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

import evolution.loop.evolve as evolve_module
from evolution import compare
from evolution.cli.run_lines import make_reporter
from evolution.config import EvolutionConfig
from evolution.loop.checkpoint import load_checkpoint
from evolution.loop.evaluate import GenomeEvaluator
from evolution.loop.evolve import evolve
from runners.archive_file import load_archive


def es_config(**changes) -> EvolutionConfig:
    settings = dict(algorithm="openai-es", population=12, generations=6, seed=4,
                    stages=("hillside", "gen:easy:3"), max_steps=600, workers=1,
                    checkpoint_every=2, options={"es_lr": 0.1})
    settings.update(changes)
    return EvolutionConfig(**settings)


def qd_config(**changes) -> EvolutionConfig:
    settings = dict(algorithm="map-elites", population=12, generations=6, seed=2,
                    stages=("hillside", "gen:easy:4"), max_steps=900, workers=1,
                    checkpoint_every=2, options={"qd_bins": 8})
    settings.update(changes)
    return EvolutionConfig(**settings)


def csv_rows(run_dir) -> list[dict]:
    with open(run_dir / "logbook.csv", newline="") as f:
        return list(csv.DictReader(f))


def steps(summary: dict) -> int:
    return sum(int(r["steps"]) for r in summary["results"].values())


def test_an_es_run_logs_the_fitness_of_the_mean_it_gives_as_best(tmp_path):
    out = evolve(es_config(), tmp_path / "run")
    best = json.loads((tmp_path / "run" / "best.json").read_text())
    log = out.logbook
    # The last row's best is best.json's fitness; the population's max is
    # another number (a sample, not the mean the run gives).
    assert log[-1]["best"] == best["fitness"] == out.best_fitness
    assert any(r["best"] != r["max"] for r in log)
    # logbook.csv holds the column too, and keeps min/mean/max/std.
    header = list(csv_rows(tmp_path / "run")[0])
    assert header[:7] == ["gen", "evals", "min", "mean", "max", "std", "best"]
    assert float(csv_rows(tmp_path / "run")[-1]["best"]) == best["fitness"]
    # The mean it gives is the last generation's, whatever generation's
    # sample first scored as high.
    assert best["found_in_generation"] == log[-1]["gen"]


def test_the_mean_scored_each_generation_counts_in_the_frames_played(tmp_path):
    config = es_config(generations=3)
    out = evolve(config, tmp_path / "run")
    ckpt = load_checkpoint(tmp_path / "run")
    population = [genome for genome, _ in ckpt.population]
    theta = ckpt.search["arrays"]["theta"]
    with GenomeEvaluator(config) as evaluator:
        scored = evaluator([*population, theta])
    played = sum(steps(summary) for _, summary in scored)
    assert out.logbook[-1]["frames"] - out.logbook[-2]["frames"] == played
    # The mean's fitness on the generation's stages is the row's best.
    assert out.logbook[-1]["best"] == scored[-1][0]


def test_scoring_the_mean_each_generation_changes_nothing_of_the_search(tmp_path,
                                                                         monkeypatch):
    scored = evolve(es_config(), tmp_path / "a")
    monkeypatch.setattr(evolve_module, "score_recommendation", lambda run, gen: None)
    lazily = evolve(es_config(), tmp_path / "b")
    keep = ("gen", "evals", "min", "mean", "max", "std", "best", "best_progress")
    assert ([{k: r[k] for k in keep} for r in scored.logbook]
            == [{k: r[k] for k in keep} for r in lazily.logbook])
    a = json.loads((tmp_path / "a" / "best.json").read_text())
    b = json.loads((tmp_path / "b" / "best.json").read_text())
    assert a["genome"] == b["genome"] and a["fitness"] == b["fitness"]


def test_an_es_run_resumed_logs_the_same_best_and_frames(tmp_path):
    straight = evolve(es_config(generations=4), tmp_path / "a")
    evolve(es_config(generations=2), tmp_path / "b")
    resumed = evolve(es_config(generations=4), tmp_path / "b", resume=True)
    strip = lambda log: [{k: v for k, v in r.items() if k != "seconds"} for r in log]
    assert strip(straight.logbook) == strip(resumed.logbook)


def test_map_elites_best_is_the_archive_best_and_never_falls(tmp_path):
    out = evolve(qd_config(), tmp_path / "run")
    best = [r["best"] for r in out.logbook]
    assert best == sorted(best)
    # The population's max (the offspring's) falls after generation 0 here;
    # best does not.
    assert any(r["max"] < best[0] for r in out.logbook[1:])
    archive = load_archive(tmp_path / "run")
    assert best[-1] == archive.objective.max()
    assert best[-1] == json.loads((tmp_path / "run" / "best.json").read_text())["fitness"]


def test_the_console_says_best_apart_from_the_population(capsys):
    report = make_reporter(quiet=False)
    record = {"gen": 3, "best": 8.4, "max": 9.1, "mean": 2.0, "best_progress": 0.5,
              "completions": 0}
    report(record, es_config(), 1.0)
    line = capsys.readouterr().out
    assert "best    8.400  pop max    9.100  pop mean    2.000" in line


def test_compare_scores_and_draws_the_run_best(tmp_path):
    evolve(es_config(generations=4), tmp_path / "run")
    best = json.loads((tmp_path / "run" / "best.json").read_text())
    run = compare.read_run(tmp_path / "run")
    assert run["fitness"] == best["fitness"]
    assert run["best"][-1] == best["fitness"]
    assert run["best"] == [r["best"] for r in evolve_module_logbook(tmp_path / "run")]


def evolve_module_logbook(run_dir) -> list[dict]:
    from evolution.loop.outputs import read_logbook
    return read_logbook(run_dir)


def test_compare_falls_back_to_the_running_max_for_old_logbooks(tmp_path):
    evolve(es_config(generations=3), tmp_path / "run")
    rows = csv_rows(tmp_path / "run")
    with open(tmp_path / "run" / "logbook.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, [k for k in rows[0] if k != "best"],
                                extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    run = compare.read_run(tmp_path / "run")
    expected = np.maximum.accumulate([float(r["max"]) for r in rows]).tolist()
    assert run["best"] == pytest.approx(expected)


def test_compare_refuses_a_file_as_out_in_one_line_and_writes_nothing(tmp_path, capsys):
    target = tmp_path / "taken"
    target.write_text("kept\n")
    with pytest.raises(SystemExit) as stop:
        compare.main(["--methods", "ga", "--seeds", "0", "--frames", "10", "--out",
                      str(target), "--", "--stage", "hillside"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--out" in err[0] and "is a file" in err[0], err
    assert "Traceback" not in err[0]
    assert target.read_text() == "kept\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_compare_says_seconds_below_a_minute():
    assert compare.wall_time(12.3) == "12 s"
    assert compare.wall_time(0.2) == "0 s"
    assert compare.wall_time(60.0) == "1.0 min"
    assert compare.wall_time(150.0) == "2.5 min"

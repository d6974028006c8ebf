"""MAP-Elites with pyribs: an archive over mean speed and rings that
resumes exactly, is the same on both engines, is drawn by `plots archive`,
and whose elites `runners.replay --cell` plays."""
from __future__ import annotations

import csv

import numpy as np
import pytest

from evolution.loop.checkpoint import load_checkpoint
from evolution.config import ConfigError, EvolutionConfig
from evolution.loop.evolve import evolve
from evolution.strategies.map_elites import QD_OFFSET, descriptors
from runners import replay
from runners.archive_file import load_archive


def qd_config(**changes) -> EvolutionConfig:
    settings = dict(algorithm="map-elites", population=12, generations=5, seed=2,
                    stages=("hillside", "gen:easy:4"), max_steps=900, workers=1,
                    checkpoint_every=2, options={"qd_bins": 8})
    settings.update(changes)
    return EvolutionConfig(**settings)


def rows(run_dir):
    with open(run_dir / "logbook.csv", newline="") as f:
        return [{k: v for k, v in r.items() if k != "seconds"} for r in csv.DictReader(f)]


def test_descriptors_are_mean_speed_and_rings():
    summary = {"results": {
        "a": {"steps": 100, "metrics": {"max_x": 300.0, "start_x": 100.0, "rings": 4}},
        "b": {"steps": 50, "metrics": {"max_x": 150.0, "start_x": 100.0, "rings": 0}},
    }}
    assert descriptors(summary) == (1.5, 2.0)


def test_the_archive_fills_and_logs_qd_score_and_coverage(tmp_path):
    out = evolve(qd_config(), tmp_path / "run")
    archive = load_archive(tmp_path / "run")
    last = out.logbook[-1]
    assert last["coverage"] == len(archive.objective) / 64
    assert last["qd_score"] == pytest.approx(float(np.sum(archive.objective - QD_OFFSET)))
    assert [r["coverage"] for r in out.logbook] == sorted(r["coverage"] for r in out.logbook)
    # The best elite is the genome the run gives.
    best = archive.solution[int(np.argmax(archive.objective))]
    assert out.best_fitness == archive.objective.max()
    ckpt = load_checkpoint(tmp_path / "run")
    assert np.array_equal(ckpt.hall_of_fame[0][0], best)


def test_a_run_resumes_exactly_and_both_engines_agree(tmp_path):
    evolve(qd_config(), tmp_path / "a")
    evolve(qd_config(generations=2), tmp_path / "b")
    evolve(qd_config(), tmp_path / "b", resume=True)
    evolve(qd_config(engine="python"), tmp_path / "c")
    assert rows(tmp_path / "a") == rows(tmp_path / "b") == rows(tmp_path / "c")
    a, b = load_archive(tmp_path / "a"), load_archive(tmp_path / "b")
    assert np.array_equal(a.solution, b.solution) and np.array_equal(a.cell, b.cell)


def test_replay_plays_an_elite_of_a_cell(tmp_path, capsys):
    evolve(qd_config(stages=("hillside",)), tmp_path / "run")
    archive = load_archive(tmp_path / "run")
    k = int(np.argmin(archive.objective))
    i, j = archive.cell[k]
    assert replay.main([str(tmp_path / "run"), "--cell", f"{i},{j}"]) == 0
    printed = capsys.readouterr().out
    # All stages every generation: the replayed reward is the elite's
    # fitness, and the archive's record of it is compared.
    assert f"fitness {archive.objective[k]:.9f}" in printed
    assert f"recorded {archive.objective[k]:.9f}: matches" in printed
    empty = next((a, b) for a in range(8) for b in range(8)
                 if not ((archive.cell[:, 0] == a) & (archive.cell[:, 1] == b)).any())
    assert replay.main([str(tmp_path / "run"), "--cell", f"{empty[0]},{empty[1]}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds no elite" in err[0]
    assert replay.main([str(tmp_path / "run"), "--cell", "x"]) == 2
    assert "accepted: I,J" in capsys.readouterr().err


def test_plots_archive_draws_the_heatmap(tmp_path):
    from plots.__main__ import main as plots_main

    evolve(qd_config(generations=2), tmp_path / "run")
    assert plots_main(["archive", str(tmp_path / "run")]) == 0
    png = (tmp_path / "run" / "archive.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert plots_main(["archive", str(tmp_path)]) == 2   # no archive there


def test_bad_settings_are_one_clear_error():
    with pytest.raises(ConfigError, match="qd_bins must be a whole number from 2"):
        qd_config(options={"qd_bins": 1})
    with pytest.raises(ConfigError, match="qd_bins must be a whole number"):
        qd_config(options={"qd_bins": 2.5})


def test_without_the_qd_extra_the_run_says_how_to_get_it(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "ribs" else real(name, *a))
    with pytest.raises(ConfigError, match=r"needs ribs, which the 'qd' extra installs"):
        qd_config()

"""`python -m evolution.compare`: methods on one task under an equal frame
budget, every method's task checked before anything runs, each run and
seed once, Ctrl-C and SIGTERM passed on to the runs, summarised by median
and interquartile mean with bootstrap intervals and the probability that
one method beats another, and drawn against frames played."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from evolution import compare
from evolution.cli.settings_file import write_settings
from evolution.loop.outputs import run_complete
from sweeps import sweep

TASK = ["--stage", "hillside", "--test-stage", "gen:easy:100-101", "skybridge", "--population", "6",
        "--max-steps", "400", "--workers", "1"]


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    out = tmp_path_factory.mktemp("cmp") / "cmp"
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = compare.main(["--methods", "ga", "openai-es", "--seeds", "0", "1", "--frames",
                             "8000", "--out", str(out), "--jobs", "2", "--", *TASK])
    assert code == 0
    return out, buf.getvalue()


def test_a_comparison_runs_each_method_and_seed_to_the_budget(compared):
    out, printed = compared
    assert "| ga | 2 |" in printed and "| openai-es | 2 |" in printed
    data = json.loads((out / "compare.json").read_text())
    for name, run in data["runs"].items():
        assert run["frames"][-1] >= 8000 > run["frames"][-2], name
        assert run["held_out"] is not None and run["seconds"] > 0
    assert data["methods"]["ga"]["fitness"]["values"] == [
        data["runs"]["ga-seed0"]["fitness"], data["runs"]["ga-seed1"]["fitness"]]
    assert data["methods"]["ga"]["wall_seconds"] == pytest.approx(
        data["runs"]["ga-seed0"]["seconds"] + data["runs"]["ga-seed1"]["seconds"])
    assert (out / "compare.png").read_bytes()[:4] == b"\x89PNG"


def test_it_says_when_each_run_starts_and_ends(compared):
    _, printed = compared
    for method in ("ga", "openai-es"):
        for seed in (0, 1):
            assert f"started {method} seed {seed}" in printed
            assert f"finished {method} seed {seed}" in printed


def test_the_probability_of_improvement_is_printed_and_kept(compared):
    out, printed = compared
    data = json.loads((out / "compare.json").read_text())
    pairs = data["improvement"]["pairs"]
    assert data["improvement"]["on"] == "held_out"
    p = pairs["ga"]["openai-es"]["probability"]
    assert p + pairs["openai-es"]["ga"]["probability"] == pytest.approx(1.0)
    assert "probability that a run of the row's method beats" in printed
    assert f"{p:.2f} [" in printed


def test_held_out_stages_are_counted_per_test_set_seed_by_seed(compared):
    out, printed = compared
    data = json.loads((out / "compare.json").read_text())
    for method in ("ga", "openai-es"):
        kept = data["methods"][method]["held_out_by_set"]
        assert list(kept) == ["gen:easy:100-101", "skybridge"]
        for name, of in (("gen:easy:100-101", 2), ("skybridge", 1)):
            assert kept[name]["of"] == of
            for seed, finished in zip((0, 1), kept[name]["finished"]):
                best = json.loads((out / f"{method}-seed{seed}" / "best.json").read_text())
                results = best["held_out"]["results"]
                stages = ["gen:easy:100", "gen:easy:101"] if of == 2 else ["skybridge"]
                assert finished == sum(results[s]["metrics"]["goal_reached"] for s in stages)
        row = next(line for line in printed.splitlines()
                   if line.startswith(f"| {method} |") and "seeds |" in line)
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[1] == " ".join(map(str, kept["gen:easy:100-101"]["finished"]))
        assert cells[2] == f"{sum(kept['skybridge']['finished'])} of 2 seeds"
    assert "| method | gen:easy:100-101 (of 2) | skybridge |" in printed


def test_every_row_has_as_many_cells_as_the_header():
    stats = {"values": [1.0], "median": 1.0, "median_ci": (1.0, 1.0), "iqm": 1.0,
             "iqm_ci": (1.0, 1.0)}
    lines = compare.table({"ga": {"runs": 1, "fitness": stats, "held_out": None,
                                  "wall_seconds": 60.0},
                           "cmaes": {"runs": 1, "fitness": stats, "held_out": stats,
                                     "wall_seconds": 90.0}}).splitlines()
    assert len({line.count("|") for line in lines}) == 1
    assert "1.0 min" in lines[2] and "1.5 min" in lines[3]


def test_a_finished_run_is_kept_as_it_is_even_without_its_checkpoint(
        compared, tmp_path, capsys):
    out, _ = compared
    before = json.loads((out / "compare.json").read_text())["runs"]
    # A copy of the finished run with its checkpoint gone, as a run kept
    # for its results only holds.
    kept = tmp_path / "kept"
    shutil.copytree(out / "ga-seed1", kept / "ga-seed1",
                    ignore=shutil.ignore_patterns("checkpoint*"))
    written = {p.name: p.read_bytes() for p in (kept / "ga-seed1").iterdir()}
    assert compare.main(["--methods", "ga", "--seeds", "1", "--frames", "8000", "--out",
                         str(kept), "--no-plots", "--", *TASK]) == 0
    printed = capsys.readouterr().out
    assert "kept ga seed 1: it played its 8,000 frames" in printed
    assert "started ga seed 1" not in printed and "resumed" not in printed
    assert {p.name: p.read_bytes() for p in (kept / "ga-seed1").iterdir()} == written
    assert json.loads((kept / "compare.json").read_text())["runs"]["ga-seed1"] == \
        before["ga-seed1"]


def test_a_run_short_of_its_budget_or_its_final_test_is_not_complete(compared, tmp_path):
    out, _ = compared
    assert run_complete(out / "ga-seed1")
    short = shutil.copytree(out / "ga-seed1", tmp_path / "short")
    lines = (short / "logbook.csv").read_text().splitlines()
    (short / "logbook.csv").write_text("\n".join(lines[:-1]) + "\n")
    untested = shutil.copytree(out / "ga-seed1", tmp_path / "untested")
    best = json.loads((untested / "best.json").read_text())
    (untested / "best.json").write_text(json.dumps({**best, "held_out": None}))
    assert not run_complete(short) and not run_complete(untested)
    assert not run_complete(tmp_path / "absent")


def _refusal(capsys, argv) -> str:
    with pytest.raises(SystemExit) as stop:
        compare.main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_options_the_comparison_sets_are_refused_in_the_task(tmp_path, capsys):
    line = _refusal(capsys, ["--methods", "ga", "--frames", "10", "--out", str(tmp_path),
                             "--", "--seed", "3"])
    assert "--seed" in line


@pytest.mark.parametrize("args, said", [
    (["--methods", "ga", "ga", "--seeds", "0"], "--methods names ga more than once"),
    (["--methods", "ga", "--seeds", "0", "0"], "--seeds names 0 more than once"),
])
def test_repeated_methods_or_seeds_are_refused(tmp_path, capsys, args, said):
    line = _refusal(capsys, [*args, "--frames", "10", "--out", str(tmp_path / "o"), "--",
                             *TASK])
    assert said in line and not (tmp_path / "o").exists()


def test_every_method_s_task_is_checked_before_any_run(tmp_path, capsys):
    line = _refusal(capsys, ["--methods", "ga", "neat", "--seeds", "0", "--frames", "10",
                             "--out", str(tmp_path / "o"), "--", *TASK, "--policy", "mlp"])
    assert line.startswith("evolution.compare: error: the task with --algorithm neat:")
    assert not (tmp_path / "o").exists()
    line = _refusal(capsys, ["--methods", "ga", "--seeds", "0", "--frames", "10",
                             "--out", str(tmp_path / "o"), "--", "--stage", "nowhere"])
    assert "the task with --algorithm ga" in line and "nowhere" in line


def test_a_run_played_to_another_budget_is_refused(compared, capsys):
    out, _ = compared
    line = _refusal(capsys, ["--methods", "ga", "--seeds", "0", "--frames", "5000",
                             "--out", str(out), "--", *TASK])
    assert "played with --max-frames 8000, not --frames 5000" in line


def test_tuned_settings_reach_their_method_s_runs(tmp_path, capsys):
    settings = tmp_path / "best.json"
    write_settings(settings, "openai-es", {"es_lr": 0.02})
    out = tmp_path / "o"
    assert compare.main(["--methods", "openai-es", "--seeds", "0", "--frames", "2000",
                         "--out", str(out), "--settings", str(settings), "--no-plots",
                         "--", *TASK]) == 0
    config = json.loads((out / "openai-es-seed0" / "config.json").read_text())
    assert config["settings"]["options"]["es_lr"] == 0.02
    # --no-plots: the numbers without the picture, and how to draw it.
    assert (out / "compare.json").exists() and not (out / "compare.png").exists()
    assert f"-m plots methods {out}" in capsys.readouterr().out
    line = _refusal(capsys, ["--methods", "ga", "--seeds", "0", "--frames", "2000",
                             "--out", str(tmp_path / "p"), "--settings", str(settings),
                             "--", *TASK])
    assert "holds settings of openai-es, which is not among --methods ga" in line


@pytest.mark.slow
@pytest.mark.parametrize("signum, status", sweep([(signal.SIGTERM, 143), (signal.SIGINT, 130)]))
def test_a_signal_stops_the_runs_which_the_next_comparison_resumes(tmp_path, signum, status):
    out = tmp_path / "o"
    line = [sys.executable, "-m", "evolution.compare", "--methods", "ga", "--seeds", "0",
            "--frames", "2000000", "--out", str(out), "--", *TASK]
    proc = subprocess.Popen(line, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (out / "ga-seed0" / "checkpoint.npz").exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    os.kill(proc.pid, signum)
    err = proc.communicate(timeout=120)[1]
    assert proc.returncode == status, err
    assert "Traceback" not in err and "run the same command again" in err
    # No run is left writing into OUT: the same comparison resumes it.
    again = subprocess.run(line, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert "resumed ga seed 0" in again.stdout


def test_the_frames_played_are_counted_from_the_runs_logbooks(compared, tmp_path):
    out, _ = compared
    data = json.loads((out / "compare.json").read_text())
    pairs = [(name.split("-seed")[0], int(name.split("-seed")[1])) for name in data["runs"]]
    assert compare.frames_played(out, pairs) == sum(
        run["frames"][-1] for run in data["runs"].values())
    assert compare.frames_played(tmp_path, pairs) == 0      # nothing started yet

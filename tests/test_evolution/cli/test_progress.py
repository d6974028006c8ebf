"""The one-line progress of slow work, of building a run's stages, and the
time a run says is left."""
from __future__ import annotations

import io
from collections import OrderedDict

import pytest

from evolution.config import ConfigError, EvolutionConfig
from evolution.cli.run_stages import build_stages, check_stages_load
from evolution.cli.progress import LOG_EVERY, SHOW_AFTER, ProgressLine
from evolution.cli.run_lines import make_reporter
from speednik import stages


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run(out, steps: int, seconds_each: float) -> str:
    clock = Clock()
    line = ProgressLine("building stages", steps, out, clock=clock)
    for done in range(1, steps + 1):
        clock.now += seconds_each
        line.update(done)
    line.finish()
    return out.getvalue()


def test_quick_work_shows_nothing():
    assert run(io.StringIO(), 10, (SHOW_AFTER - 0.5) / 10) == ""
    assert run(Terminal(), 10, (SHOW_AFTER - 0.5) / 10) == ""


def test_in_a_log_a_line_every_few_seconds_and_the_last():
    text = run(io.StringIO(), 40, 0.5)                  # 20 s in all
    lines = text.splitlines()
    assert lines[0] == "building stages 4/40 (2.0 s)"
    assert lines[-1] == "building stages 40/40 (20.0 s)"
    # After the first at 2 s: at most one line every LOG_EVERY seconds.
    assert len(lines) <= 2 + (20 - SHOW_AFTER) / LOG_EVERY
    assert "\r" not in text


def test_on_a_terminal_one_line_rewritten_in_place():
    text = run(Terminal(), 40, 0.5)
    assert text.count("\n") == 1 and text.endswith("building stages 40/40 (20.0 s)\n")
    shown = text.split("\r")[1:]
    assert shown[0] == "building stages 4/40 (2.0 s)"
    assert len(shown) == 38                             # steps 4 to 40, then the last


def test_an_aborted_line_is_ended_so_an_error_starts_on_its_own():
    out, clock = Terminal(), Clock()
    line = ProgressLine("x", 10, out, clock=clock)
    clock.now += 3.0
    line.update(1)
    line.abort()
    assert out.getvalue() == "\rx 1/10 (3.0 s)\n"
    line.abort()                                        # nothing left open
    assert out.getvalue() == "\rx 1/10 (3.0 s)\n"


@pytest.fixture
def empty_cache(monkeypatch):
    monkeypatch.setattr(stages, "_KEPT", {})
    monkeypatch.setattr(stages, "_HOLDERS", {})
    monkeypatch.setattr(stages, "_RECENT", OrderedDict())


def test_building_a_run_s_stages_keeps_them_and_ends_with_a_line(empty_cache):
    out = io.StringIO()
    config = EvolutionConfig(stages=("gen:easy:0-2",), test_stages=("gen:hard:0-1",),
                             population=4, workers=1)
    kept = build_stages(config.run_stages(), out=out)
    assert len(kept) == 5 and stages.kept_stage_count() == (5, 0)
    kept.release()
    # Quicker than SHOW_AFTER: nothing shown; a slow build ends on its count.
    assert out.getvalue() == "" or out.getvalue().splitlines()[-1].startswith(
        "building stages 5/5 (")


def test_a_stage_that_cannot_be_built_is_named_and_nothing_is_kept(empty_cache, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[stage]\nname = 'bad'\n")
    out = Terminal()
    with pytest.raises(ConfigError, match=f"stage '{bad}' cannot be loaded"):
        build_stages(["gen:easy:0", str(bad)], out=out)
    assert stages.kept_stage_count()[0] == 0
    assert out.getvalue() == ""


def test_a_compiled_run_gets_its_stages_lowered_with_them(empty_cache):
    config = EvolutionConfig(stages=("gen:easy:0-1",), population=4, workers=1)
    kept = check_stages_load(config, quiet=True)
    assert all(hasattr(stage, "compiled") for stage in kept.stages)
    kept.release()
    # The readable engine never reads them.
    python = config.replace(stages=["gen:easy:2-3"], engine="python")
    kept = check_stages_load(python, quiet=True)
    assert len(kept) == 2 and not any(hasattr(stage, "compiled") for stage in kept.stages)
    kept.release()


# -- the time a run's generation line says is left ---------------------------------------

def _line(capsys, config: EvolutionConfig, gen: int, frames: int, elapsed: float) -> str:
    record = {"gen": gen, "max": 1.0, "mean": 1.0, "best_progress": 0.5, "completions": 0,
              "frames": frames}
    make_reporter(quiet=False)(record, config, elapsed)
    return capsys.readouterr().out


def test_the_time_left_is_that_of_the_budget_that_runs_out_first(capsys):
    by_generations = EvolutionConfig(stages=("hillside",), generations=100)
    # 10 of 100 generations in 60 s: 540 s left.
    assert _line(capsys, by_generations, 10, 10_000, 60.0).rstrip().endswith("left 9:00")
    # A frame budget far from its end: the generations still end the run first.
    far = by_generations.replace(max_frames=10_000_000)
    assert _line(capsys, far, 10, 10_000, 60.0).rstrip().endswith("left 9:00")
    # A run whose frames end it (a learner's, generations beyond reach): a
    # tenth of 1,000,000 frames played in 60 s leaves 540 s, not years.
    by_frames = by_generations.replace(algorithm="ppo", policy="mlp",
                                       generations=1_000_000, max_frames=1_000_000)
    assert _line(capsys, by_frames, 10, 100_000, 60.0).rstrip().endswith("left 9:00")
    assert _line(capsys, by_frames, 0, 0, 5.0).rstrip().endswith("left 0:00")


def test_a_run_of_several_starts_says_which_one_plays(capsys):
    config = EvolutionConfig(stages=("gen:easy:0-1",), validation_stages=("gen:easy:5",),
                             max_frames=10_000, starts=3, start_frames=1_000)
    record = {"gen": 4, "max": 1.0, "mean": 1.0, "best_progress": 0.5, "completions": 0,
              "frames": 2_500, "start": 1}
    make_reporter(quiet=False)(record, config, 10.0)
    assert "  start 2/3  " in capsys.readouterr().out
    # The last generation of a start says what it validated.
    make_reporter(quiet=False)(dict(record, start_val_goals=1), config, 10.0)
    assert "  start 2/3 (ends: its best validates 1/1)  " in capsys.readouterr().out
    # A run of one start has no such column, and says nothing of starts.
    assert " start " not in _line(capsys, config.replace(starts=1, start_frames=None),
                                  4, 2_500, 10.0)

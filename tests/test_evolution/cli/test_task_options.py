"""The options `evolution.compare` and `evolution.tune` set for each run
they start, from their one definition (`evolution.cli.task_options`): each
is refused in a task, however typed, in one line with exit status 2 and
before anything is written; what only one of them sets is the other's
task's to give."""
from __future__ import annotations

import pytest

from commands import call, one_line
from evolution import compare, tune
from evolution.cli.run_options import build_parser as run_parser
from evolution.cli.task_options import COMPARE_OWN, EACH_RUN, TUNE_OWN, given_in

TASK = ["--stage", "gen:easy:0-3", "--validation-stage", "gen:easy:2000-2005",
        "--population", "16", "--workers", "1"]


def typed(option: str) -> list[str]:
    """The option as a task would give it: with a value when it takes one."""
    action = next(a for a in run_parser()._actions if option in a.option_strings)
    return [option] if action.nargs == 0 else [option, "1"]


def refused_by_compare(tmp_path, task: list[str]):
    out = tmp_path / "cmp"
    done = call(compare.main, "--methods", "ga", "--seeds", "0", "--frames", "10",
                "--out", out, "--", *TASK, *task)
    assert not out.exists()
    return done


def refused_by_tune(tmp_path, task: list[str]):
    out = tmp_path / "tune"
    done = call(tune.main, "--method", "cmaes", "--trials", "1", "--frames", "10",
                "--out", out, "--", *TASK, *task)
    assert not out.exists()
    return done


def test_both_set_each_run_s_method_budget_and_directory_and_compare_its_seed():
    assert set(EACH_RUN) <= set(COMPARE_OWN) and set(EACH_RUN) <= set(TUNE_OWN)
    assert set(COMPARE_OWN) - set(TUNE_OWN) == {"--seed"}
    # A settings file in the task would override the settings a trial draws.
    assert "--settings" in TUNE_OWN
    options = {s for a in run_parser()._actions for s in a.option_strings}
    assert set(COMPARE_OWN) | set(TUNE_OWN) <= options


@pytest.mark.parametrize("option", COMPARE_OWN)
def test_compare_refuses_each_option_it_sets_in_the_task(tmp_path, option):
    line = one_line(refused_by_compare(tmp_path, typed(option)))
    assert line.startswith("evolution.compare: error: ")
    assert f"{option} are set by the comparison for each run" in line


@pytest.mark.parametrize("option", TUNE_OWN)
def test_tune_refuses_each_option_it_sets_in_the_task(tmp_path, option):
    line = one_line(refused_by_tune(tmp_path, typed(option)))
    assert line.startswith("evolution.tune: error: ")
    assert f"{option} are set by the tuning for each trial" in line


@pytest.mark.parametrize("words", [["--max-frames=5"], ["--max-fr", "5"]])
def test_an_option_typed_with_its_value_or_abbreviated_is_refused_too(tmp_path, words):
    assert given_in(words, EACH_RUN) == ["--max-frames"]
    assert "--max-frames are set by the comparison" in one_line(
        refused_by_compare(tmp_path, words))
    assert "--max-frames are set by the tuning" in one_line(refused_by_tune(tmp_path, words))


def test_several_are_named_in_the_definition_s_order():
    task = ["--quiet", "--seed", "2", "--algorithm", "ga", "--stage", "hillside"]
    assert given_in(task, COMPARE_OWN) == ["--algorithm", "--quiet", "--seed"]
    assert given_in(task, TUNE_OWN) == ["--algorithm", "--quiet"]
    # Another option that starts like one of them is not it.
    assert given_in(["--stages-per-generation", "4", "--s", "1"], COMPARE_OWN) == []


def test_the_tuning_plays_the_task_s_seed():
    config = tune.check_task("cmaes", [*TASK, "--seed", "3"])
    assert config.seed == 3

"""benchmarks/start_shifts.py: a genome played from moved starts, its rows
as the readable runner plays them, its sums, and its one-line refusals."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from paths import benchmark_module
from runners.genome_file import load_genome_file, write_genome_file
from runners.mlp import mlp_genome_size
from runners.policies import Policy
from runners.replay import replay_genome


@pytest.fixture(scope="module")
def shifts():
    return benchmark_module("start_shifts")


@pytest.fixture
def genome(tmp_path):
    path = tmp_path / "genome.json"
    # A genome that runs right and jumps now and then, so that when it
    # decides changes where it goes.
    weights = np.random.default_rng(7).normal(size=mlp_genome_size(12, 4)) * 4
    weights[-8 + 2] += 2.0      # the output bias of "right"
    write_genome_file(path, weights, observation="basic", stages=["gen:easy:0"],
                      max_steps=900, stall_frames=120, action_repeat=2, fitness=None,
                      generation=None, seed=0, results={},
                      policy=Policy("mlp", "basic", hidden=4))
    return path


def test_the_starts_run_either_way_with_the_own_start_among_them(shifts):
    assert shifts.starts(24, 3) == list(range(-24, 25, 3))
    assert shifts.starts(5, 2) == [-4, -2, 0, 2, 4]
    assert shifts.starts(0, 3) == [0]


def test_each_start_is_played_as_the_readable_runner_plays_the_moved_stage(shifts, genome):
    record = load_genome_file(genome)
    starts = shifts.starts(8, 4)
    stages = ["hillside", "gen:easy:1"]
    finished = shifts.play_starts(record, stages, starts, workers=2)
    for stage in stages:
        readable = replay_genome(record, [f"{stage}@start{dx:+d}" for dx in starts])
        assert finished[stage] == [bool(r.metrics["goal_reached"]) for r in readable]
    own, share = shifts.set_figures({"a": [True, False, True], "b": [False, True, True]},
                                    [-1, 0, 1])
    assert (own, share) == (1, pytest.approx(4 / 3))


def test_the_report_sums_each_set_over_the_genomes(shifts, genome, capsys):
    assert shifts.main([str(genome), str(genome), "--shift", "4", "--step", "2",
                        "--stage", "gen:easy:0-1", "hillside"]) == 0
    out = capsys.readouterr().out
    assert "5 starts, -4 to +4 px in steps of 2" in out
    record = load_genome_file(genome)
    finished = shifts.play_starts(record, ["gen:easy:0", "gen:easy:1"], [-4, -2, 0, 2, 4], 1)
    own, share = shifts.set_figures(finished, [-4, -2, 0, 2, 4])
    assert (f"gen:easy:0-1: {2 * own} of 4 from their own start, {2 * share:.1f} on average"
            in out)
    assert "built-in:" in out and "over the 2 genomes" in out
    hang = 2 * (shifts.hanging(finished) + shifts.hanging(
        shifts.play_starts(record, ["hillside"], [-4, -2, 0, 2, 4], 1)))
    assert f"{hang} of the 6 stages played hang on the start" in out
    assert shifts.hanging({"a": [True, False], "b": [True, True], "c": [False, False]}) == 1


def test_the_action_repeat_is_the_genome_s_own_unless_asked(shifts, genome, capsys):
    record = load_genome_file(genome)
    every = dataclasses.replace(record, action_repeat=1)
    stages = ["gen:easy:0", "gen:easy:1", "gen:easy:2", "gen:easy:3"]
    # The genome plays otherwise deciding every frame: the option matters.
    assert ([r.steps for r in replay_genome(every, stages)]
            != [r.steps for r in replay_genome(record, stages)])
    for played, option in ((record, []), (every, ["--action-repeat", "1"])):
        finished = shifts.play_starts(played, stages, [0], 1)
        assert [row[0] for row in finished.values()] == [
            bool(r.metrics["goal_reached"]) for r in replay_genome(played, stages)]
        assert shifts.main([str(genome), "--shift", "0", "--stage", "gen:easy:0-3",
                            *option]) == 0
        own = sum(row[0] for row in finished.values())
        assert f"gen:easy:0-3: {own} of 4 from their own start" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["--shift", "300"], "--shift must be from 0 to 256 px, got 300"),
    (["--step", "0"], "--step must be 1 px or more, got 0"),
    (["--action-repeat", "0"], "--action-repeat must be 1 or more, got 0"),
])
def test_bad_options_are_refused_on_one_line(shifts, genome, capsys, args, message):
    with pytest.raises(SystemExit) as exit_:
        shifts.main([str(genome), *args])
    assert exit_.value.code != 0
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize("args, message", [
    (["--stage", "hillside@start+x"], "bad start shift in stage 'hillside@start+x'"),
    (["--stage", "hillside", "--shift", "200"], "is not on the stage before its goal"),
])
def test_bad_stages_are_refused_on_one_line(shifts, genome, capsys, args, message):
    assert shifts.main([str(genome), *args]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_missing_genome_is_refused_on_one_line(shifts, tmp_path, capsys):
    assert shifts.main([str(tmp_path / "none.json")]) == 1
    err = capsys.readouterr().err
    assert "no such file or directory" in err and err.count("\n") == 1

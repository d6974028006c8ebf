"""benchmarks/going_back.py: the left presses of a genome's play counted,
those at a stall apart, and its one-line refusals."""
from __future__ import annotations

import numpy as np
import pytest

from paths import benchmark_module
from runners.genome_file import load_genome_file, write_genome_file
from runners.mlp import mlp_genome_size
from runners.policies import Policy
from speednik.actions import ACTION_LEFT, ACTION_RIGHT, NUM_ACTIONS
from speednik.observation.registry import get_observation

QUARRY = "speednik/stages/handmade/quarry.toml"


@pytest.fixture(scope="module")
def going_back():
    return benchmark_module("going_back")


class Script:
    """Right until the stall clock reads `turn` frames, then left."""

    def __init__(self, turn: int) -> None:
        self.turn, self.at = turn, get_observation("stall").feature_names.index("stalled_for")

    def get_action(self, obs) -> int:
        return ACTION_LEFT if obs[self.at] * 240 >= self.turn else ACTION_RIGHT

    def reset(self) -> None:
        pass


class Record:
    """A genome file's record, its policy swapped for `policy`."""

    def __init__(self, record, policy) -> None:
        self.record, self.policy = record, lambda: policy

    def __getattr__(self, name):
        return getattr(self.record, name)


def genome(path, observation: str, bias_action: int | None):
    """An MLP genome over `observation` that presses `bias_action` always
    (by the bias of that output), or nothing in particular."""
    size = mlp_genome_size(len(get_observation(observation).feature_names), 4)
    weights = np.zeros(size)
    if bias_action is not None:
        weights[size - NUM_ACTIONS + bias_action] = 5.0
    write_genome_file(path, weights, observation=observation, stages=["gen:easy:0"],
                      max_steps=600, stall_frames=240, action_repeat=2, fitness=None,
                      generation=None, seed=0, results={},
                      policy=Policy("mlp", observation, hidden=4))
    return path


def test_a_player_that_turns_at_a_stall_counts_its_lefts_there(going_back, tmp_path):
    record = load_genome_file(genome(tmp_path / "g.json", "stall", None))
    # Right into quarry's first bench, too tall to run up; left once the
    # stall clock reads 60 frames, until the episode ends.
    p = going_back.count(Record(record, Script(60)), [QUARRY], stalled_at=30)
    assert p.episodes == 1 and p.went_back == 1 and p.went_back_finished == 0
    assert 0 < p.left == p.left_stalled < p.decisions
    later = going_back.count(Record(record, Script(60)), [QUARRY], stalled_at=90)
    assert later.left == p.left and later.left_stalled < p.left
    # One run-up, begun when the clock read 60 frames, that never passes
    # the bench.
    (run_up,) = p.run_ups
    assert not run_up.passed and 60 <= run_up.waited <= 62 and run_up.back > 0


def test_a_genome_that_only_presses_right_never_goes_back(going_back, tmp_path):
    record = load_genome_file(genome(tmp_path / "g.json", "stall", ACTION_RIGHT))
    p = going_back.count(record, ["gen:easy:0", QUARRY], stalled_at=30)
    assert p.episodes == 2 and p.decisions > 100
    assert p.left == p.left_stalled == p.went_back == 0


def test_it_prints_a_line_per_run(going_back, tmp_path, capsys):
    left = genome(tmp_path / "left.json", "stall", ACTION_LEFT)
    basic = genome(tmp_path / "basic.json", "basic", ACTION_LEFT)
    assert going_back.main([str(left), str(basic), "--stage", "gen:easy:0"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2
    assert out[0].startswith(str(left)) and "1 episodes pressed left" in out[0]
    assert "(no stall clock in its observation)" in out[1]


@pytest.mark.parametrize("args, message", [
    (["--stalled-at", "0"], "--stalled-at must be from 1 to 240"),
    (["--stage", "nowhere"], "nowhere"),
])
def test_bad_options_are_refused_on_one_line(going_back, tmp_path, capsys, args, message):
    path = genome(tmp_path / "g.json", "stall", None)
    with pytest.raises(SystemExit) as stop:
        going_back.main([str(path), *args])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def frames(*parts):
    """Per-frame x and actions from (frames, x step, action) runs."""
    x, actions, at = [], [], 0.0
    for n, step, action in parts:
        for _ in range(n):
            at += step
            x.append(at)
            actions.append(action)
    return np.array(x), np.array(actions)


def test_a_run_up_is_a_stretch_without_gain_in_which_left_was_held(going_back):
    # Right 50 frames (to x 100), stands 20 frames, back 40 frames (80 px),
    # then right past x 100: one run-up, passed, its first left press 21
    # frames after the last gain (frame 49, the last of the first 50).
    x, actions = frames((50, 2.0, ACTION_RIGHT), (20, 0.0, ACTION_RIGHT),
                        (40, -2.0, ACTION_LEFT), (60, 2.0, ACTION_RIGHT))
    (run_up,) = going_back.run_ups(x, actions)
    assert run_up == going_back.RunUp(waited=21, back=80.0, passed=True)
    # The same, the episode ending before x passes 100: not passed.
    (short,) = going_back.run_ups(x[:140], actions[:140])
    assert not short.passed and short.waited == 21


def test_short_stretches_and_a_few_left_frames_are_no_run_up(going_back):
    # Back 9 frames only, then on: too few left frames.
    few = frames((50, 2.0, ACTION_RIGHT), (9, -2.0, ACTION_LEFT), (40, 2.0, ACTION_RIGHT))
    # Back 12 frames and on again within 29 frames of the last gain.
    quick = frames((50, 2.0, ACTION_RIGHT), (12, -1.0, ACTION_LEFT), (40, 2.0, ACTION_RIGHT))
    assert going_back.run_ups(*few) == []
    assert going_back.run_ups(*quick) == []


def test_the_summary_gives_medians_of_passed_and_failed_run_ups(going_back):
    RunUp = going_back.RunUp
    line = going_back.run_up_summary([RunUp(10, 100.0, True), RunUp(20, 140.0, True),
                                      RunUp(90, 300.0, False)])
    assert line == ("3 run-ups, 2 passed; passed: the first left press a median 15 frames "
                    "after the last gain, back a median 120 px; not passed: the first "
                    "left press a median 90 frames after the last gain, back a median "
                    "300 px")
    assert going_back.run_up_summary([]) == "0 run-ups, 0 passed"

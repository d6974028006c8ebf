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

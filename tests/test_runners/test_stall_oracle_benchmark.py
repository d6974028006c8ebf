"""benchmarks/stall_oracle.py: the reflex that goes back once the stall
clock has run, on made-up observations and in a real episode, and its
one-line refusals."""
from __future__ import annotations

import numpy as np
import pytest

from paths import benchmark_module
from runners.episode import EpisodeRunner
from runners.genome_file import write_genome_file
from runners.mlp import mlp_genome_size
from runners.policies import Policy
from speednik.actions import ACTION_LEFT, ACTION_RIGHT
from speednik.observation.registry import get_observation


@pytest.fixture(scope="module")
def oracle():
    return benchmark_module("stall_oracle")


class Right:
    """Presses right, counting its resets."""

    def __init__(self) -> None:
        self.resets = 0

    def get_action(self, obs) -> int:
        return ACTION_RIGHT

    def reset(self) -> None:
        self.resets += 1


def clock(frames: int) -> np.ndarray:
    """A `stall` observation whose stall clock reads `frames`."""
    names = get_observation("stall").feature_names
    obs = np.zeros(len(names))
    obs[names.index("stalled_for")] = frames / 240
    return obs


def test_it_goes_back_for_its_frames_once_the_clock_reaches_the_trigger_once_a_stall(oracle):
    reflex = oracle.StallReflex(Right(), "stall", action_repeat=2, trigger=10, back=6)
    pressed = [reflex.get_action(clock(f)) for f in (0, 4, 8, 10, 12, 14, 16, 18, 20)]
    # Three decisions of two frames each hold left from the trigger on.
    assert pressed == [ACTION_RIGHT] * 3 + [ACTION_LEFT] * 3 + [ACTION_RIGHT] * 3
    assert reflex.reflexes == 1
    # A new farthest x sets the clock back and arms it again.
    assert [reflex.get_action(clock(f)) for f in (0, 10, 12)] == [ACTION_RIGHT, ACTION_LEFT,
                                                                  ACTION_LEFT]
    assert reflex.reflexes == 2
    reflex.reset()
    assert reflex.policy.resets == 2 and reflex.left_for == 0 and reflex.armed


def test_an_observation_without_the_stall_clock_is_refused(oracle):
    assert "stalled_for" not in get_observation("basic").feature_names
    with pytest.raises(ValueError, match="no stall clock"):
        oracle.StallReflex(Right(), "basic", 1, 10, 6)


def test_in_a_real_episode_the_player_goes_back_from_where_it_stalled(oracle):
    # Holding right stops against quarry's first bench, too tall to run up.
    stage = "speednik/stages/handmade/quarry.toml"
    runner = EpisodeRunner(stage, observation="stall", max_steps=1200, record=True)
    plain = runner.run_episode(Right())
    assert plain.done_reason == "stalled"
    reflex = oracle.StallReflex(Right(), "stall", 1, trigger=30, back=60)
    went = runner.run_episode(reflex)
    assert reflex.reflexes == 1 and went.done_reason == "stalled"
    farthest = max(plain.trajectory.x)
    assert max(went.trajectory.x) == pytest.approx(farthest, abs=1)
    assert min(went.trajectory.x[len(went.trajectory.x) // 2:]) < farthest - 40
    assert min(plain.trajectory.x[len(plain.trajectory.x) // 2:]) > farthest - 5


@pytest.fixture
def genome(tmp_path):
    path = tmp_path / "genome.json"
    size = mlp_genome_size(len(get_observation("stall").feature_names), 4)
    write_genome_file(path, np.zeros(size), observation="stall", stages=["gen:easy:0"],
                      max_steps=300, stall_frames=240, action_repeat=1, fitness=None,
                      generation=None, seed=0, results={},
                      policy=Policy("mlp", "stall", hidden=4))
    return path


@pytest.mark.parametrize("args, message", [
    (["--trigger", "0"], "--trigger must be from 1 to 239"),
    (["--trigger", "240"], "--trigger must be from 1 to 239"),
    (["--back", "30", "0"], "--back must be 1 frame or more"),
])
def test_bad_options_are_refused_on_one_line(oracle, genome, capsys, args, message):
    with pytest.raises(SystemExit) as stop:
        oracle.main([str(genome), "--stage", "gen:easy:0", *args])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_it_prints_each_way_of_playing_and_what_the_reflex_changed(oracle, genome, capsys):
    assert oracle.main([str(genome), "--stage", "gen:easy:0", "--back", "20", "40"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("as it is") and "of 1" in out[0]
    assert [line.split()[1] for line in out[1::2]] == ["20", "40"]
    assert all("finished only with it" in line for line in out[2::2])

"""A stage played from a moved start (`NAME@start+DX`): the player stands
on the ground there, the stage is otherwise the named one, both engines
play it alike, and bad shifts are refused with what is accepted."""
from __future__ import annotations

import numpy as np
import pytest

from runners import RunnerConfig, run_episodes
from runners.mlp import mlp_genome_size
from speednik.engine.batch import initial_state
from speednik.engine.lowering import compiled_stage
from speednik.player import PlayerState
from speednik.simulation import create_sim
from speednik.stages import StageError, load_stage, shifted_name, split_shift
from speednik.stages.start_shift import MAX_START_SHIFT

from engine_parity import parity_from_start
from fuzz_inputs import random_inputs


@pytest.mark.parametrize("name", ["hillside", "gen:expert:3",
                                  "speednik/stages/handmade/quarry.toml"])
@pytest.mark.parametrize("dx", [-16, -5, 9, 16])
def test_a_moved_start_stands_on_the_ground_there_and_the_rest_is_the_stage(name, dx):
    base = load_stage(name)
    compiled_stage(base)   # built on the named stage: the moved one shares it
    moved = load_stage(f"{name}@start{dx:+d}")
    assert moved.name == f"{name}@start{dx:+d}" and moved.start_x == base.start_x + dx
    sim = create_sim(moved)
    assert sim.player.state == PlayerState.STANDING and sim.player.physics.on_ground
    assert sim.player.physics.x == base.start_x + dx
    assert (moved.tiles, moved.goal, moved.springs, moved.enemies) == \
        (base.tiles, base.goal, base.springs, base.enemies)
    assert compiled_stage(moved) is compiled_stage(base)
    # Its own player state: the engine starts it from the moved start.
    assert not np.array_equal(initial_state(moved)[0], initial_state(base)[0])
    assert load_stage(f"{name}@start{dx:+d}") is moved


def test_names_of_moved_starts_read_back():
    assert shifted_name("gen:hard:7", 12) == "gen:hard:7@start+12"
    assert shifted_name("gen:hard:7", -3) == "gen:hard:7@start-3"
    assert shifted_name("hillside", 0) == "hillside"
    assert split_shift("gen:hard:7@start-3") == ("gen:hard:7", -3)
    assert split_shift("a/b.toml@start+40") == ("a/b.toml", 40)
    assert split_shift("hillside") == ("hillside", 0)
    assert load_stage("hillside@start+0") is load_stage("hillside")


def test_a_moved_start_plays_alike_on_both_engines_frame_by_frame():
    for name, seed in (("hillside@start+11", 1), ("gen:expert:5@start-9", 2)):
        error = parity_from_start(load_stage(name), random_inputs(seed, 1500), True)
        assert error is None, f"{name}: {error}"


def test_policies_play_moved_starts_alike_on_both_engines_and_the_start_changes_the_play():
    rng = np.random.default_rng(5)
    genomes = [rng.normal(size=mlp_genome_size(12, 4)) * s for s in (0.5, 1.0, 2.0)]
    stages = ["hillside", "hillside@start+6", "gen:hard:2@start-8", "gen:hard:2"]
    items = [(("mlp", ("basic", 4, g)), stage) for g in genomes for stage in stages]
    config = RunnerConfig(max_steps=1200)
    readable = run_episodes(items, config)
    compiled = run_episodes(items, config, engine="compiled")
    assert [r.to_dict() for r in compiled] == [r.to_dict() for r in readable]
    assert any(a.metrics["max_x"] != b.metrics["max_x"]
               for a, b in zip(readable[0::4], readable[1::4]))


@pytest.mark.parametrize("name, message", [
    ("hillside@start+x", "accepted: NAME@start\\+DX or NAME@start-DX"),
    ("hillside@start", "accepted: NAME@start\\+DX or NAME@start-DX"),
    (f"hillside@start+{MAX_START_SHIFT + 1}", f"at most {MAX_START_SHIFT} px"),
    ("hillside@start-100", "not on the stage before its goal"),
    ("nowhere@start+4", "unknown stage 'nowhere'"),
])
def test_bad_moves_are_refused_with_what_is_accepted(name, message):
    with pytest.raises(StageError, match=message):
        load_stage(name)


def test_a_start_moved_over_a_gap_is_refused(tmp_path):
    profile = tmp_path / "gap.toml"
    profile.write_text(
        '[stage]\nname = "gap"\nheight = 512\nground_y = 400\nstart_x = 64\n'
        '[[segment]]\nkind = "flat"\nlength = 128\n'
        '[[segment]]\nkind = "gap"\nlength = 96\n'
        '[[segment]]\nkind = "flat"\nlength = 512\n'
        '[[entity]]\nkind = "goal"\nx = 640\n')
    assert load_stage(f"{profile}@start+200").start_x == 264
    with pytest.raises(StageError, match="no ground below a start at x 176"):
        load_stage(f"{profile}@start+112")

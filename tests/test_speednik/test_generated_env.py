"""`speednik/Generated-v0`: Procgen-style generated stages, one per reset."""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import speednik.env  # noqa: F401  (registers the ids)
from speednik.stages import generate_stage


def make(**kw):
    return gymnasium.make("speednik/Generated-v0", **kw)


def test_check_env_passes():
    env = make(difficulty="hard", start_level=0, num_levels=32).unwrapped
    check_env(env, skip_render_check=True)


def test_each_reset_plays_one_of_the_named_levels_reproducibly():
    env = make(difficulty="hard", start_level=100, num_levels=8)
    seen = []
    obs, info = env.reset(seed=5)
    seen.append(info["level_seed"])
    for _ in range(30):
        seen.append(env.reset()[1]["level_seed"])
    assert set(seen) <= set(range(100, 108)) and len(set(seen)) >= 5
    again = make(difficulty="hard", start_level=100, num_levels=8)
    replay = [again.reset(seed=5)[1]["level_seed"]] + [again.reset()[1]["level_seed"]
                                                        for _ in range(30)]
    assert replay == seen
    assert env.unwrapped.stage is generate_stage(seen[-1], "hard")


def test_the_episode_is_the_drawn_stage():
    env = make(difficulty="easy", start_level=3, num_levels=1, observation="terrain")
    obs, info = env.reset(seed=0)
    assert info["level_seed"] == 3
    from speednik.env import SpeednikEnv
    direct = SpeednikEnv(generate_stage(3, "easy"), observation="terrain")
    want, _ = direct.reset()
    assert np.array_equal(obs, want)
    for _ in range(200):
        a = env.step(2)
        b = direct.step(2)
        assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4]


def test_unlimited_levels_draw_many_seeds():
    env = make(difficulty="medium", num_levels=0)
    seeds = {env.reset(seed=1)[1]["level_seed"]} | {env.reset()[1]["level_seed"]
                                                     for _ in range(5)}
    assert len(seeds) == 6


@pytest.mark.parametrize("kw, words", [
    (dict(difficulty="nightmare"), "unknown difficulty 'nightmare'"),
    (dict(num_levels=-1), "num_levels must be"),
    (dict(start_level=1.5), "start_level must be"),
])
def test_bad_settings_are_named(kw, words):
    from speednik.env import GeneratedEnv
    with pytest.raises(ValueError, match=words):
        GeneratedEnv(**kw)

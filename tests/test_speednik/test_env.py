"""SpeednikEnv: the Gymnasium API, termination, the shared reward and the
registered ids."""
from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from speednik.actions import ACTION_JUMP, ACTION_NOOP, ACTION_RIGHT, action_to_input
from speednik.entities import Ring
from speednik.env import ENV_IDS, SpeednikEnv, observation_names
from speednik.observation import extract_observation, extract_terrain_observation
from speednik.reward import default_reward, make_reward
from speednik.simulation import create_sim, sim_step
from speednik.stages import generate_stage, load_stage
from speednik.tokens import FEATURE_IDS
from stage_fixtures import flat_stage, pit_stage
from sweeps import sweep
from paths import REPO_ROOT

INFO_KEYS = {"frame", "x", "y", "max_x", "rings", "deaths", "goal_reached"}
OBSERVATION_KINDS = ("basic", "terrain", "hazards", "stall", "lookahead", "pits", "landing",
                     "room", "footing", "local", "onward", "stride", "reach", "stand", "behind", "runup", "turnback",
                     "tokens")
ROOT = REPO_ROOT


def strict_check(env):
    """check_env with every warning an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env)


# -- spaces, reset, step --------------------------------------------------------

@pytest.mark.parametrize("observation, shape, dtype", [
    ("basic", (12,), np.float32), ("terrain", (28,), np.float32),
    ("hazards", (38,), np.float32), ("stall", (39,), np.float32),
    ("tokens", (200, 3), np.uint8)])
def test_spaces(observation, shape, dtype):
    env = SpeednikEnv(flat_stage(), observation=observation)
    assert env.action_space == gymnasium.spaces.Discrete(8)
    space = env.observation_space
    assert isinstance(space, gymnasium.spaces.Box)
    assert space.shape == shape and space.dtype == dtype
    if dtype == np.float32:
        assert np.all(np.isfinite(space.low)) and np.all(np.isfinite(space.high))
        assert np.all(space.low < space.high)
    obs, info = env.reset(seed=0)
    assert obs.shape == shape and obs.dtype == dtype and obs in space
    assert set(info) == INFO_KEYS


def test_step_returns_the_five_values():
    env = SpeednikEnv(flat_stage())
    env.reset()
    obs, reward, terminated, truncated, info = env.step(ACTION_RIGHT)
    assert obs.shape == (12,) and obs.dtype == np.float32
    assert isinstance(reward, float)
    assert terminated is False and truncated is False
    sim = env.sim
    p = sim.player.physics
    assert info == {"frame": 1, "x": p.x, "y": p.y, "max_x": sim.max_x_reached,
                    "rings": 0, "deaths": 0, "goal_reached": False}
    np.testing.assert_array_equal(obs, extract_observation(sim))


def test_numpy_actions_and_bad_actions():
    env = SpeednikEnv(flat_stage())
    env.reset()
    env.step(np.int64(2))
    env.step(env.action_space.sample())
    with pytest.raises(ValueError, match="0..7"):
        env.step(8)
    with pytest.raises(TypeError):
        env.step(1.0)


def test_step_before_reset_is_an_error():
    with pytest.raises(RuntimeError, match="reset"):
        SpeednikEnv(flat_stage()).step(0)


def test_observations_do_not_alias():
    env = SpeednikEnv(flat_stage())
    first, _ = env.reset()
    seen = [first]
    for _ in range(5):
        seen.append(env.step(ACTION_RIGHT)[0])
    for i in range(len(seen)):
        for j in range(i + 1, len(seen)):
            assert not np.shares_memory(seen[i], seen[j])
    assert not np.array_equal(seen[0], seen[-1])


def test_reset_restarts_from_the_same_state():
    env = SpeednikEnv(flat_stage(rings=[Ring(100.0, 237.0)]))
    obs0, info0 = env.reset()
    for _ in range(60):
        env.step(ACTION_RIGHT)
    assert env.sim.rings_collected == 1
    obs1, info1 = env.reset()
    np.testing.assert_array_equal(obs0, obs1)
    assert info0 == info1
    assert env.sim.ring_taken[0] == 0 and env.steps == 0
    assert env.reward_fn.totals["ring"] == 0.0


def test_stage_by_object_or_name_is_built_once():
    stage = flat_stage()
    env = SpeednikEnv(stage)
    env.reset()
    first = env.sim
    env.reset()
    assert env.sim is not first and env.sim.stage is stage
    named = SpeednikEnv("hillside")
    assert named.stage is load_stage("hillside")


def test_bad_arguments_name_what_is_accepted():
    with pytest.raises(ValueError) as err:
        SpeednikEnv(flat_stage(), observation="pixels")
    for name in observation_names():
        assert repr(name) in str(err.value)
    with pytest.raises(ValueError, match="max_steps"):
        SpeednikEnv(flat_stage(), max_steps=0)
    with pytest.raises(ValueError, match="rgb_array"):
        SpeednikEnv(flat_stage(), render_mode="human")
    with pytest.raises(TypeError, match="stage"):
        SpeednikEnv(42)
    with pytest.raises(TypeError, match="reward"):
        SpeednikEnv(flat_stage(), reward=lambda sim, ev: 0.0)
    with pytest.raises(ValueError, match="accepted"):
        SpeednikEnv(flat_stage(), reward={"bogus": 1.0})


# -- termination ----------------------------------------------------------------

def run_until_done(env, action, limit=5000):
    env.reset()
    for i in range(limit):
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return i + 1, reward, terminated, truncated, info
    raise AssertionError("episode did not end")


def test_terminated_at_the_goal():
    n, reward, terminated, truncated, info = run_until_done(
        SpeednikEnv(flat_stage(goal_x=300.0)), ACTION_RIGHT)
    assert terminated and not truncated and info["goal_reached"]
    assert reward > 10.0


def test_terminated_on_death():
    n, reward, terminated, truncated, info = run_until_done(SpeednikEnv(pit_stage()), ACTION_RIGHT)
    assert terminated and not truncated
    assert info["deaths"] == 1 and not info["goal_reached"]
    assert reward < -4.5


def test_truncated_at_max_steps():
    env = SpeednikEnv(flat_stage(), max_steps=50)
    env.reset()
    for i in range(49):
        assert env.step(ACTION_NOOP)[3] is False
    _, _, terminated, truncated, info = env.step(ACTION_NOOP)
    assert truncated and not terminated and info["frame"] == 50


# -- actions and reward go through the shared layers ----------------------------

def test_env_matches_the_shared_layers_frame_for_frame():
    stage = flat_stage(rings=[Ring(150.0, 237.0), Ring(400.0, 200.0)], goal_x=900.0)
    actions = [ACTION_RIGHT] * 40 + [ACTION_JUMP] * 30 + [5] * 50 + [7, 7, 6, 0] * 10
    env = SpeednikEnv(stage, observation="terrain", max_steps=500)
    env.reset()
    sim = create_sim(stage)
    reward = default_reward(500)
    reward.reset(sim)
    held = False
    for a in actions:
        obs, r, *_ = env.step(a)
        inp, held = action_to_input(a, held)
        expected = reward.step(sim, sim_step(sim, inp))
        assert r == expected
        np.testing.assert_array_equal(obs, extract_terrain_observation(sim))
    assert env.reward_fn.totals == reward.totals


def test_holding_jump_in_the_env_jumps_once():
    env = SpeednikEnv(flat_stage())
    env.reset()
    left_ground = 0
    on_ground = True
    for _ in range(150):
        obs, *_ = env.step(ACTION_JUMP)
        if on_ground and obs[4] == 0.0:
            left_ground += 1
        on_ground = obs[4] == 1.0
    assert left_ground == 1 and on_ground


def test_reward_argument():
    env = SpeednikEnv(flat_stage(), reward={"time": 1.0})
    env.reset()
    assert env.step(ACTION_RIGHT)[1] == -1.0
    custom = make_reward({"progress": 1.0})
    env = SpeednikEnv(flat_stage(), reward=custom)
    env.reset()
    env.step(ACTION_RIGHT)
    assert env.reward_fn is custom and list(custom.totals) == ["progress"]
    env = SpeednikEnv(flat_stage(goal_x=300.0), max_steps=200)
    assert env.reward_fn.max_steps == 200


def test_token_observation_sees_the_last_step():
    env = SpeednikEnv(flat_stage(), observation="tokens")
    obs, _ = env.reset()
    row = obs[FEATURE_IDS["last_action"]]
    assert tuple(row) == (0x55, FEATURE_IDS["last_action"], 0)
    obs, reward, *_ = env.step(ACTION_RIGHT)
    assert obs[FEATURE_IDS["last_action"], 2] == ACTION_RIGHT
    assert obs[FEATURE_IDS["last_reward"], 2] == min(255, max(0, round(reward * 100) + 128))
    obs, _ = env.reset()
    assert obs[FEATURE_IDS["last_action"], 2] == 0


# -- rendering ------------------------------------------------------------------

def test_render_modes():
    env = SpeednikEnv(flat_stage(), render_mode="rgb_array")
    env.reset()
    frame = env.render()
    assert frame.shape == (224, 320, 3) and frame.dtype == np.uint8
    assert SpeednikEnv(flat_stage()).render() is None


# -- the registered ids and Gymnasium's checker ----------------------------------

def test_registered_ids():
    assert set(ENV_IDS) == {"speednik/Hillside-v0", "speednik/Pipeworks-v0",
                            "speednik/Skybridge-v0"}
    for env_id, stage in ENV_IDS.items():
        env = gymnasium.make(env_id)
        assert env.unwrapped.stage is load_stage(stage)
        env.close()


@pytest.mark.parametrize("observation", OBSERVATION_KINDS)
@pytest.mark.parametrize("env_id", sorted(ENV_IDS))
def test_check_env_passes(env_id, observation):
    env = gymnasium.make(env_id, observation=observation)
    strict_check(env.unwrapped)


def test_check_env_with_rendering_and_a_generated_looking_stage():
    env = gymnasium.make("speednik/Hillside-v0", render_mode="rgb_array")
    strict_check(env.unwrapped)
    env = gymnasium.make("speednik/Hillside-v0", stage=flat_stage(), observation="terrain")
    strict_check(env.unwrapped)


def test_generated_stage():
    stage = generate_stage(7, "hard")
    env = gymnasium.make("speednik/Hillside-v0", stage=stage, observation="terrain")
    assert env.unwrapped.stage is stage
    strict_check(env.unwrapped)
    env.reset()
    for _ in range(200):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert np.isfinite(obs).all() and np.isfinite(reward)
        if terminated or truncated:
            break


def test_make_with_kwargs_and_wrappers_runs_an_episode():
    env = gymnasium.make("speednik/Pipeworks-v0", max_steps=30)
    obs, info = env.reset(seed=3)
    done = False
    steps = 0
    while not done:
        obs, reward, terminated, truncated, info = env.step(ACTION_RIGHT)
        done = terminated or truncated
        steps += 1
    assert steps == 30 and truncated


@pytest.mark.parametrize("name", sorted(set(ENV_IDS.values())))
def test_idle_negative_and_hold_right_positive_on_builtin_stages(name):
    for action, sign in ((ACTION_NOOP, -1), (ACTION_RIGHT, 1)):
        env = SpeednikEnv(name)
        env.reset()
        total = sum(env.step(action)[1] for _ in range(100))
        assert total * sign > 0


def _python(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.mark.parametrize("imports, env_id", [
    ("import speednik.env; import gymnasium", "speednik/Hillside-v0"),
    ("import gymnasium; import speednik.env", "speednik/Hillside-v0"),
    ("from speednik.env import SpeednikEnv; import gymnasium", "speednik/Hillside-v0"),
    ("import speednik.simulation; import gymnasium; import speednik.env",
     "speednik/Hillside-v0"),
    ("import gymnasium", "speednik.env:speednik/Hillside-v0"),
])
def test_registration_works_in_any_import_order(imports, env_id):
    code = (f"import warnings; warnings.simplefilter('error')\n{imports}\n"
            "import gymnasium\n"
            f"env = gymnasium.make({env_id!r})\n"
            "ids = sorted(k for k in gymnasium.envs.registry if k.startswith('speednik/'))\n"
            "print(ids)\n"
            "print(env.reset()[0].shape)")
    out = _python(code)
    assert "speednik/Hillside-v0" in out and "speednik/Skybridge-v0" in out and "(12,)" in out


# -- bounds and stepping past the end ---------------------------------------------------

@pytest.mark.parametrize("stage", sweep(["hillside", "pipeworks", "skybridge"]))
@pytest.mark.parametrize("observation", ["basic", "terrain", "hazards", "stall"])
def test_observation_bounds_are_finite_and_hold_in_play(observation, stage):
    from speednik.observation import get_observation
    env = SpeednikEnv(stage, observation=observation, max_steps=2000)
    space = env.observation_space
    assert np.all(np.isfinite(space.low)) and np.all(np.isfinite(space.high))
    assert space.shape == (get_observation(observation).size,)
    rng = np.random.default_rng(1)
    for episode in range(3):
        obs, _ = env.reset()
        assert space.contains(obs)
        for _ in range(2000):
            action = 2 if rng.random() < 0.7 else int(rng.integers(8))
            obs, _, terminated, truncated, _ = env.step(action)
            assert space.contains(obs), dict(zip(
                get_observation(observation).feature_names, obs))
            if terminated or truncated:
                break


def test_a_step_after_the_end_warns_once_per_episode():
    env = SpeednikEnv("hillside", max_steps=5)
    env.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(5):
            env.step(0)
        assert caught == []
        env.step(0)
        env.step(0)
        assert len(caught) == 1 and "reset()" in str(caught[0].message)
        env.reset()
        for _ in range(5):
            env.step(0)
        assert len(caught) == 1
        env.step(0)
        assert len(caught) == 2


def test_importing_the_package_imports_nothing_else():
    out = _python("import sys; import speednik\n"
                  "print(sorted(m for m in ('gymnasium', 'speednik.env', 'speednik.reward',\n"
                  "                         'speednik.tokens', 'speednik.observation')\n"
                  "             if m in sys.modules))")
    assert out == "[]"

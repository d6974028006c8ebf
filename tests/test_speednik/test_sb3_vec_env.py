"""The vector environment's state as data, and the thin adapter SB3 takes
it through: a state set on a new environment continues exactly, and the
adapter's episodes are the vector environment's, with SB3's ending
infos."""
from __future__ import annotations

from importlib.util import find_spec

import numpy as np
import pytest

from speednik.vector_env import SpeednikVectorEnv

# Found, not imported: SB3 imports torch (seconds), which only the worker
# that runs these tests should pay for.
pytestmark = pytest.mark.skipif(find_spec("stable_baselines3") is None,
                                reason="needs the 'rl' extra")


def SB3VecEnv(*args, **kwargs):
    from speednik.sb3_vec_env import SB3VecEnv as adapter
    return adapter(*args, **kwargs)

STAGES = "gen:medium:0-7"


def _env(n: int = 6, observation: str = "terrain") -> SpeednikVectorEnv:
    return SpeednikVectorEnv(n, STAGES, observation=observation, max_steps=400,
                             action_repeat=2, stall_frames=120, autoreset_mode="SameStep")


def _play(env, actions) -> list:
    out = []
    for a in actions:
        obs, reward, terminated, truncated, info = env.step(a)
        out.append((obs, reward, terminated, truncated, info.get("final_obs")))
    return out


def _same(a: list, b: list) -> None:
    assert len(a) == len(b)
    for (o1, r1, t1, u1, f1), (o2, r2, t2, u2, f2) in zip(a, b):
        assert np.array_equal(o1, o2) and np.array_equal(r1, r2)
        assert np.array_equal(t1, t2) and np.array_equal(u1, u2)
        assert (f1 is None) == (f2 is None)
        if f1 is not None:
            assert all((x is None and y is None) or np.array_equal(x, y)
                       for x, y in zip(f1, f2))


# "reach" plays flights and remembers them from one step to the next,
# which the state leaves out: the new environment plays them again.
@pytest.mark.parametrize("observation", ["terrain", "reach"])
def test_a_state_set_on_a_new_environment_continues_exactly(observation):
    rng = np.random.default_rng(3)
    actions = rng.integers(0, 8, size=(400, 6))
    env = _env(observation=observation)
    env.reset(seed=11)
    _play(env, actions[:150])
    state = env.get_state()
    after = _play(env, actions[150:])
    # Episodes ended and new stages were drawn after the save point.
    assert sum(bool(t.any() or u.any()) for _, _, t, u, _ in after) > 0

    other = _env(observation=observation)
    other.set_state(state)
    _same(after, _play(other, actions[150:]))


def test_a_state_holding_the_flights_an_older_engine_remembered_continues_exactly():
    # States once held the flights' scratch, shaped as that engine kept it.
    rng = np.random.default_rng(4)
    actions = rng.integers(0, 8, size=(200, 6))
    env = _env(observation="reach")
    env.reset(seed=2)
    _play(env, actions[:100])
    state = env.get_state()
    state["arrays"].update({"flights2": np.full((6, 7), 3.0), "flights4": np.ones((6, 5))})
    after = _play(env, actions[100:])
    other = _env(observation="reach")
    other.set_state(state)
    _same(after, _play(other, actions[100:]))


def test_a_state_of_another_size_is_refused():
    env = _env(6)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="6"):
        _env(4).set_state(env.get_state())


def test_the_adapter_plays_the_vector_environments_episodes_with_sb3s_infos():
    rng = np.random.default_rng(5)
    actions = rng.integers(0, 8, size=(300, 6))
    plain = _env()
    first = plain.reset(seed=7)[0]
    expected = _play(plain, actions)

    adapter = SB3VecEnv(_env(), seed=7)
    assert np.array_equal(adapter.reset(), first)
    ended = 0
    for a, (obs, reward, terminated, truncated, final) in zip(actions, expected):
        adapter.step_async(a)
        o, r, done, infos = adapter.step_wait()
        assert np.array_equal(o, obs) and np.array_equal(r, reward)
        assert np.array_equal(done, terminated | truncated)
        for i in np.flatnonzero(done):
            ended += 1
            assert np.array_equal(infos[i]["terminal_observation"], final[i])
            assert infos[i]["TimeLimit.truncated"] == bool(truncated[i] and not terminated[i])
            assert infos[i]["episode"]["l"] > 0
        assert all(infos[i] == {} for i in np.flatnonzero(~done))
    assert ended > 0


def test_the_adapter_needs_same_step_autoreset():
    with pytest.raises(ValueError, match="SameStep"):
        SB3VecEnv(SpeednikVectorEnv(2, "hillside"), seed=0)

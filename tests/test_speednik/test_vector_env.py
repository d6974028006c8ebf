"""`SpeednikVectorEnv`: the compiled batch plays the single environment's
episodes, step by step, with Gymnasium 1.x's autoreset."""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import speednik.env  # noqa: F401  (registers the ids)
from speednik.env import GeneratedEnv, SpeednikEnv
from speednik.vector_env import GeneratedVectorEnv, SpeednikVectorEnv
from sweeps import crossed


def assert_infos_equal(got: dict, want: dict, where: str) -> None:
    assert set(got) == set(want), (where, sorted(got), sorted(want))
    for key, value in want.items():
        if isinstance(value, dict):
            assert_infos_equal(got[key], value, f"{where} {key}")
        elif key == "final_obs":
            for a, b in zip(got[key], value):
                assert (a is None and b is None) or np.array_equal(a, b), (where, key)
        else:
            assert got[key].dtype == value.dtype, (where, key, got[key].dtype, value.dtype)
            assert np.array_equal(got[key], value), (where, key, got[key], value)


# Random actions leaning right, so that episodes meet the stage's hazards.
LEAN_RIGHT = np.array([0.02, 0.02, 0.3, 0.3, 0.02, 0.3, 0.02, 0.02])


def random_actions(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.choice(8, n, p=LEAN_RIGHT)


def play_both(vector, single, steps: int, seed: int, action_seed: int) -> dict:
    """Step both with the same random actions, asserting every result
    equal; how many episodes ended and how each ended."""
    obs_v, info_v = vector.reset(seed=seed)
    obs_s, info_s = single.reset(seed=seed)
    assert obs_v.dtype == obs_s.dtype and np.array_equal(obs_v, obs_s)
    assert_infos_equal(info_v, info_s, "reset")
    rng = np.random.default_rng(action_seed)
    counts = {"terminated": 0, "truncated": 0}
    for t in range(steps):
        actions = random_actions(rng, vector.num_envs)
        got = vector.step(actions)
        want = single.step(actions)
        assert np.array_equal(got[0], want[0]), f"observation at step {t}"
        assert got[1].dtype == np.float64
        assert (got[1] == want[1]).all(), (t, got[1], want[1])
        assert (got[2] == want[2]).all() and (got[3] == want[3]).all(), t
        assert_infos_equal(got[4], want[4], f"step {t}")
        counts["terminated"] += int(got[2].sum())
        counts["truncated"] += int(got[3].sum())
    return counts


@pytest.mark.parametrize("observation", ["basic", "terrain", "reach"])
def test_stage_list_episodes_equal_the_single_env(observation):
    """Hillside and Pipeworks drawn per reset: each sub-environment plays
    the numbers of a SpeednikEnv on the stage it drew, episode after
    episode, the step after an end being the next episode's start."""
    n, max_steps = 3, 60
    vector = SpeednikVectorEnv(n, ["hillside", "pipeworks"], observation=observation,
                               max_steps=max_steps)
    obs, info = vector.reset(seed=11)
    singles = [None] * n

    def restart(i, obs_i, index):
        stage = vector.episode_stages[i]
        assert stage.name == vector.stage_names[index]
        singles[i] = SpeednikEnv(stage, observation=observation, max_steps=max_steps)
        assert np.array_equal(obs_i, singles[i].reset()[0])

    for i in range(n):
        restart(i, obs[i], info["stage_index"][i])
    rng = np.random.default_rng(3)
    ended = np.zeros(n, np.bool_)
    resets = 0
    for t in range(3 * max_steps):
        actions = rng.integers(0, 8, n)
        obs, rewards, terminated, truncated, info = vector.step(actions)
        for i in range(n):
            if ended[i]:
                assert info["_stage_index"][i]
                assert rewards[i] == 0 and not terminated[i] and not truncated[i]
                restart(i, obs[i], info["stage_index"][i])
                resets += 1
                continue
            o, r, te, tr, inf = singles[i].step(int(actions[i]))
            assert np.array_equal(obs[i], o) and rewards[i] == r, (t, i)
            assert terminated[i] == te and truncated[i] == tr, (t, i)
            for key, value in inf.items():
                assert info[key][i] == value, (t, i, key)
        ended = terminated | truncated
    assert resets >= n


@pytest.mark.parametrize("mode, observation, difficulty",
                         crossed(list(AutoresetMode), [("basic", "hard"), ("terrain", "medium"),
                                                       ("stand", "hard")]))
def test_generated_episodes_equal_sync_vector_env(mode, observation, difficulty):
    """GeneratedVectorEnv against Gymnasium's own SyncVectorEnv of
    GeneratedEnvs, in each autoreset mode: observations, rewards,
    terminated, truncated and infos equal at every step, through
    episodes ended by deaths and by truncation."""
    n, max_steps = 4, 360
    kw = dict(difficulty=difficulty, start_level=0, num_levels=16,
              observation=observation, max_steps=max_steps)
    vector = GeneratedVectorEnv(n, autoreset_mode=mode, **kw)
    single = SyncVectorEnv([lambda: GeneratedEnv(**kw) for _ in range(n)],
                           autoreset_mode=mode)
    if mode is AutoresetMode.DISABLED:
        vector.reset(seed=2)
        single.reset(seed=2)
        rng = np.random.default_rng(9)
        ends = 0
        for t in range(2 * max_steps):
            actions = random_actions(rng, n)
            got, want = vector.step(actions), single.step(actions)
            for a, b in zip(got[:4], want[:4]):
                assert np.array_equal(a, b), t
            assert_infos_equal(got[4], want[4], f"step {t}")
            ended = got[2] | got[3]
            if ended.any():
                ends += int(ended.sum())
                options = {"reset_mask": ended}
                obs_v, info_v = vector.reset(options=dict(options))
                obs_s, info_s = single.reset(options=dict(options))
                assert np.array_equal(obs_v, obs_s)
                assert_infos_equal(info_v, info_s, f"reset at {t}")
        assert ends >= n
        return
    counts = play_both(vector, single, 2 * max_steps + 10, seed=2, action_seed=9)
    assert counts["truncated"] >= 1
    if difficulty == "hard":
        assert counts["terminated"] >= 1


def test_action_repeat_holds_each_action_for_k_frames():
    k, n = 4, 3
    vector = SpeednikVectorEnv(n, "skybridge", observation="terrain", max_steps=70,
                               action_repeat=k)
    singles = [SpeednikEnv("skybridge", observation="terrain", max_steps=70)
               for _ in range(n)]
    vector.reset(seed=0)
    for env in singles:
        env.reset()
    rng = np.random.default_rng(1)
    for t in range(18):
        actions = rng.integers(0, 8, n)
        obs, rewards, terminated, truncated, info = vector.step(actions)
        for i, env in enumerate(singles):
            total = 0.0
            for _ in range(k):
                o, r, te, tr, _ = env.step(int(actions[i]))
                total += r
                if te or tr:
                    break
            assert np.array_equal(obs[i], o) and rewards[i] == total, (t, i)
            assert (terminated[i], truncated[i]) == (te, tr)
    # 70 frames are 18 decisions, the last one of 2 frames.
    assert truncated.all() and (vector.steps == 70).all()


def test_stall_frames_end_episodes_as_evolution_does():
    """With stall_frames, an episode is truncated where evolution's
    compiled episode ends it as stalled, with the same reward."""
    from speednik.engine import run_policy_batch
    from speednik.engine.policy import linear_size
    from speednik.stages import load_stage

    stall, repeat = 40, 3
    # A zero linear policy always picks action 0 (no button): it stalls.
    batch = run_policy_batch([load_stage("hillside")], [0], [0],
                             np.zeros((1, linear_size(12))),
                             stall_frames=stall, action_repeat=repeat)
    assert batch.done_reason == ("stalled",)
    vector = SpeednikVectorEnv(1, "hillside", stall_frames=stall, action_repeat=repeat)
    vector.reset(seed=0)
    total, decisions = 0.0, 0
    while True:
        _, r, te, tr, _ = vector.step(np.zeros(1, np.int64))
        total += r[0]
        decisions += 1
        if te[0] or tr[0]:
            break
    assert not te[0] and tr[0]
    assert vector.steps[0] == batch.steps[0]
    assert total == pytest.approx(batch.total_reward[0], rel=1e-12, abs=1e-12)


def test_next_step_autoreset_ignores_the_action_and_restarts():
    vector = SpeednikVectorEnv(2, "hillside", max_steps=5)
    first, _ = vector.reset(seed=0)
    for _ in range(4):
        _, _, _, truncated, _ = vector.step(np.array([2, 5]))
        assert not truncated.any()
    obs, _, terminated, truncated, _ = vector.step(np.array([2, 5]))
    assert truncated.all() and not terminated.any()
    assert not np.array_equal(obs, first)
    obs, rewards, terminated, truncated, info = vector.step(np.array([2, 5]))
    assert np.array_equal(obs, first)
    assert (rewards == 0).all() and not terminated.any() and not truncated.any()
    assert (info["frame"] == 0).all() and (vector.steps == 0).all()
    # The action of the resetting step was not played.
    obs, *_ = vector.step(np.array([0, 0]))
    idle = SpeednikEnv("hillside")
    idle.reset()
    assert np.array_equal(obs[0], idle.step(0)[0])


def test_same_step_autoreset_keeps_the_last_observation_in_info():
    vector = SpeednikVectorEnv(2, "hillside", max_steps=3,
                               autoreset_mode=AutoresetMode.SAME_STEP)
    assert vector.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    first, _ = vector.reset(seed=0)
    single = SpeednikEnv("hillside", max_steps=3)
    single.reset()
    for _ in range(2):
        _, _, _, _, info = vector.step(np.array([2, 2]))
        single.step(2)
        assert "final_obs" not in info
    obs, rewards, terminated, truncated, info = vector.step(np.array([2, 2]))
    last, r, _, _, last_info = single.step(2)
    assert truncated.all() and np.array_equal(obs, first) and (rewards == r).all()
    assert info["_final_obs"].all() and all(np.array_equal(o, last)
                                            for o in info["final_obs"])
    assert (info["final_info"]["x"] == last_info["x"]).all()
    assert (info["frame"] == 0).all()


def test_disabled_autoreset_resets_only_the_masked_environments():
    vector = SpeednikVectorEnv(3, "hillside", max_steps=4, autoreset_mode="Disabled")
    first, _ = vector.reset(seed=0)
    for _ in range(4):
        obs, _, _, truncated, _ = vector.step(np.array([2, 2, 2]))
    assert truncated.all()
    mask = np.array([True, False, True])
    reset_obs, info = vector.reset(options={"reset_mask": mask})
    assert np.array_equal(reset_obs[mask], first[mask])
    assert np.array_equal(reset_obs[1], obs[1])
    assert (info["_x"] == mask).all()
    assert list(vector.steps) == [0, 4, 0]


def test_the_same_seed_plays_the_same_episodes():
    def run(seed):
        env = GeneratedVectorEnv(5, difficulty="easy", num_levels=0, max_steps=40,
                                 observation="terrain")
        obs, info = env.reset(seed=seed)
        out = [obs, info["level_seed"]]
        rng = np.random.default_rng(0)
        for _ in range(100):
            obs, r, te, tr, info = env.step(rng.integers(0, 8, 5))
            out += [obs, r, te, tr]
            if "level_seed" in info:
                out.append(info["level_seed"][info["_level_seed"]])
        return out

    a, b, c = run(7), run(7), run(8)
    assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[1], c[1])
    # Each sub-environment draws from its own generator, seeded seed + i.
    assert len(set(a[1].tolist())) == 5


def test_seeds_per_environment_and_draws_of_a_stage_list():
    env = SpeednikVectorEnv(4, "gen:easy:0-7", max_steps=10)
    assert len(env.stage_names) == 8
    _, info = env.reset(seed=[3, 3, 3, 3])
    assert len(set(info["stage_index"].tolist())) == 1
    _, again = env.reset(seed=3)
    assert again["stage_index"][0] == info["stage_index"][0]


def test_make_vec_gives_the_compiled_vector_env():
    envs = gymnasium.make_vec("speednik/Generated-v0", num_envs=8, difficulty="hard",
                              start_level=0, num_levels=32)
    assert isinstance(envs.unwrapped, GeneratedVectorEnv)
    assert envs.num_envs == 8 and envs.single_action_space == gymnasium.spaces.Discrete(8)
    assert envs.observation_space.shape == (8, 12)
    obs, info = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    assert set(info["level_seed"].tolist()) <= set(range(32))
    obs, *_ = envs.step(envs.action_space.sample())
    assert obs.shape == (8, 12) and obs.dtype == np.float32
    hill = gymnasium.make_vec("speednik/Hillside-v0", num_envs=2, observation="terrain")
    assert isinstance(hill.unwrapped, SpeednikVectorEnv)
    assert hill.unwrapped.stage_names == ("hillside",)
    assert hill.single_observation_space.shape == (28,)
    sync = gymnasium.make_vec("speednik/Hillside-v0", num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, SyncVectorEnv)


@pytest.mark.parametrize("make, words", [
    (lambda: SpeednikVectorEnv(0), "num_envs must be a positive integer, got 0"),
    (lambda: SpeednikVectorEnv(2, "nowhere"), "unknown stage 'nowhere'; accepted: hillside"),
    (lambda: SpeednikVectorEnv(2, "gen:hard:x"), "accepted: gen:DIFFICULTY:SEEDS"),
    (lambda: SpeednikVectorEnv(2, []), "stages is empty"),
    (lambda: SpeednikVectorEnv(2, observation="pixels"),
     "unknown observation 'pixels' for the vector environment: accepted names are 'basic'"),
    (lambda: SpeednikVectorEnv(2, observation="tokens"), "accepted names are 'basic'"),
    (lambda: SpeednikVectorEnv(2, action_repeat=0), "action_repeat must be a positive"),
    (lambda: SpeednikVectorEnv(2, stall_frames=0), "stall_frames must be a positive"),
    (lambda: SpeednikVectorEnv(2, reward={"speedy": 1.0}),
     "unknown reward component(s) 'speedy': accepted names are 'progress'"),
    (lambda: SpeednikVectorEnv(2, autoreset_mode="Sometimes"),
     "unknown autoreset_mode 'Sometimes': accepted are 'NextStep', 'SameStep', 'Disabled'"),
    (lambda: GeneratedVectorEnv(2, difficulty="nightmare"),
     "unknown difficulty 'nightmare': accepted are"),
    (lambda: gymnasium.make_vec("speednik/Generated-v0", num_envs=0),
     "num_envs must be a positive integer, got 0"),
])
def test_bad_arguments_name_what_is_accepted(make, words):
    with pytest.raises(Exception) as caught:
        make()
    assert words in str(caught.value)
    assert isinstance(caught.value, (ValueError, TypeError))


@pytest.mark.parametrize("threads", [1, 2])
def test_bad_actions_name_what_is_accepted_and_play_nothing(threads):
    env = SpeednikVectorEnv(3, "hillside", threads=threads)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(3, np.int64))
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action 8 of sub-environment 1 is out of range: "
                                         "accepted are 0 to 7"):
        env.step(np.array([0, 8, 0]))
    assert (env.steps == 0).all()
    with pytest.raises(ValueError, match="actions must be 3 integers from 0 to 7"):
        env.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="actions must be 3 integers"):
        env.step(np.zeros(3))
    with pytest.raises(ValueError, match="reset_mask"):
        env.reset(options={"reset_mask": np.zeros(3, np.bool_)})


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_threads_step_slices_to_the_same_numbers(mode):
    def run(threads):
        env = GeneratedVectorEnv(7, difficulty="hard", num_levels=8, max_steps=150,
                                 observation="terrain", threads=threads,
                                 autoreset_mode=mode)
        out = list(env.reset(seed=4))
        rng = np.random.default_rng(5)
        for _ in range(400):
            out.extend(env.step(random_actions(rng, 7)))
        env.close()
        return out

    one, three = run(1), run(3)
    assert len(one) == len(three)
    for a, b in zip(one, three):
        if isinstance(a, dict):
            assert_infos_equal(b, a, "threads")
        else:
            assert np.array_equal(a, b)

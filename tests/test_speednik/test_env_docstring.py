"""`SpeednikEnv`'s docstring states the environment's numbers; these tests
read them back from the text and compare them with the live environment,
so the documentation cannot drift from the code."""
from __future__ import annotations

import inspect
import re

import numpy as np
from gymnasium import spaces

from speednik.actions import ACTION_NAMES, NUM_ACTIONS
from speednik.constants import DEFAULT_MAX_STEPS
from speednik.env import ENV_IDS, GENERATED_ID, GeneratedEnv, SpeednikEnv, observation_names
from speednik.observation import get_observation, list_observations
from speednik.reward import DEFAULT_WEIGHTS
from speednik.stages import DIFFICULTIES

DOC = inspect.getdoc(SpeednikEnv)
SECTIONS = ("Description", "Action Space", "Observation Space", "Rewards",
            "Starting State", "Episode End", "Arguments", "Version History")


def section(name: str) -> str:
    """The text of one `## name` section of the docstring."""
    match = re.search(rf"^## {re.escape(name)}\n(.*?)(?=^## |\Z)", DOC, re.S | re.M)
    assert match, f"no section {name!r}"
    return match.group(1)


def table(text: str) -> list[list[str]]:
    """The body rows of the first markdown table in `text`, cells stripped."""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [[c.strip() for c in row.strip("|").split("|")] for row in rows[2:]]


def test_sections_in_gymnasium_order():
    heads = re.findall(r"^## (.+)$", DOC, re.M)
    assert tuple(heads) == SECTIONS


def test_action_space_matches():
    text = section("Action Space")
    n = int(re.search(r"`Discrete\((\d+)\)`", text).group(1))
    env = SpeednikEnv()
    assert env.action_space == spaces.Discrete(n)
    assert n == NUM_ACTIONS
    rows = table(text)
    assert [int(r[0]) for r in rows] == list(range(NUM_ACTIONS))
    assert tuple(r[1] for r in rows) == ACTION_NAMES


def test_observation_shapes_match():
    rows = table(section("Observation Space"))
    stated = {name: tuple(int(d) for d in re.findall(r"\d+", shape)) for name, shape in rows}
    assert set(stated) == set(list_observations()), "every observation is listed, no other"
    for name, shape in stated.items():
        space = SpeednikEnv(observation=name).observation_space
        assert space.shape == shape, name
        assert space.dtype == np.float32
        assert np.all(np.isfinite(space.low)) and np.all(np.isfinite(space.high)), name


def test_basic_values_and_time_bound_match():
    text = " ".join(section("Observation Space").split())
    listed = re.search(r'The (\d+) values of "basic" are (.+?)\.', text)
    names = re.split(r", (?:and )?| and ", listed.group(2))
    values = get_observation("basic").values
    assert int(listed.group(1)) == len(values)
    assert names == [v.name for v in values]
    # the clock's bound is max_steps / 3600, as stated
    assert "frame / 3600" in text and "max_steps / 3600" in text
    for max_steps in (1800, 7200):
        space = SpeednikEnv(max_steps=max_steps).observation_space
        assert space.high[names.index("time")] == np.float32(max_steps / 3600)


def test_token_space_matches():
    text = " ".join(section("Observation Space").split())
    m = re.search(r'"tokens" is a uint8 Box of shape \((\d+), (\d+)\) with bounds (\d+) and (\d+)', text)
    space = SpeednikEnv(observation="tokens").observation_space
    assert space.shape == (int(m.group(1)), int(m.group(2)))
    assert space.dtype == np.uint8
    assert space.low.min() == int(m.group(3)) and space.high.max() == int(m.group(4))
    assert "tokens" in observation_names()


def test_reward_table_matches_default_weights():
    rows = table(section("Rewards"))
    stated = {name: float(weight) for name, _, weight in rows}
    assert stated == DEFAULT_WEIGHTS
    assert SpeednikEnv().reward_fn.weights == DEFAULT_WEIGHTS


def test_default_max_steps_matches():
    for name in ("Episode End", "Arguments"):
        text = " ".join(section(name).split())
        assert f"(default {DEFAULT_MAX_STEPS}" in text, name
    for cls in (SpeednikEnv, GeneratedEnv):
        assert inspect.signature(cls).parameters["max_steps"].default == DEFAULT_MAX_STEPS
    env = SpeednikEnv(stage="hillside", max_steps=3)
    env.reset()
    truncated = [env.step(0)[3] for _ in range(3)]
    assert truncated == [False, False, True]


def test_arguments_match_signatures():
    text = " ".join(section("Arguments").split())
    for cls in (SpeednikEnv, GeneratedEnv):
        m = re.search(rf"`{cls.__name__}\(([^)]*)\)`", text)
        stated = [a.strip() for a in m.group(1).split(",")]
        assert stated == list(inspect.signature(cls).parameters), cls.__name__
    sig = inspect.signature(SpeednikEnv).parameters
    assert f'(default "{sig["stage"].default}")' in text
    assert f'(default "{sig["observation"].default}")' in text
    assert f'(default "{inspect.signature(GeneratedEnv).parameters["difficulty"].default}")' in text
    assert "rgb_array" in text and SpeednikEnv.metadata["render_modes"] == ["rgb_array"]
    assert set(DIFFICULTIES)  # the list the text points at exists


def test_registered_ids_are_named():
    text = " ".join(section("Description").split())
    for env_id in (*ENV_IDS, GENERATED_ID):
        assert f"`{env_id}`" in text
    assert all(re.search(r"-v(\d+)$", i).group(1) == "0" for i in (*ENV_IDS, GENERATED_ID))
    assert "- v0:" in section("Version History")


def test_starting_state_is_the_same_every_episode():
    env = SpeednikEnv()
    first, info = env.reset(seed=1)
    again, _ = env.reset(seed=2)
    assert np.array_equal(first, again)
    assert info["rings"] == 0 and info["deaths"] == 0 and not info["goal_reached"]


def test_info_keys_are_stated():
    text = " ".join(section("Episode End").split())
    listed = re.search(r"The info of every step: (.+?);", text).group(1)
    keys = [re.sub(r" \(.*\)", "", k) for k in listed.split(", ")]
    env = SpeednikEnv()
    _, reset_info = env.reset()
    assert keys == list(env.step(0)[4]) == list(reset_info)
    generated = GeneratedEnv(difficulty="easy" if "easy" in DIFFICULTIES else DIFFICULTIES[0],
                             num_levels=1)
    assert "level_seed" in text and "level_seed" in generated.reset(seed=0)[1]

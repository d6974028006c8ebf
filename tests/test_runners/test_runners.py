"""BaseAgent, EpisodeResult and EpisodeRunner."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import runners.episode as episode_mod
from runners import BaseAgent, EpisodeResult, EpisodeRunner
from runners.result import DONE_REASONS, METRIC_KEYS, Trajectory, ending
from speednik.actions import (
    ACTION_JUMP,
    ACTION_NOOP,
    ACTION_RIGHT,
    ACTION_RIGHT_JUMP,
)
from speednik.entities import Ring
from speednik.reward import make_reward
from speednik.simulation import SimState
from stage_fixtures import FLOOR_Y, flat_stage, pit_stage


class Scripted(BaseAgent):
    """Plays a fixed list of actions, then the last one forever; counts
    resets and calls, keeps what it was shown."""

    def __init__(self, actions=(ACTION_RIGHT,)) -> None:
        self.actions = list(actions)
        self.resets = 0
        self.calls = 0
        self.seen: list = []

    def get_action(self, obs):
        self.seen.append(obs)
        a = self.actions[min(self.calls, len(self.actions) - 1)]
        self.calls += 1
        return a

    def reset(self) -> None:
        self.resets += 1
        self.calls = 0
        self.seen = []


class Returns(BaseAgent):
    """Returns `value` from frame `at` on, right before it."""

    def __init__(self, value, at: int = 0) -> None:
        self.value, self.at, self.n = value, at, 0

    def get_action(self, obs):
        self.n += 1
        return self.value if self.n > self.at else ACTION_RIGHT

    def reset(self) -> None:
        self.n = 0


def rings_stage():
    return flat_stage(rings=[Ring(200.0 + 24 * i, FLOOR_Y - 20.0) for i in range(5)])


# -- BaseAgent --------------------------------------------------------------------------

def test_base_agent_is_abstract():
    with pytest.raises(TypeError):
        BaseAgent()

    class OnlyAction(BaseAgent):
        def get_action(self, obs):
            return 0

    with pytest.raises(TypeError):
        OnlyAction()

    class Both(BaseAgent):
        def get_action(self, obs):
            return 0

        def reset(self):
            pass

    agent = Both()
    assert agent.get_action(None) == 0
    assert agent.observation is None and agent.observe_sim is False


# -- EpisodeResult ----------------------------------------------------------------------

def test_result_json_round_trip_is_exact_with_trajectory():
    runner = EpisodeRunner(rings_stage(), max_steps=400, record=True)
    result = runner.run_episode(Scripted([ACTION_RIGHT] * 30 + [ACTION_RIGHT_JUMP]))
    assert result.trajectory is not None and len(result.trajectory) == result.steps
    back = EpisodeResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert back == result
    assert back.to_dict() == result.to_dict()
    assert isinstance(back.trajectory.events[0], tuple)


def test_result_json_round_trip_without_trajectory_and_no_goal():
    result = EpisodeRunner(flat_stage(), max_steps=20).run_episode(Scripted([ACTION_NOOP]))
    assert result.trajectory is None and result.metrics["frames_to_goal"] is None
    data = json.loads(json.dumps(result.to_dict()))
    assert data["trajectory"] is None and data["metrics"]["frames_to_goal"] is None
    assert EpisodeResult.from_dict(data) == result


def test_result_from_dict_rejects_bad_data():
    good = EpisodeRunner(flat_stage(), max_steps=5).run_episode(Scripted()).to_dict()
    with pytest.raises(ValueError, match="done_reason"):
        EpisodeResult.from_dict({**good, "done_reason": "bored"})
    with pytest.raises(ValueError, match="steps"):
        EpisodeResult.from_dict({k: v for k, v in good.items() if k != "steps"})
    with pytest.raises(ValueError, match="length"):
        Trajectory.from_dict({**Trajectory().to_dict(), "x": [1.0]})


def test_result_str_is_readable():
    result = EpisodeRunner(flat_stage(), max_steps=300).run_episode(Scripted())
    text = str(result)
    assert text.startswith("EpisodeResult(goal on flat after")
    assert "progress 100.0%" in text and "reward" in text and "rings 0" in text
    assert "\n" not in text


# -- the runner: lifecycle -------------------------------------------------------------

def test_initial_state_is_built_once_and_never_touched(monkeypatch):
    calls = []
    real = episode_mod.create_sim
    monkeypatch.setattr(episode_mod, "create_sim", lambda s: calls.append(s) or real(s))
    runner = EpisodeRunner(flat_stage(), max_steps=100)
    before = runner.initial_state()
    results = [runner.run_episode(Scripted()) for _ in range(3)]
    assert len(calls) == 1
    after = runner.initial_state()
    assert (after.frame, after.player.physics.x, after.max_x_reached) == (
        before.frame, before.player.physics.x, before.max_x_reached)
    # Every episode starts from that state, so all three are the same.
    assert results[0].to_dict() == results[1].to_dict() == results[2].to_dict()
    assert runner.sim.frame == 100


def test_stage_by_name_is_loaded_once(monkeypatch):
    stage = flat_stage()
    calls = []
    monkeypatch.setattr(episode_mod, "load_stage", lambda n: calls.append(n) or stage)
    runner = EpisodeRunner("whatever", max_steps=10)
    for _ in range(3):
        runner.run_episode(Scripted())
    assert calls == ["whatever"] and runner.stage is stage


def test_agent_and_reward_are_reset_every_episode():
    class CountingReward:
        def __init__(self):
            self.inner = make_reward({"progress": 1.0}, 50)
            self.resets = 0

        def reset(self, sim):
            self.resets += 1
            self.inner.reset(sim)

        def step(self, sim, events):
            return self.inner.step(sim, events)

    reward = CountingReward()
    runner = EpisodeRunner(flat_stage(), reward=reward, max_steps=50)
    agent = Scripted()
    first = runner.run_episode(agent)
    second = runner.run_episode(agent)
    assert agent.resets == 2 and reward.resets == 2
    assert first.total_reward == second.total_reward > 0.0
    # A reward object without totals gives empty components.
    assert first.metrics["reward_components"] == {}


def test_reward_weights_mapping_and_default():
    weights = {"progress": 2.0, "time": 1.0}
    res = EpisodeRunner(flat_stage(), reward=weights, max_steps=60).run_episode(Scripted())
    comps = res.metrics["reward_components"]
    assert list(comps) == ["progress", "time"]
    assert comps["time"] == pytest.approx(-60.0)
    assert math.isclose(sum(comps.values()), res.total_reward, rel_tol=1e-9, abs_tol=1e-9)
    default = EpisodeRunner(flat_stage(), max_steps=60).run_episode(Scripted())
    assert set(default.metrics["reward_components"]) == {
        "progress", "speed", "goal", "death", "ring", "time"}
    assert math.isclose(sum(default.metrics["reward_components"].values()),
                        default.total_reward, rel_tol=1e-9, abs_tol=1e-9)


# -- the runner: how episodes end ------------------------------------------------------

def test_goal():
    res = EpisodeRunner(flat_stage(), max_steps=1000).run_episode(Scripted())
    m = res.metrics
    assert res.done_reason == "goal" and m["goal_reached"] is True
    assert m["frames_to_goal"] == res.steps < 1000
    assert m["progress"] == 1.0 and m["max_x"] >= m["goal_x"]
    assert m["reward_components"]["goal"] > 10.0


def test_death():
    res = EpisodeRunner(pit_stage(), max_steps=1000).run_episode(Scripted())
    assert res.done_reason == "death" and res.metrics["deaths"] == 1
    assert res.metrics["death_cause"] == "pit" and res.ended == "pit"
    assert res.metrics["goal_reached"] is False and res.metrics["frames_to_goal"] is None
    assert res.metrics["reward_components"]["death"] == pytest.approx(-5.0)
    assert str(res).startswith("EpisodeResult(pit on pit after")
    back = EpisodeResult.from_dict(json.loads(json.dumps(res.to_dict())))
    assert back == res and back.ended == "pit"


def test_a_result_written_before_death_causes_still_loads():
    res = EpisodeRunner(pit_stage(), max_steps=1000).run_episode(Scripted())
    old = res.to_dict()
    del old["metrics"]["death_cause"]
    back = EpisodeResult.from_dict(old)
    assert back.done_reason == "death" and back.ended == "death"
    assert back.to_dict() == old
    assert ending("death", old["metrics"]) == "death"
    assert ending("stalled", old["metrics"]) == "stalled"


def test_timeout_counts_frames():
    res = EpisodeRunner(flat_stage(), max_steps=37).run_episode(Scripted([ACTION_NOOP]))
    assert res.done_reason == "timeout" and res.steps == 37
    # Standing still past the default stall limit: only with stalling off.
    res = EpisodeRunner(flat_stage(), max_steps=400, stall_frames=None).run_episode(
        Scripted([ACTION_NOOP]))
    assert res.done_reason == "timeout" and res.steps == 400


def test_stalled_after_stall_frames_without_progress():
    res = EpisodeRunner(flat_stage(), max_steps=500, stall_frames=25).run_episode(
        Scripted([ACTION_NOOP]))
    assert res.done_reason == "stalled" and res.steps == 25
    # Moving for a while first: the count starts from the last new max_x.
    moving = Scripted([ACTION_RIGHT] * 40 + [ACTION_NOOP])
    res = EpisodeRunner(flat_stage(), max_steps=500, stall_frames=25).run_episode(moving)
    assert res.done_reason == "stalled" and res.steps > 40 + 25


def test_progress_metrics():
    res = EpisodeRunner(rings_stage(), max_steps=100, stall_frames=None).run_episode(Scripted())
    m = res.metrics
    assert set(METRIC_KEYS) <= set(m)
    assert m["death_cause"] is None and res.ended == "timeout"
    expected = (m["max_x"] - m["start_x"]) / (m["goal_x"] - m["start_x"])
    assert m["progress"] == pytest.approx(expected)
    assert 0.0 < m["progress"] < 1.0
    assert res.done_reason == "timeout" and res.done_reason in DONE_REASONS
    # Running left never gets behind the start: progress stays at 0.
    back = EpisodeRunner(flat_stage(start_x=300.0), max_steps=60).run_episode(Scripted([1]))
    assert back.metrics["progress"] == 0.0


def test_progress_is_clipped():
    runner = EpisodeRunner(flat_stage(), max_steps=10)
    runner.run_episode(Scripted([ACTION_NOOP]))
    sim = runner.sim
    sim.max_x_reached = sim.stage.goal.x + 500.0     # past the goal, not reached
    assert runner._metrics(sim, runner.reward)["progress"] == 1.0
    sim.max_x_reached = sim.stage.start_x - 50.0
    assert runner._metrics(sim, runner.reward)["progress"] == 0.0


def test_rings_counted():
    res = EpisodeRunner(rings_stage(), max_steps=400).run_episode(Scripted())
    assert res.metrics["rings"] == 5
    assert res.metrics["reward_components"]["ring"] == pytest.approx(0.5)


# -- the runner: observations --------------------------------------------------------------

def test_observation_choice():
    stage = flat_stage()
    agent = Scripted()
    EpisodeRunner(stage, max_steps=3).run_episode(agent)
    assert agent.seen[0].shape == (12,) and agent.seen[0].dtype == np.float32

    EpisodeRunner(stage, observation="terrain", max_steps=3).run_episode(agent)
    assert agent.seen[0].shape == (28,)

    class WantsBasic(Scripted):
        observation = "basic"

    picky = WantsBasic()
    EpisodeRunner(stage, observation="terrain", max_steps=3).run_episode(picky)
    assert picky.seen[0].shape == (12,)

    class WantsSim(Scripted):
        observe_sim = True

    reader = WantsSim()
    runner = EpisodeRunner(stage, max_steps=3)
    runner.run_episode(reader)
    assert all(s is runner.sim for s in reader.seen)
    assert isinstance(reader.seen[0], SimState)


def test_encoder_runs_once_per_decision(monkeypatch):
    calls = []
    runner = EpisodeRunner(flat_stage(), max_steps=12, action_repeat=4, stall_frames=None)
    real = runner.observation.fn

    class Spy:
        name, size = "spy", 12

        def fn(self, sim):
            calls.append(sim.frame)
            return real(sim)

    monkeypatch.setattr(runner, "observation", Spy())
    agent = Scripted()
    res = runner.run_episode(agent)
    assert res.steps == 12 and agent.calls == 3 and calls == [0, 4, 8]


# -- the runner: actions ----------------------------------------------------------------------

def spy_inputs(monkeypatch):
    inputs = []
    real = episode_mod.sim_step

    def step(sim, inp):
        inputs.append((inp.right, inp.jump_pressed, inp.jump_held))
        return real(sim, inp)

    monkeypatch.setattr(episode_mod, "sim_step", step)
    return inputs


def test_action_repeat_holds_jump_without_pressing_again(monkeypatch):
    inputs = spy_inputs(monkeypatch)
    agent = Scripted([ACTION_RIGHT_JUMP])
    EpisodeRunner(flat_stage(), max_steps=9, action_repeat=3).run_episode(agent)
    assert agent.calls == 3
    assert inputs[0] == (True, True, True)
    assert all(i == (True, False, True) for i in inputs[1:])
    assert len(inputs) == 9


def test_jump_edges_across_decisions(monkeypatch):
    inputs = spy_inputs(monkeypatch)
    agent = Scripted([ACTION_JUMP, ACTION_NOOP, ACTION_JUMP, ACTION_JUMP])
    EpisodeRunner(flat_stage(), max_steps=8, action_repeat=2).run_episode(agent)
    pressed = [p for _, p, _ in inputs]
    held = [h for _, _, h in inputs]
    assert pressed == [True, False, False, False, True, False, False, False]
    assert held == [True, True, False, False, True, True, True, True]


def test_numpy_integer_actions_are_accepted():
    res = EpisodeRunner(flat_stage(), max_steps=30).run_episode(
        Scripted([np.int64(ACTION_RIGHT), np.int32(ACTION_RIGHT)]))
    assert res.steps == 30 and res.metrics["max_x"] > 64.0


@pytest.mark.parametrize("value, error", [
    (9, ValueError), (-1, ValueError), (2.0, TypeError), ("right", TypeError),
    (None, TypeError), (True, TypeError), (np.float64(2.0), TypeError),
])
def test_invalid_action_names_agent_value_and_frame(value, error):
    runner = EpisodeRunner(flat_stage(), max_steps=50)
    with pytest.raises(error) as info:
        runner.run_episode(Returns(value, at=5))
    text = str(info.value)
    assert "Returns" in text and repr(value) in text and "frame 5" in text


def test_invalid_action_with_repeat_reports_the_frame():
    runner = EpisodeRunner(flat_stage(), max_steps=50, action_repeat=4)
    with pytest.raises(ValueError, match="frame 8"):
        runner.run_episode(Returns(8, at=2))


def test_not_an_agent():
    with pytest.raises(TypeError, match="get_action"):
        EpisodeRunner(flat_stage()).run_episode(object())


# -- the runner: recording and settings -----------------------------------------------------

def test_recording():
    stage = rings_stage()
    runner = EpisodeRunner(stage, max_steps=200, record=True)
    res = runner.run_episode(Scripted([ACTION_RIGHT] * 20 + [ACTION_RIGHT_JUMP]))
    t = res.trajectory
    assert len(t) == res.steps
    assert t.frame == list(range(1, res.steps + 1))
    assert t.x[-1] == runner.sim.player.physics.x
    assert t.action[0] == ACTION_RIGHT and t.action[20] == ACTION_RIGHT_JUMP
    assert "jump" in t.events[20]
    assert sum(e.count("ring") for e in t.events) == res.metrics["rings"]
    assert t.rings[-1] == res.metrics["rings"]
    assert t[20].state == "airborne" and t[20].on_ground is False and t[20].rolling is True
    assert t.array("x").shape == (res.steps,)
    frames = list(t)
    assert frames[0].x == t.x[0] and len(frames) == len(t)
    with pytest.raises(ValueError):
        t.array("events")
    # Per-episode override both ways.
    assert runner.run_episode(Scripted(), record=False).trajectory is None
    quiet = EpisodeRunner(stage, max_steps=10)
    assert quiet.run_episode(Scripted()).trajectory is None
    assert len(quiet.run_episode(Scripted(), record=True).trajectory) == 10


def test_bad_settings():
    stage = flat_stage()
    with pytest.raises(ValueError, match="max_steps"):
        EpisodeRunner(stage, max_steps=0)
    with pytest.raises(ValueError, match="stall_frames"):
        EpisodeRunner(stage, stall_frames=0)
    with pytest.raises(ValueError, match="action_repeat"):
        EpisodeRunner(stage, action_repeat=0)
    with pytest.raises(ValueError, match="basic"):
        EpisodeRunner(stage, observation="pixels")
    with pytest.raises(TypeError, match="reward"):
        EpisodeRunner(stage, reward=3)
    with pytest.raises(ValueError, match="progress"):
        EpisodeRunner(stage, reward={"speeed": 1.0})
    with pytest.raises(TypeError):
        EpisodeRunner(42)
    with pytest.raises(Exception, match="hillside"):
        EpisodeRunner("no-such-stage")


def test_generated_stage_reference():
    runner = EpisodeRunner((3, "easy"), max_steps=60)
    assert runner.stage.source.startswith("generated") or runner.stage.name
    assert runner.run_episode(Scripted()).steps == 60


def test_builtin_stages_run():
    from speednik.stages import list_stages
    for name in list_stages():
        res = EpisodeRunner(name, max_steps=120).run_episode(Scripted())
        assert res.metrics["stage"] == name and 0.0 < res.metrics["progress"] < 1.0

"""The reward components, their composition and the behaviours the reward
must produce."""
from __future__ import annotations

import math
import pickle
from dataclasses import dataclass
from typing import ClassVar

import pytest

from speednik.actions import ACTION_NOOP, ACTION_RIGHT, action_to_input
from speednik.entities import Ring, Spikes
from speednik.events import DeathEvent, GoalReachedEvent, JumpEvent, RingCollectedEvent
from speednik.physics import InputState
from speednik.reward import (
    DEFAULT_WEIGHTS,
    REWARD_COMPONENTS,
    STATE,
    CompositeReward,
    ProgressReward,
    RewardComponent,
    default_reward,
    make_reward,
)
from speednik.simulation import create_sim, sim_step
from speednik.stages import load_stage
from stage_fixtures import BUILTIN_STAGES, flat_stage, pit_stage

RIGHT = InputState(right=True)
IDLE = InputState()


def run(stage, inputs, reward=None):
    """(sim, reward object, per-frame rewards, per-frame events)."""
    sim = create_sim(stage)
    reward = reward or default_reward()
    reward.reset(sim)
    rewards, events = [], []
    for inp in inputs:
        ev = sim_step(sim, inp)
        rewards.append(reward.step(sim, ev))
        events.append(ev)
    return sim, reward, rewards, events


def test_default_weights_are_the_standard_table():
    assert DEFAULT_WEIGHTS == {"progress": 10.0, "speed": 0.01, "goal": 1.0,
                               "death": 5.0, "ring": 0.1, "time": 0.001}
    r = default_reward(1234)
    assert r.weights == DEFAULT_WEIGHTS and r.max_steps == 1234
    assert set(REWARD_COMPONENTS) == set(DEFAULT_WEIGHTS)


# -- behaviours -------------------------------------------------------------------

def test_idle_for_100_frames_totals_negative():
    _, reward, rewards, _ = run(flat_stage(), [IDLE] * 100)
    assert sum(rewards) < 0
    assert reward.totals["time"] == pytest.approx(-0.1)
    assert reward.totals["progress"] == pytest.approx(0.0, abs=1e-3)


def test_holding_right_for_100_frames_totals_positive():
    _, _, rewards, _ = run(flat_stage(), [RIGHT] * 100)
    assert sum(rewards) > 0


def test_reaching_the_goal_gives_a_single_frame_above_10():
    _, reward, rewards, events = run(flat_stage(goal_x=300.0), [RIGHT] * 400)
    goal_frames = [i for i, ev in enumerate(events) if any(
        isinstance(e, GoalReachedEvent) for e in ev)]
    assert len(goal_frames) == 1
    k = goal_frames[0]
    assert rewards[k] > 10.0
    assert max(r for i, r in enumerate(rewards) if i != k) < 1.0
    step = k + 1
    assert reward.totals["goal"] == pytest.approx(10.0 + 5.0 * (1 - step / 3600))


def test_goal_time_bonus_vanishes_after_max_steps():
    for max_steps, expected in ((10_000, None), (50, 10.0)):
        _, reward, _, events = run(flat_stage(goal_x=300.0), [RIGHT] * 400,
                                   default_reward(max_steps))
        step = next(i for i, ev in enumerate(events) if ev and any(
            isinstance(e, GoalReachedEvent) for e in ev)) + 1
        if expected is None:
            expected = 10.0 + 5.0 * (1 - step / max_steps)
        assert reward.totals["goal"] == pytest.approx(expected)


def test_death_frame_is_below_minus_5():
    # Standing still on spikes with no rings: death with no progress or speed.
    stage = flat_stage(spikes=[Spikes(64.0, 256.0, width=32.0)])
    _, reward, rewards, events = run(stage, [IDLE] * 20)
    deaths = [i for i, ev in enumerate(events) if any(isinstance(e, DeathEvent) for e in ev)]
    assert deaths, "the player should die on the spikes"
    assert rewards[deaths[0]] < -5.0
    assert rewards[deaths[0]] == pytest.approx(-5.001)


def test_death_is_counted_once():
    _, reward, rewards, events = run(pit_stage(), [RIGHT] * 300)
    deaths = [i for i, ev in enumerate(events) if any(isinstance(e, DeathEvent) for e in ev)]
    assert len(deaths) > 1          # the simulation repeats DeathEvent after a death
    first = deaths[0]
    assert rewards[first] < -4.5
    assert all(r > -1.0 for r in rewards[first + 1:])
    assert reward.totals["death"] == -5.0


def test_each_ring_is_worth_a_tenth():
    rings = [Ring(120.0 + 24 * i, 237.0) for i in range(6)]
    _, reward, rewards, events = run(flat_stage(rings=rings), [RIGHT] * 200,
                                     make_reward({"ring": 0.1}))
    n = sum(isinstance(e, RingCollectedEvent) for ev in events for e in ev)
    assert n == 6
    assert reward.totals["ring"] == pytest.approx(0.6)
    for r, ev in zip(rewards, events):
        assert r == pytest.approx(0.1 * sum(isinstance(e, RingCollectedEvent) for e in ev))


# -- the components ---------------------------------------------------------------

def test_components_follow_their_formulas():
    stage = flat_stage(rings=[Ring(150.0, 237.0)])
    sim = create_sim(stage)
    reward = default_reward()
    reward.reset(sim)
    start = sim.max_x_reached
    total = 0.0
    for i in range(150):
        best = sim.max_x_reached
        totals = reward.totals
        ev = sim_step(sim, RIGHT if i < 100 else IDLE)
        r = reward.step(sim, ev)
        total += r
        after = reward.totals
        gain = {k: after[k] - totals[k] for k in after}
        assert gain["progress"] == pytest.approx((sim.max_x_reached - best) / stage.width * 10)
        assert gain["speed"] == pytest.approx(abs(sim.player.physics.x_vel) / 16 * 0.01)
        assert gain["time"] == pytest.approx(-0.001)
        assert r == pytest.approx(sum(gain.values()))
    assert reward.totals["progress"] == pytest.approx((sim.max_x_reached - start) / stage.width * 10)
    assert reward.total == pytest.approx(total)
    assert reward.steps == 150


def test_reset_starts_over():
    sim, reward, _, _ = run(flat_stage(), [RIGHT] * 50)
    assert reward.totals["progress"] > 0
    reward.reset(create_sim(flat_stage()))
    assert all(v == 0.0 for v in reward.totals.values()) and reward.steps == 0
    # Progress counts from where the new episode starts, not from zero.
    fresh = create_sim(flat_stage())
    reward.reset(fresh)
    sim_step(fresh, IDLE)
    assert reward.step(fresh, []) == pytest.approx(-0.001)


def test_repeated_death_events_without_the_simulation():
    sim = create_sim(flat_stage())
    reward = make_reward({"death": 5.0})
    reward.reset(sim)
    assert reward.step(sim, [DeathEvent("pit")]) == -5.0
    assert reward.step(sim, [DeathEvent()]) == 0.0
    reward.reset(sim)
    assert reward.step(sim, [JumpEvent(), DeathEvent()]) == -5.0


def test_events_on_one_frame_add_up():
    sim = create_sim(flat_stage())
    reward = make_reward({"ring": 0.1, "goal": 1.0}, max_steps=100)
    reward.reset(sim)
    r = reward.step(sim, [RingCollectedEvent(), RingCollectedEvent(), GoalReachedEvent(1)])
    assert r == pytest.approx(0.2 + 10 + 5 * (1 - 1 / 100))


# -- composition ------------------------------------------------------------------

def test_make_reward_from_weights():
    r = make_reward({"progress": 20.0, "time": 0.002}, max_steps=100)
    assert list(r.totals) == ["progress", "time"]
    _, r, rewards, _ = run(flat_stage(), [RIGHT] * 60, r)
    _, d, _, _ = run(flat_stage(), [RIGHT] * 60)
    assert r.totals["progress"] == pytest.approx(2 * d.totals["progress"])
    assert r.totals["time"] == pytest.approx(2 * d.totals["time"])
    assert sum(rewards) == pytest.approx(r.totals["progress"] + r.totals["time"])


def test_zero_weight_components_stay_in_totals():
    _, r, rewards, _ = run(flat_stage(), [RIGHT] * 30, make_reward({"speed": 0.0, "time": 0.001}))
    assert r.totals == {"speed": 0.0, "time": pytest.approx(-0.03)}


@pytest.mark.parametrize("weights", [{"progres": 1.0}, {"progress": 1.0, "lives": 2.0}])
def test_unknown_component_names_list_the_accepted_ones(weights):
    with pytest.raises(ValueError) as err:
        make_reward(weights)
    for name in DEFAULT_WEIGHTS:
        assert repr(name) in str(err.value)


@pytest.mark.parametrize("bad", [math.nan, math.inf, "1", None, True])
def test_bad_weights_are_rejected(bad):
    with pytest.raises(ValueError, match="progress"):
        make_reward({"progress": bad})


@pytest.mark.parametrize("bad", [0, -5, 2.5, True])
def test_bad_max_steps_is_rejected(bad):
    with pytest.raises(ValueError, match="max_steps"):
        default_reward(bad)


def test_custom_components_and_duplicates():
    @dataclass(slots=True)
    class Height(RewardComponent):
        name: ClassVar[str] = "height"
        kind: ClassVar[str] = STATE

        def value(self, sim, events, step):
            return self.weight * -sim.player.physics.y_vel

    reward = CompositeReward([ProgressReward(), Height(weight=0.5)])
    _, reward, rewards, _ = run(flat_stage(), [InputState(jump_pressed=True, jump_held=True)]
                                + [InputState(jump_held=True)] * 10, reward)
    assert reward.totals["height"] != 0.0
    with pytest.raises(ValueError, match="distinct"):
        CompositeReward([ProgressReward(), ProgressReward()])


def test_pickling_mid_episode_continues_identically():
    stage = flat_stage(rings=[Ring(300.0, 237.0)])
    sim = create_sim(stage)
    reward = default_reward()
    reward.reset(sim)
    for _ in range(40):
        reward.step(sim, sim_step(sim, RIGHT))
    clone = pickle.loads(pickle.dumps(reward))
    other = sim.copy()
    assert clone.totals == reward.totals and clone.steps == reward.steps
    for _ in range(100):
        a = reward.step(sim, sim_step(sim, RIGHT))
        b = clone.step(other, sim_step(other, RIGHT))
        assert a == b
    assert clone.totals == reward.totals


# -- on the built-in stages -------------------------------------------------------

@pytest.mark.parametrize("name", BUILTIN_STAGES)
def test_idle_and_hold_right_on_builtin_stages(name):
    stage = load_stage(name)
    for action, sign in ((ACTION_NOOP, -1), (ACTION_RIGHT, 1)):
        sim = create_sim(stage)
        reward = default_reward()
        reward.reset(sim)
        held = False
        total = 0.0
        for _ in range(100):
            inp, held = action_to_input(action, held)
            total += reward.step(sim, sim_step(sim, inp))
        assert total * sign > 0

"""The planner's examples: its own decisions, and its answers in the
states a policy reaches."""
from __future__ import annotations

import numpy as np

from evolution.imitation.labels import BACK, WINDOW, LabelTask, label
from runners.episode import EpisodeRunner
from runners.policies import Policy
from speednik.actions import ACTION_RIGHT, NUM_ACTIONS
from speednik.engine.planner import plan_stage
from speednik.observation import get_observation
from speednik.stages import load_stage
from stage_fixtures import write_flat_profile

STAGE = "gen:easy:3"


def task(**changes) -> LabelTask:
    settings = dict(stage=STAGE, observation="reach", action_repeat=2, max_steps=3600,
                    stall_frames=240, policy=Policy("mlp", "reach", hidden=4), genome=None)
    settings.update(changes)
    return LabelTask(**settings)


def test_the_planners_own_play_gives_its_action_at_every_decision():
    plan = plan_stage(load_stage(STAGE), stall_frames=240)
    assert plan.found
    episode = label(task())
    assert episode.reached_goal
    # One example at every other frame of the plan, the plan's action there.
    assert list(episode.actions) == list(plan.actions[::2])
    assert episode.observations.shape == (len(episode.actions), get_observation("reach").size)
    # The first observation is the start's.
    sim = EpisodeRunner(STAGE).initial_state()
    assert np.array_equal(episode.observations[0], get_observation("reach").fn(sim))


def holding(action: int, family: str = "linear") -> tuple[Policy, np.ndarray]:
    """A policy whose every decision is `action`: only that action's bias."""
    policy = Policy(family, "reach")
    genome = np.zeros(policy.genome_size())
    genome[len(genome) - NUM_ACTIONS + action] = 1.0
    return policy, genome


class Recorder:
    """Holds one action and keeps the observation at every frame."""

    def __init__(self, action: int) -> None:
        self.action = action
        self.seen: list[np.ndarray] = []

    def reset(self) -> None:
        self.seen = []

    def get_action(self, obs) -> int:
        self.seen.append(np.array(obs))
        return self.action


def test_a_policy_that_stands_still_is_shown_the_planners_way_from_the_start():
    """All-zero weights press noop: the player never gains ground, so the
    planner takes over from the start, and its first WINDOW frames are the
    examples, one a decision."""
    policy = Policy("mlp", "reach", hidden=4)
    episode = label(task(genome=np.zeros(policy.genome_size())))
    assert not episode.reached_goal
    plan = plan_stage(load_stage(STAGE), stall_frames=240)
    assert len(plan.actions) > WINDOW
    assert list(episode.actions) == list(plan.actions[:WINDOW:2])
    start = get_observation("reach").fn(EpisodeRunner(STAGE).initial_state())
    assert np.array_equal(episode.observations[0], start)


def test_where_a_policy_fails_the_planner_takes_over_before_and_at_its_last_gain():
    """Holding right stalls against a wall of gen:easy:0: the planner is
    asked from the state BACK frames before the last new ground and from
    that state, and each plan's decisions over WINDOW frames are kept."""
    stage = "gen:easy:0"
    policy, genome = holding(ACTION_RIGHT)
    runner = EpisodeRunner(stage, observation="reach", max_steps=3600, stall_frames=240)
    recorder = Recorder(ACTION_RIGHT)
    assert runner.run_episode(recorder).done_reason == "stalled"
    last_gain = runner.sim.frame - runner.sim.frames_without_gain
    assert last_gain > BACK
    episode = label(task(stage=stage, policy=policy, genome=genome))
    assert not episode.reached_goal
    # Two plans found, WINDOW / 2 decisions of each.
    assert len(episode.actions) == WINDOW
    first, second = (last_gain - BACK) // 2 * 2, (last_gain - 1) // 2 * 2
    assert np.array_equal(episode.observations[0], recorder.seen[first])
    assert np.array_equal(episode.observations[WINDOW // 2], recorder.seen[second])
    # Against the wall, the way on is not to press on.
    assert episode.actions[WINDOW // 2] != ACTION_RIGHT


def test_a_stage_the_policy_finishes_teaches_nothing(tmp_path):
    profile = write_flat_profile(tmp_path)
    policy, genome = holding(ACTION_RIGHT)
    episode = label(task(stage=profile, policy=policy, genome=genome))
    assert episode.reached_goal and len(episode.actions) == 0
    assert episode.observations.shape == (0, get_observation("reach").size)


def test_a_stage_the_planner_cannot_finish_teaches_nothing():
    episode = label(task(max_steps=60))
    assert len(episode.actions) == 0 and not episode.reached_goal

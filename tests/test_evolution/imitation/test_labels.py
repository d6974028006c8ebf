"""The planner's examples: its own decisions, and its answers in the
states a policy reaches."""
from __future__ import annotations

import numpy as np

from evolution.imitation.labels import LABEL_EVERY, LabelTask, label
from runners.episode import EpisodeRunner
from runners.policies import Policy
from speednik.engine.planner import plan_stage
from speednik.observation import get_observation
from speednik.stages import load_stage

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


def test_a_policys_states_are_labelled_by_the_planner_from_there():
    """A policy that stands still (all-zero weights press noop) is
    labelled every LABEL_EVERY decisions until the stall ends it, each
    label the first action of the planner's way from the start."""
    policy = Policy("mlp", "reach", hidden=4)
    genome = np.zeros(policy.genome_size())
    episode = label(task(genome=genome))
    assert not episode.reached_goal
    decisions = 240 // 2           # the stall clock ends it at frame 240
    assert len(episode.actions) == -(-decisions // LABEL_EVERY)
    first = plan_stage(load_stage(STAGE), stall_frames=240, retry=False).actions[0]
    # Standing still, the player is where it started (only the stall
    # clock it observes runs): one answer throughout.
    assert set(episode.actions) == {first}
    start = get_observation("reach").fn(EpisodeRunner(STAGE).initial_state())
    assert np.array_equal(episode.observations[0], start)


def test_a_stage_the_planner_cannot_finish_teaches_nothing():
    episode = label(task(max_steps=60))
    assert len(episode.actions) == 0 and not episode.reached_goal

"""Examples of what the planner presses: (observation, action) pairs at
the decisions of a policy deciding every `action_repeat` frames."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from runners.episode import EpisodeRunner
from speednik.actions import ACTION_RIGHT
from speednik.constants import DEFAULT_STALL_FRAMES
from speednik.engine import CompiledSim
from speednik.engine.planner import plan_from, plan_stage
from speednik.observation import get_observation
from speednik.stages import load_stage

# A policy's states are labelled at one decision in this many: the
# planner's search from a state costs as much as hundreds of frames of
# play, and states a few decisions apart ask much the same.
LABEL_EVERY = 6


@dataclass(frozen=True)
class Episode:
    """What one stage taught: its examples, and how the player did."""

    stage: str
    observations: np.ndarray      # (n, observation size)
    actions: np.ndarray           # (n,) int64
    reached_goal: bool


@dataclass(frozen=True)
class LabelTask:
    """One stage to label; `genome` None: the planner plays it."""

    stage: str
    observation: str
    action_repeat: int
    max_steps: int
    stall_frames: int | None
    policy: object = None         # a runners.policies.Policy
    genome: np.ndarray | None = None


def label(task: LabelTask) -> Episode:
    """The examples of one stage: the planner's own decisions when the
    task has no genome, else the planner's answers in the policy's states."""
    if task.genome is None:
        return plan_labels(task)
    return policy_labels(task)


def plan_labels(task: LabelTask) -> Episode:
    """The planner's plan for the stage, played frame by frame: the
    observation at every decision frame and the action the plan presses
    there. A stage the planner finds no way through gives no examples."""
    stage = load_stage(task.stage)
    plan = plan_stage(stage, max_frames=task.max_steps,
                      stall_frames=task.stall_frames or DEFAULT_STALL_FRAMES)
    encoder = get_observation(task.observation)
    size = encoder.size
    if not plan.found:
        return Episode(task.stage, np.zeros((0, size)), np.zeros(0, np.int64), False)
    player = _PlanPlayer(plan.actions, task.action_repeat)
    runner = EpisodeRunner(stage, observation=encoder, max_steps=task.max_steps,
                           stall_frames=task.stall_frames, action_repeat=1)
    return player.episode(task.stage, size, runner.run_episode(player))


def policy_labels(task: LabelTask) -> Episode:
    """The policy plays the stage; at one decision in LABEL_EVERY the
    planner searches a way to the goal from the state reached, in the
    frames left, with the beam it certifies stages with but without its
    retries, and its first action is that state's label (none where it
    finds no way: a state already lost teaches nothing)."""
    stage = load_stage(task.stage)
    encoder = get_observation(task.observation)
    runner = EpisodeRunner(stage, observation=encoder, max_steps=task.max_steps,
                           stall_frames=task.stall_frames,
                           action_repeat=task.action_repeat)
    student = _AskingPlayer(task.policy.agent(task.genome), runner,
                            task.stall_frames or DEFAULT_STALL_FRAMES)
    return student.episode(task.stage, encoder.size, runner.run_episode(student))


class _Examples:
    """The examples a player keeps over one episode."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.step = 0
        self.kept: list[np.ndarray] = []
        self.labels: list[int] = []

    def keep(self, obs, action: int) -> None:
        self.kept.append(np.array(obs, dtype=np.float64))
        self.labels.append(action)

    def episode(self, stage: str, size: int, result) -> Episode:
        return Episode(stage, np.array(self.kept, dtype=np.float64).reshape(-1, size),
                       np.array(self.labels, dtype=np.int64), result.done_reason == "goal")


class _PlanPlayer(_Examples):
    """Presses a plan's actions, one a frame, keeping the observation and
    action of every `repeat`-th frame (a decision of the policy)."""

    observation = None

    def __init__(self, actions: tuple[int, ...], repeat: int) -> None:
        self.actions = actions
        self.repeat = repeat
        super().__init__()

    def get_action(self, obs) -> int:
        # Past the plan's end the goal has been reached; right is a filler.
        action = self.actions[self.step] if self.step < len(self.actions) else ACTION_RIGHT
        if self.step % self.repeat == 0:
            self.keep(obs, action)
        self.step += 1
        return action


class _AskingPlayer(_Examples):
    """Plays a policy and asks the planner about some of its states; it
    reads the state from the runner, as `runners.diagnosis` does."""

    def __init__(self, agent, runner: EpisodeRunner, stall_frames: int) -> None:
        self.agent = agent
        self.observation = getattr(agent, "observation", None)
        self.runner = runner
        self.stall_frames = stall_frames
        super().__init__()

    def reset(self) -> None:
        self.agent.reset()
        super().reset()

    def get_action(self, obs) -> int:
        action = self.agent.get_action(obs)
        if self.step % LABEL_EVERY == 0:
            sim = self.runner.sim
            left = self.runner.max_steps - sim.frame
            if left > 0:
                compiled = CompiledSim(sim)
                plan = plan_from(compiled.compiled, compiled.f, compiled.s, compiled.gone,
                                 held=bool(sim.jump_held),
                                 max_frames=left, stall_frames=self.stall_frames,
                                 retry=False)
                if plan.found:
                    self.keep(obs, plan.actions[0])
        self.step += 1
        return action

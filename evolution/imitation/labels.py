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

# Where a policy fails, the planner is asked from the state it stood in
# when it last gained ground (against the wall, or at its last leap) and
# from the state BACK frames before (where the move that failed began).
BACK = 120
# Along each of its plans the labels are kept for this many frames: long
# enough for a run-up taken backwards and the move that passes.
WINDOW = 360


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
    player = _PlanPlayer(plan.actions, task.action_repeat, encoder)
    runner = EpisodeRunner(stage, max_steps=task.max_steps,
                           stall_frames=task.stall_frames, action_repeat=1)
    return player.episode(task.stage, size, runner.run_episode(player))


def policy_labels(task: LabelTask) -> Episode:
    """The policy plays the stage; where it fails (a death, a stall or the
    time running out), the planner searches a way to the goal from two
    states of its play, the one where it last gained ground and the one
    BACK frames before, in the frames left, as it certifies stages (its
    retries too: from a state at speed the first beam often misses a way
    that a second finds). Each plan found is pressed from its state on,
    and the planner's decisions along its first WINDOW frames are the
    examples: what to do from where this policy goes wrong. A stage the
    policy finishes, or a state from which no way is found, teaches
    nothing."""
    stage = load_stage(task.stage)
    encoder = get_observation(task.observation)
    stall = task.stall_frames or DEFAULT_STALL_FRAMES
    # One frame a step, the policy's decisions held `action_repeat`
    # frames: the same play as a runner that repeats them, with a way to
    # take over at any decision.
    runner = EpisodeRunner(stage, max_steps=task.max_steps,
                           stall_frames=task.stall_frames, action_repeat=1)
    agent = task.policy.agent(task.genome)
    named = getattr(agent, "observation", None)
    if named is not None:
        encoder = get_observation(named)
    own = _RescuedPlayer(agent, encoder, runner, task.action_repeat, stall)
    if runner.run_episode(own).done_reason == "goal":
        return Episode(task.stage, np.zeros((0, encoder.size)), np.zeros(0, np.int64), True)
    last_gain = runner.sim.frame - runner.sim.frames_without_gain
    repeat = task.action_repeat
    anchors = sorted({max(0, last_gain - BACK) // repeat * repeat,
                      max(0, last_gain - 1) // repeat * repeat})
    observations, actions = [], []
    for anchor in anchors:
        # The policy's own presses up to the anchor: the same states, and
        # no observation to compute on the way.
        player = _RescuedPlayer(agent, encoder, runner, repeat, stall, own.pressed[:anchor])
        runner.run_episode(player)
        observations.extend(player.kept)
        actions.extend(player.labels)
    return Episode(task.stage, np.array(observations, dtype=np.float64).reshape(-1, encoder.size),
                   np.array(actions, dtype=np.int64), False)


class _Examples:
    """The examples a player keeps over one episode. Players are handed
    the simulation (`observe_sim`) and encode it only where a decision
    or an example needs it: the observation is most of a frame's cost."""

    observe_sim = True

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

    def __init__(self, actions: tuple[int, ...], repeat: int, encoder) -> None:
        self.actions = actions
        self.repeat = repeat
        self.encode = encoder.fn
        super().__init__()

    def get_action(self, sim) -> int:
        # Past the plan's end the goal has been reached; right is a filler.
        action = self.actions[self.step] if self.step < len(self.actions) else ACTION_RIGHT
        if self.step % self.repeat == 0:
            self.keep(self.encode(sim), action)
        self.step += 1
        return action


class _RescuedPlayer(_Examples):
    """Plays a policy, deciding every `repeat` frames, and keeps what it
    pressed (`pressed`, one action a frame); or, given the presses of
    such a play up to an anchor frame, presses them, and from the anchor
    on lets the planner search on from the state the runner holds, a
    plan found pressed to its end and the decisions of its first WINDOW
    frames kept as examples."""

    def __init__(self, agent, encoder, runner: EpisodeRunner, repeat: int,
                 stall_frames: int, presses: list[int] | None = None) -> None:
        self.agent = agent
        self.encode = encoder.fn
        self.runner = runner
        self.repeat = repeat
        self.stall_frames = stall_frames
        self.presses = presses
        super().__init__()

    def reset(self) -> None:
        self.agent.reset()
        self.plan: tuple[int, ...] | None = None
        self.held = 0
        self.pressed: list[int] = []
        super().reset()

    def get_action(self, sim) -> int:
        step = self.step
        self.step += 1
        if self.presses is None:
            if step % self.repeat == 0:
                self.held = self.agent.get_action(self.encode(sim))
            self.pressed.append(self.held)
            return self.held
        if step < len(self.presses):
            return self.presses[step]
        if self.plan is None:
            self.plan = self._plan()
        i = step - len(self.presses)
        if not self.plan:
            # No way on was found: nothing to learn, and the episode only
            # has to end.
            return ACTION_RIGHT
        # Past the plan's end the goal has been reached; right is a filler.
        action = self.plan[i] if i < len(self.plan) else ACTION_RIGHT
        if i < WINDOW and i % self.repeat == 0:
            self.keep(self.encode(sim), action)
        return action

    def _plan(self) -> tuple[int, ...]:
        sim = self.runner.sim
        left = self.runner.max_steps - sim.frame
        if left < 1:
            return ()
        compiled = CompiledSim(sim)
        plan = plan_from(compiled.compiled, compiled.f, compiled.s, compiled.gone,
                         held=bool(sim.jump_held), max_frames=left,
                         stall_frames=self.stall_frames)
        return plan.actions if plan.found else ()

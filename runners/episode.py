"""`EpisodeRunner`: one stage, any agent, one episode at a time.

    runner = EpisodeRunner("hillside", max_steps=3600)
    result = runner.run_episode(agent)        # an EpisodeResult

The runner is built once per stage: it loads the stage and creates the
pristine initial `SimState` in `__init__`; every episode starts from a
copy of that state, so running an episode never touches a file.

An episode is: `agent.reset()`, `reward.reset(sim)`, then until it ends

    obs = encoder(sim)                      (or the sim, see BaseAgent)
    action = agent.get_action(obs)          once every `action_repeat` frames
    events = sim_step(sim, action_to_input(action, jump_held))
    total += reward.step(sim, events)

and it ends, checked after every frame in this order, with

- "goal":    the player reached the goal;
- "death":   the player died (`metrics["death_cause"]` says of what);
- "stalled": max_x has not grown for `stall_frames` frames;
- "timeout": `max_steps` frames were simulated.

This loop runs tens of millions of frames in an evolution run, so it is
written for speed: everything it uses is a local variable, button states
come from a table built at import, and nothing is recorded unless asked.
"""
from __future__ import annotations

import os
from typing import Any, Mapping

from speednik.actions import NUM_ACTIONS, action_to_input, check_action
from speednik.checks import positive_int as _positive_int
from speednik.constants import DEFAULT_MAX_STEPS, DEFAULT_STALL_FRAMES
from speednik.observation import ObservationEncoder, get_observation
from speednik.reward import default_reward, make_reward
from speednik.simulation import SimState, create_sim, sim_step
from speednik.stages import Stage, generate_stage, load_stage

from runners.result import EpisodeResult, Trajectory, event_name

# A stage is given by name (or .toml path), as a built Stage, or as a
# (seed, difficulty) pair for a generated one.
StageRef = str | os.PathLike | Stage | tuple

# (InputState, jump_held_now) of every action, after a frame with the jump
# button up and after one with it down: the loop indexes these instead of
# calling action_to_input. Repeating a jump action therefore keeps the
# button held instead of pressing it again.
_AFTER_UP = tuple(action_to_input(a, False) for a in range(NUM_ACTIONS))
_AFTER_DOWN = tuple(action_to_input(a, True) for a in range(NUM_ACTIONS))


def stage_key(stage: StageRef) -> Any:
    """A hashable key naming the same stage as `stage`, for caches of
    things built per stage: names and (seed, difficulty) pairs as they
    are, a path as its string, a built `Stage` by identity (the cache must
    then check the id was not reused)."""
    if isinstance(stage, (str, tuple)):
        return stage
    if isinstance(stage, os.PathLike):
        return ("path", os.fspath(stage))
    return ("object", id(stage))


def resolve_stage(stage: StageRef) -> Stage:
    """The `Stage` a reference names: a built-in name or .toml path, a
    `Stage` (returned as is), or a `(seed, difficulty)` pair."""
    if isinstance(stage, Stage):
        return stage
    if isinstance(stage, tuple):
        if len(stage) != 2:
            raise ValueError(
                f"a generated stage is given as (seed, difficulty), got {stage!r}")
        return generate_stage(*stage)
    if isinstance(stage, (str, os.PathLike)):
        return load_stage(stage)
    raise TypeError(
        "a stage is a name, a .toml path, a Stage or a (seed, difficulty) pair, "
        f"not {type(stage).__name__}")


def _build_reward(reward: Any, max_steps: int):
    if reward is None:
        return default_reward(max_steps)
    if isinstance(reward, Mapping):
        return make_reward(reward, max_steps)
    if callable(getattr(reward, "reset", None)) and callable(getattr(reward, "step", None)):
        return reward
    raise TypeError(
        "reward must be None (the default reward), a mapping of component weights "
        f"or a reward object with reset(sim) and step(sim, events), not "
        f"{type(reward).__name__}")


def _checked_action(agent: object, value: object, frame: int) -> int:
    """`value` as an action id, or the error of `check_action` with the
    agent, the value and the frame in front of it."""
    try:
        return check_action(value)
    except (TypeError, ValueError) as e:
        raise type(e)(
            f"{type(agent).__name__}.get_action returned {value!r} at frame "
            f"{frame}: {e}") from None


def _record(traj: Trajectory, sim: SimState, action: int, events: list) -> None:
    player = sim.player
    p = player.physics
    traj.frame.append(sim.frame)
    traj.x.append(p.x)
    traj.y.append(p.y)
    traj.x_vel.append(p.x_vel)
    traj.y_vel.append(p.y_vel)
    traj.ground_speed.append(p.ground_speed)
    traj.angle.append(int(p.angle))
    traj.on_ground.append(bool(p.on_ground))
    traj.rolling.append(bool(p.is_rolling))
    traj.facing_right.append(bool(p.facing_right))
    traj.state.append(player.state.name.lower())
    traj.rings.append(int(player.rings))
    traj.action.append(action)
    traj.events.append(tuple(event_name(e) for e in events))


class EpisodeRunner:
    """Runs agents through one stage; see the module docstring.

    - `stage`: a name, a .toml path, a `Stage` or a (seed, difficulty) pair;
    - `observation`: the encoder for agents that do not name their own;
    - `reward`: None (the default table of `speednik.reward`), a mapping of
      component weights, or a reward object (`reset(sim)`, `step(sim,
      events)`, optionally `totals`); it is reset at every episode start;
    - `max_steps`: frames before a "timeout";
    - `stall_frames`: frames without new max_x before "stalled" (None: never);
    - `action_repeat`: frames each decision is held for;
    - `record`: keep a per-frame `Trajectory` in every result.

    `sim` is the final state of the latest episode (None before the first).
    """

    def __init__(self, stage: StageRef, observation: str | ObservationEncoder = "basic",
                 reward: Any = None, max_steps: int = DEFAULT_MAX_STEPS,
                 stall_frames: int | None = DEFAULT_STALL_FRAMES,
                 action_repeat: int = 1, record: bool = False) -> None:
        self.max_steps = _positive_int(max_steps, "max_steps")
        self.stall_frames = (None if stall_frames is None
                             else _positive_int(stall_frames, "stall_frames"))
        self.action_repeat = _positive_int(action_repeat, "action_repeat")
        self.observation = get_observation(observation)
        self.reward = _build_reward(reward, self.max_steps)
        self.record = bool(record)
        self.stage = resolve_stage(stage)
        self._initial = create_sim(self.stage)
        self.sim: SimState | None = None

    def __repr__(self) -> str:
        return (
            f"EpisodeRunner({self.stage.name!r}, observation={self.observation.name!r}, "
            f"max_steps={self.max_steps}, stall_frames={self.stall_frames}, "
            f"action_repeat={self.action_repeat}, record={self.record})")

    def initial_state(self) -> SimState:
        """A fresh copy of the stage's starting state."""
        return self._initial.copy()

    def encoder_for(self, agent: object) -> ObservationEncoder | None:
        """The encoder `agent` is fed through (None: it gets the SimState)."""
        if getattr(agent, "observe_sim", False):
            return None
        name = getattr(agent, "observation", None)
        return self.observation if name is None else get_observation(name)

    def run_episode(self, agent: Any, *, record: bool | None = None) -> EpisodeResult:
        """Run one episode of `agent` from the stage's start; `record`
        overrides the runner's setting for this episode."""
        if not (callable(getattr(agent, "get_action", None))
                and callable(getattr(agent, "reset", None))):
            raise TypeError(
                f"an agent needs get_action(obs) and reset(); {type(agent).__name__} "
                "has not both (subclass runners.BaseAgent)")
        encoder = self.encoder_for(agent)
        encode = None if encoder is None else encoder.fn
        traj = Trajectory() if (self.record if record is None else record) else None

        agent.reset()
        self.sim = sim = self._initial.copy()
        reward = self.reward
        reward.reset(sim)

        get_action = agent.get_action
        reward_step = reward.step
        step = sim_step
        after_up, after_down = _AFTER_UP, _AFTER_DOWN
        max_steps = self.max_steps
        # Disabled stalling becomes a limit the episode can never reach.
        stall = self.stall_frames if self.stall_frames is not None else max_steps + 1
        repeat = self.action_repeat
        n_actions = NUM_ACTIONS

        total = 0.0
        frames = 0
        held = False
        action = 0
        left = 0            # frames still to play of the current decision
        reason = "timeout"
        while True:
            if left == 0:
                action = get_action(sim if encode is None else encode(sim))
                if action.__class__ is not int or action < 0 or action >= n_actions:
                    action = _checked_action(agent, action, frames)
                left = repeat
            left -= 1
            inp, held = (after_down if held else after_up)[action]
            events = step(sim, inp)
            total += reward_step(sim, events)
            frames += 1
            if traj is not None:
                _record(traj, sim, action, events)
            # The goal and death always come with an event.
            if events and (sim.goal_reached or sim.player_dead):
                reason = "goal" if sim.goal_reached else "death"
                break
            if sim.frames_without_gain >= stall:
                reason = "stalled"
                break
            if frames >= max_steps:
                break

        return EpisodeResult(
            total_reward=float(total), steps=frames, metrics=self._metrics(sim, reward),
            done_reason=reason, trajectory=traj)

    def _metrics(self, sim: SimState, reward: Any) -> dict[str, Any]:
        totals = getattr(reward, "totals", None)
        p = sim.player.physics
        return episode_metrics(
            self.stage, max_x=sim.max_x_reached, final_x=p.x, final_y=p.y,
            rings=sim.rings_collected, goal_reached=sim.goal_reached,
            frame=sim.frame, deaths=sim.deaths,
            death_cause=sim.death_cause if sim.player_dead else None,
            reward_totals=totals)


def episode_metrics(stage: Stage, *, max_x: float, final_x: float, final_y: float,
                    rings: int, goal_reached: bool, frame: int, deaths: int,
                    death_cause: str | None,
                    reward_totals: Mapping[str, float] | None) -> dict[str, Any]:
    """The metrics of an `EpisodeResult` from an episode's final state,
    whichever engine ran it; `death_cause` is None when the player lived."""
    start_x = float(stage.start_x)
    goal_x = float(stage.goal.x)
    max_x = float(max_x)
    if goal_reached:
        progress = 1.0
    elif goal_x > start_x:
        progress = (max_x - start_x) / (goal_x - start_x)
        progress = 0.0 if progress < 0.0 else 1.0 if progress > 1.0 else progress
    else:
        progress = 0.0
    return {
        "stage": stage.name,
        "start_x": start_x,
        "goal_x": goal_x,
        "max_x": max_x,
        "progress": float(progress),
        "final_x": float(final_x),
        "final_y": float(final_y),
        "rings": int(rings),
        "goal_reached": bool(goal_reached),
        "frames_to_goal": int(frame) if goal_reached else None,
        "deaths": int(deaths),
        "death_cause": death_cause or None,
        "reward_components": (
            {str(k): float(v) for k, v in reward_totals.items()}
            if reward_totals else {}),
    }

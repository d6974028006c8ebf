"""How episodes are played: a `RunnerConfig` of plain values (observation,
limits, reward, what to record), and an `EpisodeTask` that carries its own."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from runners.episode import DEFAULT_STALL_FRAMES, EpisodeRunner, StageRef, _positive_int
from runners.specs import AgentSpec
from speednik.constants import DEFAULT_MAX_STEPS
from speednik.observation import get_observation


@dataclass(frozen=True, slots=True)
class RunnerConfig:
    """How to run episodes, as plain, hashable data: the arguments of
    `EpisodeRunner` other than the stage. `reward` is None (the default
    reward) or component weights, given as a mapping or as (name, weight)
    pairs; it is stored as pairs."""

    observation: str = "basic"
    reward: tuple[tuple[str, float], ...] | None = None
    max_steps: int = DEFAULT_MAX_STEPS
    stall_frames: int | None = DEFAULT_STALL_FRAMES
    action_repeat: int = 1
    record: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.observation, str):
            raise TypeError(
                f"RunnerConfig.observation is an encoder name, not "
                f"{type(self.observation).__name__}")
        get_observation(self.observation)
        if self.reward is not None:
            pairs = (self.reward.items() if isinstance(self.reward, Mapping)
                     else self.reward)
            object.__setattr__(
                self, "reward", tuple((str(k), float(w)) for k, w in pairs))
        _positive_int(self.max_steps, "max_steps")
        if self.stall_frames is not None:
            _positive_int(self.stall_frames, "stall_frames")
        _positive_int(self.action_repeat, "action_repeat")

    def build(self, stage: StageRef) -> EpisodeRunner:
        """A runner of `stage` with these settings."""
        return EpisodeRunner(
            stage, observation=self.observation,
            reward=None if self.reward is None else dict(self.reward),
            max_steps=self.max_steps, stall_frames=self.stall_frames,
            action_repeat=self.action_repeat, record=self.record)


@dataclass(frozen=True, slots=True)
class EpisodeTask:
    """One episode to run: an agent spec, a stage reference and a config."""

    agent: AgentSpec
    stage: StageRef
    config: RunnerConfig = field(default_factory=RunnerConfig)

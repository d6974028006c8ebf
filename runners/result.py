"""`EpisodeResult`: what one episode produced, as plain data.

A result is small (a few numbers and a metrics dict) unless the episode was
recorded, in which case it also holds a `Trajectory`: one entry per
simulated frame with everything a replay picture needs. Both convert to a
plain dict that survives `json.dumps` / `json.loads` unchanged, so results
can be logged, written to disk and sent between processes.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Iterator, Mapping

import numpy as np

from speednik.events import (
    CheckpointEvent,
    DamageEvent,
    DeathEvent,
    EnemyDestroyedEvent,
    GoalReachedEvent,
    JumpEvent,
    RingCollectedEvent,
    SpringEvent,
)

DONE_REASONS: tuple[str, ...] = ("goal", "death", "timeout", "stalled")

# Short names of the simulation's events, as they appear in a trajectory.
EVENT_NAMES: dict[type, str] = {
    RingCollectedEvent: "ring",
    DamageEvent: "damage",
    DeathEvent: "death",
    SpringEvent: "spring",
    GoalReachedEvent: "goal",
    CheckpointEvent: "checkpoint",
    EnemyDestroyedEvent: "enemy",
    JumpEvent: "jump",
}

# The metrics every result carries (see `EpisodeRunner`); more may be added.
# (Results written before "death_cause" existed lack it; see `ending`.)
METRIC_KEYS: tuple[str, ...] = (
    "stage", "start_x", "goal_x", "max_x", "progress", "final_x", "final_y",
    "rings", "goal_reached", "frames_to_goal", "deaths", "death_cause",
    "reward_components",
)


def ending(done_reason: str, metrics: Mapping[str, Any]) -> str:
    """Why an episode ended, in one word: "goal", "timeout", "stalled", or
    for a death what killed the player ("spikes", "pit", "enemy:walker":
    `speednik.events.CAUSES`). A death recorded before causes were kept
    reads "death"."""
    if done_reason == "death":
        return metrics.get("death_cause") or "death"
    return done_reason


def event_name(event: object) -> str:
    """The short name of a simulation event ("ring", "jump", ...)."""
    name = EVENT_NAMES.get(type(event))
    return name if name is not None else type(event).__name__.lower()


@dataclass(frozen=True, slots=True)
class FrameRecord:
    """One recorded frame: the action taken on it, what happened during it,
    and the player's state at its end. `rings` is the count the player
    holds (what a HUD shows), which a hit drops to zero."""

    frame: int
    x: float
    y: float
    x_vel: float
    y_vel: float
    ground_speed: float
    angle: int
    on_ground: bool
    rolling: bool
    facing_right: bool
    state: str
    rings: int
    action: int
    events: tuple[str, ...]


TRAJECTORY_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(FrameRecord))


@dataclass(slots=True)
class Trajectory:
    """A recorded episode, stored by column (one list per `FrameRecord`
    field) so recording appends to lists and a plot reads whole columns:

        xs = traj.array("x")          # numpy array, one value per frame
        for f in traj: f.x, f.events  # or frame by frame
    """

    frame: list[int] = field(default_factory=list)
    x: list[float] = field(default_factory=list)
    y: list[float] = field(default_factory=list)
    x_vel: list[float] = field(default_factory=list)
    y_vel: list[float] = field(default_factory=list)
    ground_speed: list[float] = field(default_factory=list)
    angle: list[int] = field(default_factory=list)
    on_ground: list[bool] = field(default_factory=list)
    rolling: list[bool] = field(default_factory=list)
    facing_right: list[bool] = field(default_factory=list)
    state: list[str] = field(default_factory=list)
    rings: list[int] = field(default_factory=list)
    action: list[int] = field(default_factory=list)
    events: list[tuple[str, ...]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.frame)

    def __getitem__(self, i: int) -> FrameRecord:
        return FrameRecord(*(getattr(self, name)[i] for name in TRAJECTORY_FIELDS))

    def __iter__(self) -> Iterator[FrameRecord]:
        for i in range(len(self.frame)):
            yield self[i]

    def array(self, name: str) -> np.ndarray:
        """One numeric column as a numpy array."""
        if name not in TRAJECTORY_FIELDS or name in ("state", "events"):
            raise ValueError(
                f"no numeric trajectory column {name!r}: accepted are "
                f"{', '.join(n for n in TRAJECTORY_FIELDS if n not in ('state', 'events'))}")
        return np.asarray(getattr(self, name))

    def to_dict(self) -> dict[str, list]:
        out = {name: list(getattr(self, name)) for name in TRAJECTORY_FIELDS}
        out["events"] = [list(e) for e in self.events]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Trajectory:
        missing = [n for n in TRAJECTORY_FIELDS if n not in data]
        if missing:
            raise ValueError(f"trajectory is missing column(s) {', '.join(missing)}")
        columns = {name: list(data[name]) for name in TRAJECTORY_FIELDS}
        lengths = {len(c) for c in columns.values()}
        if len(lengths) > 1:
            raise ValueError(f"trajectory columns differ in length: {sorted(lengths)}")
        columns["events"] = [tuple(e) for e in columns["events"]]
        return cls(**columns)


@dataclass(slots=True)
class EpisodeResult:
    """The outcome of one episode.

    - `total_reward`: sum of the reward over every frame;
    - `steps`: frames simulated (decisions times the action repeat, less
      any frames cut off by the end);
    - `metrics`: plain values, at least those of `METRIC_KEYS`: `max_x`,
      `progress` ((max_x - start_x) / (goal_x - start_x), clipped to 0..1),
      `rings` (collected this episode), `goal_reached`, `frames_to_goal`
      (None unless reached), `deaths`, `death_cause` (what killed the
      player, one of `speednik.events.CAUSES`; None when it lived),
      `reward_components` (each reward component's total, by name), and
      where the stage starts and ends;
    - `done_reason`: one of `DONE_REASONS`; `ended` says the same with a
      death's cause in place of "death";
    - `trajectory`: the recorded frames, or None when recording was off.
    """

    total_reward: float
    steps: int
    metrics: dict[str, Any]
    done_reason: str
    trajectory: Trajectory | None = None

    @property
    def progress(self) -> float:
        return self.metrics["progress"]

    @property
    def goal_reached(self) -> bool:
        return self.metrics["goal_reached"]

    @property
    def ended(self) -> str:
        """`done_reason`, with a death told by its cause (see `ending`)."""
        return ending(self.done_reason, self.metrics)

    def __str__(self) -> str:
        m = self.metrics
        where = f" on {m['stage']}" if m.get("stage") else ""
        return (
            f"EpisodeResult({self.ended}{where} after {self.steps} frames, "
            f"progress {m.get('progress', 0.0):.1%}, reward {self.total_reward:.3f}, "
            f"rings {m.get('rings', 0)}, deaths {m.get('deaths', 0)}, "
            f"max_x {m.get('max_x', 0.0):.0f})"
        )

    def to_dict(self) -> dict[str, Any]:
        """A plain dict (JSON-ready) that `from_dict` turns back into an
        equal result."""
        metrics = dict(self.metrics)
        if isinstance(metrics.get("reward_components"), Mapping):
            metrics["reward_components"] = dict(metrics["reward_components"])
        return {
            "total_reward": self.total_reward,
            "steps": self.steps,
            "done_reason": self.done_reason,
            "metrics": metrics,
            "trajectory": None if self.trajectory is None else self.trajectory.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EpisodeResult:
        missing = [k for k in ("total_reward", "steps", "done_reason", "metrics")
                   if k not in data]
        if missing:
            raise ValueError(f"episode result is missing {', '.join(missing)}")
        if data["done_reason"] not in DONE_REASONS:
            raise ValueError(
                f"unknown done_reason {data['done_reason']!r}: accepted are "
                f"{', '.join(DONE_REASONS)}")
        traj = data.get("trajectory")
        return cls(
            total_reward=data["total_reward"],
            steps=data["steps"],
            metrics=dict(data["metrics"]),
            done_reason=data["done_reason"],
            trajectory=None if traj is None else Trajectory.from_dict(traj),
        )

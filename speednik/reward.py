"""The reward: weighted components composed into one per-frame function.

The default composition, `default_reward(max_steps)`, is this table:

| component | per frame                                               | weight |
|-----------|---------------------------------------------------------|--------|
| progress  | (new max_x - previous max_x) / level_width              | 10     |
| speed     | abs(x_vel) / MAX_X_SPEED                                | 0.01   |
| goal      | 10 + 5 * max(0, 1 - step / max_steps), goal frame only  | 1      |
| death     | -1 on the frame the player dies (once)                  | 5      |
| ring      | +1 per RingCollectedEvent                               | 0.1    |
| time      | -1 every frame                                          | 0.001  |

so a frame is worth 10 * progress + 0.01 * speed + goal - 5 on death +
0.1 per ring - 0.001. `step` counts frames since `reset`, from 1.

Usage, once per episode and once per frame after `sim_step`:

    reward = default_reward(max_steps=3600)
    reward.reset(sim)
    r = reward.step(sim, events)
    reward.totals   # {"progress": ..., "speed": ..., ...}

This runs every frame of every episode, so the composition sorts its
components by when they can contribute: a constant per-frame term is added
without a call, state terms are called every frame, and event terms only on
frames that have events.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Mapping, Sequence

from speednik.checks import positive_int
from speednik.constants import DEFAULT_MAX_STEPS, MAX_X_SPEED
from speednik.events import DeathEvent, GoalReachedEvent, RingCollectedEvent

if TYPE_CHECKING:
    from speednik.events import Event
    from speednik.simulation import SimState

# How a component contributes, which decides when it is evaluated.
CONSTANT = "constant"   # the same value every frame: `per_frame()`
STATE = "state"         # a function of the state: `value(sim, events, step)` every frame
EVENTS = "events"       # only ever nonzero on frames with events


@dataclass(slots=True)
class RewardComponent:
    """One term of the reward. `value` returns the weighted contribution of
    the frame just simulated; `reset` starts a new episode."""

    weight: float = 1.0
    name: ClassVar[str] = "component"
    kind: ClassVar[str] = STATE

    def reset(self, sim: SimState, max_steps: int) -> None:
        pass

    def value(self, sim: SimState, events: Sequence[Event], step: int) -> float:
        raise NotImplementedError

    def per_frame(self) -> float:
        """The value of a CONSTANT component on every frame."""
        raise NotImplementedError


@dataclass(slots=True)
class ProgressReward(RewardComponent):
    """Reaching new territory: growth of max_x_reached / level_width (the
    frame's `sim.max_x_gain`)."""

    weight: float = 10.0
    name: ClassVar[str] = "progress"
    _scale: float = field(default=0.0, repr=False)

    def reset(self, sim: SimState, max_steps: int) -> None:
        self._scale = self.weight / sim.stage.width

    def value(self, sim: SimState, events: Sequence[Event], step: int) -> float:
        gain = sim.max_x_gain
        return gain * self._scale if gain else 0.0


@dataclass(slots=True)
class SpeedReward(RewardComponent):
    """Moving fast either way: abs(x_vel) / MAX_X_SPEED."""

    weight: float = 0.01
    name: ClassVar[str] = "speed"
    _scale: float = field(default=0.0, repr=False)

    def reset(self, sim: SimState, max_steps: int) -> None:
        self._scale = self.weight / MAX_X_SPEED

    def value(self, sim: SimState, events: Sequence[Event], step: int) -> float:
        v = sim.player.physics.x_vel
        return (v if v >= 0.0 else -v) * self._scale


@dataclass(slots=True)
class GoalReward(RewardComponent):
    """`base + time_bonus * max(0, 1 - step / max_steps)` on the goal frame:
    finishing sooner earns up to `time_bonus` more."""

    weight: float = 1.0
    base: float = 10.0
    time_bonus: float = 5.0
    name: ClassVar[str] = "goal"
    kind: ClassVar[str] = EVENTS
    _max_steps: int = field(default=DEFAULT_MAX_STEPS, repr=False)

    def reset(self, sim: SimState, max_steps: int) -> None:
        self._max_steps = max_steps

    def value(self, sim: SimState, events: Sequence[Event], step: int) -> float:
        for e in events:
            if type(e) is GoalReachedEvent:
                left = 1.0 - step / self._max_steps
                return self.weight * (self.base + self.time_bonus * (left if left > 0.0 else 0.0))
        return 0.0


@dataclass(slots=True)
class DeathPenalty(RewardComponent):
    """-1 on the frame the player dies. The simulation repeats DeathEvent on
    every frame after a death; only the first one counts."""

    weight: float = 5.0
    name: ClassVar[str] = "death"
    kind: ClassVar[str] = EVENTS
    _dead: bool = field(default=False, repr=False)

    def reset(self, sim: SimState, max_steps: int) -> None:
        self._dead = sim.player_dead

    def value(self, sim: SimState, events: Sequence[Event], step: int) -> float:
        if self._dead:
            return 0.0
        for e in events:
            if type(e) is DeathEvent:
                self._dead = True
                return -self.weight
        return 0.0


@dataclass(slots=True)
class RingReward(RewardComponent):
    """+1 per ring collected."""

    weight: float = 0.1
    name: ClassVar[str] = "ring"
    kind: ClassVar[str] = EVENTS

    def value(self, sim: SimState, events: Sequence[Event], step: int) -> float:
        n = 0
        for e in events:
            if type(e) is RingCollectedEvent:
                n += 1
        return n * self.weight


@dataclass(slots=True)
class TimePenalty(RewardComponent):
    """-1 every frame, so standing still costs something."""

    weight: float = 0.001
    name: ClassVar[str] = "time"
    kind: ClassVar[str] = CONSTANT

    def per_frame(self) -> float:
        return -self.weight


REWARD_COMPONENTS: dict[str, type[RewardComponent]] = {
    cls.name: cls for cls in (ProgressReward, SpeedReward, GoalReward,
                              DeathPenalty, RingReward, TimePenalty)
}
DEFAULT_WEIGHTS: dict[str, float] = {
    name: cls().weight for name, cls in REWARD_COMPONENTS.items()
}


class CompositeReward:
    """A sum of reward components with a running total for each.

    `reset(sim)` before an episode, `step(sim, events)` after every frame;
    `totals` maps each component's name to its sum since the reset.
    Weights are read when the composition is built (a zero weight is left
    out of the per-frame work) and when it is reset.
    """

    __slots__ = ("components", "max_steps", "steps", "_constant",
                 "_constant_idx", "_state", "_events", "_sums")

    def __init__(self, components: Sequence[RewardComponent],
                 max_steps: int = DEFAULT_MAX_STEPS) -> None:
        names = [c.name for c in components]
        if len(set(names)) != len(names):
            raise ValueError(f"reward components must have distinct names, got {names}")
        max_steps = positive_int(max_steps, "max_steps")
        for c in components:
            if c.kind not in (CONSTANT, STATE, EVENTS):
                raise ValueError(
                    f"reward component {c.name!r} has kind {c.kind!r}; accepted "
                    f"kinds are {CONSTANT!r}, {STATE!r}, {EVENTS!r}")
            if not math.isfinite(c.weight):
                raise ValueError(f"reward weight of {c.name!r} must be finite, got {c.weight}")
        self.components: tuple[RewardComponent, ...] = tuple(components)
        self.max_steps = max_steps
        self.steps = 0
        # A zero weight can never contribute, so it is not evaluated at all.
        live = [(i, c) for i, c in enumerate(self.components) if c.weight != 0.0]
        self._constant_idx = tuple(i for i, c in live if c.kind == CONSTANT)
        self._state = tuple((i, c.value) for i, c in live if c.kind == STATE)
        self._events = tuple((i, c.value) for i, c in live if c.kind == EVENTS)
        self._constant = 0.0
        self._sums = [0.0] * len(self.components)

    def reset(self, sim: SimState) -> None:
        self.steps = 0
        for c in self.components:
            c.reset(sim, self.max_steps)
        self._constant = sum(self.components[i].per_frame() for i in self._constant_idx)
        self._sums = [0.0] * len(self.components)

    def step(self, sim: SimState, events: Sequence[Event]) -> float:
        """The reward of the frame just simulated (`events` from `sim_step`)."""
        self.steps = step = self.steps + 1
        total = self._constant
        sums = self._sums
        for i, value in self._state:
            v = value(sim, events, step)
            if v:
                sums[i] += v
                total += v
        if events:
            for i, value in self._events:
                v = value(sim, events, step)
                if v:
                    sums[i] += v
                    total += v
        return total

    __call__ = step

    @property
    def totals(self) -> dict[str, float]:
        """Each component's sum since the last reset, by name."""
        sums = list(self._sums)
        for i in self._constant_idx:
            sums[i] = self.steps * self.components[i].per_frame()
        return {c.name: s for c, s in zip(self.components, sums)}

    @property
    def total(self) -> float:
        return sum(self.totals.values())

    @property
    def weights(self) -> dict[str, float]:
        return {c.name: c.weight for c in self.components}

    def __repr__(self) -> str:
        parts = ", ".join(f"{c.name}={c.weight:g}" for c in self.components)
        return f"CompositeReward({parts}, max_steps={self.max_steps})"

    def __getstate__(self):
        return (self.components, self.max_steps, self.steps, self._sums)

    def __setstate__(self, state) -> None:
        components, max_steps, steps, sums = state
        # The bound methods are rebuilt rather than pickled.
        self.__init__(components, max_steps)
        self.steps = steps
        self._sums = list(sums)
        self._constant = sum(self.components[i].per_frame() for i in self._constant_idx)


def make_reward(weights: Mapping[str, float] | None = None,
                max_steps: int = DEFAULT_MAX_STEPS) -> CompositeReward:
    """A composition of the named components with the given weights.

    Only the named components are included (None: all, at their default
    weights). Unknown names raise ValueError listing the accepted ones.
    """
    if weights is None:
        weights = DEFAULT_WEIGHTS
    unknown = [n for n in weights if n not in REWARD_COMPONENTS]
    if unknown:
        raise ValueError(
            f"unknown reward component(s) {', '.join(map(repr, unknown))}: accepted "
            f"names are {', '.join(map(repr, REWARD_COMPONENTS))}")
    components = []
    for name, w in weights.items():
        if isinstance(w, bool) or not isinstance(w, numbers.Real) or not math.isfinite(w):
            raise ValueError(f"reward weight of {name!r} must be a finite number, got {w!r}")
        components.append(REWARD_COMPONENTS[name](weight=float(w)))
    return CompositeReward(components, max_steps)


def default_reward(max_steps: int = DEFAULT_MAX_STEPS) -> CompositeReward:
    """The reward of the table in this module's docstring."""
    return make_reward(DEFAULT_WEIGHTS, max_steps)

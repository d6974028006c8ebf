"""`CompiledSim`: the compiled simulation driven one frame at a time from
Python, with the readable simulation's inputs and events. It is how the
engine is proven equal to `sim_step`, frame by frame, and a way to look
at what the compiled code does."""
from __future__ import annotations

import numpy as np

from speednik.engine.layout import (
    EV_CHECKPOINT,
    EV_DAMAGE,
    EV_DEATH,
    EV_ENEMY,
    EV_GOAL,
    EV_JUMP,
    EV_RING,
    EV_SPRING,
    EVENT_WIDTH,
    MAX_EVENTS,
    SOURCES,
)
from speednik.engine.lowering import (
    compiled_stage,
    death_cause_name,
    state_arrays,
    write_state,
)
from speednik.engine.observation import (
    OBS_SIZES,
    OBS_WIDEST,
    OBSERVATION_KINDS,
    flight_scratch,
    observe,
)
from speednik.engine.simulation import sim_step
from speednik.entities import ENEMY_KINDS, SPRING_DIRECTIONS, SPRING_STRENGTHS
from speednik.events import (
    CheckpointEvent,
    DamageEvent,
    DeathEvent,
    EnemyDestroyedEvent,
    Event,
    GoalReachedEvent,
    JumpEvent,
    RingCollectedEvent,
    SpringEvent,
)
from speednik.physics import InputState


def _event(row: np.ndarray) -> Event:
    code, a, b, c = int(row[0]), row[1], row[2], row[3]
    if code == EV_RING:
        return RingCollectedEvent(float(a), float(b))
    if code == EV_DAMAGE:
        return DamageEvent(int(a), SOURCES[int(b)])
    if code == EV_DEATH:
        return DeathEvent(death_cause_name(int(a)))
    if code == EV_SPRING:
        return SpringEvent(SPRING_DIRECTIONS[int(a)], SPRING_STRENGTHS[int(b)])
    if code == EV_GOAL:
        return GoalReachedEvent(int(a))
    if code == EV_CHECKPOINT:
        return CheckpointEvent(float(a), float(b))
    if code == EV_ENEMY:
        return EnemyDestroyedEvent(ENEMY_KINDS[int(a)], float(b), float(c))
    if code == EV_JUMP:
        return JumpEvent(float(a), float(b))
    raise ValueError(f"unknown compiled event code {code}")


class CompiledSim:
    """A simulation stepped by the compiled engine.

    Built from a stage (name, path or `Stage`: its start) or from a
    readable `SimState` (its current state, which is copied). `step(inp)`
    is `sim_step`; `to_sim()` gives the state back as a `SimState`.
    """

    def __init__(self, source) -> None:
        from speednik.simulation import SimState, create_sim

        sim = source.copy() if isinstance(source, SimState) else create_sim(source)
        self._sim = sim
        self.stage = sim.stage
        self.compiled = compiled_stage(sim.stage)
        self.f, self.s = state_arrays(sim)
        # Rings, enemies, checkpoints: what is gone, end to end.
        self.gone = np.frombuffer(bytes(sim.ring_taken + sim.enemy_destroyed
                                        + sim.checkpoint_hit), np.uint8).copy()
        self._split = (len(sim.ring_taken),
                       len(sim.ring_taken) + len(sim.enemy_destroyed))
        # Kept from one observation to the next, as an episode keeps it.
        self._flights = flight_scratch(self.f, self.s)
        self._events = np.zeros((MAX_EVENTS, EVENT_WIDTH), np.float64)

    def step(self, inp: InputState) -> list[Event]:
        n = sim_step(self.compiled, self.f, self.s, self.gone, bool(inp.left), bool(inp.right), bool(inp.jump_pressed),
                     bool(inp.jump_held), bool(inp.down_held), self._events)
        if n > MAX_EVENTS:
            raise RuntimeError(
                f"{n} events in one frame; the compiled engine keeps {MAX_EVENTS}")
        return [_event(self._events[i]) for i in range(n)]

    def observe(self, name: str = "basic") -> np.ndarray:
        """The named observation of the current state (float32)."""
        kind = OBSERVATION_KINDS.index(name)
        out = np.empty(OBS_WIDEST, np.float32)
        observe(kind, self.compiled, self.f, self.s, self.gone, out, self._flights)
        return out[:OBS_SIZES[kind]].copy()

    def to_sim(self):
        """The current state as a readable `SimState`."""
        sim = self._sim.copy()
        write_state(sim, self.f, self.s)
        a, b = self._split
        gone = self.gone.tobytes()
        sim.ring_taken = bytearray(gone[:a])
        sim.enemy_destroyed = bytearray(gone[a:b])
        sim.checkpoint_hit = bytearray(gone[b:])
        return sim

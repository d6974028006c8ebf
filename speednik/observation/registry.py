"""The observations, registered by name: each entry is the one definition
of an observation (its values with their bounds, its encoder, and its
index in the compiled engine when the engine has a twin of it)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

from speednik.observation.basic import BASIC_VALUES, extract_observation
from speednik.observation.behind import BEHIND_VALUES, extract_behind_observation
from speednik.observation.footing import FOOTING_VALUES, extract_footing_observation
from speednik.observation.hazards import HAZARD_VALUES, extract_hazard_observation
from speednik.observation.landing import LANDING_VALUES, extract_landing_observation
from speednik.observation.local import LOCAL_VALUES, extract_local_observation
from speednik.observation.lookahead import LOOKAHEAD_VALUES, extract_lookahead_observation
from speednik.observation.onward import ONWARD_VALUES, extract_onward_observation
from speednik.observation.pits import PITS_VALUES, extract_pits_observation
from speednik.observation.reach import REACH_VALUES, extract_reach_observation
from speednik.observation.room import ROOM_VALUES, extract_room_observation
from speednik.observation.runup import RUNUP_VALUES, extract_runup_observation
from speednik.observation.stand import STAND_VALUES, extract_stand_observation
from speednik.observation.stall import STALL_VALUES, extract_stall_observation
from speednik.observation.stride import STRIDE_VALUES, extract_stride_observation
from speednik.observation.terrain import TERRAIN_VALUES, extract_terrain_observation
from speednik.observation.turnback import TURNBACK_VALUES, extract_turnback_observation
from speednik.observation.value import Value, names

if TYPE_CHECKING:
    from speednik.simulation import SimState


@dataclass(frozen=True, slots=True)
class ObservationEncoder:
    """A named observation: `encoder(sim)` gives a fresh float32 vector of
    its values, in order. Pickles by name, so it crosses process
    boundaries."""

    name: str
    values: tuple[Value, ...]
    fn: Callable[[SimState], np.ndarray]
    description: str = ""
    # Its index among the compiled engine's observations
    # (`speednik.engine.observation`); None: policies over it run on the
    # readable runner.
    compiled_kind: int | None = None
    # A step on the way to the observations a run should choose, kept so
    # that the figures measured over it can be printed again.
    for_the_record: bool = False

    @property
    def size(self) -> int:
        return len(self.values)

    @property
    def feature_names(self) -> tuple[str, ...]:
        return names(self.values)

    @property
    def compiled(self) -> bool:
        return self.compiled_kind is not None

    def __call__(self, sim: SimState) -> np.ndarray:
        return self.fn(sim)

    def __reduce__(self):
        return (get_observation, (self.name,))


OBSERVATIONS: dict[str, ObservationEncoder] = {
    "basic": ObservationEncoder(
        "basic", BASIC_VALUES, extract_observation,
        "position, velocity, ground state, angle, progress and time", compiled_kind=0),
    "terrain": ObservationEncoder(
        "terrain", TERRAIN_VALUES, extract_terrain_observation,
        "basic plus wall, ground, gap, slope, ceiling, enemy and spike probes",
        compiled_kind=1),
    "hazards": ObservationEncoder(
        "hazards", HAZARD_VALUES, extract_hazard_observation,
        "terrain plus rings held, invulnerability, and the enemy (with its motion) "
        "and spikes ahead", compiled_kind=2, for_the_record=True),
    "stall": ObservationEncoder(
        "stall", STALL_VALUES, extract_stall_observation,
        "hazards plus a clock of the frames since the player last got further",
        compiled_kind=3),
    "lookahead": ObservationEncoder(
        "lookahead", LOOKAHEAD_VALUES, extract_lookahead_observation,
        "stall plus the next spring and its strength, the height of the wall ahead, "
        "a low ceiling ahead, the ground farther on and the spindash charge",
        compiled_kind=4, for_the_record=True),
    "pits": ObservationEncoder(
        "pits", PITS_VALUES, extract_pits_observation,
        "lookahead plus the next pit ahead, scanned every 16 px: where it starts, how "
        "wide it is, how high its far side lies and how long that landing runs; and "
        "whether jump is held and whether a jump can start now",
        compiled_kind=5),
    "landing": ObservationEncoder(
        "landing", LANDING_VALUES, extract_landing_observation,
        "pits plus whether a full jump, a hop and a braked hop from now come down on "
        "ground, and the first two pressed a frame later: the player's flight played "
        "forward against the terrain",
        compiled_kind=6, for_the_record=True),
    "room": ObservationEncoder(
        "room", ROOM_VALUES, extract_room_observation,
        "landing plus how much ground lies ahead of where a full jump and a hop come "
        "down, before the next pit: a jump taken in time from one taken too late",
        compiled_kind=7, for_the_record=True),
    "footing": ObservationEncoder(
        "footing", FOOTING_VALUES, extract_footing_observation,
        "pits plus whether the flights of landing come down on ground the player can "
        "stand on: at any depth, for as long as a red spring throws, and not onto spikes",
        compiled_kind=8, for_the_record=True),
    "local": ObservationEncoder(
        "local", LOCAL_VALUES, extract_local_observation,
        "footing without where on the stage the player is and when (x, y, max_x, "
        "goal_dx, time): only what lies around the player",
        compiled_kind=9, for_the_record=True),
    "onward": ObservationEncoder(
        "onward", ONWARD_VALUES, extract_onward_observation,
        "local with its flights read 1 only when the player comes down moving on (a jump "
        "from a steep climb that throws it back reads 0), played on steep ground too",
        compiled_kind=10, for_the_record=True),
    "stride": ObservationEncoder(
        "stride", STRIDE_VALUES, extract_stride_observation,
        "onward for a policy deciding every other frame (--action-repeat 2): its two "
        "later flights press jump two frames later, at the next decision",
        compiled_kind=11, for_the_record=True),
    "reach": ObservationEncoder(
        "reach", REACH_VALUES, extract_reach_observation,
        "stride with its flights played whenever the player is faster than it runs, when "
        "a jump can come down past the pits in view",
        compiled_kind=12),
    "stand": ObservationEncoder(
        "stand", STAND_VALUES, extract_stand_observation,
        "reach with a flight coming down only once the player has been on the ground "
        "2 frames in a row, at a decision of --action-repeat 2: a one-frame touch of a "
        "ledge's lip on the way into a pit reads 0",
        compiled_kind=13),
    "behind": ObservationEncoder(
        "behind", BEHIND_VALUES, extract_behind_observation,
        "reach plus the nearest spring behind the player, as lookahead reads the one "
        "ahead: a spring passed on the way to a wall only it climbs",
        compiled_kind=14),
    "runup": ObservationEncoder(
        "runup", RUNUP_VALUES, extract_runup_observation,
        "reach plus how far behind the farthest x it has reached the player is: how "
        "long a run-up taken backwards has grown",
        compiled_kind=15),
    "turnback": ObservationEncoder(
        "turnback", TURNBACK_VALUES, extract_turnback_observation,
        "behind plus runup's value: the spring behind the player and how far back from "
        "its farthest x it has gone, for a way on that is back to a spring",
        compiled_kind=16),
}
DEFAULT_OBSERVATION = "basic"


def list_observations() -> tuple[str, ...]:
    return tuple(OBSERVATIONS)


def get_observation(name: str | ObservationEncoder) -> ObservationEncoder:
    """The encoder registered as `name` (an encoder is returned as is)."""
    if isinstance(name, ObservationEncoder):
        return name
    try:
        return OBSERVATIONS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown observation {name!r}: accepted names are "
            f"{', '.join(repr(n) for n in OBSERVATIONS)}") from None


def compiled_observations() -> tuple[ObservationEncoder, ...]:
    """The observations the compiled engine has, in the order of their
    compiled index (0, 1, ...)."""
    found = sorted((e for e in OBSERVATIONS.values() if e.compiled),
                   key=lambda e: e.compiled_kind)
    assert [e.compiled_kind for e in found] == list(range(len(found))), \
        "compiled observation indices must run 0, 1, ... without gaps"
    return tuple(found)

"""The "onward" observation (55 values, `extract_onward_observation`):
"local" with its five flights judged by whether they carry the player on,
not only whether they come down on ground.

"footing" (and so "local") reads a flight 1 when it comes down on ground
it can stand on. On a steep climb that is not enough: a jump leaves the
ground square to it, so from a climb of 35 to 40 degrees at the speed a
climb leaves, a jump throws the player back and down onto the slope it
left, or up onto it so slowly that it slides back. That flight comes down
on ground, so it reads 1, and on the pits and walls that follow a climb
a policy jumps from the slope and is thrown back again and again. Here:

| idx | name              | plan (as in "landing")                          |
|-----|-------------------|-------------------------------------------------|
| 50  | full_onward       | right and jump held                             |
| 51  | hop_onward        | right, jump let go                              |
| 52  | brake_onward      | left, jump let go                               |
| 53  | full_onward_later | full_onward with the jump pressed a frame later |
| 54  | hop_onward_later  | the same for hop_onward                         |

- Each flight is played by the rule of "footing" (ground at any depth
  within FOOTING_FRAMES frames, spikes a fall).
- A plan holding right lands only when the player comes down moving
  right along the ground (ground speed above 0): thrown back onto the
  slope, or stopped by a wall it did not clear, it reads 0. Braking is
  meant to come down moving left: brake_onward reads as brake_footing.
- The flights are played where "footing" plays them (a pit or spikes in
  view) and also on steep ground (on the ground at STEEP_ANGLE or more
  from level, either way); elsewhere all read 1.
- A charging spindash reads 0 for all.

The first 50 values are those of "local".
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from speednik.constants import TOP_SPEED
from speednik.observation.basic import F32
from speednik.observation.footing import FOOTING_RULE, spikes_in_view
from speednik.observation.landing import (
    BRAKE,
    LATER,
    PLANS,
    PREDICT_BELOW,
    FlightRule,
    plan_flights,
)
from speednik.observation.local import LOCAL_KEPT, LOCAL_VALUES
from speednik.observation.pits import extract_pits_observation as _pits
from speednik.observation.value import Value, index_of, names

if TYPE_CHECKING:
    from speednik.simulation import SimState

# 22.5 degrees, in angle bytes (256 a turn): from about here a jump at the
# speed a climb leaves goes back rather than on.
STEEP_ANGLE = 16

ONWARD_VALUES: tuple[Value, ...] = LOCAL_VALUES[:-5] + (
    Value("full_onward", 0.0, 1.0), Value("hop_onward", 0.0, 1.0),
    Value("brake_onward", 0.0, 1.0), Value("full_onward_later", 0.0, 1.0),
    Value("hop_onward_later", 0.0, 1.0),
)
ONWARD_NAMES = names(ONWARD_VALUES)
ONWARD_OBS_DIM = len(ONWARD_NAMES)
# Where "local"'s first 50 values sit in "pits".
_PITS_KEPT = np.array(LOCAL_KEPT[:-5], np.intp)
_PIT_AHEAD_DX = index_of(LOCAL_VALUES, "pit_ahead_dx")
# Whether each of the five plans holds right (the later two are full and hop).
_HOLDS_RIGHT = tuple(plan != BRAKE for plan in PLANS) + (True, True)


def on_steep_ground(sim: SimState) -> bool:
    p = sim.player.physics
    return bool(p.on_ground) and min(p.angle, 256 - p.angle) >= STEEP_ANGLE


def faster_than_running(sim: SimState) -> bool:
    """Moving across faster than running on level ground can carry the
    player: a flight from here may come down past the pits in view."""
    return abs(sim.player.physics.x_vel) > TOP_SPEED


def onward_values(sim: SimState, pit_ahead_dx: float, later: int = LATER,
                  fast: bool = False, rule: FlightRule = FOOTING_RULE) -> list[float]:
    """The five values, given the "pits" reading of the next pit; the later
    two pressed after `later` frames of running on. With `fast`, the
    flights are also played when the player is faster than it runs; each
    is played by `rule` ("footing"'s, or "stand"'s)."""
    if pit_ahead_dx >= PREDICT_BELOW and not spikes_in_view(sim) and not on_steep_ground(sim) \
            and not (fast and faster_than_running(sim)):
        return [1.0] * 5
    return [0.0 if landed is None or (right and landed.physics.ground_speed <= 0.0) else 1.0
            for landed, right in zip(plan_flights(sim, rule, later), _HOLDS_RIGHT)]


def extract_onward_observation(sim: SimState, later: int = LATER, fast: bool = False,
                               rule: FlightRule = FOOTING_RULE) -> np.ndarray:
    """The 55-value "onward" observation (table in the module docstring):
    the first 50 values of "local", then whether the flights of "landing"
    come down on ground moving on (the later two pressed after `later`
    frames of running on; with `fast`, played when the player is faster
    than it runs too; by `rule`)."""
    pits = _pits(sim)
    kept = pits[_PITS_KEPT]
    values = onward_values(sim, float(kept[_PIT_AHEAD_DX]), later, fast, rule)
    return np.concatenate((kept, np.array(values, F32)))

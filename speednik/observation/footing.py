"""The "footing" observation (60 values, `extract_footing_observation`):
the 55 of "pits", then whether the five flights of "landing" come down
on ground the player can stand on, by a rule that sees further.

"landing" stops a flight 192 px below where it starts or after 96
frames, and plays the terrain alone. Three ways of dying slip past it:

- a red spring throws the player about 450 px up, for some 150 frames:
  from anywhere high in that arc every flight reads 0, braking included,
  though braking would come down on ground;
- a jump off a cliff onto ground far below reads 0 as if it were a pit;
- a jump that comes down on spikes reads 1.

Here a flight lands when it comes down on ground at any depth before it
falls past the stage's bottom, within FOOTING_FRAMES frames, and it
falls when it touches spikes from the jump on (the box the game tests).

| idx | name              | plan (as in "landing")                          |
|-----|-------------------|-------------------------------------------------|
| 55  | full_footing      | right and jump held                             |
| 56  | hop_footing       | right, jump let go                              |
| 57  | brake_footing     | left, jump let go                               |
| 58  | full_footing_later| full_footing with the jump pressed a frame later|
| 59  | hop_footing_later | the same for hop_footing                        |

- The flights are played whenever a pit is in view (as in "landing") or
  spikes lie from SPIKES_BEHIND px behind the player to PIT_REACH px
  ahead of it; elsewhere all read 1.
- Spikes count whether or not the player could be hurt by them now
  (blinking after a hit, it could not): a plan through spikes is one to
  avoid. Springs and enemies are not played.
- A charging spindash reads 0 for all, as in "landing".
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING

import numpy as np

from speednik.objects import object_tables
from speednik.observation.basic import F32
from speednik.observation.landing import PREDICT_BELOW, FlightRule, plan_flights
from speednik.observation.pits import PIT_REACH, PITS_VALUES
from speednik.observation.pits import extract_pits_observation as _pits
from speednik.observation.value import Value, index_of, names

if TYPE_CHECKING:
    from speednik.simulation import SimState

# Long enough for a red spring's arc (about 150 frames) and the fall after.
FOOTING_FRAMES = 192
FOOTING_RULE = FlightRule(FOOTING_FRAMES, None, True)
# Spikes this far behind the player are in view: a braked hop comes down
# behind where it starts.
SPIKES_BEHIND = 128.0

FOOTING_VALUES: tuple[Value, ...] = PITS_VALUES + (
    Value("full_footing", 0.0, 1.0), Value("hop_footing", 0.0, 1.0),
    Value("brake_footing", 0.0, 1.0), Value("full_footing_later", 0.0, 1.0),
    Value("hop_footing_later", 0.0, 1.0),
)
FOOTING_NAMES = names(FOOTING_VALUES)
FOOTING_OBS_DIM = len(FOOTING_NAMES)
_PIT_AHEAD_DX = index_of(PITS_VALUES, "pit_ahead_dx")


def spikes_in_view(sim: SimState) -> bool:
    """Whether spikes lie from SPIKES_BEHIND px behind the player to
    PIT_REACH px ahead (by the middles of their boxes)."""
    xs = object_tables(sim.stage).spike_x
    x = sim.player.physics.x
    return bisect_right(xs, x + PIT_REACH) > bisect_left(xs, x - SPIKES_BEHIND)


def footing_values(sim: SimState, pit_ahead_dx: float) -> list[float]:
    """The five values, given the "pits" reading of the next pit."""
    if pit_ahead_dx >= PREDICT_BELOW and not spikes_in_view(sim):
        return [1.0] * 5
    return [0.0 if landed is None else 1.0 for landed in plan_flights(sim, FOOTING_RULE)]


def extract_footing_observation(sim: SimState) -> np.ndarray:
    """The 60-value "footing" observation (table in the module docstring):
    "pits", then whether the flights of "landing" come down on ground
    with no spikes on the way, at any depth, within FOOTING_FRAMES."""
    pits = _pits(sim)
    return np.concatenate((pits, np.array(footing_values(sim, float(pits[_PIT_AHEAD_DX])),
                                          F32)))

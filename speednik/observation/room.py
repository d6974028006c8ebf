"""The "room" observation (62 values, `extract_room_observation`): the 60
of "landing", then how much ground lies ahead of where a full jump and a
hop come down, before the next pit.

"landing" says whether a jump comes down on ground, not where. Over
chained pits that is not enough: a jump taken late still comes down on
the pillar between two pits, but so near its far edge that there is no
time to let go of jump and press it again before running off. How much
ground is left past the landing tells a jump taken in time from one
taken too late, on the ground before the take-off and in the air before
the landing (where letting go of jump early readies the next one).

| idx | name      | value                                                   |
|-----|-----------|---------------------------------------------------------|
| 60  | full_room | the ground ahead of where the full_lands flight comes   |
|     |           | down, to the next pit column, / 256; 1: no pit within   |
|     |           | 256 px of the landing                                   |
| 61  | hop_room  | the same for the hop_lands flight                       |

- A flight that does not come down on ground (its lands value 0) reads
  0; with no pit in view both read 1, as the lands values do. A charging
  spindash reads 0.
- Ground is as in "pits": a column with ground within 192 px below the
  landed feet, scanned every 16 px from the landed player's own column
  the way it then looks. A landing with its centre already past the edge
  (held by one foot) reads 0.
- The flights are the ones "landing" plays; the scan costs at most 16
  rays per flight.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from speednik.observation.basic import F32
from speednik.observation.landing import LANDING_VALUES, PREDICT_BELOW, plan_flights
from speednik.observation.pits import PIT_DEPTH, PIT_STEP
from speednik.observation.pits import extract_pits_observation as _pits
from speednik.observation.probes import GROUND_PROBE_RISE, probe_origin, ray
from speednik.observation.value import Value, index_of, names
from speednik.terrain import DOWN

if TYPE_CHECKING:
    from speednik.simulation import SimState

ROOM_COLUMNS = 16
ROOM_REACH = PIT_STEP * ROOM_COLUMNS

ROOM_VALUES: tuple[Value, ...] = LANDING_VALUES + (
    Value("full_room", 0.0, 1.0), Value("hop_room", 0.0, 1.0),
)
ROOM_NAMES = names(ROOM_VALUES)
ROOM_OBS_DIM = len(ROOM_NAMES)
_PIT_AHEAD_DX = index_of(LANDING_VALUES, "pit_ahead_dx")


def room_ahead(tiles, player) -> float:
    """The ground ahead of a landed player to the first pit column, / 256
    (1.0 when none within 256 px); 0.0 for no player (it fell)."""
    if player is None:
        return 0.0
    p = player.physics
    x, y, _, sign, _, _, feet = probe_origin(p)
    top = y - GROUND_PROBE_RISE
    reach = feet - top + PIT_DEPTH
    for k in range(ROOM_COLUMNS):
        d, _ = ray(tiles, DOWN, x + sign * (k * PIT_STEP), top, p.layer, reach)
        if d > reach:
            return k * PIT_STEP / ROOM_REACH
    return 1.0


def room_values(sim: SimState, pit_ahead_dx: float) -> list[float]:
    """The five landing values and the two rooms, given the "pits" reading
    of the next pit."""
    if pit_ahead_dx >= PREDICT_BELOW:
        return [1.0] * 7
    flights = plan_flights(sim)
    tiles = sim.stage.tiles
    return ([0.0 if landed is None else 1.0 for landed in flights]
            + [room_ahead(tiles, flights[0]), room_ahead(tiles, flights[1])])


def extract_room_observation(sim: SimState) -> np.ndarray:
    """The 62-value "room" observation (table in the module docstring):
    "landing", then the ground left past where a full jump and a hop come
    down."""
    pits = _pits(sim)
    return np.concatenate((pits, np.array(room_values(sim, float(pits[_PIT_AHEAD_DX])),
                                          F32)))

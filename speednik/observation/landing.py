"""The "landing" observation (60 values, `extract_landing_observation`):
the 55 of "pits", then whether ways of flying on from now come down on
ground.

"pits" tells where the next pit is and how high its far side lies, but
not whether a jump from here reaches that side: that depends on the
speed, the slope, the height of the far side and what lies past it, and
a linear policy cannot work it out from those values. Chained pits make
it worse: a full jump from the edge of one pit can carry the player over
its short landing into the next. Here the player's own flight is played
forward on a copy of it, with the game's air physics against the
terrain, for these plans (right is the way the stage runs):

| idx | name             | plan                                               |
|-----|------------------|----------------------------------------------------|
| 55  | full_lands       | right and jump held: a jump pressed now (on the    |
|     |                  | ground) or kept on (in the air), at full height    |
| 56  | hop_lands        | right, jump let go: a jump pressed now and let go  |
|     |                  | at once (on the ground); jump let go from now (in  |
|     |                  | the air), which cuts a rising jump short           |
| 57  | brake_lands      | left, jump let go: as hop_lands, braking           |
| 58  | full_lands_later | as full_lands with the jump pressed a frame later, |
|     |                  | after a frame of running right (on the ground;     |
|     |                  | in the air, full_lands)                            |
| 59  | hop_lands_later  | the same for hop_lands                             |

Each reads 1 when the flight comes down on ground within FLIGHT_FRAMES
frames and at most PIT_DEPTH px below the feet it took off from, and 0
when it falls into a pit, off the stage or for longer than that. On the
ground a plan starts with a jump pressed, as if it could be (jump_ready
says whether it can). full_lands 1 with full_lands_later 0 is the last
frame a full jump still makes it: the widest jump there is.

- Only the terrain is played: springs, enemies and spikes are not (the
  other values see those).
- The flights are played whenever a pit is in view (anywhere in the
  scan of "pits") or under the player; elsewhere all read 1 (there is
  nothing to fall into), which keeps the observation cheap. A pit far
  ahead matters: a full jump at speed comes down 300 px on, and running
  off a step carries the player 150 px before it lands below.
- A charging spindash reads 0 for all: it cannot jump.
"""
from __future__ import annotations

import math

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from speednik.constants import JUMP_RELEASE_SPEED
from speednik.objects import touches_spikes
from speednik.observation.basic import F32
from speednik.observation.pits import PIT_DEPTH, PIT_REACH, PIT_STEP, PITS_VALUES
from speednik.observation.pits import extract_pits_observation as _pits
from speednik.observation.value import Value, index_of, names
from speednik.physics import InputState
from speednik.player import PlayerState, _air_frame, _ground_frame, radii

if TYPE_CHECKING:
    from speednik.simulation import SimState

FLIGHT_FRAMES = 96
# The farthest pit column scanned: any pit in view.
PREDICT_REACH = PIT_REACH - PIT_STEP
# pit_ahead_dx is a whole number of PIT_STEP columns over PIT_REACH: half a
# column past the reach separates "near" from "far" whatever the rounding.
PREDICT_BELOW = (PREDICT_REACH + PIT_STEP / 2) / PIT_REACH
# (left, right, jump held) of each plan, in the order of the values.
FULL, HOP, BRAKE = PLANS = ((False, True, True), (False, True, False), (True, False, False))
# The later values: the jump pressed after this many frames of running on.
LATER = 1
_RUN = InputState(right=True)


@dataclass(frozen=True, slots=True)
class FlightRule:
    """When a flight counts as coming down on ground: within `frames`
    frames, and at most `depth` px below the feet it took off from (None:
    at any depth above the stage's bottom); with `spikes`, touching spikes
    from the jump on is a fall. It has come down once it has been on the
    ground `stand` frames in a row, holding its buttons there (1: the
    first frame on the ground; more, and a touch of a ledge's lip on the
    way past it does not count)."""

    frames: int
    depth: float | None
    spikes: bool
    stand: int = 1


LANDING_RULE = FlightRule(FLIGHT_FRAMES, PIT_DEPTH, False)

LANDING_VALUES: tuple[Value, ...] = PITS_VALUES + (
    Value("full_lands", 0.0, 1.0), Value("hop_lands", 0.0, 1.0),
    Value("brake_lands", 0.0, 1.0), Value("full_lands_later", 0.0, 1.0),
    Value("hop_lands_later", 0.0, 1.0),
)
LANDING_NAMES = names(LANDING_VALUES)
LANDING_OBS_DIM = len(LANDING_NAMES)
_PIT_AHEAD_DX = index_of(PITS_VALUES, "pit_ahead_dx")


def _flying(player) -> bool:
    return player.state == PlayerState.AIRBORNE or player.state == PlayerState.HURT


def flight(sim: SimState, left: bool, right: bool, jump: bool, delay: int = 0,
           rule: FlightRule = LANDING_RULE):
    """The player after holding these buttons from now (a jump pressed now
    on the ground, or after `delay` frames of running right), on the frame
    it comes down on ground; None when it falls into a pit, off the stage,
    or (as `rule` says) too deep, for too long or onto spikes."""
    player = sim.player.copy()
    p = player.physics
    stage = sim.stage
    tiles = stage.tiles
    if player.state == PlayerState.SPINDASH or player.state == PlayerState.DEAD:
        return None
    for _ in range(delay):
        if _flying(player):
            break
        _ground_frame(player, p, _RUN, tiles)
    deepest = p.y + radii(p)[1] + (math.inf if rule.depth is None else rule.depth)
    bottom = stage.height
    if not _flying(player):
        _ground_frame(player, p, InputState(left=left, right=right, jump_pressed=True,
                                            jump_held=jump), tiles)
        if rule.spikes and touches_spikes(stage, p):
            return None
    held = InputState(left=left, right=right, jump_held=jump)
    walk = InputState(left=left, right=right)
    standing = 0
    for _ in range(rule.frames):
        feet = p.y + radii(p)[1]
        if feet > deepest or p.y - radii(p)[1] > bottom:
            return None
        if p.on_ground:
            standing += 1
            if standing >= rule.stand:
                return player
            _ground_frame(player, p, walk, tiles)
        else:
            standing = 0
            _air_frame(player, p, held, tiles)
        if rule.spikes and touches_spikes(stage, p):
            return None
    return (player if p.on_ground and standing + 1 >= rule.stand
            and p.y + radii(p)[1] <= deepest else None)


def plan_flights(sim: SimState, rule: FlightRule = LANDING_RULE, later: int = LATER) -> tuple:
    """The landed players (`flight` under `rule`, None for a fall) of the
    five plans, in the order of the values; the later two pressed after
    `later` frames of running on."""
    hop = flight(sim, *HOP, rule=rule)
    p = sim.player.physics
    flying = _flying(sim.player)
    # Holding jump changes a flight only while a jump still rises faster
    # than a let-go jump may.
    full = (hop if flying and not (p.jumping and p.y_vel < JUMP_RELEASE_SPEED)
            else flight(sim, *FULL, rule=rule))
    brake = flight(sim, *BRAKE, rule=rule)
    if flying:
        return full, hop, brake, full, hop
    return (full, hop, brake, flight(sim, *FULL, later, rule=rule),
            flight(sim, *HOP, later, rule=rule))


def landing_values(sim: SimState, pit_ahead_dx: float) -> list[float]:
    """The five values, given the "pits" reading of the next pit."""
    if pit_ahead_dx >= PREDICT_BELOW:
        return [1.0] * 5
    return [0.0 if landed is None else 1.0 for landed in plan_flights(sim)]


def extract_landing_observation(sim: SimState) -> np.ndarray:
    """The 60-value "landing" observation (table in the module docstring):
    "pits", then whether a full jump, a hop and a braked hop come down on
    ground, and the first two pressed a frame later."""
    pits = _pits(sim)
    return np.concatenate((pits, np.array(landing_values(sim, float(pits[_PIT_AHEAD_DX])),
                                          F32)))

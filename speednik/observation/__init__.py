"""Observations: what an agent sees of a simulation, as float32 vectors.

One module per observation, each extending the one before it (`footing`
extends `pits`, as `landing` does):

- `basic` (12 values): position, velocity, ground state, angle, progress
  and time;
- `terrain` (28): basic plus probes of walls, ground, gaps, slope,
  ceiling, and the nearest enemy and spikes (`probes` holds the rays and
  object searches they share);
- `hazards` (38): terrain plus rings held, invulnerability, and the enemy
  (with its motion) and spikes ahead;
- `stall` (39): hazards plus a clock of the frames since the player last
  got further;
- `lookahead` (49): stall plus the next spring and what it does, the
  height of the wall ahead, a low ceiling ahead, the ground farther on,
  and the spindash charge;
- `pits` (55): lookahead plus the next pit ahead, scanned column by
  column: where it starts, how wide it is, its far side's height and
  length; whether jump is held and whether a jump can start now;
- `landing` (60): pits plus whether a full jump, a hop and a braked hop
  from now come down on ground, and the first two a frame later (the
  player's flight played forward against the terrain);
- `room` (62): landing plus how much ground lies ahead of where a full
  jump and a hop come down, before the next pit;
- `footing` (60): pits plus the flights of landing judged by a rule that
  sees further: ground at any depth, for as long as a red spring throws,
  and not onto spikes;
- `local` (55): footing less the five values that say where on the stage
  the player is and when (x, y, max_x, goal_dx, time);
- `onward` (55): local with its flights read 1 only when the player comes
  down moving on, and played on steep ground too;
- `stride` (55): onward for a policy deciding every other frame: its two
  later flights press jump two frames later, at the next decision;
- `reach` (55): stride with its flights played whenever the player is
  faster than it runs, when a jump can come down past the pits in view;
- `stand` (55): reach with a flight coming down only once the player has
  been on the ground two frames in a row: a one-frame touch of a ledge's
  lip is not a landing;
- `behind` (61): reach plus the nearest spring behind the player, read
  as the one ahead is;
- `runup` (56): reach plus how far behind the farthest x it has reached
  the player is;
- `turnback` (62): behind plus runup's value, both read at once.

Each module's docstring has its table of values. `registry` names them:
an entry holds an observation's values (`value.Value`: name and bounds),
its encoder and its compiled index, and the Gymnasium bounds and the
compiled engine's table are derived from it. The compiled twins live in
`speednik.engine.observation`.
"""
from __future__ import annotations

from speednik.observation.basic import (
    OBS_DIM,
    OBS_NAMES,
    TIME_NORM,
    basic_values,
    extract_observation,
)
from speednik.observation.behind import (
    BEHIND_NAMES,
    BEHIND_OBS_DIM,
    BEHIND_VALUES,
    extract_behind_observation,
    spring_behind,
)
from speednik.observation.footing import (
    FOOTING_NAMES,
    FOOTING_OBS_DIM,
    FOOTING_VALUES,
    extract_footing_observation,
)
from speednik.observation.hazards import (
    HAZARD_NAMES,
    HAZARD_OBS_DIM,
    HAZARD_VALUES,
    extract_hazard_observation,
)
from speednik.observation.landing import (
    LANDING_NAMES,
    LANDING_OBS_DIM,
    LANDING_VALUES,
    extract_landing_observation,
)
from speednik.observation.local import (
    LOCAL_NAMES,
    LOCAL_OBS_DIM,
    LOCAL_VALUES,
    extract_local_observation,
)
from speednik.observation.lookahead import (
    LOOKAHEAD_NAMES,
    LOOKAHEAD_OBS_DIM,
    LOOKAHEAD_VALUES,
    extract_lookahead_observation,
)
from speednik.observation.onward import (
    ONWARD_NAMES,
    ONWARD_OBS_DIM,
    ONWARD_VALUES,
    extract_onward_observation,
)
from speednik.observation.pits import (
    PITS_NAMES,
    PITS_OBS_DIM,
    PITS_VALUES,
    extract_pits_observation,
)
from speednik.observation.probes import GROUND_AHEAD, OBJECT_REACH, ray
from speednik.observation.registry import (
    DEFAULT_OBSERVATION,
    OBSERVATIONS,
    ObservationEncoder,
    compiled_observations,
    get_observation,
    list_observations,
)
from speednik.observation.room import (
    ROOM_NAMES,
    ROOM_OBS_DIM,
    ROOM_VALUES,
    extract_room_observation,
)
from speednik.observation.runup import (
    RUNUP_NAMES,
    RUNUP_NORM,
    RUNUP_OBS_DIM,
    RUNUP_VALUES,
    behind_farthest,
    extract_runup_observation,
)
from speednik.observation.stall import (
    STALL_NAMES,
    STALL_NORM,
    STALL_OBS_DIM,
    STALL_VALUES,
    extract_stall_observation,
    stall_clock,
)
from speednik.observation.reach import REACH_VALUES, extract_reach_observation
from speednik.observation.stand import STAND_FRAMES, STAND_VALUES, extract_stand_observation
from speednik.observation.stride import STRIDE, STRIDE_VALUES, extract_stride_observation
from speednik.observation.terrain import (
    TERRAIN_NAMES,
    TERRAIN_OBS_DIM,
    TERRAIN_VALUES,
    extract_terrain_observation,
)
from speednik.observation.turnback import (
    TURNBACK_NAMES,
    TURNBACK_OBS_DIM,
    TURNBACK_VALUES,
    extract_turnback_observation,
)
from speednik.observation.value import Value, index_of

__all__ = [
    "OBS_DIM", "OBS_NAMES", "TIME_NORM", "basic_values", "extract_observation",
    "TERRAIN_NAMES", "TERRAIN_OBS_DIM", "TERRAIN_VALUES", "extract_terrain_observation",
    "HAZARD_NAMES", "HAZARD_OBS_DIM", "HAZARD_VALUES", "extract_hazard_observation",
    "STALL_NAMES", "STALL_NORM", "STALL_OBS_DIM", "STALL_VALUES",
    "extract_stall_observation", "stall_clock", "LOOKAHEAD_NAMES", "LOOKAHEAD_OBS_DIM",
    "LOOKAHEAD_VALUES", "extract_lookahead_observation", "PITS_NAMES", "PITS_OBS_DIM",
    "PITS_VALUES", "extract_pits_observation", "LANDING_NAMES", "LANDING_OBS_DIM",
    "LANDING_VALUES", "extract_landing_observation", "ROOM_NAMES", "ROOM_OBS_DIM",
    "ROOM_VALUES", "extract_room_observation", "FOOTING_NAMES", "FOOTING_OBS_DIM",
    "FOOTING_VALUES", "extract_footing_observation", "LOCAL_NAMES", "LOCAL_OBS_DIM",
    "LOCAL_VALUES", "extract_local_observation", "ONWARD_NAMES", "ONWARD_OBS_DIM",
    "ONWARD_VALUES", "extract_onward_observation", "STRIDE", "STRIDE_VALUES",
    "extract_stride_observation", "REACH_VALUES", "extract_reach_observation",
    "STAND_FRAMES", "STAND_VALUES", "extract_stand_observation",
    "BEHIND_NAMES", "BEHIND_OBS_DIM", "BEHIND_VALUES", "extract_behind_observation",
    "spring_behind", "RUNUP_NAMES", "RUNUP_NORM", "RUNUP_OBS_DIM", "RUNUP_VALUES",
    "behind_farthest", "extract_runup_observation", "TURNBACK_NAMES", "TURNBACK_OBS_DIM",
    "TURNBACK_VALUES", "extract_turnback_observation",
    "GROUND_AHEAD", "OBJECT_REACH", "ray",
    "DEFAULT_OBSERVATION", "OBSERVATIONS", "ObservationEncoder", "compiled_observations",
    "get_observation", "list_observations", "Value", "index_of",
]

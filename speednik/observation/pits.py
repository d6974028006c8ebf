"""The "pits" observation (55 values, `extract_pits_observation`): the 49
of "lookahead", then the next pit ahead as a jump needs to see it: where
it starts, how wide it is, how high its far side lies and how long that
landing runs before the next pit; and whether jump is held, and whether
a jump can start now.

The ground probes of "terrain" sample three points ahead; a pit between
two of them, or a pillar a jump must land on between two pits, can fall
between the samples. Here the ground is scanned column by column, every
16 px from the player's own column to 368 px ahead, so the edge of a pit
is known to 16 px and chained pits are told apart. A column is a pit
when no ground lies within 192 px below the feet (a drop that deep is
one the player does not climb back out of).

| idx | name           | value                                                  |
|-----|----------------|--------------------------------------------------------|
| 49  | pit_ahead_dx   | distance to the first pit column ahead / 384; 1: none  |
| 50  | pit_width      | its width / 384 (to the end of the scan if it lasts)   |
| 51  | pit_landing    | the far side's ground height, as the ground probes     |
| 52  | landing_length | the far side's length before the next pit (or the end  |
|     |                | of the scan) / 384                                      |
| 53  | jump_held      | 1 when the last frame's input held jump               |
| 54  | jump_ready     | 1 on the ground with jump let go: a jump action now   |
|     |                | starts a jump                                          |

- With no pit in view, pit_ahead_dx reads 1 and the other three 0; with
  a pit whose far side is out of view, pit_landing and landing_length
  read 0.
- Ground heights are as in "terrain": (ground y - feet y) / 64, clipped
  to [-1, 2]; < 0 lands higher than the feet.
- In the air over a pit, pit_ahead_dx reads 0 and pit_width tells how far
  the ground resumes.
- Top-only platforms are ground, as they are for the player's feet.
- A jump starts when the button goes down, not while it stays down: a
  policy that cannot see the button holds it for ever against a step it
  landed in front of. Seeing it, it can let go and press again;
  jump_ready says in one value when a press would start a jump, which a
  linear policy cannot compute from on_ground and jump_held.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from speednik.observation.basic import F32, basic_values
from speednik.observation.hazards import hazards_ahead
from speednik.observation.lookahead import LOOKAHEAD_VALUES, lookahead_probes
from speednik.observation.probes import DROP_NORM, GROUND_PROBE_RISE, probe_origin, ray
from speednik.observation.stall import stall_clock
from speednik.observation.terrain import terrain_probes
from speednik.observation.value import Value, names
from speednik.terrain import DOWN

if TYPE_CHECKING:
    from speednik.simulation import SimState

PIT_STEP = 16
PIT_COLUMNS = 24
PIT_REACH = PIT_STEP * PIT_COLUMNS
PIT_DEPTH = 192
_INV_PIT_REACH = 1.0 / PIT_REACH

PITS_VALUES: tuple[Value, ...] = LOOKAHEAD_VALUES + (
    Value("pit_ahead_dx", 0.0, 1.0), Value("pit_width", 0.0, 1.0),
    Value("pit_landing", -1.0, 2.0), Value("landing_length", 0.0, 1.0),
    Value("jump_held", 0.0, 1.0), Value("jump_ready", 0.0, 1.0),
)
PITS_NAMES = names(PITS_VALUES)
PITS_OBS_DIM = len(PITS_NAMES)


def pit_probes(sim: SimState) -> list[float]:
    p = sim.player.physics
    tiles = sim.stage.tiles
    layer = p.layer
    x, y, _, sign, _, _, feet = probe_origin(p)
    top = y - GROUND_PROBE_RISE
    reach = feet - top + PIT_DEPTH
    # Which scan column each part starts at; -1 until found.
    pit = landing = after = -1
    landing_drop = 0
    for k in range(PIT_COLUMNS):
        d, _ = ray(tiles, DOWN, x + sign * (k * PIT_STEP), top, layer, reach)
        ground = d <= reach
        if pit < 0:
            if not ground:
                pit = k
        elif landing < 0:
            if ground:
                landing = k
                landing_drop = top + d - feet
        elif not ground:
            after = k
            break
    if pit < 0:
        return [1.0, 0.0, 0.0, 0.0]
    width = (landing if landing >= 0 else PIT_COLUMNS) - pit
    if landing < 0:
        return [pit * PIT_STEP * _INV_PIT_REACH, width * PIT_STEP * _INV_PIT_REACH, 0.0, 0.0]
    height = landing_drop / DROP_NORM
    height = -1.0 if height < -1.0 else (2.0 if height > 2.0 else height)
    length = (after if after >= 0 else PIT_COLUMNS) - landing
    return [pit * PIT_STEP * _INV_PIT_REACH, width * PIT_STEP * _INV_PIT_REACH, height,
            length * PIT_STEP * _INV_PIT_REACH]


def extract_pits_observation(sim: SimState) -> np.ndarray:
    """The 55-value "pits" observation (table in the module docstring):
    "lookahead", then the next pit, its width and its landing, whether
    jump is held and whether a jump can start."""
    ready = sim.player.physics.on_ground and not sim.jump_held
    return np.array((*basic_values(sim), *terrain_probes(sim), *hazards_ahead(sim),
                     stall_clock(sim), *lookahead_probes(sim), *pit_probes(sim),
                     1.0 if sim.jump_held else 0.0, 1.0 if ready else 0.0), F32)

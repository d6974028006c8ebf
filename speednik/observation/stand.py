"""The "stand" observation (55 values, `extract_stand_observation`):
"reach" with a flight counted as coming down only once the player stands.

Every flight of "landing" and the observations after it ends on the
first frame the player is on the ground. Coming down past a ledge into a
pit, the player's feet may touch the ledge's lip for a frame and slide
off it: that flight reads 1, and the player falls. On expert stages the
policies die this way: after a red spring or a long jump the player flies
over the platform it should come down on, braking (left) would land, but
holding right reads 1 too, because of a touch of the lip on the way
down; braking cannot be told apart from going on.

Here a flight comes down only once the player has been on the ground
STAND_FRAMES (2) frames in a row, holding the plan's direction there; a
touch it leaves at once is played on through, as the air after it. Two
frames on the ground hold a decision of a policy that decides every
other frame (`--action-repeat 2`, the recipe's), so a flight that reads
1 comes down where the policy can act, and jump on from a narrow ledge;
a touch of one frame is one a decision may miss. Asking for more frames
judges other things too: with four, a flight onto a ledge shorter than
four frames' run (the next take-off of a chain) reads 0, as does one
that comes down moving on and is stopped by the slope in the frames
after (docs/generalisation.md has the counts).
Everything else is "reach"'s (the table of "stride"'s docstring, named
alike), and so is when the flights are played.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from speednik.observation.footing import FOOTING_RULE
from speednik.observation.landing import FlightRule
from speednik.observation.onward import extract_onward_observation
from speednik.observation.stride import STRIDE, STRIDE_VALUES

if TYPE_CHECKING:
    from speednik.simulation import SimState

# Frames on the ground in a row that make a flight's end a landing: as
# many as a decision held for by the recipe (--action-repeat 2).
STAND_FRAMES = 2
STAND_RULE = FlightRule(FOOTING_RULE.frames, FOOTING_RULE.depth, FOOTING_RULE.spikes,
                        STAND_FRAMES)

STAND_VALUES = STRIDE_VALUES


def extract_stand_observation(sim: SimState) -> np.ndarray:
    """The 55-value "stand" observation (table in the module docstring)."""
    return extract_onward_observation(sim, STRIDE, fast=True, rule=STAND_RULE)

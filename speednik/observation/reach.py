"""The "reach" observation (55 values, `extract_reach_observation`):
"stride" with its flights played whenever the player is faster than it
can run.

"onward" and "stride" play their flights only where something could end
one: a pit or spikes in view (PIT_REACH, 384 px ahead) or steep ground.
Elsewhere every flight reads 1, which is true at running speed: a full
jump at TOP_SPEED comes down about 360 px on, inside the view. Faster,
it is not. Off a side spring or down a slope a full jump can carry the
player 700 px and more, over the ground in view into a pit far past it
(on skybridge, from the flat before its last slope down at 12 px a frame, it
comes down in the last pit, 1,100 px on), and "stride" reads it 1.
Here the flights are also played when the player moves across faster
than TOP_SPEED, so a value reads 1 only for a flight played to its end.
The values are "stride"'s (table in its docstring), named alike.

At TOP_SPEED or slower it reads exactly as "stride" does; the first 50
values are always "stride"'s.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from speednik.observation.onward import extract_onward_observation
from speednik.observation.stride import STRIDE, STRIDE_VALUES

if TYPE_CHECKING:
    from speednik.simulation import SimState

REACH_VALUES = STRIDE_VALUES


def extract_reach_observation(sim: SimState) -> np.ndarray:
    """The 55-value "reach" observation (table in the module docstring)."""
    return extract_onward_observation(sim, STRIDE, fast=True)

"""The "stride" observation (55 values, `extract_stride_observation`):
"onward" for a policy that decides every other frame
(`--action-repeat 2`).

"onward"'s last two values say whether a full jump and a hop pressed a
frame later still carry the player on: whether waiting costs the jump.
A policy that decides every other frame cannot press a frame later; its
next chance is two frames on, 12 px further at top speed. Here those
two flights are pressed after STRIDE frames of running on, at the next
decision, so that "later" reads what waiting for it does:

| idx | name              | plan                                             |
|-----|-------------------|--------------------------------------------------|
| 50  | full_onward       | right and jump held                              |
| 51  | hop_onward        | right, jump let go                               |
| 52  | brake_onward      | left, jump let go                                |
| 53  | full_onward_later | full_onward with the jump pressed STRIDE frames  |
|     |                   | later, after running right for them              |
| 54  | hop_onward_later  | the same for hop_onward                          |

Everything else is "onward"'s. A flight depends on the player's state
alone, so when a decision finds the player where running right from the
last one put it, the compiled engine takes that decision's full and hop
flights from the last one's later two instead of playing them again:
with a decision every other frame that happens only when "later" means
two frames, so "stride" also plays fewer flights than "onward" does.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from speednik.observation.onward import ONWARD_VALUES, extract_onward_observation

if TYPE_CHECKING:
    from speednik.simulation import SimState

# Frames of running on before the later plans press jump: the frames a
# decision is held for with --action-repeat 2.
STRIDE = 2

STRIDE_VALUES = ONWARD_VALUES


def extract_stride_observation(sim: SimState) -> np.ndarray:
    """The 55-value "stride" observation (table in the module docstring)."""
    return extract_onward_observation(sim, STRIDE)

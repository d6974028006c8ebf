"""The "local" observation (55 values, `extract_local_observation`): the
60 of "footing" less the five that say where on the stage the player is
and when, so a policy over it acts on what lies around the player alone.

Left out (their indices in "footing"):

| idx | name    | why a policy for unseen stages has no use for it           |
|-----|---------|------------------------------------------------------------|
| 0   | x       | a fraction of this stage's width: the same place on        |
|     |         | another stage holds another obstacle                        |
| 1   | y       | a fraction of this stage's height, the same                 |
| 9   | max_x   | the same as x, for the furthest point reached               |
| 10  | goal_dx | the same, for the distance to the goal                      |
| 11  | time    | the game clock: obstacles come at other times elsewhere     |

A policy trained over "footing" on generated stages can lean on these:
at a given fraction of a generated stage's width some obstacle is
likelier than another. On a hand-made stage that lean is noise, and a
constant put in place of any one of them flips which hand-made stages a
trained policy finishes while its play on generated ones barely moves.

The other 55 keep their order: index i here is the i-th kept value of
"footing" (`LOCAL_KEPT`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from speednik.observation.footing import FOOTING_VALUES, extract_footing_observation
from speednik.observation.value import names

if TYPE_CHECKING:
    from speednik.simulation import SimState

LEFT_OUT = ("x", "y", "max_x", "goal_dx", "time")
# Where each of the 55 values sits in "footing", in order.
LOCAL_KEPT: tuple[int, ...] = tuple(
    i for i, v in enumerate(FOOTING_VALUES) if v.name not in LEFT_OUT)
LOCAL_VALUES = tuple(FOOTING_VALUES[i] for i in LOCAL_KEPT)
LOCAL_NAMES = names(LOCAL_VALUES)
LOCAL_OBS_DIM = len(LOCAL_NAMES)
_KEPT = np.array(LOCAL_KEPT, np.intp)


def extract_local_observation(sim: SimState) -> np.ndarray:
    """The 55-value "local" observation: "footing" without the values
    in LEFT_OUT (table in the module docstring)."""
    return extract_footing_observation(sim)[_KEPT]

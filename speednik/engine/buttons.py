"""The buttons each action presses (`speednik.actions`), as arrays the
compiled loops index: the episode loop's and the planner's."""
from __future__ import annotations

import numpy as np

from speednik.actions import ACTION_HAS_JUMP, ACTION_MAP, NUM_ACTIONS

BUTTON_LEFT = np.array([ACTION_MAP[a].left for a in range(NUM_ACTIONS)], np.bool_)
BUTTON_RIGHT = np.array([ACTION_MAP[a].right for a in range(NUM_ACTIONS)], np.bool_)
BUTTON_DOWN = np.array([ACTION_MAP[a].down_held for a in range(NUM_ACTIONS)], np.bool_)
BUTTON_JUMP = np.array(ACTION_HAS_JUMP, np.bool_)

"""The discrete action space and jump edge detection."""
from __future__ import annotations

import copy
import dataclasses
import pickle

import numpy as np
import pytest

from speednik.actions import (
    ACTION_DOWN,
    ACTION_DOWN_JUMP,
    ACTION_JUMP,
    ACTION_LEFT,
    ACTION_LEFT_JUMP,
    ACTION_MAP,
    ACTION_NAMES,
    ACTION_NOOP,
    ACTION_RIGHT,
    ACTION_RIGHT_JUMP,
    NUM_ACTIONS,
    action_to_input,
    check_action,
)
from speednik.events import JumpEvent
from speednik.physics import InputState
from speednik.simulation import create_sim, sim_step
from stage_fixtures import flat_stage

# (left, right, jump, down) of each action, as the action table says.
BUTTONS = {
    0: (False, False, False, False),
    1: (True, False, False, False),
    2: (False, True, False, False),
    3: (False, False, True, False),
    4: (True, False, True, False),
    5: (False, True, True, False),
    6: (False, False, False, True),
    7: (False, False, True, True),
}


def test_constants():
    assert NUM_ACTIONS == 8
    assert (ACTION_NOOP, ACTION_LEFT, ACTION_RIGHT, ACTION_JUMP, ACTION_LEFT_JUMP,
            ACTION_RIGHT_JUMP, ACTION_DOWN, ACTION_DOWN_JUMP) == tuple(range(8))
    assert len(ACTION_NAMES) == 8 and len(set(ACTION_NAMES)) == 8
    assert sorted(ACTION_MAP) == list(range(8))


@pytest.mark.parametrize("action", range(8))
def test_buttons_of_each_action(action):
    left, right, jump, down = BUTTONS[action]
    template = ACTION_MAP[action]
    assert (template.left, template.right, template.jump_held, template.down_held) == (
        left, right, jump, down)
    assert template.jump_pressed == jump
    assert not template.up_held
    for prev in (False, True):
        inp, held = action_to_input(action, prev)
        assert (inp.left, inp.right, inp.jump_held, inp.down_held, inp.up_held) == (
            left, right, jump, down, False)
        assert held == jump
        # Pressed only on the frame the button goes down.
        assert inp.jump_pressed == (jump and not prev)


def test_jump_edge_detection_over_a_sequence():
    seq = [ACTION_JUMP, ACTION_JUMP, ACTION_RIGHT_JUMP, ACTION_LEFT_JUMP, ACTION_NOOP,
           ACTION_DOWN_JUMP, ACTION_DOWN_JUMP, ACTION_RIGHT, ACTION_RIGHT_JUMP]
    expected_pressed = [True, False, False, False, False, True, False, False, True]
    held = False
    pressed = []
    for a in seq:
        inp, held = action_to_input(a, held)
        pressed.append(inp.jump_pressed)
    assert pressed == expected_pressed


@pytest.mark.parametrize("kind", [np.int8, np.int16, np.int32, np.int64, np.uint8,
                                  np.uint64])
def test_numpy_integers_are_accepted(kind):
    for a in range(8):
        assert action_to_input(kind(a), False) == action_to_input(a, False)
        assert action_to_input(kind(a), True) == action_to_input(a, True)
    assert check_action(np.array(5)) == 5


@pytest.mark.parametrize("bad", [8, -1, 100, np.int64(8), np.int32(-3)])
def test_out_of_range_raises_value_error_naming_value_and_range(bad):
    with pytest.raises(ValueError) as err:
        action_to_input(bad, False)
    assert str(int(bad)) in str(err.value)
    assert "0..7" in str(err.value)


@pytest.mark.parametrize("bad", [True, False, np.bool_(True), 2.0, np.float32(1.0), "2",
                                 None, [2], np.array([1, 2])])
def test_non_integers_raise_type_error(bad):
    with pytest.raises(TypeError) as err:
        action_to_input(bad, False)
    assert "0..7" in str(err.value) and repr(bad) in str(err.value)


def test_inputs_are_shared_and_read_only():
    a, _ = action_to_input(ACTION_RIGHT, False)
    b, _ = action_to_input(ACTION_RIGHT, True)
    assert a is b   # looked up, not built per call
    assert isinstance(a, InputState)
    with pytest.raises(AttributeError):
        a.left = True
    with pytest.raises(AttributeError):
        ACTION_MAP[ACTION_JUMP].jump_pressed = False
    assert action_to_input(ACTION_RIGHT, False)[0] == InputState(right=True)
    assert not a.left


def test_shared_inputs_compare_copy_and_pickle_like_input_states():
    inp, _ = action_to_input(ACTION_RIGHT_JUMP, False)
    plain = InputState(right=True, jump_pressed=True, jump_held=True)
    assert inp == plain and plain == inp
    assert inp != InputState(right=True)
    for clone in (copy.copy(inp), copy.deepcopy(inp), pickle.loads(pickle.dumps(inp))):
        assert type(clone) is InputState and clone == plain
        clone.left = True   # copies are ordinary, mutable inputs
    changed = dataclasses.replace(inp, left=True)
    assert changed.left and changed.right


def test_holding_jump_jumps_once_in_the_game():
    sim = create_sim(flat_stage())
    held = False
    jumps = 0
    for _ in range(120):   # long enough to land and stand again
        inp, held = action_to_input(ACTION_JUMP, held)
        jumps += sum(isinstance(e, JumpEvent) for e in sim_step(sim, inp))
    assert jumps == 1
    assert sim.player.physics.on_ground
    # Let go for a frame: the next press jumps again.
    inp, held = action_to_input(ACTION_NOOP, held)
    sim_step(sim, inp)
    inp, held = action_to_input(ACTION_JUMP, held)
    assert any(isinstance(e, JumpEvent) for e in sim_step(sim, inp))

"""What a stage derives from itself: built once, on first use, by the
stage; never pickled."""
from __future__ import annotations

import pickle

import pytest

from speednik.objects import ObjectIndex, ObjectTables
from speednik.simulation import create_sim, sim_step
from speednik.physics import InputState
from speednik.stages import Stage, load_stage
from speednik.stages.stage import DERIVED
from stage_fixtures import flat_stage


def _built(stage: Stage, name: str) -> bool:
    try:
        getattr(Stage, name).__get__(stage)   # the slot itself, not __getattr__
    except AttributeError:
        return False
    return True


def test_derived_fields_are_built_on_first_read_and_kept():
    stage = flat_stage()
    assert not any(_built(stage, name) for name in DERIVED)
    index = stage.object_index
    assert isinstance(index, ObjectIndex) and stage.object_index is index
    assert _built(stage, "object_index") and not _built(stage, "object_tables")
    assert isinstance(stage.object_tables, ObjectTables)
    assert stage.object_tables is stage.object_tables


def test_a_simulation_reads_the_stage_s_own_index():
    stage = flat_stage()
    sim = create_sim(stage)
    sim_step(sim, InputState(right=True))
    assert _built(stage, "object_index")
    assert not hasattr(sim, "index")


def test_derived_data_is_not_pickled():
    stage = load_stage("hillside")
    for name in DERIVED:
        getattr(stage, name)
    copy = pickle.loads(pickle.dumps(stage))
    assert not any(_built(copy, name) for name in DERIVED)
    assert (copy.name, copy.width, copy.goal) == (stage.name, stage.width, stage.goal)
    assert len(pickle.dumps(stage)) == len(pickle.dumps(copy))
    assert (copy.token_planes == stage.token_planes).all()


def test_unknown_attributes_still_raise():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        flat_stage().nope

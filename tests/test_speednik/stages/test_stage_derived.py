"""What a stage derives from itself: built once, on first use, by the
stage; never pickled."""
from __future__ import annotations

import pickle

import pytest

from speednik.engine.batch import initial_state
from speednik.engine.lowering import compiled_stage, state_arrays
from speednik.objects import ObjectIndex, ObjectTables, object_index, object_tables
from speednik.render import stage_terrain_classes
from speednik.simulation import create_sim, sim_step
from speednik.physics import InputState
from speednik.stages import Stage, load_stage
from speednik.stages.stage import DERIVED
from speednik.tokens import TokenEncoder
from stage_fixtures import flat_stage


def _built(stage: Stage, name: str) -> bool:
    try:
        getattr(Stage, name).__get__(stage)   # the slot itself, not __getattr__
    except AttributeError:
        return False
    return True


def test_derived_fields_are_built_on_first_use_and_kept():
    stage = flat_stage()
    assert not any(_built(stage, name) for name in DERIVED)
    with pytest.raises(AttributeError):
        stage.object_index
    index = object_index(stage)
    assert isinstance(index, ObjectIndex) and stage.object_index is index
    assert object_index(stage) is index
    assert stage.derive("object_index", lambda s: "built twice") is index
    assert _built(stage, "object_index") and not _built(stage, "object_tables")
    assert isinstance(object_tables(stage), ObjectTables)
    assert object_tables(stage) is stage.object_tables


def test_the_engine_s_new_game_state_is_a_new_simulation_s_made_once_and_read_only():
    stage = load_stage("skybridge")
    f, s = initial_state(stage)
    want_f, want_s = state_arrays(create_sim(stage))
    assert f.tobytes() == want_f.tobytes() and s.tobytes() == want_s.tobytes()
    assert initial_state(stage)[0] is f
    with pytest.raises(ValueError):
        f[0] = 1.0


def test_a_simulation_reads_the_stage_s_own_index():
    stage = flat_stage()
    sim = create_sim(stage)
    sim_step(sim, InputState(right=True))
    assert _built(stage, "object_index")
    assert not hasattr(sim, "index")


def test_derived_data_is_not_pickled():
    stage = load_stage("hillside")
    object_index(stage)
    stage_terrain_classes(stage)
    compiled_stage(stage)
    initial_state(stage)
    TokenEncoder().encode(create_sim(stage))      # object tables, token planes
    assert all(_built(stage, name) for name in DERIVED)
    copy = pickle.loads(pickle.dumps(stage))
    assert not any(_built(copy, name) for name in DERIVED)
    assert (copy.name, copy.width, copy.goal) == (stage.name, stage.width, stage.goal)
    assert len(pickle.dumps(stage)) == len(pickle.dumps(copy))
    TokenEncoder().encode(create_sim(copy))
    assert (copy.token_planes == stage.token_planes).all()


def test_an_unpickled_simulation_builds_what_its_stage_needs():
    sim = pickle.loads(pickle.dumps(create_sim(load_stage("pipeworks"))))
    assert not _built(sim.stage, "object_index")
    for _ in range(30):
        sim_step(sim, InputState(right=True))
    assert _built(sim.stage, "object_index") and sim.frame == 30


def test_unknown_names_raise():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        flat_stage().nope
    with pytest.raises(AttributeError, match="no derived field 'nope'"):
        flat_stage().derive("nope", ObjectIndex)


def test_reading_a_stage_s_attributes_stays_fast():
    # A class with __getattr__ has every attribute read through a slower path.
    assert "__getattr__" not in vars(Stage)

"""Place stages (`gen:places:SEEDS`): stretches of the hand-made
validation stages, varied and strung together, certified by the planner
(played again on the readable simulation); never drawn from the held-out
stages; their draws remembered apart, under the profiles they come from."""
from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from sweeps import first_and_rest
from runners import EpisodeRunner
from runners.agents import PlannerAgent
from speednik.stages import (
    StageSetError,
    certify_expert_stages,
    expand_stages,
    generate_profile,
    generate_stage,
    load_stage,
    read_profile,
)
from speednik.stages import certification, certified_draws, sets
from speednik.stages.expert import EXPERT
from speednik.stages.places import (
    FLAT_SCALE,
    GAP_SCALE,
    GRID,
    POOL_SCALE,
    Stretch,
    draw_stretch,
    placed_entities,
    source_profiles,
    varied,
)
from speednik.stages.profile import GAP_LIMIT

PLACE_SAMPLE = range(10)
# What a stretch keeps as designed: the places themselves.
KEPT = ("kind", "rise", "depth", "radius", "clearance", "amplitude", "waves")


def test_a_place_stage_is_the_same_every_time_and_of_its_own_kind():
    before = random.getstate()
    first = generate_profile(4, "places")
    assert random.getstate() == before
    assert generate_profile(4, "places") == first
    assert first.segments != generate_profile(4, "skills").segments
    assert first.stage.difficulty == "expert"
    assert load_stage("gen:places:4") is generate_stage(4, "places")


@pytest.mark.parametrize("seeds", first_and_rest(PLACE_SAMPLE))
def test_the_planner_finishes_every_emitted_place_stage_on_the_readable_sim(seeds):
    for seed in seeds:
        result = EpisodeRunner(generate_stage(seed, "places")).run_episode(PlannerAgent())
        assert result.done_reason == "goal", (seed, result.done_reason,
                                              result.metrics["progress"])


def test_stretches_come_from_the_six_validation_stages_never_the_held_out_ones():
    names = {p.stage.name for p in source_profiles()}
    assert names == {read_profile(p).stage.name
                     for p in expand_stages(["handmade:validation"])}
    held_out = {read_profile(p).stage.name for p in expand_stages(["handmade:heldout"])}
    assert not names & held_out
    rng = random.Random(3)
    drawn = {draw_stretch(rng).stage for _ in range(200)}
    assert drawn == names


def _designed(seg: dict) -> tuple:
    return tuple(seg.get(key) for key in KEPT)


def test_a_stretch_keeps_its_climbs_walls_loops_and_tunnels_and_varies_its_ground():
    rng = random.Random(11)
    lengths_changed = 0
    for _ in range(100):
        stretch = draw_stretch(rng)
        assert stretch.segments[0]["kind"] not in ("step", "gap")
        segments, spans = varied(stretch, rng)
        assert [_designed(s) for s in segments] == [_designed(s) for s in stretch.segments]
        for old, new in zip(stretch.segments, segments):
            if old["kind"] in ("flat", "bridge", "tunnel", "gap", "halfpipe"):
                scale = {"gap": GAP_SCALE, "halfpipe": POOL_SCALE}.get(old["kind"], FLAT_SCALE)
                # On the grid, unless held at a pool's least length or a pit's most.
                assert (new["length"] % GRID == 0 or new["length"] == 2 * new.get("depth", 0)
                        or new["length"] == GAP_LIMIT[EXPERT]), new
                lowest = old["length"] * scale[0] - GRID
                if old["kind"] == "gap":
                    lowest = min(lowest, GAP_LIMIT[EXPERT])
                assert lowest <= new["length"] <= max(old["length"] * scale[1] + GRID,
                                                      2 * old.get("depth", 0))
                lengths_changed += new["length"] != old["length"]
            else:
                assert new == old
        # The spans follow one another from 0 and match the lengths.
        assert spans[0][0] == 0
        assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    assert lengths_changed > 100


def test_an_object_keeps_its_distance_from_the_nearer_end_of_its_ground():
    stretch = Stretch(
        "made-up",
        ({"kind": "flat", "length": 400}, {"kind": "step", "rise": 96},
         {"kind": "flat", "length": 200}),
        ((1000, 1400), (1400, 1400), (1400, 1600)), 704,
        ({"kind": "spring", "x": 1330},      # 70 px before the wall
         {"kind": "ring", "x": 1040},        # 40 px after the flat begins
         {"kind": "walker", "x": 1450}))     # 50 px past the wall
    spans = [(0, 560), (560, 560), (560, 680)]
    moved = placed_entities(stretch, spans, 3000)
    assert [e["x"] for e in moved] == [3000 + 560 - 70, 3000 + 40, 3000 + 560 + 50]
    assert [e["kind"] for e in moved] == ["spring", "ring", "walker"]


def test_a_place_stage_strings_several_stretches_and_names_where_they_come_from():
    names = {p.stage.name for p in source_profiles()}
    for seed in range(6):
        profile = generate_profile(seed, "places")
        described = profile.stage.description.split("stretches of ")[1].split(", certified")[0]
        came_from = described.split(", ")
        assert len(came_from) >= 2 and set(came_from) <= names, (seed, came_from)
        assert sum(e.kind == "goal" for e in profile.entities) == 1
        assert sum(e.kind == "checkpoint" for e in profile.entities) <= 1


def test_gen_places_is_a_stage_set_and_a_wrong_kind_names_it():
    assert expand_stages(["gen:places:3-4"]) == ["gen:places:3", "gen:places:4"]
    with pytest.raises(StageSetError, match="places"):
        expand_stages(["gen:place:3"])


def test_place_draws_are_remembered_apart_and_forgotten_when_a_source_changes(
        monkeypatch, tmp_path):
    monkeypatch.setattr(certified_draws, "RECORD_DIR", tmp_path / "record")
    monkeypatch.setattr(certification, "_CERTIFIED_DRAW", {})
    monkeypatch.setattr(certification, "_CERTIFIED_PLACES_DRAW", {})
    seeds = [30, 31]
    certify_expert_stages([f"gen:places:{s}" for s in seeds], workers=2)
    assert sorted(certification._CERTIFIED_PLACES_DRAW) == seeds
    assert certified_draws.read_draws("places") == certification._CERTIFIED_PLACES_DRAW
    assert certified_draws.read_draws("expert") == {}
    # The same sources with one profile edited: the record is not theirs.
    copy = tmp_path / "handmade"
    shutil.copytree(sets.HANDMADE_DIR, copy, ignore=shutil.ignore_patterns("heldout"))
    edited = sorted(copy.glob("*.toml"))[0]
    edited.write_text(edited.read_text() + "\n# edited\n")
    monkeypatch.setitem(sets.HANDMADE_SETS, "handmade:validation", Path(copy))
    assert certified_draws.read_draws("places") == {}

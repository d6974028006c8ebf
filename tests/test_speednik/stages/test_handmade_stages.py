"""The hand-made validation stages: written from the profile format at
expert's sizes, each finished by the planner on the readable simulation,
and not passable by one rule."""
from __future__ import annotations

from pathlib import Path

import pytest

from runners import EpisodeRunner
from runners.agents import PlannerAgent, make_baseline
from speednik.stages import HANDMADE_DIR, handmade_stages, list_stages, load_stage
from speednik.stages.profile import read_profile

HANDMADE = handmade_stages()


def test_there_are_six_named_after_their_files_and_none_is_built_in():
    assert len(HANDMADE) == 6
    assert all(Path(p).parent == HANDMADE_DIR for p in HANDMADE)
    names = [Path(p).stem for p in HANDMADE]
    assert names == sorted(names) and not set(names) & set(list_stages())
    for path in HANDMADE:
        profile = read_profile(path)
        assert profile.stage.name == Path(path).stem
        assert profile.stage.difficulty == "expert"


def test_together_they_use_the_whole_vocabulary():
    kinds, springs = set(), set()
    for path in HANDMADE:
        profile = read_profile(path)
        kinds |= {s.kind for s in profile.segments} | {e.kind for e in profile.entities}
        springs |= {(e.direction, e.strength)
                    for e in profile.entities if e.kind == "spring"}
    assert {"ramp", "gap", "step", "halfpipe", "loop", "bridge", "tunnel"} <= kinds
    assert {"spikes", "platform", "spring"} <= kinds
    assert {("up", "red"), ("up", "yellow"), ("right", "yellow")} <= springs


@pytest.mark.parametrize("path", HANDMADE, ids=lambda p: Path(p).stem)
def test_the_planner_finishes_each(path):
    result = EpisodeRunner(load_stage(path)).run_episode(PlannerAgent())
    assert result.done_reason == "goal", (path, result.metrics["progress"])


def test_the_jump_runner_finishes_at_most_one():
    finished = [p for p in HANDMADE
                if EpisodeRunner(load_stage(p)).run_episode(make_baseline("jump-runner"))
                .done_reason == "goal"]
    assert len(finished) <= 1, finished

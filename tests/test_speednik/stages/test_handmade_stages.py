"""The hand-made stages: written from the profile format at expert's
sizes, each finished by the planner on the readable simulation, and not
passable by one rule. Six are there to choose settings on, and eight more
written after them (`extra/`); four more, in their own folder, are held
out: reported on and never chosen on."""
from __future__ import annotations

from pathlib import Path

import pytest

from runners import EpisodeRunner
from runners.agents import PlannerAgent, make_baseline
from speednik.stages import (HANDMADE_DIR, HANDMADE_EXTRA_DIR, HANDMADE_HELDOUT_DIR,
                             handmade_extra_stages, handmade_heldout_stages, handmade_stages,
                             list_stages, load_stage)
from speednik.stages.profile import read_profile
from sweeps import sweep

HANDMADE = handmade_stages()
EXTRA = handmade_extra_stages()
HELDOUT = handmade_heldout_stages()
SETS = {"validation": (HANDMADE, HANDMADE_DIR, 6), "extra": (EXTRA, HANDMADE_EXTRA_DIR, 8),
        "held-out": (HELDOUT, HANDMADE_HELDOUT_DIR, 4)}


@pytest.mark.parametrize("which", SETS)
def test_each_set_is_named_after_its_files_and_shares_no_name(which):
    paths, folder, count = SETS[which]
    assert len(paths) == count
    assert all(Path(p).parent == folder for p in paths)
    names = [Path(p).stem for p in paths]
    assert names == sorted(names) and not set(names) & set(list_stages())
    for path in paths:
        profile = read_profile(path)
        assert profile.stage.name == Path(path).stem
        assert profile.stage.difficulty == "expert"
    stems = [Path(p).stem for p in HANDMADE + EXTRA + HELDOUT]
    assert len(set(stems)) == len(stems)


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


def test_the_held_out_stages_ask_for_the_skills_the_policies_miss():
    """Pits close past the crest of a climb, spikes on a crest, and
    shelves between pits shorter than a full jump's run (braking in the
    air), in every one or together."""
    crests_before_pits = spiked_crests = short_shelves = 0
    for path in HELDOUT:
        profile = read_profile(path)
        x, spans = 0, []
        for segment in profile.segments:
            length = (2 * segment.radius + 128 if segment.kind == "loop"
                      else getattr(segment, "length", 0) or 0)
            spans.append((segment, x, x + length))
            x += length
        spikes = [e.x for e in profile.entities if e.kind == "spikes"]
        for (a, _, _), (b, b0, b1), (c, _, _) in zip(spans, spans[1:], spans[2:]):
            if a.kind == "ramp" and a.rise > 0 and b.kind == "flat":
                crests_before_pits += c.kind == "gap" and b.length <= 256
                spiked_crests += any(b0 <= s <= b1 for s in spikes)
            if a.kind == "gap" and b.kind == "flat" and c.kind == "gap":
                short_shelves += b.length <= 192
    assert crests_before_pits >= 3 and spiked_crests >= 2 and short_shelves >= 4


# The held-out stages first: make test keeps the first, and the planner
# finishes gorge in a fifth of a second where aqueduct takes seven.
@pytest.mark.parametrize("path", sweep(HELDOUT + HANDMADE + EXTRA), ids=lambda p: Path(p).stem)
def test_the_planner_finishes_each(path):
    result = EpisodeRunner(load_stage(path)).run_episode(PlannerAgent())
    assert result.done_reason == "goal", (path, result.metrics["progress"])


@pytest.mark.parametrize("which", SETS)
def test_the_jump_runner_finishes_at_most_one(which):
    paths = SETS[which][0]
    finished = [p for p in paths
                if EpisodeRunner(load_stage(p)).run_episode(make_baseline("jump-runner"))
                .done_reason == "goal"]
    assert len(finished) <= 1, finished

"""Which built stages a process keeps: every stage a holder keeps (an
evolution run keeps all of its own), and a bounded number of others."""
from __future__ import annotations

from collections import OrderedDict

import pytest

from speednik import stages
from speednik.stages import KeptStages, StageError, generate_stage, keep_stages, load_stage


@pytest.fixture
def builds(monkeypatch):
    """An empty stage cache of 3 recent stages; counts each stage built."""
    monkeypatch.setattr(stages, "_KEPT", {})
    monkeypatch.setattr(stages, "_HOLDERS", {})
    monkeypatch.setattr(stages, "_RECENT", OrderedDict())
    monkeypatch.setattr(stages, "CACHE_SIZE", 3)
    counts: dict[str, int] = {}
    real = stages.build_stage

    def counting(profile):
        counts[profile.stage.name] = counts.get(profile.stage.name, 0) + 1
        return real(profile)

    monkeypatch.setattr(stages, "build_stage", counting)
    return counts


def test_a_stage_is_built_once_and_shared(builds):
    assert load_stage("gen:easy:1") is generate_stage(1, "easy") is load_stage("gen:easy:1")
    assert builds == {"generated-easy-1": 1}


def test_beyond_the_bound_the_least_recent_stage_is_rebuilt(builds):
    for seed in (1, 2, 3, 1, 4, 2):     # 1 is used again before 4 pushes 2 out
        generate_stage(seed, "easy")
    assert builds == {"generated-easy-1": 1, "generated-easy-2": 2,
                      "generated-easy-3": 1, "generated-easy-4": 1}
    assert stages.kept_stage_count() == (0, 3)


def test_kept_stages_stay_however_many_others_are_built(builds):
    with keep_stages(["gen:easy:0-4", "hillside"]) as kept:
        assert [s.name for s in kept.stages] == [
            *(f"generated-easy-{s}" for s in range(5)), "hillside"]
        for seed in range(10, 20):
            generate_stage(seed, "hard")
        for _ in range(2):
            for seed in range(5):
                assert load_stage(f"gen:easy:{seed}") is kept.stages[seed]
        assert stages.kept_stage_count() == (6, 3)
    assert all(builds[f"generated-easy-{s}"] == 1 for s in range(5))
    # Released, they join the recent stages, which keep their bound.
    assert stages.kept_stage_count() == (0, 3)


def test_a_stage_kept_twice_is_kept_until_both_let_go(builds):
    first = keep_stages(["gen:easy:1"])
    second = KeptStages()
    stage = second.add("gen:easy:1")
    first.release()
    first.release()                      # a second release does nothing
    for seed in range(10, 15):
        generate_stage(seed, "easy")
    assert load_stage("gen:easy:1") is stage
    second.release()
    for seed in range(20, 25):
        generate_stage(seed, "easy")
    load_stage("gen:easy:1")
    assert builds["generated-easy-1"] == 2


def test_a_stage_that_cannot_be_built_keeps_nothing(builds):
    with pytest.raises(StageError, match="unknown stage 'nowhere'"):
        keep_stages(["gen:easy:1", "nowhere", "gen:easy:2"])
    assert stages.kept_stage_count() == (0, 1)
    assert "generated-easy-2" not in builds

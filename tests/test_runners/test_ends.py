"""runners.ends: how a set of episodes ended, in words."""
from __future__ import annotations

from runners.ends import changed_stages, ends_summary


def test_the_summary_counts_the_goals_and_each_other_end_commonest_first():
    ends = ["goal", "stalled", "pit", "goal", "stalled"]
    assert ends_summary(ends) == "finished 2 of 5; the rest: 2 stalled, 1 pit"
    assert ends_summary(["goal"]) == "finished 1 of 1; the rest: none"


def test_the_stages_only_one_way_finishes_are_named_by_their_labels():
    names = ["gen:easy:0", "speednik/stages/handmade/quarry.toml", "hillside"]
    before = ["goal", "stalled", "goal"]
    after = ["pit", "goal", "goal"]
    assert changed_stages(names, before, after) == "quarry; only as it is: gen:easy:0"
    assert changed_stages(names, before, before) == "none; only as it is: none"

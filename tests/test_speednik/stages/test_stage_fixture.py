"""Every stage the builder makes is exactly what the recorded fixture says:
the built-in stages and 300 generated stages per difficulty (12 expert
ones), tile for tile, entity for entity, and their lowered arrays (see
stage_digest). A faster
or tidier builder must pass this unchanged; tests/helpers/record_stage_fixture.py
re-records it after a deliberate change to what a stage is. The first
stages of each group are checked by default, every stage with the broad
tests."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from stage_digest import FIXTURE, PARTS, build_fresh, group_digest, groups, short, stage_digests
from paths import TESTS_DIR

RECORDED = json.loads((TESTS_DIR / FIXTURE).read_text(encoding="utf-8"))


def _name(group: str, key) -> str:
    return key if group == "builtin" else f"gen:{group}:{key}"


# Stages of each group checked by default; all of them, and the digest of
# the whole group, with the broad tests.
FIRST = 8


def _check_stages(group: str, keys: list) -> list:
    """Each of `keys` built now has its short digests in the fixture;
    gives their full digests."""
    recorded = RECORDED[group]
    full = []
    for key in keys:
        digests = stage_digests(build_fresh(group, key))
        want = recorded["stages"][str(key)].split(".")
        got = short(digests).split(".")
        changed = [part for part, a, b in zip(PARTS, want, got) if a != b]
        assert not changed, (
            f"{_name(group, key)} (the first that differs) changed: "
            f"{', '.join(changed)}")
        full.append(digests)
    return full


def _listed(group: str) -> list:
    keys = groups()[group]
    assert [str(k) for k in keys] == list(RECORDED[group]["stages"]), \
        f"{group}: the fixture lists other stages; re-record it"
    return keys


@pytest.mark.parametrize("group", list(groups()))
def test_the_first_stages_of_each_group_match_the_fixture(group):
    _check_stages(group, _listed(group)[:FIRST])


@pytest.mark.broad
@pytest.mark.parametrize("group", list(groups()))
def test_stages_match_the_fixture(group):
    full = _check_stages(group, _listed(group))
    assert group_digest(full) == RECORDED[group]["sha256"], \
        f"{group}: a stage differs beyond its short digests"

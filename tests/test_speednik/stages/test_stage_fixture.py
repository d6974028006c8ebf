"""Every stage the builder makes is exactly what the recorded fixture says:
the built-in stages and 300 generated stages per difficulty (12 expert
ones), tile for tile, entity for entity, and their lowered arrays (see
stage_digest). A faster
or tidier builder must pass this unchanged; tests/record_stage_fixture.py
re-records it after a deliberate change to what a stage is."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from stage_digest import FIXTURE, PARTS, build_fresh, group_digest, groups, short, stage_digests
from paths import TESTS_DIR

RECORDED = json.loads((TESTS_DIR / FIXTURE).read_text(encoding="utf-8"))


def _name(group: str, key) -> str:
    return key if group == "builtin" else f"gen:{group}:{key}"


@pytest.mark.parametrize("group", list(groups()))
def test_stages_match_the_fixture(group):
    recorded = RECORDED[group]
    keys = groups()[group]
    assert [str(k) for k in keys] == list(recorded["stages"]), \
        f"{group}: the fixture lists other stages; re-record it"
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
    assert group_digest(full) == recorded["sha256"], \
        f"{group}: a stage differs beyond its short digests"

"""The typed lists of lowered stages the kernels take hold the stages
given, in order, and a second process builds one from the cache without
compiling anything."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from paths import REPO_ROOT
from speednik.engine.lowering import compiled_stage
from speednik.engine.stage_list import put_stage, stage_list
from speednik.stages import load_stage

BUILD_ONE = """
import json
from speednik.engine import stage_list as sl
from speednik.engine.lowering import compiled_stage
from speednik.stages import load_stage
lowered = compiled_stage(load_stage("hillside"))
out = sl.stage_list([lowered, lowered])
sl.put_stage(out, 1, lowered)
print(json.dumps({name: sum(getattr(sl, name).stats.cache_misses.values())
                  for name in ("_list_of", "_append", "_put")}))
"""


def test_the_list_holds_the_stages_in_order_and_a_slot_can_be_replaced():
    hillside, pipeworks = (compiled_stage(load_stage(n)) for n in ("hillside", "pipeworks"))
    out = stage_list([hillside, pipeworks, hillside])
    assert len(out) == 3
    for got, want in zip(out, (hillside, pipeworks, hillside)):
        assert np.array_equal(got.ints, want.ints) and np.array_equal(got.floats, want.floats)
    put_stage(out, 0, pipeworks)
    assert np.array_equal(out[0].ints, pipeworks.ints)
    assert np.array_equal(out[2].ints, hillside.ints)


def test_an_empty_list_is_refused():
    with pytest.raises(ValueError, match="at least one stage"):
        stage_list([])


def test_a_later_process_builds_a_list_without_compiling():
    for _ in range(2):  # the first may be the one that compiles
        done = subprocess.run([sys.executable, "-c", BUILD_ONE], capture_output=True,
                              text=True, cwd=REPO_ROOT, timeout=300)
        assert done.returncode == 0, done.stderr
    misses = json.loads(done.stdout.strip().splitlines()[-1])
    assert misses == {"_list_of": 0, "_append": 0, "_put": 0}

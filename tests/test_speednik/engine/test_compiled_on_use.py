"""A run compiles only the observation it uses: loading the engine for
`basic` leaves the probes and flights of the other observations
uncompiled (their functions hold no compiled signature), and each
observation's code is its own compiled function."""
from __future__ import annotations

import subprocess
import sys

from paths import REPO_ROOT

CHECK = """
from speednik.engine import warm_up
from speednik.engine import observation as o
warm_up(["basic"], ["linear"])
untouched = [f.py_func.__name__ for f in (o.terrain_probes, o.hazards_ahead, o.pit_probes,
                                          o.landing_values, o._flight)
             if f.signatures]
print("compiled:", untouched, o.observer.cache_info().currsize)
"""


def test_a_run_of_basic_compiles_no_other_observation():
    # A fresh process: the test process may have compiled others already.
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True,
                         cwd=REPO_ROOT, timeout=900)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "compiled: [] 1"


def test_each_observation_is_a_function_of_its_own_named_for_it():
    from speednik.engine.observation import OBSERVATION_KINDS, observer

    functions = [observer(k) for k in range(len(OBSERVATION_KINDS))]
    assert len({id(f) for f in functions}) == len(OBSERVATION_KINDS)
    assert [f.py_func.__qualname__ for f in functions] == [
        f"observe_{name}" for name in OBSERVATION_KINDS]
    assert observer(3) is observer(3)


def test_a_kind_out_of_range_is_refused_naming_the_kinds():
    import pytest

    from speednik.engine.observation import observer

    with pytest.raises(ValueError, match=r"no compiled observation of kind 99: kinds are 0 to "
                                         r"16 \(basic, terrain"):
        observer(99)

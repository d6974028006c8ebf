"""`python -m speednik.engine` compiles the engine ahead of a run with
nothing installed but numpy and Numba (what `make run` relies on to
compile while pip installs the rest), says how long it took, and
refuses an unknown name in one line."""
from __future__ import annotations

import re
import subprocess
import sys

from paths import REPO_ROOT

# Every other dependency made unimportable: an import of any fails.
WITHOUT_THE_REST = """
import runpy, sys
for name in ("deap", "gymnasium", "matplotlib", "scipy", "neat", "torch", "threadpoolctl"):
    sys.modules[name] = None
sys.argv = ["python -m speednik.engine", "basic", "--policy", "linear"]
runpy.run_module("speednik.engine", run_name="__main__")
"""


def test_it_compiles_an_observation_with_only_numpy_and_numba():
    out = subprocess.run([sys.executable, "-c", WITHOUT_THE_REST], capture_output=True,
                         text=True, cwd=REPO_ROOT, timeout=900)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0] == "compiling the engine for basic (linear policies) ..."
    assert re.fullmatch(r"engine (compiled in|already compiled: loaded in) \d+\.\d s",
                        lines[-1]), lines


def test_an_unknown_observation_is_one_line_naming_the_accepted():
    out = subprocess.run([sys.executable, "-m", "speednik.engine", "basic", "nope"],
                         capture_output=True, text=True, cwd=REPO_ROOT, timeout=120)
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "invalid choice: 'nope'" in lines[0] and "'reach'" in lines[0]

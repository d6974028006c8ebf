"""Runs give the same results on any x86-64 machine with no setting made
by hand: importing evolution pins numpy's and OpenBLAS's kernels to AVX2
before numpy loads (evolution.numeric_env), config.json records the
kernels, and a resume or a Dask worker on other kernels says so."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import pytest

from commands import call
from evolution.numeric_env import (
    OPT_OUT,
    PINNED_KERNELS,
    differences,
    numeric_environment,
    pin_kernels,
)
from reference_runs import NUMERIC_RUNS, fresh


def _numeric(tmp_path, name: str, **environ: str) -> dict:
    out = tmp_path / f"{name}.json"
    done = fresh(["--numeric", str(out)], **environ)
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())


@pytest.mark.slow
def test_default_runs_equal_runs_pinned_by_hand(tmp_path):
    default = _numeric(tmp_path, "default")
    by_hand = _numeric(tmp_path, "by-hand", **PINNED_KERNELS)
    assert default["environment"]["pinned"]
    assert default["environment"] == by_hand["environment"]
    assert set(default["runs"]) == set(NUMERIC_RUNS)
    for name in NUMERIC_RUNS:
        assert default["runs"][name] == by_hand["runs"][name], name
    own = _environment_of("import evolution", **{OPT_OUT: "1"})
    del own["env"]
    if not differences(own, default["environment"]):
        warnings.warn("this CPU's own numeric kernels are the pinned ones: only one kind "
                      "of kernels was checked (the check means most on an AVX-512 machine)")


def _plain_env() -> dict:
    return {k: v for k, v in os.environ.items() if k not in (*PINNED_KERNELS, OPT_OUT)}


REPORT = ("import json, os; from evolution.numeric_env import PINNED_KERNELS, "
          "numeric_environment; print(json.dumps(dict(numeric_environment(), "
          "env={k: os.environ.get(k) for k in PINNED_KERNELS})))")


def _environment_of(*code: str, **environ: str) -> dict:
    """numeric_environment() and the kernel settings of a fresh interpreter
    that runs `code` first."""
    done = subprocess.run([sys.executable, "-c", "; ".join([*code, REPORT])],
                          capture_output=True, text=True, env={**_plain_env(), **environ},
                          check=True)
    return json.loads(done.stdout)


def test_importing_evolution_first_pins_and_numpy_first_does_not():
    pinned = _environment_of("import evolution")
    unpinned = _environment_of("import numpy", "import evolution")
    assert pinned["pinned"] and pinned["env"] == PINNED_KERNELS
    assert not unpinned["pinned"] and unpinned["env"] == dict.fromkeys(PINNED_KERNELS)


def test_opting_out_or_a_setting_by_hand_is_kept():
    native = _environment_of("import evolution", **{OPT_OUT: "1"})
    assert not native["pinned"] and native["env"] == dict.fromkeys(PINNED_KERNELS)
    own = _environment_of("import evolution", OPENBLAS_CORETYPE="Sandybridge")
    assert own["env"]["OPENBLAS_CORETYPE"] == "Sandybridge" and not own["pinned"]


def test_pin_kernels_sets_nothing_once_numpy_is_loaded():
    environ: dict[str, str] = {}
    assert "numpy" in sys.modules
    assert pin_kernels(environ) is False and environ == {}


def test_differences_name_what_decides_the_arithmetic():
    here = numeric_environment()
    assert differences(here, dict(here)) == []
    assert differences(None, here) == []
    other = dict(here, numpy_kernels=["X86_V2", "X86_V3", "X86_V4"], pinned=False, cpu="x")
    assert differences(here, other) == [
        f"numpy_kernels {'+'.join(here['numpy_kernels'])} -> X86_V2+X86_V3+X86_V4"]


@pytest.fixture
def run_dir(tmp_path):
    from evolution.run import main

    out = tmp_path / "run"
    assert call(main, "--generations", "2", "--population", "6", "--no-plots",
                "--quiet", "--checkpoint-every", "1", "--out", str(out)).returncode == 0
    return out


def test_config_json_records_the_kernels_and_keeps_the_start_on_resume(run_dir, capsys):
    from evolution.run import main

    config = json.loads((run_dir / "config.json").read_text())
    assert config["numeric"] == numeric_environment()
    other = dict(config["numeric"], numpy="0.0.1", blas_kernels="Prescott")
    config["numeric"] = other
    (run_dir / "config.json").write_text(json.dumps(config))
    done = call(main, "--resume", str(run_dir), "--generations", "3", "--no-plots",
                "--quiet")
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stderr.splitlines() if "numeric kernels" in line]
    assert len(notes) == 1
    assert "numpy 0.0.1 -> " in notes[0] and "blas_kernels Prescott -> " in notes[0]
    assert json.loads((run_dir / "config.json").read_text())["numeric"] == other


def test_resume_on_the_same_kernels_says_nothing_of_them(run_dir):
    from evolution.run import main

    done = call(main, "--resume", str(run_dir), "--generations", "3", "--no-plots", "--quiet")
    assert done.returncode == 0 and "numeric" not in done.stderr


def test_a_worker_on_other_kernels_is_named_on_one_line():
    from evolution.cluster.session import DaskSession

    said: list[str] = []
    session = DaskSession("local", [], {}, notify=said.append)
    here = numeric_environment()
    session._compare_numeric({"tcp://10.0.0.9:4000": dict(here),
                              "tcp://10.0.0.9:4001": dict(here, blas_kernels="SkylakeX")})
    assert len(said) == 1 and "tcp://10.0.0.9:4001" in said[0]
    assert "blas_kernels" in said[0] and "evolution.cluster.worker" in said[0]
    said.clear()
    session._compare_numeric({"tcp://10.0.0.9:4000": dict(here)})
    assert said == []


def test_prepare_worker_reports_the_workers_kernels():
    from evolution.cluster.task import prepare_worker

    # One observation: with none named a worker loads every one, which a
    # first compile takes many minutes over.
    assert prepare_worker("basic") == numeric_environment()

"""A checkpoint whose search state (CMA-ES's mean, paths, covariance and
step size; OpenAI-ES's mean and Adam's moments) holds NaN or an infinity
is refused on --resume before anything runs, naming the array, as one
whose fitness does: otherwise the first episode fails on it after the
run's files were rewritten, and so does the resume it suggests."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from evolution.config import EvolutionConfig
from evolution.loop.checkpoint import CHECKPOINT_NAME, load_checkpoint
from evolution.strategies.registry import get_strategy
from commands import evolution_run
from paths import REPO_ROOT

FAST = ["--population", "6", "--max-steps", "200", "--workers", "1", "--quiet",
        "--generations", "1", "--no-plots"]


def run_cli(*args):
    return evolution_run(*args, cwd=REPO_ROOT)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    for method in ("cmaes", "openai-es"):
        proc = run_cli(*FAST, "--algorithm", method, "--out", root / method)
        assert proc.returncode == 0, proc.stderr
    return root


def damaged_copy(runs: Path, method: str, tmp_path: Path, array: str | None = None,
                 number: str | None = None, value: float = np.nan) -> Path:
    """A copy of the run whose checkpoint holds `value` in one element of
    the stored array `array`, or as the search state's number `number`."""
    run = Path(shutil.copytree(runs / method, tmp_path / method))
    with np.load(run / CHECKPOINT_NAME) as npz:
        arrays = {k: npz[k] for k in npz.files}
    if array is not None:
        arrays[array] = arrays[array].copy()
        arrays[array].flat[len(arrays[array].flat) // 2] = value
    if number is not None:
        meta = json.loads(str(arrays["meta"][()]))
        meta["search"][number] = value
        arrays["meta"] = np.array(json.dumps(meta))
    with open(run / CHECKPOINT_NAME, "wb") as f:
        np.savez(f, **arrays)
    return run


def files_of(run: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns)
            for p in run.rglob("*") if p.is_file()}


@pytest.mark.parametrize("method, array", [
    ("cmaes", "search_centroid"), ("cmaes", "search_C"), ("cmaes", "search_pc"),
    ("cmaes", "search_ps"), ("cmaes", "search_B"), ("cmaes", "search_diagD"),
    ("cmaes", "search_BD"),
    ("openai-es", "search_theta"), ("openai-es", "search_m"), ("openai-es", "search_v"),
])
def test_nan_in_a_search_array_is_refused_naming_it(runs, tmp_path, method, array):
    run = damaged_copy(runs, method, tmp_path, array=array)
    ckpt = load_checkpoint(run)
    config = EvolutionConfig.from_dict(ckpt.config)
    with pytest.raises(ValueError, match=f"^{array} holds nan; accepted: finite numbers"):
        get_strategy(method).load().from_state(config, config.genome_size(), ckpt.search)


@pytest.mark.parametrize("number", ["sigma", "cond", "rng_cached"])
def test_nan_in_a_cmaes_number_is_refused_naming_it(runs, tmp_path, number):
    run = damaged_copy(runs, "cmaes", tmp_path, number=number)
    ckpt = load_checkpoint(run)
    config = EvolutionConfig.from_dict(ckpt.config)
    with pytest.raises(ValueError, match=f"the CMA-ES {number} holds nan"):
        get_strategy("cmaes").load().from_state(config, config.genome_size(), ckpt.search)


@pytest.mark.parametrize("method, array, number, value, named", [
    ("cmaes", "search_centroid", None, np.nan, "search_centroid holds nan"),
    ("cmaes", "search_C", None, np.inf, "search_C holds inf"),
    ("cmaes", None, "sigma", np.nan, "the CMA-ES sigma holds nan"),
    ("openai-es", "search_theta", None, np.nan, "search_theta holds nan"),
    ("openai-es", "search_v", None, -np.inf, "search_v holds -inf"),
])
def test_resume_refuses_a_nan_search_state_before_writing_anything(
        runs, tmp_path, method, array, number, value, named):
    run = damaged_copy(runs, method, tmp_path, array=array, number=number, value=value)
    before = files_of(run)
    proc = run_cli("--resume", run, "--generations", "2")
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "damaged checkpoint" in lines[0] and named in lines[0]
    assert "episode" not in lines[0]
    assert files_of(run) == before


def test_an_undamaged_search_state_still_resumes(runs, tmp_path):
    run = Path(shutil.copytree(runs / "cmaes", tmp_path / "cmaes"))
    proc = run_cli("--resume", run, "--generations", "2")
    assert proc.returncode == 0, proc.stderr
    assert load_checkpoint(run).generation == 2

"""CMA-ES (DEAP's cma.Strategy): seeded, exactly resumable from a
data-only checkpoint, and the same on both engines."""
from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from evolution.loop.checkpoint import CHECKPOINT_NAME, load_checkpoint
from evolution.config import ConfigError, EvolutionConfig
from evolution.loop.evolve import evolve

SMALL = dict(population=8, max_steps=500, stall_frames=120, stages=("gen:easy:0-1",),
             observation="basic", checkpoint_every=1, seed=4, workers=2, generations=4,
             algorithm="cmaes", options={"init_sigma": 0.5})


def without_time(rows):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def best(run_dir):
    return json.loads((run_dir / "best.json").read_text())["genome"]


def test_same_seed_same_run_and_another_seed_another(tmp_path):
    config = EvolutionConfig(**SMALL)
    np.random.seed(123)
    a = evolve(config, tmp_path / "a")
    after_a = np.random.random()
    np.random.seed(999)   # numpy's global generator does not steer the run ...
    b = evolve(config, tmp_path / "b")
    assert without_time(a.logbook) == without_time(b.logbook)
    assert best(tmp_path / "a") == best(tmp_path / "b")
    # ... and the run does not move it.
    np.random.seed(123)
    assert np.random.random() == after_a
    c = evolve(config.replace(seed=5), tmp_path / "c")
    assert best(tmp_path / "c") != best(tmp_path / "a")


def test_resume_is_exact_and_the_checkpoint_is_data_only(tmp_path):
    config = EvolutionConfig(**SMALL)
    straight = evolve(config, tmp_path / "straight")
    evolve(config.replace(generations=2), tmp_path / "split")
    ckpt = load_checkpoint(tmp_path / "split")
    assert ckpt.search is not None and ckpt.search["meta"]["update_count"] == 3
    with zipfile.ZipFile(tmp_path / "split" / CHECKPOINT_NAME) as z:
        for name in z.namelist():
            with z.open(name) as f:
                # numpy's .npy header; an object array would need pickle
                # and np.load(allow_pickle=False) refuses it.
                assert f.read(6) == b"\x93NUMPY"
    with np.load(tmp_path / "split" / CHECKPOINT_NAME, allow_pickle=False) as npz:
        assert {"search_C", "search_centroid", "search_rng_keys"} <= set(npz.files)
    resumed = evolve(config, tmp_path / "split", resume=True)
    assert without_time(resumed.logbook) == without_time(straight.logbook)
    assert best(tmp_path / "split") == best(tmp_path / "straight")


def test_both_engines_give_the_same_cmaes_run(tmp_path):
    config = EvolutionConfig(**{**SMALL, "generations": 2, "policy": "mlp", "hidden": 3})
    compiled = evolve(config, tmp_path / "compiled")
    python = evolve(config.replace(engine="python", workers=1), tmp_path / "python")
    assert without_time(compiled.logbook) == without_time(python.logbook)
    assert best(tmp_path / "compiled") == best(tmp_path / "python")


def test_unknown_algorithm_is_named():
    with pytest.raises(ConfigError, match="unknown algorithm 'pso'; accepted: ga, cmaes"):
        EvolutionConfig(algorithm="pso")

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


def _updates(strategy, generations, seed=0):
    """Updates `strategy` on `generations` populations it samples, scored
    by a fixed quadratic; the sampling draws from a generator of its own."""
    from deap import base, creator

    if not hasattr(creator, "CmaTestFitness"):
        creator.create("CmaTestFitness", base.Fitness, weights=(1.0,))
        creator.create("CmaTestIndividual", list, fitness=creator.CmaTestFitness)
    rng = np.random.RandomState(seed)
    target = rng.normal(size=strategy.dim)
    states = []
    for _ in range(generations):
        np.random.seed(rng.randint(2 ** 31))
        population = strategy.generate(creator.CmaTestIndividual)
        for ind in population:
            ind.fitness.values = (-float(np.sum((np.array(ind) - target) ** 2)),)
        strategy.update(population)
        states.append({name: np.array(getattr(strategy, name)).copy()
                       for name in ("centroid", "C", "B", "diagD", "BD", "ps", "pc")}
                      | {"sigma": strategy.sigma, "cond": strategy.cond})
    return states


def test_decomposing_after_every_update_is_deaps_update_number_for_number():
    from deap import cma

    from evolution.strategies.cmaes import LazyStrategy

    ours = _updates(LazyStrategy(np.zeros(12), 0.5, eigen_every=1, lambda_=10), 8)
    deaps = _updates(cma.Strategy(np.zeros(12), 0.5, lambda_=10), 8)
    for a, b in zip(ours, deaps):
        assert a.keys() == b.keys()
        for name in a:
            assert np.array_equal(a[name], b[name]), name


def test_a_lazy_update_samples_from_the_last_decomposition_until_the_next():
    from evolution.strategies.cmaes import LazyStrategy

    states = _updates(LazyStrategy(np.zeros(12), 0.5, eigen_every=3, lambda_=10), 7)
    # Decomposed after updates 3 and 6 only: B is the identity's until then.
    first = LazyStrategy(np.zeros(12), 0.5, lambda_=10).B
    for i, state in enumerate(states, start=1):
        assert not np.array_equal(state["C"], np.eye(12))
        held = states[(i // 3) * 3 - 1]["B"] if i >= 3 else first
        assert np.array_equal(state["B"], held), i
        if i % 3 == 0:
            rebuilt = state["B"] @ np.diag(state["diagD"] ** 2) @ state["B"].T
            assert np.allclose(rebuilt, state["C"])
    assert not np.array_equal(states[2]["B"], first)


def test_a_run_decomposing_every_third_update_resumes_exactly(tmp_path):
    config = EvolutionConfig(**{**SMALL, "generations": 5,
                                "options": {"init_sigma": 0.5, "cma_eigen_every": 3}})
    straight = evolve(config, tmp_path / "straight")
    evolve(config.replace(generations=2), tmp_path / "split")
    resumed = evolve(config, tmp_path / "split", resume=True)
    assert without_time(resumed.logbook) == without_time(straight.logbook)
    assert best(tmp_path / "split") == best(tmp_path / "straight")
    every = evolve(config.replace(options={"init_sigma": 0.5, "cma_eigen_every": 1}),
                   tmp_path / "every")
    assert best(tmp_path / "every") != best(tmp_path / "straight")


def test_the_decomposition_interval_must_be_a_whole_number_from_one():
    with pytest.raises(ConfigError, match="cma_eigen_every must be a whole number from 1"):
        EvolutionConfig(**{**SMALL, "options": {"init_sigma": 0.5, "cma_eigen_every": 0}})


def test_a_diagonal_covariance_learns_each_weights_spread():
    from evolution.strategies.cmaes import LazyStrategy

    from deap import creator

    # A valley 100 times steeper along the first 6 weights than the last 6.
    _updates(LazyStrategy(np.zeros(2), 0.5, lambda_=4), 1)   # creates the types
    strategy = LazyStrategy(np.zeros(12), 0.5, diagonal=True, lambda_=10)
    rng = np.random.RandomState(0)
    steep = np.array([100.0] * 6 + [1.0] * 6)
    for _ in range(150):
        np.random.seed(rng.randint(2 ** 31))
        population = strategy.generate(creator.CmaTestIndividual)
        for ind in population:
            ind.fitness.values = (-float(np.sum(steep * (np.array(ind) - 1.0) ** 2)),)
        strategy.update(population)
        assert np.array_equal(strategy.C, np.diag(np.diag(strategy.C)))
        assert np.allclose(strategy.diagD ** 2, np.diag(strategy.C), rtol=1e-14, atol=0)
        assert np.array_equal(strategy.B, np.identity(12))
    spread = np.diag(strategy.C)
    assert spread[:6].max() * 10 < spread[6:].min()
    assert strategy.cond > 10


def test_a_diagonal_run_resumes_exactly(tmp_path):
    options = {"init_sigma": 0.5, "cma_diagonal": 1}
    config = EvolutionConfig(**{**SMALL, "options": options})
    straight = evolve(config, tmp_path / "straight")
    evolve(config.replace(generations=2), tmp_path / "split")
    resumed = evolve(config, tmp_path / "split", resume=True)
    assert without_time(resumed.logbook) == without_time(straight.logbook)
    assert best(tmp_path / "split") == best(tmp_path / "straight")
    full = evolve(config.replace(options={"init_sigma": 0.5}), tmp_path / "full")
    assert best(tmp_path / "full") != best(tmp_path / "straight")


def test_the_diagonal_setting_is_zero_or_one():
    with pytest.raises(ConfigError, match="cma_diagonal must be a whole number from 0 to 1"):
        EvolutionConfig(**{**SMALL, "options": {"init_sigma": 0.5, "cma_diagonal": 2}})



def test_the_mean_is_a_copy_of_the_centre_the_samples_spread_around():
    from evolution.strategies.cmaes import CMAES

    search = CMAES(EvolutionConfig(**SMALL), 6)
    start = search.mean()
    assert np.array_equal(start, np.zeros(6))
    start[:] = 7.0   # a copy: the search is untouched
    population = search.initial()
    assert np.array_equal(search.mean(), np.zeros(6))
    for ind in population:
        ind.fitness.values = (-float(np.sum((np.asarray(ind) - 1.0) ** 2)),)
    search.tell(population)
    moved = search.mean()
    assert np.array_equal(moved, search.strategy.centroid) and np.any(moved != 0.0)
    # The weighted mean of the best half moves towards the optimum at 1.
    assert np.sum((moved - 1.0) ** 2) < 6.0


def test_the_mean_is_a_validation_candidate_only_when_asked():
    from evolution.strategies.cmaes import CMAES

    assert CMAES(EvolutionConfig(**SMALL), 6).candidates() == []
    asked = EvolutionConfig(**{**SMALL, "options": {"init_sigma": 0.5, "cma_validate_mean": 1}})
    search = CMAES(asked, 6)
    [mean] = search.candidates()
    assert np.array_equal(mean, search.mean())

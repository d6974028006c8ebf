"""OpenAI-ES: antithetic samples, centred ranks, Adam with weight decay;
its mean is what the run gives, and its runs are exact whether resumed or
on either engine."""
from __future__ import annotations

import json

import numpy as np
import pytest

from evolution.loop.checkpoint import load_checkpoint
from evolution.config import ConfigError, EvolutionConfig
from evolution.loop.evolve import evolve
from evolution.strategies.openai_es import OpenAIES, centred_ranks
from evolution.individual import make_individual


def es_config(**changes) -> EvolutionConfig:
    settings = dict(algorithm="openai-es", population=12, generations=6, seed=4,
                    stages=("hillside", "gen:easy:3"), max_steps=600, workers=1,
                    checkpoint_every=2, options={"es_lr": 0.1})
    settings.update(changes)
    return EvolutionConfig(**settings)


def test_centred_ranks_span_minus_a_half_to_a_half_in_order():
    ranks = centred_ranks(np.array([3.0, -1.0, 10.0, 0.5]))
    assert ranks.tolist() == pytest.approx([1 / 6, -0.5, 0.5, -1 / 6], abs=1e-15)
    # Equal values share their mean rank.
    assert centred_ranks(np.array([1.0, 1.0, 1.0])).tolist() == [0.0, 0.0, 0.0]
    assert centred_ranks(np.array([2.0, 1.0, 2.0])).tolist() == [0.25, -0.5, 0.25]


def test_samples_are_antithetic_and_the_mean_follows_the_better_side():
    config = es_config(population=4, options={"es_lr": 0.5, "es_weight_decay": 0.0})
    es = OpenAIES(config, 3)
    pop = es.initial()
    assert np.array_equal(pop[0] + pop[1], 2 * es.theta)
    assert np.array_equal(pop[2] + pop[3], 2 * es.theta)
    # Fitness rewards the first coordinate: the mean moves up along it.
    for ind in pop:
        ind.fitness.values = (float(ind[0]),)
    es.tell(pop)
    assert es.theta[0] > 0
    first = es.recommend().copy()
    es.recommend()[0] = 99.0     # a copy: the strategy keeps its own mean
    assert es.recommend()[0] == first[0]


def test_weight_decay_pulls_the_mean_to_zero_when_fitness_says_nothing():
    es = OpenAIES(es_config(population=4, options={"es_weight_decay": 0.5}), 2)
    es.theta = np.array([1.0, -1.0])
    pop = es.ask([], None)
    for ind in pop:
        ind.fitness.values = (0.0,)   # equal: no direction to follow
    before = np.abs(es.theta).sum()
    es.tell(pop)
    assert np.abs(es.theta).sum() < before


def test_the_mean_climbs_on_hillside(tmp_path):
    # A learning rate that moves the mean far in 40 generations (the
    # default's is tuned for runs of many more frames).
    out = evolve(es_config(stages=("hillside",), generations=40, population=40,
                           max_steps=3600, seed=0, options={"es_lr": 0.1, "es_sigma": 0.1}),
                 tmp_path / "run")
    first, last = out.logbook[0]["mean"], out.logbook[-1]["mean"]
    assert last > first + 1.0


def test_best_json_holds_the_mean_and_a_run_resumes_exactly(tmp_path):
    straight = evolve(es_config(), tmp_path / "a")
    evolve(es_config(generations=2), tmp_path / "b")
    resumed = evolve(es_config(), tmp_path / "b", resume=True)
    strip = lambda log: [{k: v for k, v in r.items() if k != "seconds"} for r in log]
    assert strip(straight.logbook) == strip(resumed.logbook)
    best_a = json.loads((tmp_path / "a" / "best.json").read_text())
    best_b = json.loads((tmp_path / "b" / "best.json").read_text())
    assert best_a["genome"] == best_b["genome"]
    theta = load_checkpoint(tmp_path / "a").search["arrays"]["theta"]
    assert best_a["genome"] == theta.tolist()
    assert best_a["fitness"] == straight.best_fitness


def test_both_engines_evolve_the_same(tmp_path):
    a = evolve(es_config(generations=3), tmp_path / "a")
    b = evolve(es_config(generations=3, engine="python"), tmp_path / "b")
    strip = lambda log: [{k: v for k, v in r.items() if k != "seconds"} for r in log]
    assert strip(a.logbook) == strip(b.logbook)


def test_bad_settings_are_one_clear_error():
    with pytest.raises(ConfigError, match="multiple of 2, got 7"):
        es_config(population=7)
    with pytest.raises(ConfigError, match="es_lr must be a number from"):
        es_config(options={"es_lr": -1.0})
    with pytest.raises(ConfigError, match=r"--es-sigma \(noise standard deviation\) is a "
                                          "setting of --algorithm openai-es, not of "
                                          "--algorithm ga; it would do nothing"):
        EvolutionConfig(algorithm="ga", options={"es_sigma": 0.1})
    with pytest.raises(ConfigError, match="unknown setting 'lr'"):
        es_config(options={"lr": 0.1})


def test_a_checkpoint_without_its_state_is_refused(tmp_path):
    from evolution.loop.checkpoint import CheckpointError

    with pytest.raises(CheckpointError, match="no OpenAI-ES state"):
        OpenAIES.from_state(es_config(), 4, None)

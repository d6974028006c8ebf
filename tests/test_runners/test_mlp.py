"""The one-hidden-layer policy: the same actions and episodes on both
engines, bit for bit, and evolution with it reproducible and resumable."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from evolution.config import ConfigError, EvolutionConfig
from evolution.loop.evolve import evolve
from runners import RunnerConfig, run_episodes
from runners.genome_file import load_genome_file
from runners.policies import Policy
from runners.mlp import MLPPolicy, _ordered_sums, mlp_genome_size, soft_tanh
from runners.parallel import EpisodeError
from speednik.engine.policy import mlp_scores, mlp_size
from speednik.engine.policy import soft_tanh as compiled_tanh
from speednik.stages import list_stages

OBS_SIZE = {"basic": 12, "terrain": 28}


def _items(observation: str, hidden: int, seed: int, stages) -> list:
    rng = np.random.default_rng(seed)
    size = mlp_genome_size(OBS_SIZE[observation], hidden)
    return [(("mlp", (observation, hidden, rng.normal(size=size) * scale)), stage)
            for stage in stages for scale in (0.3, 1.0, 3.0) for _ in range(2)]


def test_the_rational_tanh_is_tanh_and_the_same_in_both_engines():
    xs = np.concatenate([np.random.default_rng(1).normal(size=4000) * 3,
                         [0.0, -0.0, 4.97, -4.97, 4.9699999, 5.2, -30.0, 1e300, -1e300]])
    readable = soft_tanh(xs)
    compiled = np.array([compiled_tanh(float(x)) for x in xs])
    assert np.array_equal(readable, compiled)
    assert np.abs(readable - np.tanh(xs)).max() < 1e-4
    assert np.all(np.diff(soft_tanh(np.linspace(-6, 6, 20001))) >= 0)
    assert mlp_size(28, 16) == mlp_genome_size(28, 16) == 16 * 28 + 16 + 8 * 16 + 8


# Each setting with one observation by default; the other pairs are broad.
@pytest.mark.parametrize("config, observation", [
    pytest.param(RunnerConfig(), "basic", id="default-basic"),
    pytest.param(RunnerConfig(action_repeat=3, stall_frames=90, max_steps=1500), "terrain",
                 id="repeat3-terrain"),
    pytest.param(RunnerConfig(), "terrain", id="default-terrain", marks=pytest.mark.broad),
    pytest.param(RunnerConfig(action_repeat=3, stall_frames=90, max_steps=1500), "basic",
                 id="repeat3-basic", marks=pytest.mark.broad),
])
def test_mlp_episodes_equal_on_both_engines(observation, config):
    stages = list_stages() + [(1, "hard"), (4, "medium"), (2, "easy")]
    items = _items(observation, 6, 11, stages)
    expected = run_episodes(items, config)
    got = run_episodes(items, config, engine="compiled", workers=2)
    assert [r.to_dict() for r in got] == [r.to_dict() for r in expected]
    assert len({r.done_reason for r in expected}) > 1


def test_mlp_and_linear_mix_in_one_batch():
    rng = np.random.default_rng(3)
    items = (_items("terrain", 3, 5, ["hillside"])
             + [(("linear", ("terrain", rng.normal(size=8 * 28 + 8))), "hillside")]
             + _items("terrain", 5, 6, [(0, "medium")]))
    config = RunnerConfig(max_steps=1200)
    assert [r.to_dict() for r in run_episodes(items, config, engine="compiled")] == \
        [r.to_dict() for r in run_episodes(items, config)]


@pytest.mark.parametrize("engine", ["python", "compiled"])
@pytest.mark.parametrize("spec, message", [
    (("mlp", ("basic", 4, np.zeros(5))), "needs a genome of"),
    (("mlp", ("basic", 0, np.zeros(5))), "hidden must be"),
    (("mlp", ("basic", 2, np.full(mlp_genome_size(12, 2), np.inf))), "NaN or infinite"),
])
def test_bad_mlp_genomes_are_refused_alike(engine, spec, message):
    with pytest.raises(EpisodeError, match=message):
        run_episodes([(spec, "hillside")], RunnerConfig(max_steps=10), engine=engine)


def test_hidden_values_are_the_layer_formula():
    rng = np.random.default_rng(0)
    genome = rng.normal(size=mlp_genome_size(12, 4))
    policy = MLPPolicy(genome, 4, "basic")
    obs = rng.normal(size=12).astype(np.float32)
    w1 = genome[:48].reshape(4, 12)
    b1 = genome[48:52]
    want = np.tanh(b1 + w1 @ obs.astype(np.float64))
    assert np.allclose(policy.hidden_values(obs), want, atol=1e-4)


@pytest.mark.parametrize("hidden", [1, 3, 4, 6, 16])
def test_compiled_scores_are_the_readable_sums_bit_for_bit(hidden):
    """The compiled network sums several units side by side; each hidden
    value and action score must still be the readable left-to-right sum,
    to the last bit, for widths in whole blocks and with a remainder."""
    rng = np.random.default_rng(hidden)
    n = 28
    for scale in (0.3, 1.0, 3.0):
        genome = rng.normal(size=mlp_genome_size(n, hidden)) * scale
        policy = MLPPolicy(genome, hidden, "terrain")
        scores = np.empty(8 + genome.size)
        for _ in range(20):
            obs = rng.normal(size=n).astype(np.float32)
            mlp_scores(genome, obs, n, scores)
            hidden_values = policy.hidden_values(obs)
            assert np.array_equal(scores[8:8 + hidden], hidden_values)
            assert np.array_equal(scores[:8], _ordered_sums(policy._w2_columns, policy.b2,
                                                            hidden_values))


SMALL = dict(population=8, max_steps=500, stall_frames=120, stages=("gen:medium:0-2",),
             observation="terrain", checkpoint_every=1, seed=9, workers=2, generations=3,
             policy="mlp", hidden=5)


def without_time(rows):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def test_mlp_evolution_is_reproducible_resumable_and_engine_free(tmp_path):
    config = EvolutionConfig(**SMALL)
    a = evolve(config, tmp_path / "a")
    b = evolve(config, tmp_path / "b")
    assert without_time(a.logbook) == without_time(b.logbook)
    python = evolve(config.replace(engine="python", workers=1), tmp_path / "python")
    assert without_time(python.logbook) == without_time(a.logbook)
    evolve(config.replace(generations=1), tmp_path / "split")
    resumed = evolve(config, tmp_path / "split", resume=True)
    assert without_time(resumed.logbook) == without_time(a.logbook)
    genomes = {json.loads((tmp_path / d / "best.json").read_text())["genome"].__repr__()
               for d in ("a", "b", "python", "split")}
    assert len(genomes) == 1
    record = load_genome_file(tmp_path / "a")
    assert record.policy_spec == Policy("mlp", record.observation, hidden=5)
    assert record.genome.size == mlp_genome_size(28, 5)
    assert math.isfinite(a.best_fitness)


def test_bad_policy_settings_are_named():
    with pytest.raises(ConfigError, match="unknown policy 'tree'; accepted: linear, mlp"):
        EvolutionConfig(policy="tree")
    with pytest.raises(ConfigError, match="hidden must be"):
        EvolutionConfig(policy="mlp", hidden=0)

"""The recurrent policy: its memory changes what it does, starts empty
every episode, and gives the same actions and episodes on both engines,
bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

from evolution.config import ConfigError, EvolutionConfig
from evolution.loop.evolve import evolve
from runners import RunnerConfig, run_episodes
from runners.genome_file import load_genome_file
from runners.mlp import MLPPolicy, _ordered_sums, mlp_genome_size
from runners.parallel import EpisodeError
from runners.policies import Policy
from runners.rnn import RecurrentPolicy, rnn_genome_size, rnn_layers
from speednik.engine.policy import rnn_hidden, rnn_scores, rnn_size
from speednik.stages import list_stages

N = 28   # the "terrain" observation


def _genome(hidden: int, rng, scale: float = 1.0) -> np.ndarray:
    return rng.normal(size=rnn_genome_size(N, hidden)) * scale


def _items(hidden: int, seed: int, stages) -> list:
    rng = np.random.default_rng(seed)
    return [(("rnn", ("terrain", hidden, _genome(hidden, rng, scale))), stage)
            for stage in stages for scale in (0.3, 1.0, 3.0) for _ in range(2)]


def test_the_layout_and_the_width_it_implies():
    assert rnn_size(28, 16) == rnn_genome_size(28, 16) == 16 * 28 + 16 + 16 * 16 + 8 * 16 + 8
    for hidden in (1, 2, 7, 16, 40):
        assert rnn_hidden(55, rnn_size(55, hidden)) == hidden
    genome = np.arange(rnn_genome_size(3, 2), dtype=np.float64)
    w1, b1, u, w2, b2 = rnn_layers(genome, 2, 3)
    assert w1.tolist() == [[0, 1, 2], [3, 4, 5]] and b1.tolist() == [6, 7]
    assert u.tolist() == [[8, 9], [10, 11]] and w2.shape == (8, 2)
    assert b2.tolist() == list(range(28, 36))


def test_without_memory_weights_it_is_the_mlp_and_with_them_it_remembers():
    rng = np.random.default_rng(4)
    genome = _genome(5, rng)
    w1, b1, u, w2, b2 = rnn_layers(genome, 5, N)
    forgetful = genome.copy()
    rnn_layers(forgetful, 5, N)[2][:] = 0.0
    mlp = MLPPolicy(np.concatenate((w1.ravel(), b1, w2.ravel(), b2)), 5, "terrain")
    assert mlp.genome.size == mlp_genome_size(N, 5)
    recurrent = RecurrentPolicy(genome, 5, "terrain")
    plain = RecurrentPolicy(forgetful, 5, "terrain")
    observations = rng.normal(size=(30, N)).astype(np.float32)
    assert [plain.get_action(o) for o in observations] == \
        [mlp.get_action(o) for o in observations]
    # The same observation after a different past gives other hidden values.
    recurrent.reset()
    first = recurrent.hidden_values(observations[0])
    recurrent.get_action(observations[1])
    assert not np.array_equal(recurrent.hidden_values(observations[0]), first)


def test_reset_forgets():
    rng = np.random.default_rng(5)
    policy = RecurrentPolicy(_genome(4, rng), 4, "terrain")
    observations = rng.normal(size=(25, N)).astype(np.float32)
    once = [policy.get_action(o) for o in observations]
    assert np.any(policy.memory != 0.0)
    policy.reset()
    assert np.array_equal(policy.memory, np.zeros(4))
    assert [policy.get_action(o) for o in observations] == once


@pytest.mark.parametrize("hidden", [1, 4, 6, 16])
def test_compiled_scores_and_memory_are_the_readable_sums_bit_for_bit(hidden):
    rng = np.random.default_rng(hidden)
    for scale in (0.3, 1.0, 3.0):
        genome = _genome(hidden, rng, scale)
        policy = RecurrentPolicy(genome, hidden, "terrain")
        scores = np.zeros(8 + genome.size)
        for _ in range(20):
            obs = rng.normal(size=N).astype(np.float32)
            rnn_scores(genome, obs, N, scores)
            policy.get_action(obs)
            assert np.array_equal(scores[8:8 + hidden], policy.memory)
            assert np.array_equal(scores[8 + hidden:8 + 2 * hidden], policy.memory)
            assert np.array_equal(scores[:8], _ordered_sums(policy._w2_columns, policy.b2,
                                                            policy.memory))


@pytest.mark.parametrize("config", [
    pytest.param(RunnerConfig(action_repeat=2, stall_frames=240, max_steps=1500), id="repeat2"),
    pytest.param(RunnerConfig(), id="default", marks=pytest.mark.broad),
])
def test_rnn_episodes_equal_on_both_engines(config):
    stages = list_stages() + [(1, "hard"), (4, "medium")]
    items = _items(6, 11, stages)
    expected = run_episodes(items, config)
    got = run_episodes(items, config, engine="compiled", workers=2)
    assert [r.to_dict() for r in got] == [r.to_dict() for r in expected]
    assert len({r.done_reason for r in expected}) > 1


def test_every_episode_starts_with_an_empty_memory_on_both_engines():
    """One genome played on a stage, then on it again in the same batch
    and worker: the second episode is the first, not one that starts from
    what the first left in memory."""
    rng = np.random.default_rng(8)
    spec = ("rnn", ("terrain", 6, _genome(6, rng)))
    items = [(spec, "hillside"), (spec, (2, "medium")), (spec, "hillside")]
    config = RunnerConfig(max_steps=900)
    for engine in ("python", "compiled"):
        results = [r.to_dict() for r in run_episodes(items, config, engine=engine)]
        assert results[0] == results[2]


@pytest.mark.parametrize("engine", ["python", "compiled"])
@pytest.mark.parametrize("spec, message", [
    (("rnn", ("basic", 4, np.zeros(mlp_genome_size(12, 4)))),
     "a genome of 108 numbers \\(4 x 12 \\+ 4 \\+ 4 x 4 \\+ 8 x 4 \\+ 8\\)"),
    (("rnn", ("basic", 0, np.zeros(5))), "hidden must be"),
    (("rnn", ("basic", 2, np.full(rnn_genome_size(12, 2), np.nan))), "NaN or infinite"),
])
def test_bad_rnn_genomes_are_refused_alike(engine, spec, message):
    with pytest.raises(EpisodeError, match=message):
        run_episodes([(spec, "hillside")], RunnerConfig(max_steps=10), engine=engine)


SMALL = dict(population=8, max_steps=500, stall_frames=120, stages=("gen:medium:0-2",),
             observation="terrain", checkpoint_every=1, seed=9, workers=2, generations=3,
             policy="rnn", hidden=5, algorithm="cmaes")


def without_time(rows):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def test_rnn_evolution_is_reproducible_resumable_and_engine_free(tmp_path):
    config = EvolutionConfig(**SMALL)
    a = evolve(config, tmp_path / "a")
    python = evolve(config.replace(engine="python", workers=1), tmp_path / "python")
    assert without_time(python.logbook) == without_time(a.logbook)
    evolve(config.replace(generations=1), tmp_path / "split")
    resumed = evolve(config, tmp_path / "split", resume=True)
    assert without_time(resumed.logbook) == without_time(a.logbook)
    record = load_genome_file(tmp_path / "a")
    assert record.policy_spec == Policy("rnn", record.observation, hidden=5)
    assert record.genome.size == rnn_genome_size(N, 5)
    assert isinstance(record.policy_spec.agent(record.genome), RecurrentPolicy)


def test_bad_rnn_settings_are_named():
    with pytest.raises(ConfigError, match="hidden must be"):
        EvolutionConfig(policy="rnn", hidden=0)

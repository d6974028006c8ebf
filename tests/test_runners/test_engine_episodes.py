"""Whole episodes on the compiled engine: the same `EpisodeResult`s as the
readable runner for random linear genomes over both observations, several
reward weightings, stall and action-repeat settings; bad input refused
with the readable runner's errors before compiled code runs. (The fuzz
invariants on the engine are in test_fuzz_invariants, evolution on
either engine in test_evolution.)"""
from __future__ import annotations

import numpy as np
import pytest

from runners import RunnerConfig, run_episodes
from runners.linear import genome_size
from runners.parallel import EpisodeError
from speednik.engine import run_policy_batch
from speednik.stages import list_stages, load_stage

OBS_SIZE = {"basic": 12, "terrain": 28}
CONFIGS = [
    RunnerConfig(),
    RunnerConfig(stall_frames=None, max_steps=1200),
    RunnerConfig(action_repeat=3, stall_frames=90),
    RunnerConfig(max_steps=2000, reward=(("ring", 1.0), ("progress", 3.0), ("time", 0.0),
                                         ("death", 2.0), ("goal", 2.5), ("speed", 0.5))),
    RunnerConfig(action_repeat=2, reward={"progress": 10.0, "goal": 1.0}),
]


def _items(observation: str, seed: int, stages) -> list:
    rng = np.random.default_rng(seed)
    size = genome_size(OBS_SIZE[observation])
    return [(("linear", (observation, rng.normal(size=size) * scale)), stage)
            for stage in stages for scale in (0.3, 1.0, 3.0) for _ in range(3)]


def _config_and_observation() -> list:
    """Every setting with each observation; by default each setting with
    one of them, in turn, the other pairs with the broad tests."""
    cases = []
    for i, config in enumerate(CONFIGS):
        for k, observation in enumerate(("basic", "terrain")):
            marks = () if k == i % 2 else pytest.mark.broad
            cases.append(pytest.param(config, observation, id=f"{i}-{observation}",
                                      marks=marks))
    return cases


@pytest.mark.parametrize("config, observation", _config_and_observation())
def test_episode_results_equal_on_builtin_stages(observation, config):
    items = _items(observation, 7, list_stages())
    expected = run_episodes(items, config)
    got = run_episodes(items, config, engine="compiled")
    assert [r.to_dict() for r in got] == [r.to_dict() for r in expected]
    reasons = {r.done_reason for r in expected}
    assert len(reasons) > 1, "the genomes must end their episodes in different ways"


def test_episode_results_equal_on_generated_stages_and_mixed_batches():
    stages = [(seed, d) for d in ("easy", "medium", "hard") for seed in range(4)]
    items = _items("terrain", 3, stages) + [("jump-runner", "hillside")]
    expected = run_episodes(items, RunnerConfig(max_steps=1500))
    got = run_episodes(items, RunnerConfig(max_steps=1500), engine="compiled", workers=2)
    assert [r.to_dict() for r in got] == [r.to_dict() for r in expected]


def test_results_do_not_depend_on_threads_or_batch_order():
    stages = [load_stage(n) for n in list_stages()]
    rng = np.random.default_rng(0)
    params = rng.normal(size=(16, genome_size(12)))
    es, ep = np.repeat(np.arange(3), 16), np.tile(np.arange(16), 3)
    one = run_policy_batch(stages, es, ep, params, stall_frames=300, threads=1)
    order = rng.permutation(len(es))
    two = run_policy_batch(stages, es[order], ep[order], params, stall_frames=300,
                           threads=2)
    assert np.array_equal(one.total_reward[order], two.total_reward)
    assert np.array_equal(one.steps[order], two.steps)


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_bad_genomes_are_refused_with_the_readable_runners_error(engine):
    cases = [
        (("linear", ("basic", np.zeros(5))), "needs a genome of 104"),
        (("linear", ("basic", np.full(104, np.nan))), "NaN or infinite"),
        (("linear", ("pixels", np.zeros(104))), "unknown observation 'pixels'"),
    ]
    for spec, message in cases:
        with pytest.raises(EpisodeError, match=message):
            run_episodes([(spec, "hillside")], engine=engine)
    with pytest.raises(EpisodeError, match="unknown stage"):
        run_episodes([(("linear", ("basic", np.zeros(104))), "nowhere")], engine=engine)


def test_unknown_engine_and_bad_batches_are_refused():
    with pytest.raises(ValueError, match="accepted are 'python', 'compiled'"):
        run_episodes([], engine="gpu")
    stage = load_stage("hillside")
    with pytest.raises(ValueError, match="rows of 104 numbers"):
        run_policy_batch([stage], [0], [0], np.zeros((1, 50)))
    with pytest.raises(ValueError, match="NaN or infinite"):
        run_policy_batch([stage], [0], [0], np.full((1, 104), np.inf))
    with pytest.raises(ValueError, match="unknown observation"):
        run_policy_batch([stage], [0], [0], np.zeros((1, 104)), observation="pixels")
    with pytest.raises(ValueError, match="indexes 1 stage"):
        run_policy_batch([stage], [1], [0], np.zeros((1, 104)))


CONCURRENT_BATCHES = """
import numpy as np
from concurrent.futures import ThreadPoolExecutor
from runners.linear import genome_size
from speednik.engine import run_policy_batch
from speednik.stages import list_stages, load_stage
stages = [load_stage(n) for n in list_stages()]
rng = np.random.default_rng(4)
params = [rng.normal(size=(6, genome_size(12))) for _ in range(8)]
es, ep = np.repeat(np.arange(3), 6), np.tile(np.arange(6), 3)
def batch(p):
    return run_policy_batch(stages, es, ep, p, stall_frames=120, threads=2).total_reward
alone = [batch(p) for p in params]
with ThreadPoolExecutor(4) as pool:
    together = list(pool.map(batch, params))
print(all(np.array_equal(a, b) for a, b in zip(alone, together)))
"""


def test_batches_from_several_python_threads_at_once():
    """As a Dask worker with several threads calls it, on Numba's default
    threading layer, which kills the process when two threads enter a
    parallel region at once: batches take turns and each caller gets its
    own results."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, NUMBA_THREADING_LAYER="workqueue")
    proc = subprocess.run([sys.executable, "-c", CONCURRENT_BATCHES], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "True", proc.stderr[-2000:]

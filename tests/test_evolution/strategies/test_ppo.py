"""PPO as a method of the run: its actor is the project's MLP (SB3's
deterministic action is the compiled engine's), a short training run
learns on hillside, and a stopped run resumed from the command line gives
the uninterrupted run's logbook, method numbers and genome."""
from __future__ import annotations

import csv
import json
from importlib.util import find_spec

import numpy as np
import pytest

# Found, not imported: SB3 imports torch (seconds), which only the worker
# that runs these tests should pay for.
pytestmark = pytest.mark.skipif(find_spec("stable_baselines3") is None,
                                reason="needs the 'rl' extra")

from evolution import run  # noqa: E402
from evolution.config import EvolutionConfig  # noqa: E402
from evolution.loop.checkpoint import CheckpointError  # noqa: E402
from evolution.loop.evolve import evolve  # noqa: E402
from evolution.strategies.ppo import PPO  # noqa: E402
from evolution.strategies.registry import STRATEGIES  # noqa: E402
from speednik.engine.policy import POLICY_MLP, act  # noqa: E402
from speednik.vector_env import SpeednikVectorEnv  # noqa: E402


def _config(**changes) -> EvolutionConfig:
    settings = dict(algorithm="ppo", stages=("hillside", "gen:easy:0-3"), population=8,
                    generations=3, seed=2, workers=1, observation="terrain", hidden=8,
                    action_repeat=4, max_steps=900,
                    options={"ppo_steps": 32, "ppo_minibatch": 64, "ppo_epochs": 2})
    settings.update(changes)
    return EvolutionConfig(**settings)


def _rows(run_dir) -> list[dict]:
    with open(run_dir / "logbook.csv", newline="") as f:
        return [{k: v for k, v in r.items() if k != "seconds"} for r in csv.DictReader(f)]


def test_sb3s_deterministic_action_is_the_compiled_engines_on_played_observations():
    config = _config()
    learner = PPO(config, config.genome_size())
    learner.update()
    learner.update()
    genome = learner.actor()
    assert genome.size == config.genome_size()
    env = SpeednikVectorEnv(16, ["hillside", "gen:easy:0-3"], observation="terrain",
                            action_repeat=4, autoreset_mode="SameStep")
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(0)
    scores = np.zeros(64)
    seen = set()
    for _ in range(150):
        sb3, _ = learner.model.predict(obs, deterministic=True)
        engine = [act(POLICY_MLP, genome, np.asarray(o, np.float64), obs.shape[1], scores)
                  for o in obs]
        assert list(sb3) == engine
        seen.update(engine)
        # Explore, so the observations are those of many situations.
        obs = env.step(np.where(rng.random(16) < 0.5, sb3, rng.integers(0, 8, 16)))[0]
    assert len(seen) > 1


@pytest.mark.slow
def test_a_short_run_on_hillside_learns_to_beat_the_untrained_policy(tmp_path):
    config = EvolutionConfig(algorithm="ppo", stages=("hillside",), population=32,
                             generations=26, seed=0, workers=1, action_repeat=4,
                             observation="reach",
                             options={"ppo_steps": 128, "ppo_lr": 0.001,
                                      "ppo_minibatch": 512})
    outcome = evolve(config, tmp_path / "run")
    untrained = outcome.logbook[0]["max"]
    assert outcome.best_fitness > untrained + 1.0
    best = json.loads((tmp_path / "run" / "best.json").read_text())
    assert best["fitness"] == outcome.best_fitness
    numbers = [json.loads(line) for line in open(tmp_path / "run" / "method.jsonl")]
    assert {"entropy_loss", "value_loss", "approx_kl", "clip_fraction",
            "explained_variance", "learning_rate"} <= set(numbers[-1])
    # The dashboard draws the numbers the registry names, which are these.
    assert {p.name for p in STRATEGIES["ppo"].panels} <= set(numbers[-1])
    # The frames axis counts the rollouts: 32 episodes x 128 decisions x 4
    # frames an update, beside the policy's own scoring.
    frames = [r["frames"] for r in outcome.logbook]
    assert frames[1] - frames[0] >= 32 * 128 * 4


def test_a_stopped_run_resumed_from_its_checkpoint_is_the_uninterrupted_run(tmp_path):
    evolve(_config(generations=4), tmp_path / "whole")
    evolve(_config(generations=2), tmp_path / "part")
    # As a user resumes: the command line checks the checkpoint against its
    # settings (one policy kept, --population 8 episodes) before it goes on.
    assert run.main(["--resume", str(tmp_path / "part"), "--generations", "4", "--quiet",
                     "--no-plots"]) == 0
    assert _rows(tmp_path / "part") == _rows(tmp_path / "whole")
    for name in ("method.jsonl",):
        assert (tmp_path / "part" / name).read_text() == (tmp_path / "whole" / name).read_text()
    genome = [json.loads((tmp_path / d / "best.json").read_text())["genome"]
              for d in ("whole", "part")]
    assert genome[0] == genome[1]


def test_a_checkpoint_whose_weights_hold_nan_is_refused(tmp_path):
    config = _config()
    learner = PPO(config, config.genome_size())
    state = learner.state()
    name = next(k for k in state["arrays"] if k.startswith("weights.") and "action_net" in k)
    state["arrays"][name] = state["arrays"][name].copy()
    state["arrays"][name].flat[0] = np.nan
    with pytest.raises(CheckpointError, match="action_net"):
        PPO.from_state(config, config.genome_size(), state)


def test_ppo_refuses_an_observation_the_compiled_engine_lacks():
    with pytest.raises(ValueError, match="tokens"):
        EvolutionConfig(algorithm="ppo", observation="tokens").validate()


def test_an_update_trains_on_one_thread_after_the_engine_played_on_two():
    # Numba's OpenMP layer shares torch's OpenMP library: a parallel batch
    # sets the thread count torch then trains with.
    import torch

    from speednik.engine.batch import run_policy_batch
    from speednik.stages import load_stage

    config = _config()
    learner = PPO(config, config.genome_size())
    genome = learner.actor()
    run_policy_batch([load_stage("hillside")], np.zeros(4, np.int64), np.zeros(4, np.int64),
                     genome[None, :], policy="mlp", hidden=8, observation="terrain",
                     max_steps=30, threads=2)
    seen = []
    train = learner.model.train
    learner.model.train = lambda: (seen.append(torch.get_num_threads()), train())[1]
    learner.update()
    assert seen == [1]


def test_ppo_s_own_episodes_stall_at_the_search_s_stall_limit(monkeypatch):
    import speednik.vector_env

    limits = []

    class Seen(SpeednikVectorEnv):
        def __init__(self, *args, **kwargs):
            limits.append(kwargs["stall_frames"])
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(speednik.vector_env, "SpeednikVectorEnv", Seen)
    for changes in (dict(stall_frames=60, training_stall_frames=150), dict(stall_frames=60)):
        config = _config(**changes)
        PPO(config, config.genome_size())
    assert limits == [150, 60]

"""Drive any agent through Speednik: the agent interface, the episode
runner and its results, baseline agents, and parallel evaluation.

    from runners import EpisodeRunner, make_baseline
    result = EpisodeRunner("hillside").run_episode(make_baseline("jump-runner"))
    print(result)

    from runners import run_episodes, RunnerConfig
    results = run_episodes([("spindash", s) for s in ("hillside", "pipeworks")],
                           RunnerConfig(max_steps=3600), workers=2)

`python -m runners.baselines` prints how the baselines do on each stage.
"""
from __future__ import annotations

from runners.agent import BaseAgent
from runners.agents import (
    BASELINES,
    HoldRightAgent,
    IdleAgent,
    JumpRunnerAgent,
    SpindashAgent,
    make_baseline,
)
from runners.policies import POLICY_FAMILIES, Policy
from runners.specs import build_agent, register_agent_factory
from runners.episode import DEFAULT_STALL_FRAMES, EpisodeRunner, resolve_stage
from runners.errors import EpisodeError, WorkerDiedError
from runners.parallel import EpisodePool, EpisodeTask, RunnerConfig, run_episodes
from runners.result import DONE_REASONS, EpisodeResult, FrameRecord, Trajectory

__all__ = [
    "BaseAgent", "EpisodeRunner", "EpisodeResult", "Trajectory", "FrameRecord",
    "DONE_REASONS", "DEFAULT_STALL_FRAMES", "resolve_stage",
    "IdleAgent", "HoldRightAgent", "JumpRunnerAgent", "SpindashAgent",
    "BASELINES", "make_baseline", "build_agent", "register_agent_factory",
    "run_episodes", "RunnerConfig", "EpisodeTask", "EpisodePool",
    "EpisodeError", "WorkerDiedError", "Policy", "POLICY_FAMILIES",
]

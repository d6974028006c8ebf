"""The rounds of imitation: the planner's own play, then DAgger rounds in
which the last fit plays and the planner labels the states it reaches.

Each round's fit is played on the stages imitated, and the one that
finishes the most is the one returned (DAgger's rule: the best of its
policies, not the last). A round can make the fit worse: a fit to
examples from where the last one failed (many of them a standstill
before a spindash) may charge a spindash from the start and never let
go, and finish nothing."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from evolution.imitation.fit import (
    IMITATION_FAMILIES,
    accuracy,
    fit_policy,
    initial_genome,
)
from evolution.imitation.labels import LabelTask, label
from runners.parallel import run_episodes
from runners.pool import EpisodePool
from runners.runner_config import RunnerConfig
from speednik.actions import ACTION_LEFT, ACTION_LEFT_JUMP


class ImitationError(ValueError):
    """Nothing to imitate: the planner finished none of the stages."""


@dataclass(frozen=True)
class Round:
    """What one round did: its examples so far and how many of them press
    left (a run-up taken backwards, mostly), the fit's accuracy on
    them, how many stages the player of the round finished (the planner
    in round 1, the last fit after), how many the new fit finishes, and
    which round's fit is the best so far (the one kept)."""

    number: int
    examples: int
    back: int
    accuracy: float
    goals: int
    stages: int
    seconds: float
    fit_goals: int
    best: int

    def line(self) -> str:
        who = "the planner" if self.number == 1 else "the last fit"
        kept = ("the best so far" if self.best == self.number
                else f"round {self.best}'s fit stays the best")
        return (f"imitation round {self.number}: {who} finished {self.goals} of "
                f"{self.stages} stages; fitted to {self.examples} examples, "
                f"{self.back} of them pressing left ({self.accuracy:.1%} matched), "
                f"the fit finishes {self.fit_goals} ({kept}), in {self.seconds:.0f} s")


def _presses_left(actions: np.ndarray) -> np.ndarray:
    return (actions == ACTION_LEFT) | (actions == ACTION_LEFT_JUMP)


def back_weights(actions: np.ndarray, weight: float) -> np.ndarray | None:
    """Each example's weight in the fit: `weight` where it presses left
    (left or left+jump), 1 elsewhere, scaled to a mean of 1 so that the
    fit's step size stays that of an unweighted one; None when `weight`
    is 1 (no weights)."""
    if weight == 1:
        return None
    w = np.where(_presses_left(actions), float(weight), 1.0)
    return w / w.mean()


def imitate(config, rounds: int, *, workers: int | None = None,
            report: Callable[[Round], None] | None = None) -> np.ndarray:
    """The run's policy fitted to the planner on its imitation stages (the
    training stages unless others are given), in `rounds` rounds (the
    first behaviour cloning, each further one a DAgger round); its weights
    start from `config.seed`. Deterministic: the same settings give the
    same genome, whatever `workers`."""
    policy = config.policy_spec()
    if policy.family not in IMITATION_FAMILIES:
        raise ValueError(f"imitation fits {' or '.join(IMITATION_FAMILIES)} policies, "
                         f"not --policy {policy.family}")
    hidden = policy.options().get("hidden") if policy.family == "mlp" else None
    obs_dim = policy.observation_size()
    rng = np.random.default_rng([config.seed & 0xFFFFFFFF, 0x1A17A7E])
    genome = initial_genome(obs_dim, hidden, rng)
    stages = config.imitation_stage_names()
    workers = workers or config.workers
    played = RunnerConfig(observation=policy.observation, max_steps=config.max_steps,
                          stall_frames=config.stall_frames,
                          action_repeat=config.action_repeat)
    best, best_goals, best_round = genome, -1, 0
    finished = [False] * len(stages)
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    with EpisodePool(workers, chunksize=1) as pool:
        for number in range(1, rounds + 1):
            t0 = time.perf_counter()
            # A stage the last fit finished teaches nothing: its play
            # (below, on the compiled engine) already says so.
            tasks = [LabelTask(stage, policy.observation, config.action_repeat,
                               config.max_steps, config.stall_frames, policy,
                               None if number == 1 else genome)
                     for stage, done in zip(stages, finished) if not done]
            episodes = pool.map(label, tasks)
            goals = len(stages) - len(tasks) + sum(e.reached_goal for e in episodes)
            for episode in episodes:
                xs.append(episode.observations)
                ys.append(episode.actions)
            x, y = np.concatenate(xs), np.concatenate(ys)
            if len(y) == 0:
                raise ImitationError(
                    f"imitation: the planner finished none of the {len(stages)} stages "
                    f"imitated within max_steps ({config.max_steps} frames), so there is "
                    f"nothing to imitate; accepted: stages it finishes (a longer "
                    f"--max-steps, other --imitation-stage), or --imitation 0")
            genome = fit_policy(genome, x, y, hidden, rng,
                                weights=back_weights(y, config.imitation_back_weight))
            finished = [r.goal_reached for r in run_episodes(
                [(policy.spec(genome), stage) for stage in stages], played,
                workers=workers, engine="compiled")]
            fit_goals = sum(finished)
            if fit_goals >= best_goals:
                best, best_goals, best_round = genome, fit_goals, number
            if report is not None:
                report(Round(number, len(y), int(_presses_left(y).sum()),
                             accuracy(genome, x, y, hidden), goals, len(stages),
                             time.perf_counter() - t0, fit_goals, best_round))
    return policy.check(best)

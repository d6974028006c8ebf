"""The rounds of imitation: the planner's own play, then DAgger rounds in
which the last fit plays and the planner labels the states it reaches."""
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
from runners.pool import EpisodePool


class ImitationError(ValueError):
    """Nothing to imitate: the planner finished none of the stages."""


@dataclass(frozen=True)
class Round:
    """What one round did: its examples so far, the fit's accuracy on
    them, and how many stages the player of the round finished (the
    planner in round 1, the last fit after)."""

    number: int
    examples: int
    accuracy: float
    goals: int
    stages: int
    seconds: float

    def line(self) -> str:
        who = "the planner" if self.number == 1 else "the last fit"
        return (f"imitation round {self.number}: {who} finished {self.goals} of "
                f"{self.stages} stages; fitted to {self.examples} examples "
                f"({self.accuracy:.1%} matched) in {self.seconds:.0f} s")


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
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    with EpisodePool(workers or config.workers, chunksize=1) as pool:
        for number in range(1, rounds + 1):
            t0 = time.perf_counter()
            tasks = [LabelTask(stage, policy.observation, config.action_repeat,
                               config.max_steps, config.stall_frames, policy,
                               None if number == 1 else genome)
                     for stage in stages]
            episodes = pool.map(label, tasks)
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
            genome = fit_policy(genome, x, y, hidden, rng)
            if report is not None:
                report(Round(number, len(y), accuracy(genome, x, y, hidden),
                             sum(e.reached_goal for e in episodes), len(stages),
                             time.perf_counter() - t0))
    return policy.check(genome)

"""Policy episodes on the compiled engine (`speednik.engine`), as
`EpisodeResult`s equal to the readable runner's, field for field (the
trajectory aside: the engine records none).

`run_episodes(..., engine="compiled")` sends here every job whose agent
is a `("linear", (observation, genome))` or `("mlp", (observation,
hidden, genome))` spec and whose config does not ask for a trajectory;
everything else runs on the readable runner.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Sequence

import numpy as np

from speednik.reward import DEFAULT_WEIGHTS, make_reward

from runners.episode import episode_metrics, resolve_stage
from runners.errors import EpisodeError
from runners.linear import genome_size, linear_policy
from runners.mlp import MAX_HIDDEN, mlp_genome_size, mlp_policy
from speednik.observation import get_observation
from runners.result import EpisodeResult

ENGINES = ("python", "compiled")


def check_engine(engine: object) -> str:
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}: accepted are "
                         f"{', '.join(map(repr, ENGINES))}")
    return engine  # type: ignore[return-value]


def runs_compiled(job: tuple) -> bool:
    """Whether the compiled engine can run this prepared job."""
    _, _, factory, _, _, config = job
    return (factory is linear_policy or factory is mlp_policy) and not config.record


def _stage_key(stage) -> object:
    return ("object", id(stage)) if not isinstance(stage, (str, tuple)) else stage


def run_compiled(jobs: Sequence[tuple], threads: int | None = None) -> list[EpisodeResult]:
    """The results of prepared linear-policy jobs (see `runs_compiled`),
    in order. Every policy is built (and so checked) here first, so bad
    input fails with the readable runner's error before compiled code
    runs."""
    from speednik.engine import run_policy_batch

    # The readable policy's own checks, run on the whole batch at once; an
    # item that fails them is built as a LinearPolicy for its exact error.
    genomes: list[np.ndarray] = []
    observations: list[str] = []
    policies: list[tuple[str, int | None]] = []
    for index, label, factory, params, _, _ in jobs:
        try:
            if factory is mlp_policy:
                observation, hidden, genome = params
                if (isinstance(hidden, bool) or not isinstance(hidden, (int, np.integer))
                        or not 1 <= hidden <= MAX_HIDDEN):
                    raise ValueError
                policy = ("mlp", int(hidden))
                size = mlp_genome_size(get_observation(observation).size, int(hidden))
            else:
                observation, genome = params
                policy = ("linear", None)
                size = genome_size(get_observation(observation).size)
            genome = np.asarray(genome, dtype=np.float64)
            if genome.shape != (size,) or not np.isfinite(genome).all():
                raise ValueError
        except Exception:
            try:
                factory(params)
            except Exception as e:
                raise EpisodeError(index, label, f"{type(e).__name__}: {e}") from e
            raise
        genomes.append(genome)
        policies.append(policy)
        observations.append(get_observation(observation).name)

    # One compiled call per (policy, observation, settings): stages and genomes mix
    # freely inside it.
    groups: dict[tuple, list[int]] = defaultdict(list)
    for k, job in enumerate(jobs):
        config = job[5]
        groups[(policies[k], observations[k], config.reward, config.max_steps,
                config.stall_frames, config.action_repeat)].append(k)

    results: list[EpisodeResult | None] = [None] * len(jobs)
    for ((policy, hidden), observation, reward, max_steps, stall, repeat), members \
            in groups.items():
        if reward is not None:
            try:
                make_reward(dict(reward), max_steps)   # the reference's checks
            except Exception as e:
                index, label = jobs[members[0]][:2]
                raise EpisodeError(index, label, f"{type(e).__name__}: {e}") from e
        stages: list = []
        stage_slot: dict[object, int] = {}
        episode_stage = []
        for k in members:
            ref = jobs[k][4]
            key = _stage_key(ref)
            if key not in stage_slot:
                try:
                    stages.append(resolve_stage(ref))
                except Exception as e:
                    index, label = jobs[k][0], jobs[k][1]
                    raise EpisodeError(index, label, f"{type(e).__name__}: {e}") from e
                stage_slot[key] = len(stages) - 1
            episode_stage.append(stage_slot[key])
        params = np.stack([genomes[k] for k in members])
        batch = run_policy_batch(
            stages, episode_stage, np.arange(len(members)), params,
            policy=policy, hidden=hidden, observation=observation, reward=reward, max_steps=max_steps,
            stall_frames=stall, action_repeat=repeat, threads=threads)
        pairs = tuple(DEFAULT_WEIGHTS.items()) if reward is None else reward
        live = {name: w != 0.0 for name, w in pairs}
        for e, k in enumerate(members):
            stage = stages[episode_stage[e]]
            totals = {name: (float(batch.reward_components[name][e])
                             if live[name] else 0.0) for name, _ in pairs}
            results[k] = EpisodeResult(
                total_reward=float(batch.total_reward[e]), steps=int(batch.steps[e]),
                metrics=episode_metrics(
                    stage, max_x=batch.max_x[e], final_x=batch.final_x[e],
                    final_y=batch.final_y[e], rings=batch.rings[e],
                    goal_reached=bool(batch.goal_reached[e]),
                    frame=batch.sim_frame[e], deaths=batch.deaths[e],
                    reward_totals=totals),
                done_reason=batch.done_reason[e], trajectory=None)
    return results  # type: ignore[return-value]

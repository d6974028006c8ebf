"""Policy episodes on the compiled engine (`speednik.engine`), as
`EpisodeResult`s equal to the readable runner's, field for field (the
trajectory aside: the engine records none).

`run_episodes(..., engine="compiled")` sends here every job whose agent
is the spec of a policy family the engine has (`runners.policies`: its
`compiled_kind`), over an observation the engine has, and whose config
does not ask for a trajectory; everything else runs on the readable
runner.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Sequence

import numpy as np

from speednik.reward import DEFAULT_WEIGHTS, make_reward

from runners.episode import episode_metrics, resolve_stage, stage_key
from runners.errors import EpisodeError
from runners.policies import FamilyAgentFactory, Policy, policy_of_spec
from runners.result import EpisodeResult

ENGINES = ("python", "compiled")


def check_engine(engine: object) -> str:
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}: accepted are "
                         f"{', '.join(map(repr, ENGINES))}")
    return engine  # type: ignore[return-value]


def compiled_jobs(jobs: Sequence[tuple]) -> list[int]:
    """The indices of the prepared jobs the compiled engine can run: an
    agent of a policy family the engine has, over an observation it has,
    with no trajectory to record."""
    runs: dict[int, bool] = {}     # by params: a genome's stages share them
    found = []
    for i, (_, _, factory, params, _, config) in enumerate(jobs):
        if not isinstance(factory, FamilyAgentFactory) or config.record:
            continue
        if id(params) not in runs:
            try:
                policy, _ = policy_of_spec(factory.family, params)
                runs[id(params)] = policy.runs_compiled()
            except ValueError:
                runs[id(params)] = True     # run_compiled raises the readable runner's error
        if runs[id(params)]:
            found.append(i)
    return found


def _rows(genomes: list[np.ndarray]) -> np.ndarray:
    """The genomes as the rows of one array; genomes of a family whose
    size varies are padded with zeros to the longest (each says its own
    length)."""
    width = max(len(g) for g in genomes)
    rows = np.zeros((len(genomes), width))
    for row, genome in zip(rows, genomes):
        row[:len(genome)] = genome
    return rows


def run_compiled(jobs: Sequence[tuple], threads: int | None = None) -> list[EpisodeResult]:
    """The results of prepared policy jobs (see `compiled_jobs`), in order.
    Every genome is checked here first, with the policy's own check, so
    bad input fails with the readable runner's error before compiled code
    runs."""
    from speednik.engine import run_policy_batch

    genomes: list[np.ndarray] = []
    policies: list[Policy] = []
    checked: dict[int, tuple[Policy, np.ndarray]] = {}   # by params, as above
    for index, label, factory, params, _, _ in jobs:
        if id(params) not in checked:
            try:
                policy, genome = policy_of_spec(factory.family, params)
                checked[id(params)] = policy, policy.check(genome)
            except Exception as e:
                raise EpisodeError(index, label, f"{type(e).__name__}: {e}") from e
        policy, genome = checked[id(params)]
        genomes.append(genome)
        policies.append(policy)

    # One compiled call per (policy, observation, settings): stages and genomes mix
    # freely inside it.
    groups: dict[tuple, list[int]] = defaultdict(list)
    for k, job in enumerate(jobs):
        config = job[5]
        groups[(policies[k], config.reward, config.max_steps,
                config.stall_frames, config.action_repeat)].append(k)

    results: list[EpisodeResult | None] = [None] * len(jobs)
    for (policy, reward, max_steps, stall, repeat), members in groups.items():
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
            key = stage_key(ref)
            if key not in stage_slot:
                try:
                    stages.append(resolve_stage(ref))
                except Exception as e:
                    index, label = jobs[k][0], jobs[k][1]
                    raise EpisodeError(index, label, f"{type(e).__name__}: {e}") from e
                stage_slot[key] = len(stages) - 1
            episode_stage.append(stage_slot[key])
        params = _rows([genomes[k] for k in members])
        batch = run_policy_batch(
            stages, episode_stage, np.arange(len(members)), params,
            policy=policy.spec_family.compiled_kind, observation=policy.observation,
            **policy.options(), reward=reward, max_steps=max_steps,
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
                    death_cause=batch.death_cause[e], reward_totals=totals),
                done_reason=batch.done_reason[e], trajectory=None)
    return results  # type: ignore[return-value]

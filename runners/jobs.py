"""The work of one episode as any process runs it: items prepared as plain,
picklable jobs, and the runners a process keeps (one per stage and
config, so a stage is built once per worker)."""
from __future__ import annotations

import os
import pickle
from collections import OrderedDict
from typing import Any, Iterable, Sequence

from runners.episode import EpisodeRunner, StageRef, stage_key
from runners.errors import EpisodeError
from runners.result import EpisodeResult
from runners.runner_config import EpisodeTask, RunnerConfig
from runners.specs import describe_agent_spec, resolve_agent_spec
from speednik.stages import Stage


# Runners kept per process; more than a batch ever mixes.
RUNNER_CACHE_SIZE = 16


# (index, label, factory, params, stage, config): a tuple pickles fastest.
Job = tuple


_RUNNERS: OrderedDict[Any, EpisodeRunner] = OrderedDict()


def runner_for(stage: StageRef, config: RunnerConfig) -> EpisodeRunner:
    """This process's runner for (stage, config), built on first use."""
    key = (stage_key(stage), config)
    runner = _RUNNERS.get(key)
    # A Stage is keyed by identity: make sure the id was not reused.
    if runner is not None and (not isinstance(stage, Stage) or runner.stage is stage):
        _RUNNERS.move_to_end(key)
        return runner
    runner = config.build(stage)
    _RUNNERS[key] = runner
    if len(_RUNNERS) > RUNNER_CACHE_SIZE:
        _RUNNERS.popitem(last=False)
    return runner


def run_job(job: Job) -> EpisodeResult:
    """Run one prepared job (see `prepare_jobs`); module-level so that any
    map can send it to another process."""
    index, label, factory, params, stage, config = job
    try:
        runner = runner_for(stage, config)
        agent = params if factory is None else factory(params)
        return runner.run_episode(agent)
    except Exception as e:
        raise EpisodeError(index, label, f"{type(e).__name__}: {e}") from e


def _stage_label(stage: StageRef) -> str:
    if isinstance(stage, Stage):
        return stage.name
    if isinstance(stage, tuple):
        return "generated " + ":".join(map(str, stage))
    return os.fspath(stage) if isinstance(stage, os.PathLike) else str(stage)


def prepare_jobs(items: Iterable[Any], config: RunnerConfig | None = None) -> list[Job]:
    """Turn `(agent_spec, stage)` pairs or `EpisodeTask`s into jobs for
    `run_job`, resolving agent kinds here (bad specs fail now, naming the
    item)."""
    default = RunnerConfig() if config is None else config
    if not isinstance(default, RunnerConfig):
        raise TypeError(f"config must be a RunnerConfig, not {type(default).__name__}")
    jobs: list[Job] = []
    for index, item in enumerate(items):
        if isinstance(item, EpisodeTask):
            spec, stage, cfg = item.agent, item.stage, item.config
        elif isinstance(item, (tuple, list)) and len(item) == 2:
            (spec, stage), cfg = item, default
        else:
            raise TypeError(
                f"item {index} must be an (agent_spec, stage) pair or an "
                f"EpisodeTask, not {type(item).__name__}")
        label = f"{describe_agent_spec(spec)} on {_stage_label(stage)}"
        try:
            factory, params = resolve_agent_spec(spec)
        except (TypeError, ValueError) as e:
            raise type(e)(f"item {index} ({label}): {e}") from None
        jobs.append((index, label, factory, params, stage, cfg))
    return jobs


def check_picklable(jobs: Sequence[Job]) -> None:
    """Fail before starting a pool if a factory cannot reach a worker."""
    seen: set[int] = set()
    for index, label, factory, params, _, _ in jobs:
        if factory is None or id(factory) in seen:
            continue
        seen.add(id(factory))
        try:
            pickle.dumps(factory)
        except Exception as e:
            raise ValueError(
                f"item {index} ({label}): its agent factory "
                f"{getattr(factory, '__qualname__', factory)!r} cannot be sent to a "
                f"worker process ({e}); register a module-level function") from None


def describe_item(items: Sequence[Any], i: int) -> str:
    item = items[i] if i < len(items) else None
    if isinstance(item, tuple) and len(item) == 6 and isinstance(item[1], str):
        return f"episode {item[0]} ({item[1]})"
    return f"item {i}"

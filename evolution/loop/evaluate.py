"""Fitness of genomes: each one's episodes on every stage of the run,
through the runners' parallel map.

A genome crosses to a worker as a plain float array inside its policy's
agent spec (`runners.policies`); results come back as
`EpisodeResult`s. With the compiled engine (the default) a generation runs
in this process on `workers` threads; with the python engine on a pool of
`workers` processes; with a `scheduler`, on a Dask cluster in chunks of
genomes (`evolution.cluster`). All give the same results. Fitness is the
mean total reward over the stages (all training stages, or the ones a
generation draws: `evolution.loop.stage_draw`).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np

from evolution.config import EvolutionConfig
from speednik.stages import expand_stages
from runners import EpisodePool, RunnerConfig, run_episodes


class GenomeEvaluator:
    """Callable on a batch of genomes -> [(fitness, summary)], in order.

    Used as a context manager so its worker pool lives for the whole run
    (each worker builds its stages once) and is torn down on any exit,
    Ctrl-C included.
    """

    def __init__(self, config: EvolutionConfig, map_fn=None) -> None:
        self.config = config
        self.runner_config = RunnerConfig(
            observation=config.observation, max_steps=config.max_steps,
            stall_frames=config.stall_frames, action_repeat=config.action_repeat)
        self.map_fn = map_fn
        self.pool: EpisodePool | None = None
        self.cluster = None

    @property
    def action_repeat(self) -> int:
        return self.runner_config.action_repeat

    def use_action_repeat(self, repeat: int) -> None:
        """Play every later episode deciding every `repeat` frames."""
        self.runner_config = replace(self.runner_config, action_repeat=repeat)

    def __enter__(self) -> GenomeEvaluator:
        if self.map_fn is None and self.config.scheduler is not None:
            from evolution.cluster import ClusterEvaluation

            self.cluster = ClusterEvaluation(
                self.config.scheduler, self.config.training_stages(), self.runner_config,
                workers=self.config.workers, engine=self.config.engine).__enter__()
            return self
        # The compiled engine runs in this process on threads: no pool.
        if (self.map_fn is None and self.config.workers > 1
                and self.config.engine == "python"):
            self.pool = EpisodePool(self.config.workers)
            self.pool.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self.cluster is not None:
            self.cluster.__exit__(*exc)
            self.cluster = None
        if self.pool is not None:
            self.pool.__exit__(*exc)
            self.pool = None

    def __call__(self, genomes: Sequence[np.ndarray],
                 stages: Sequence[str] | None = None,
                 training: bool = False) -> list[tuple[float, dict]]:
        """Each genome's mean total reward and summary over `stages`
        (default: every training stage); `training`: as the search scores
        them (its own stall limit), not as validation and test do."""
        if stages is None:
            stages = self.config.training_stages()
        runner_config = self.runner_config
        if training and self.config.training_stall_frames is not None:
            # The search's own episodes stall later than the judged ones.
            runner_config = replace(runner_config, stall_frames=self.config.training_stall())
        # One spec per genome, which all its stages' episodes share.
        policy = self.config.policy_spec()
        specs = [policy.spec(np.asarray(g, dtype=np.float64)) for g in genomes]
        items = [(spec, stage) for spec in specs for stage in stages]
        if self.cluster is not None:
            results = self.cluster.run(genomes, stages=stages, policy=policy.to_json(),
                                       action_repeat=runner_config.action_repeat,
                                       stall_frames=runner_config.stall_frames)
        elif self.pool is not None:
            results = self.pool.run(items, runner_config)
        elif self.config.engine == "compiled" and self.map_fn is None:
            results = run_episodes(items, runner_config,
                                   workers=self.config.workers, engine="compiled")
        else:
            results = run_episodes(items, runner_config, workers=1,
                                   map_fn=self.map_fn)
        out = []
        n = len(stages)
        for i in range(len(genomes)):
            per_stage = results[i * n:(i + 1) * n]
            fitness = float(np.mean([r.total_reward for r in per_stage]))
            out.append((fitness, summarise(stages, per_stage)))
        return out


def held_out_report(config: EvolutionConfig, evaluated: tuple[float, dict]) -> dict:
    """What the logbook and best.json keep of a genome's held-out test."""
    _, summary = evaluated
    results = summary["results"]

    def goals(names) -> int:
        return int(sum(1 for n in names if results[n]["metrics"]["goal_reached"]))

    return {
        "stages": list(config.test_stages),
        "count": len(results),
        "goals": goals(results),
        "progress": summary["progress"],
        # Completed and played, for each test stage or set as named.
        "by_set": {name: [goals(expand_stages([name])), len(expand_stages([name]))]
                   for name in config.test_stages},
        "results": results,
    }


def summarise(stages: Sequence[str], results) -> dict:
    return {
        "progress": float(np.mean([r.metrics["progress"] for r in results])),
        "all_goals": all(r.metrics["goal_reached"] for r in results),
        "results": {stage: r.to_dict() for stage, r in zip(stages, results)},
    }

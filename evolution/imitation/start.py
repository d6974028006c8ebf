"""The genome a run's search starts from when it imitates the planner
first: fitted at the run's start and kept in the run directory
(`imitation.json`, a genome file that `runners.replay` plays), read back
when the run is resumed."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np

from runners.genome_file import load_genome_file, write_genome_file

IMITATION_NAME = "imitation.json"


def imitation_start(config, run_dir: str | Path, resume: bool,
                    notes: Callable[[str], None] | None = None) -> np.ndarray | None:
    """The search's first mean for `config` (None without imitation):
    fitted now, or on `resume` the one the run's start fitted."""
    if not config.imitation:
        return None
    path = Path(run_dir) / IMITATION_NAME
    policy = config.policy_spec()
    if resume:
        return policy.check(load_genome_file(path).genome)
    from evolution.imitation.rounds import imitate

    genome = imitate(config, config.imitation,
                     report=None if notes is None else (lambda r: notes(r.line())))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_genome_file(path, genome, observation=config.observation,
                      stages=list(config.stages), max_steps=config.max_steps,
                      stall_frames=config.stall_frames,
                      action_repeat=config.action_repeat, fitness=None, generation=None,
                      seed=config.seed, results={}, policy=policy)
    return genome

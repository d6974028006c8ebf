"""Search for Speednik policies: strategies behind one ask/tell interface
(`evolution.strategies.registry`: DEAP's GA and CMA-ES), the generational loop with
its reporters (console, logbook, best genome, checkpoint, held-out tests),
evaluation in this process, a pool or a Dask cluster, and the `run`
command.

`python -m evolution.run --generations 200` runs the main job; `evolve()`
does the same from Python. A genome is the parameters of a policy family
of `runners.policies` (linear or MLP).
"""
from __future__ import annotations

# Before anything imports numpy: its kernels are chosen when it loads.
from evolution.numeric_env import pin_kernels

pin_kernels()

from evolution.config import ConfigError, EvolutionConfig
from evolution.loop.checkpoint import CheckpointError, load_checkpoint

__all__ = ["EvolutionConfig", "ConfigError", "CheckpointError", "load_checkpoint"]

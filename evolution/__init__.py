"""Evolve linear policies for Speednik with DEAP.

`python -m evolution.run --generations 200` runs the main job; `evolve()`
does the same from Python. Genomes are the parameters of
`runners.linear.LinearPolicy`.
"""
from __future__ import annotations

from evolution.config import ConfigError, EvolutionConfig
from evolution.checkpoint import CheckpointError, load_checkpoint

__all__ = ["EvolutionConfig", "ConfigError", "CheckpointError", "load_checkpoint"]

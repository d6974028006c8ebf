"""What a run needs in memory, and what the machine has: settings whose
population or stages would not fit are refused before anything runs."""
from __future__ import annotations

import os

from evolution.config import ConfigError, EvolutionConfig

# What one genome costs beyond its weights (the array, its DEAP fitness),
# one episode summary (measured: about 0.9 KB), one worker process.
GENOME_OVERHEAD = 400
SUMMARY_BYTES = 1500
WORKER_BYTES = 80 * 2**20
# One stage built and lowered for the compiled engine; a run keeps every
# stage it plays to its end (measured: about 1.2 MB a generated stage,
# benchmarks/bench_stages.py).
STAGE_BYTES = 3 * 2**19


def available_memory() -> int | None:
    """Bytes of memory this machine can still give, or None if unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def stages_held(config: EvolutionConfig) -> int:
    """Stages a run holds: it builds every stage it plays when it starts
    and keeps them all to its end."""
    return len(config.run_stages())


def memory_estimate(config: EvolutionConfig, genome_size: int) -> int:
    """Bytes a run of these settings needs, roughly: the population, its
    offspring and the remembered evaluations (genome, fitness and each
    stage's episode summary), the worker processes, and the stages it
    holds."""
    per_genome = 8 * genome_size + GENOME_OVERHEAD + SUMMARY_BYTES * config.stages_scored()
    workers = min(config.workers, config.evaluation_tasks())
    return (3 * config.population * per_genome + workers * WORKER_BYTES
            + stages_held(config) * STAGE_BYTES)


def check_memory(config: EvolutionConfig) -> None:
    """Refuse settings whose population or stages would not fit in memory."""
    need = memory_estimate(config, config.policy_spec().typical_size())
    have = available_memory()
    held = stages_held(config)
    if have is not None and need > have and held * STAGE_BYTES > need / 2:
        raise ConfigError(
            f"{held} stages, each built once and kept for the run, need about "
            f"{need / 2**30:.1f} GiB, more than the {have / 2**30:.1f} GiB of memory "
            f"available; accepted: fewer training, validation or test stages")
    if have is not None and need > have:
        raise ConfigError(
            f"--population {config.population} with {config.workers} worker(s) needs "
            f"about {need / 2**30:.1f} GiB, more than the {have / 2**30:.1f} GiB of "
            f"memory available; accepted: a smaller population or fewer workers")

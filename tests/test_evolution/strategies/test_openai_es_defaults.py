"""OpenAI-ES with the settings a run gets when none are typed: the mean
must move, and move differently with the seed, within a small budget."""
from __future__ import annotations

import numpy as np
import pytest

from evolution.config import EvolutionConfig
from evolution.loop.evaluate import GenomeEvaluator
from evolution.loop.evolve import evolve
from evolution.strategies.registry import get_strategy

BUDGET = 3_000_000   # frames: some 50 to 170 generations on hillside, seconds


def default_run(seed: int, **changes) -> EvolutionConfig:
    settings = dict(algorithm="openai-es", stages=("hillside",), seed=seed,
                    max_frames=BUDGET, generations=10_000, workers=1,
                    checkpoint_every=10_000)
    settings.update(changes)
    return EvolutionConfig(**settings)


@pytest.mark.slow
def test_the_default_mean_moves_and_improves_at_a_small_budget(tmp_path):
    config = default_run(0)
    # No settings typed: the registry's defaults.
    assert config.options == {s.name: s.default
                              for s in get_strategy("openai-es").settings}
    with GenomeEvaluator(config) as evaluate:
        # The mean starts at zeros: the genome a run starts from.
        [(initial, _)] = evaluate([np.zeros(config.genome_size())])
    ends = []
    for seed in (0, 1):
        out = evolve(default_run(seed), tmp_path / f"seed{seed}")
        ends.append(out.best_fitness)
    assert ends[0] != ends[1]
    # Each mean gets on by a tenth of the stage at least (progress is worth
    # 10 over the stage's width); a wiggle in place gains a few hundredths.
    assert min(ends) > initial + 1.0, (initial, ends)

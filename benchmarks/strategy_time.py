"""Timings the policy-family benchmarks share (bench_neat, bench_gp): the
frames a second of a batch of genomes, and the seconds a search
strategy's own methods take within a run."""
from __future__ import annotations

import time


def episode_rate(specs: list, stages: list, config, **kw) -> float:
    """Frames a second of every agent spec on every stage, the best of two
    passes."""
    from runners import run_episodes

    batch = [(spec, stage) for spec in specs for stage in stages]
    best = 0.0
    for _ in range(2):
        t0 = time.perf_counter()
        frames = sum(r.steps for r in run_episodes(batch, config, **kw))
        best = max(best, frames / (time.perf_counter() - t0))
    return best


def time_strategy_methods(cls, names=("initial", "ask", "tell")) -> list[float]:
    """Wrap `names` of strategy class `cls` so that the seconds they take
    from now on in this process add up in the one-item list returned."""
    spent = [0.0]

    def timed(method):
        def run(*args, **kw):
            t0 = time.perf_counter()
            try:
                return method(*args, **kw)
            finally:
                spent[0] += time.perf_counter() - t0
        return run

    for name in names:
        setattr(cls, name, timed(getattr(cls, name)))
    return spent

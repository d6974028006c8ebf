"""The seconds a search strategy's own methods take within a run, for the
benchmarks that say where a run's time goes (bench_neat, bench_gp)."""
from __future__ import annotations

import time


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

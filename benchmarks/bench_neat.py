"""What NEAT costs.

1. Frames per second of `neat` networks (NEAT's starting ones: the
   observation wired to the 8 actions; and grown ones, with 16 hidden
   nodes and 4 links into each node) beside the linear policy and a
   16-unit MLP, on the readable runner and the compiled engine (1 thread),
   over the `terrain` observation, on the built-in stages.
2. A NEAT run on hillside (population 50, 30 generations, compiled, one
   thread): the time the strategy itself takes (neat-python's
   reproduction and speciation, and lowering its genomes) against the
   time spent playing episodes.
3. neat-python itself: its import time in a fresh process and its size on
   disk.

Nothing is asserted.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evolution.config import EvolutionConfig  # noqa: E402
from evolution.loop.evolve import evolve  # noqa: E402
from evolution.strategies.neat_strategy import NEAT  # noqa: E402
from runners import RunnerConfig, run_episodes  # noqa: E402
from runners.mlp import mlp_genome_size  # noqa: E402
from speednik import neat_genome  # noqa: E402
from speednik.actions import NUM_ACTIONS  # noqa: E402
from speednik.stages import list_stages  # noqa: E402
from strategy_time import episode_rate, time_strategy_methods  # noqa: E402

N = 28   # the terrain observation
GENOMES = 20
CONFIG = RunnerConfig(max_steps=3600, stall_frames=240)


def network(rng, hidden: int, fan_in: int | None) -> np.ndarray:
    """`fan_in` None: every input to every action, as NEAT starts."""
    nodes = hidden + NUM_ACTIONS
    links = []
    for k in range(nodes):
        target = N + k
        sources = (range(N) if fan_in is None
                   else rng.choice(target, size=min(fan_in, target), replace=False))
        links += [(int(s), target, rng.normal()) for s in sorted(sources)]
    return neat_genome.encode(N, rng.normal(size=nodes), [0] * nodes, links, hidden)


def policies() -> dict[str, list]:
    rng = np.random.default_rng(0)
    return {
        "linear": [("linear", ("terrain", rng.normal(size=NUM_ACTIONS * N + NUM_ACTIONS)))
                   for _ in range(GENOMES)],
        "mlp, 16 hidden": [("mlp", ("terrain", 16, rng.normal(size=mlp_genome_size(N, 16))))
                           for _ in range(GENOMES)],
        "neat, starting": [("neat", ("terrain", network(rng, 0, None)))
                           for _ in range(GENOMES)],
        "neat, 16 hidden": [("neat", ("terrain", network(rng, 16, 4)))
                            for _ in range(GENOMES)],
    }


def rate(specs: list, **kw) -> float:
    return episode_rate(specs, list_stages(), CONFIG, **kw)


def main() -> None:
    run_episodes([(policies()["neat, starting"][0], "hillside")], CONFIG, engine="compiled")
    print(f"== episodes over the terrain observation, {GENOMES} genomes x "
          f"{len(list_stages())} built-in stages, best of 2 ({os.cpu_count()} CPUs)")
    for name, specs in policies().items():
        readable = rate(specs)
        compiled = rate(specs, engine="compiled", workers=1)
        print(f"{name:16s} readable {readable:>10,.0f} frames/s   compiled, 1 thread "
              f"{compiled:>12,.0f} frames/s ({compiled / readable:5.1f}x)")

    print("\n== a NEAT run: hillside, population 50, 30 generations, compiled, 1 thread")
    spent = time_strategy_methods(NEAT)
    config = EvolutionConfig(algorithm="neat", population=50, generations=30, seed=0,
                             stages=("hillside",), workers=1)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        out = evolve(config, Path(tmp) / "run")
        wall = time.perf_counter() - t0
    generations = sum(r["seconds"] for r in out.logbook)
    print(f"generations {generations:6.2f} s in all, of which the strategy (neat-python "
          f"and lowering) {spent[0]:5.2f} s ({100 * spent[0] / generations:.0f}%); "
          f"wall {wall:.2f} s")
    print(f"best fitness {out.best_fitness:.2f} (generation 0: {out.logbook[0]['max']:.2f}), "
          f"{out.logbook[-1]['species']} species, "
          f"{out.logbook[-1]['connections']:.1f} connections on average")

    print("\n== neat-python")
    code = "import time; t = time.perf_counter(); import neat; print(time.perf_counter() - t)"
    took = min(float(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                    text=True, check=True).stdout) for _ in range(3))
    import neat

    package = Path(neat.__file__).parent
    size = sum(p.stat().st_size for p in package.rglob("*") if p.is_file()
               and "__pycache__" not in p.parts)
    print(f"import neat: {1000 * took:.0f} ms in a fresh process (best of 3); "
          f"its sources: {size / 1024:.0f} KiB")


if __name__ == "__main__":
    main()

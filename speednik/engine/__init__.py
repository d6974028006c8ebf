"""The compiled engine: a Numba twin of the per-frame path that runs whole
batches of policy episodes without leaving compiled code.

The readable simulation (`speednik.simulation.sim_step` and everything it
calls) is the specification; the modules here mirror it one to one
(`terrain`, `physics`, `player`, `objects`, `simulation`, `observation`,
`reward`) and the tests prove them equal frame by frame, `==` on floats.
State lives in flat arrays (`layout`), a stage in flat arrays it owns
(`lowering`), and nothing allocates per frame.

    from speednik.engine import CompiledSim, run_policy_batch

    sim = CompiledSim("hillside")          # frame by frame, like sim_step
    events = sim.step(InputState(right=True))

`run_policy_batch` runs many (stage, genome) episodes on threads; the
runners turn its arrays into `EpisodeResult`s
(`run_episodes(..., engine="compiled")`).

The first use compiles (`FIRST_COMPILE`) and caches the machine code next
to the sources, so later processes start in about a second.
"""
from __future__ import annotations

# How long the first use on a machine takes: `warm_up` compiling into an
# empty cache. With the small functions inlined into their callers
# (`jit.leaf_jit`) it takes longer than it did: on 2 cores,
# benchmarks/bench_engine.py printed 85 s as "first use", a fresh clone
# took 122 s, and a first `evolution.run` 2.5 minutes in all; on a
# machine busy with other work, longer still (11 minutes of wall time,
# some 2.5 of them on the CPU, with a load of 7 on 2 cores). It happens
# once: the cache beside the sources serves every later process until
# they change. The command that loads the engine announces it; the docs
# refer to that notice rather than repeat the figure.
FIRST_COMPILE = "1 to 3 minutes on 2 idle cores, once per machine"

from speednik.engine.batch import BatchResults, run_policy_batch, warm_up
from speednik.engine.lowering import CompiledStage, compiled_stage
from speednik.engine.stepping import CompiledSim

__all__ = ["CompiledSim", "CompiledStage", "compiled_stage", "run_policy_batch",
           "BatchResults", "warm_up", "FIRST_COMPILE"]

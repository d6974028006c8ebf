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

Each observation, and the batch runner of it, is compiled on its own the
first time it is used (`warm_up` names what a run uses) and its
machine code is cached next to the sources, so later processes start in
about a second; a run of the 12-value `basic` observation never compiles
the flights of `reach`.
"""
from __future__ import annotations

from speednik.engine.batch import BatchResults, run_policy_batch, warm_up
from speednik.engine.lowering import CompiledStage, compiled_stage
from speednik.engine.stepping import CompiledSim

__all__ = ["CompiledSim", "CompiledStage", "compiled_stage", "run_policy_batch",
           "BatchResults", "warm_up"]

"""What the rnn policy's memory costs a frame, against the MLP it extends.

    python benchmarks/bench_rnn.py [RUN_DIR]

RUN_DIR is a run of an `mlp` policy (the `reach` recipe's: 16 hidden units over
`reach`, deciding every other frame); without one (as `make bench` runs
it), a fixed random genome of that shape whose action biases favour
right, which plays shorter episodes. The genome is played beside the
`rnn` genome with the same layers and zero memory weights, which plays
exactly the same episodes, frame for frame: the difference in time is the
policy's own arithmetic (the rnn adds hidden x hidden weights from the
hidden values of the decision before to the MLP's hidden x observation).
On the three built-in stages and 50 expert test stages; printed: frames
a second on the readable runner and on the compiled engine (1 thread),
the best of two passes, and the rnn's rate as a share of the MLP's.

Nothing is asserted.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runners import RunnerConfig, run_episodes  # noqa: E402
from runners.genome_file import load_genome_file  # noqa: E402
from runners.mlp import mlp_layers  # noqa: E402
from runners.policies import Policy  # noqa: E402
from speednik.actions import ACTION_RIGHT, NUM_ACTIONS  # noqa: E402
from speednik.stages import expand_stages, list_stages  # noqa: E402
from strategy_time import episode_rate  # noqa: E402

STAGES = list_stages() + expand_stages(["gen:expert:1000-1049"])


def twins(run: str | None) -> tuple[tuple, tuple, RunnerConfig]:
    """The run's mlp genome (or the stand-in), the rnn genome that plays as
    it does, and the episode settings."""
    if run is None:
        policy = Policy("mlp", "reach", hidden=16)
        genome = np.random.default_rng(0).normal(size=policy.genome_size()) * 0.3
        genome[-NUM_ACTIONS + ACTION_RIGHT] += 3.0
        config = RunnerConfig(max_steps=3600, stall_frames=240, action_repeat=2)
    else:
        record = load_genome_file(run)
        policy, genome = record.policy_spec, record.genome
        if policy.family != "mlp":
            raise SystemExit(f"bench_rnn: {run} holds a {policy.family} genome; an mlp "
                             f"run is needed")
        config = RunnerConfig(max_steps=record.max_steps, stall_frames=record.stall_frames,
                              action_repeat=record.action_repeat)
    hidden = policy.options()["hidden"]
    w1, b1, w2, b2 = mlp_layers(genome, hidden, policy.observation_size())
    rnn = np.concatenate((w1.ravel(), b1, np.zeros(hidden * hidden), w2.ravel(), b2))
    return (policy.spec(genome), Policy("rnn", policy.observation, hidden=hidden).spec(rnn),
            config)


def main() -> None:
    if len(sys.argv) > 2:
        raise SystemExit("usage: python benchmarks/bench_rnn.py [RUN_DIR] (a run of an "
                         "mlp policy)")
    run = sys.argv[1] if len(sys.argv) == 2 else None
    mlp, rnn, config = twins(run)
    steps = {}
    for name, spec in (("mlp", mlp), ("rnn", rnn)):
        steps[name] = [r.steps for r in run_episodes([(spec, st) for st in STAGES], config,
                                                     engine="compiled", workers=1)]
    assert steps["mlp"] == steps["rnn"], "the twins played different episodes"
    print(f"== {run or 'a random right-leaning genome'}: {mlp[1][0]!r} observation, {mlp[1][1]} hidden units, "
          f"{len(STAGES)} stages, {sum(steps['mlp']):,} frames a pass, best of 2 "
          f"({os.cpu_count()} CPUs)")
    rates = {}
    for name, spec in (("mlp", mlp), ("rnn", rnn)):
        readable = episode_rate([spec], STAGES, config)
        compiled = episode_rate([spec] * 8, STAGES, config, engine="compiled", workers=1)
        rates[name] = (readable, compiled)
        print(f"{name}  readable {readable:>10,.0f} frames/s   compiled, 1 thread "
              f"{compiled:>12,.0f} frames/s")
    (mr, mc), (rr, rc) = rates.values()
    print(f"the rnn's rate as a share of the mlp's: readable {rr / mr:.2f}, "
          f"compiled {rc / mc:.2f}")


if __name__ == "__main__":
    main()

"""Frames per second of the `reach` recipe's policy (an MLP of 16
units over `reach`) by how often it decides (`--action-repeat K`).

    python benchmarks/bench_action_repeat.py [RUN_DIR]

Twenty random MLP genomes (or RUN_DIR's genome, a run of such a policy,
whose play runs on and jumps as a trained policy does) play the 50 expert validation stages
`gen:expert:10000-10049` on the compiled engine, one thread, without a
stall limit and for at most 2,000 frames an episode, deciding every 1,
2, 3 and 4 frames. The physics of a frame is the same whatever K; the
observation and the network are computed once every K frames, so the
ratio to K = 1 is what deciding less often saves. (On the ground, the
flights a decision plays two frames on are kept for the decisions after
it, deciding every frame or every other: see `landing_values` in
`speednik/engine/observation.py`.) Best of three; ratios taken in this
one run. Nothing is asserted.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runners.genome_file import GenomeFileError, load_genome_file  # noqa: E402
from runners.mlp import mlp_genome_size  # noqa: E402
from speednik.engine import run_policy_batch  # noqa: E402
from speednik.observation import get_observation  # noqa: E402
from speednik.stages import expand_stages, load_stage  # noqa: E402

STAGES = "gen:expert:10000-10049"
OBSERVATION, HIDDEN = "reach", 16
GENOMES = 20
REPEATS = 3


def genomes(run: str | None) -> tuple[np.ndarray, str]:
    """The genomes played, a row each, and what they are."""
    if run is None:
        size = mlp_genome_size(get_observation(OBSERVATION).size, HIDDEN)
        return (np.random.default_rng(0).normal(scale=0.5, size=(GENOMES, size)),
                f"{GENOMES} random MLP genomes")
    try:
        record = load_genome_file(run)
    except GenomeFileError as exc:
        raise SystemExit(f"bench_action_repeat: {exc}") from None
    policy = record.policy_spec
    if (policy.family, policy.observation) != ("mlp", OBSERVATION) \
            or policy.options()["hidden"] != HIDDEN:
        raise SystemExit(f"bench_action_repeat: {run} holds no MLP genome of {HIDDEN} "
                         f"units over {OBSERVATION!r}; a run of the recipe's policy is needed")
    return record.genome[None, :], f"the genome of {run}"


def rate(stages, params: np.ndarray, repeat: int) -> tuple[float, int]:
    episode_stage = np.repeat(np.arange(len(stages)), len(params))
    episode_params = np.tile(np.arange(len(params)), len(stages))
    best, frames = 0.0, 0
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        batch = run_policy_batch(stages, episode_stage, episode_params, params,
                                 policy="mlp", hidden=HIDDEN, observation=OBSERVATION,
                                 stall_frames=None, max_steps=2000, action_repeat=repeat,
                                 threads=1)
        frames = int(batch.steps.sum())
        best = max(best, frames / (time.perf_counter() - t0))
    return best, frames


def main() -> None:
    if len(sys.argv) > 2:
        raise SystemExit("usage: python benchmarks/bench_action_repeat.py [RUN_DIR] (a run "
                         "of the recipe's policy)")
    params, played = genomes(sys.argv[1] if len(sys.argv) == 2 else None)
    stages = [load_stage(name) for name in expand_stages([STAGES])]
    rate(stages[:1], params[:1], 1)          # load the engine
    print(f"== {STAGES}, {played} ({HIDDEN} units, {OBSERVATION}), "
          f"compiled, 1 thread, best of {REPEATS}")
    first = None
    for repeat in (1, 2, 3, 4):
        fps, frames = rate(stages, params, repeat)
        first = first or fps
        print(f"deciding every {repeat} frame(s)  {fps:>12,.0f} frames/s   "
              f"{fps / first:4.2f}x every frame   ({frames:,} frames)")


if __name__ == "__main__":
    main()

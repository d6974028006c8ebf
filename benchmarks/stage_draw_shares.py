"""What each training set weighs in a run's draw of stages, at its end.

    python benchmarks/stage_draw_shares.py RUN_DIR [RUN_DIR ...]

With `stage_draw = "failures"` a generation draws each training stage in
proportion to the floor plus the share of the population that failed it
the last time it was played (`evolution.loop.stage_draw`). Sets of hard
stages are then drawn more than their number says, and a set added to
the training stages takes its draws from the others (a set named in
`always_stages` is in every draw, and takes its stages from them). This reads the
shares the run's checkpoint keeps and prints, for each training set as
the run named it: its stages, the mean share of the population failing
them, and how many of a generation's stages it is drawn on average.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from evolution.config import EvolutionConfig  # noqa: E402
from evolution.loop.checkpoint import load_checkpoint  # noqa: E402
from evolution.loop.stage_draw import StageDraw  # noqa: E402
from speednik.cli import OneLineParser  # noqa: E402
from speednik.stages import expand_stages  # noqa: E402


def draw_shares(run_dir: str | Path) -> tuple[EvolutionConfig, list[tuple[str, int, float, float]]]:
    """The run's configuration and, per training set as named: (name,
    stages, mean share failing, stages drawn a generation on average).
    `CheckpointError` for a directory that is not a run, ValueError for
    a run that does not draw by failures."""
    ckpt = load_checkpoint(run_dir)
    config = EvolutionConfig.from_dict(ckpt.config)
    draw = StageDraw(config)
    if not draw.weighted:
        raise ValueError(f"{run_dir}: this run does not draw its stages by failures "
                         f"(stage_draw {config.stage_draw!r}, {config.stages_scored()} of "
                         f"{len(draw.names)} stages a generation)")
    draw.restore(ckpt.reporters)
    per_generation = draw.expected_draws()
    rows, at = [], 0
    for name in config.stages:
        count = len(expand_stages([name]))
        part = slice(at, at + count)
        rows.append((name, count, float(np.mean(draw.failed[part])),
                     float(per_generation[part].sum())))
        at += count
    return config, rows


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", metavar="RUN_DIR",
                        help="a run directory; its checkpoint.npz is read")
    args = parser.parse_args(argv)
    for run_dir in args.runs:
        try:
            config, rows = draw_shares(run_dir)
        except ValueError as exc:   # CheckpointError among them
            print(f"{parser.prog}: error: {exc}", file=sys.stderr)
            return 1
        print(f"{run_dir} (seed {config.seed}, {config.stages_per_generation} stages a "
              f"generation)")
        print(f"  {'training set':<24} {'stages':>6} {'failing':>8} {'drawn a generation':>19}")
        for name, count, failing, drawn in rows:
            print(f"  {name:<24} {count:>6} {failing:>8.2f} {drawn:>19.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

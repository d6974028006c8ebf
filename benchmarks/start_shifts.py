"""How much of a genome's result on a stage is owed to where it starts:
each stage played from its own start and from starts moved a few pixels
either way (`NAME@start+DX`, `speednik.stages.start_shift`).

    python benchmarks/start_shifts.py RUN_OR_GENOME [...] [--shift 24] [--step 3]
                                      [--stage NAME ...] [--action-repeat K]
                                      [--workers 2]

A policy that finishes a designed stage only when one jump comes down a
few pixels this side of a spring finishes it from some starts and not
from others: its result there is a draw. Played from every start from
-SHIFT to +SHIFT px in steps of STEP (17 starts by default), each stage
gives a share of starts finished, a smoother measure than the one
start's yes or no.

By default the stages are the six hand-made stages (`handmade:validation`),
the four held out (`handmade:heldout`) and the three built-in ones. Per
genome it prints, for every stage of a set of at most 13, whether its own
start finishes, how many of the moved starts do, and the row of starts
(`1` finished, `.` not, the own start in the middle); then per set the
stages finished from their own start and the mean share of starts
finished, summed over the set (the stages it finishes "on average").
Totals over the genomes follow, and over every set, how many stages are
finished from some starts and not from others ("hang on the start").
Play is on the compiled engine, with each genome's own episode settings;
`--action-repeat K` has it decide every K frames instead of as it was
evolved to (a policy deciding every other frame at 6 px a frame decides
every 12 px, and deciding every frame halves that).
"""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runners.genome_file import load_genome_file  # noqa: E402
from runners.parallel import run_episodes  # noqa: E402
from speednik.cli import OneLineParser  # noqa: E402
from speednik.stages import (BUILTIN_STAGES, expand_stages, load_stage,  # noqa: E402
                             shifted_name)
from speednik.stages.start_shift import MAX_START_SHIFT  # noqa: E402

DEFAULT_SETS = ("handmade:validation", "handmade:heldout", *BUILTIN_STAGES)
# Sets of more stages than this get their totals only.
MAX_LISTED = 13


def starts(shift: int, step: int) -> list[int]:
    """The start shifts played: -shift to +shift in steps of `step`, 0
    among them."""
    return sorted({-dx for dx in range(0, shift + 1, step)} | set(range(0, shift + 1, step)))


def grouped_sets(names: list[str]) -> dict[str, list[str]]:
    """The stage sets reported apart: each name given, with the built-in
    names given one after another as one set, "built-in"."""
    sets: dict[str, list[str]] = {}
    for name in names:
        key = "built-in" if name in BUILTIN_STAGES else name
        sets.setdefault(key, []).extend(expand_stages([name]))
    return sets


def play_starts(record, stages: list[str], shifts: list[int], workers: int
                ) -> dict[str, list[bool]]:
    """Whether the genome finishes each stage from each start, in the
    order of `shifts`."""
    items = [(record.policy_spec.spec(record.genome), shifted_name(stage, dx))
             for stage in stages for dx in shifts]
    results = run_episodes(items, record.runner_config(), workers=workers, engine="compiled")
    goals = [bool(r.metrics["goal_reached"]) for r in results]
    n = len(shifts)
    return {stage: goals[i * n:(i + 1) * n] for i, stage in enumerate(stages)}


def set_figures(finished: dict[str, list[bool]], shifts: list[int]) -> tuple[int, float]:
    """(stages finished from their own start, the sum over the stages of
    the share of starts finished)."""
    own = shifts.index(0)
    return (sum(row[own] for row in finished.values()),
            sum(sum(row) / len(row) for row in finished.values()))


def hanging(finished: dict[str, list[bool]]) -> int:
    """How many stages are finished from some starts and not from others."""
    return sum(1 for row in finished.values() if any(row) and not all(row))


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("genomes", nargs="+", metavar="RUN_OR_GENOME",
                        help="a run directory (its best.json is played) or a genome file")
    parser.add_argument("--shift", type=int, default=24, metavar="PX",
                        help="the farthest start from the stage's own, either way (default 24)")
    parser.add_argument("--step", type=int, default=3, metavar="PX",
                        help="pixels between the starts played (default 3)")
    parser.add_argument("--stage", dest="stages", nargs="+", metavar="NAME",
                        default=list(DEFAULT_SETS),
                        help="stages or sets to play (default: the six hand-made stages, the "
                             "four held out and the three built-in ones)")
    parser.add_argument("--action-repeat", type=int, metavar="K",
                        help="decide every K frames instead of as each genome was evolved to")
    parser.add_argument("--workers", type=int, default=2, help="threads that play (default 2)")
    args = parser.parse_args(argv)
    if not 0 <= args.shift <= MAX_START_SHIFT:
        parser.error(f"--shift must be from 0 to {MAX_START_SHIFT} px, got {args.shift}")
    if args.step < 1:
        parser.error(f"--step must be 1 px or more, got {args.step}")
    if args.workers < 1:
        parser.error(f"--workers must be 1 or more, got {args.workers}")
    if args.action_repeat is not None and args.action_repeat < 1:
        parser.error(f"--action-repeat must be 1 or more, got {args.action_repeat}")
    shifts = starts(args.shift, args.step)
    try:
        sets = grouped_sets(args.stages)
        # Every moved start is built before any is played: one that is off
        # its stage is refused here, on one line.
        for stages in sets.values():
            for stage in stages:
                for dx in shifts:
                    load_stage(shifted_name(stage, dx))
        records = [load_genome_file(path) for path in args.genomes]
        if args.action_repeat is not None:
            records = [dataclasses.replace(r, action_repeat=args.action_repeat)
                       for r in records]
    except ValueError as exc:   # StageError and GenomeFileError among them
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 1
    print(f"{len(shifts)} starts, {shifts[0]:+d} to {shifts[-1]:+d} px in steps of "
          f"{args.step}")
    totals: dict[str, list[float]] = {name: [0, 0.0] for name in sets}
    hang = 0
    for path, record in zip(args.genomes, records):
        print(f"{path}:")
        for set_name, stages in sets.items():
            finished = play_starts(record, stages, shifts, args.workers)
            if len(stages) <= MAX_LISTED:
                for stage, row in finished.items():
                    own = "yes" if row[shifts.index(0)] else "no"
                    print(f"  {Path(stage).stem:<14} own start {own:<3}  {sum(row):>3} of "
                          f"{len(row)}  {''.join('1' if g else '.' for g in row)}")
            own, share = set_figures(finished, shifts)
            totals[set_name][0] += own
            totals[set_name][1] += share
            hang += hanging(finished)
            print(f"  {set_name}: {own} of {len(stages)} from their own start, "
                  f"{share:.1f} on average over the starts")
    if len(records) > 1:
        print(f"over the {len(records)} genomes:")
        for set_name, (own, share) in totals.items():
            print(f"  {set_name}: {own} of {len(records) * len(sets[set_name])} from their "
                  f"own start, {share:.1f} on average over the starts")
    played = len(records) * sum(len(stages) for stages in sets.values())
    print(f"{hang} of the {played} stages played hang on the start (finished from some "
          f"starts and not from others)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

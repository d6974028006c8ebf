"""How the baseline agents do on each stage, as a table.

    python -m runners.baselines                          every baseline, every stage
    python -m runners.baselines --stage hillside --agent jump-runner
    python -m runners.baselines --stage gen:easy:0-9 gen:hard:0-9 --agent jump-runner spindash
    python -m runners.baselines --markdown               a Markdown table for the README
    python -m runners.baselines --summary --markdown     stages finished per difficulty
                                                         (gen:DIFFICULTY:0-99), the README's table

Columns: stage, agent, progress (% of the way from start to goal), rings
collected, frames played, why the episode ended, total reward.

Bad input (an unknown stage or agent, a profile that cannot be read or
built) is one line on stderr and exit status 2, found before any episode
is played; an episode that fails is exit status 1.
"""
from __future__ import annotations

import argparse
import sys
from typing import Sequence

from speednik.constants import DEFAULT_MAX_STEPS
from speednik.stages import (
    DIFFICULTIES,
    HANDMADE_NAMES,
    StageSetError,
    expand_stages,
    is_stage_set,
    list_stages,
    names_several,
    stage_label,
)

from runners.agents import BASELINES
from speednik.cli import OneLineParser
from runners.episode import resolve_stage
from runners.parallel import RunnerConfig, run_episodes
from runners.replay import STAGES_ACCEPTED, completion_lines
from runners.result import EpisodeResult

HEADERS = ("stage", "agent", "progress", "rings", "frames", "done", "reward")
# The stages --summary plays at each difficulty.
SUMMARY_SEEDS = "0-99"


def _rows(pairs: Sequence[tuple[str, str]],
          results: Sequence[EpisodeResult]) -> list[tuple[str, ...]]:
    return [
        (stage_label(stage), agent, f"{r.metrics['progress'] * 100:.1f}%",
         str(r.metrics["rings"]),
         str(r.steps), r.done_reason, f"{r.total_reward:.2f}")
        for (agent, stage), r in zip(pairs, results)
    ]


def format_table(rows: Sequence[Sequence[str]], markdown: bool = False) -> str:
    """The rows under `HEADERS`, aligned as plain text or as Markdown."""
    numeric = [False, False, True, True, True, False, True]
    if markdown:
        rule = ["---:" if n else "---" for n in numeric]
        lines = [HEADERS, rule, *rows]
        return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)
    widths = [max(len(str(r[i])) for r in (HEADERS, *rows)) for i in range(len(HEADERS))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.rjust(w) if n else c.ljust(w)
                         for c, w, n in zip(cells, widths, numeric)).rstrip()

    return "\n".join([line(HEADERS), line(["-" * w for w in widths]),
                      *(line(r) for r in rows)])


def summary_table(agents: Sequence[str], results: dict[str, dict[str, list[EpisodeResult]]],
                  markdown: bool = False) -> str:
    """One row per agent, one column per difficulty: stages finished."""
    difficulties = list(next(iter(results.values())))
    head = ["agent", *(f"{d} ({SUMMARY_SEEDS})" for d in difficulties)]
    rows = []
    for agent in agents:
        cells = [agent]
        for d in difficulties:
            mine = results[agent][d]
            done = sum(r.done_reason == "goal" for r in mine)
            cells.append(f"{done}/{len(mine)} ({100.0 * done / len(mine):.0f}%)")
        rows.append(cells)
    if markdown:
        lines = [head, ["---", *("---:" for _ in difficulties)], *rows]
        return "\n".join("| " + " | ".join(c) + " |" for c in lines)
    widths = [max(len(r[i]) for r in (head, *rows)) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths))).rstrip()
                     for r in (head, *rows))


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="python -m runners.baselines",
                description="Run the baseline agents on the stages and print a table.")
    p.add_argument("--stage", action="extend", nargs="+", metavar="NAME",
                   help=f"the stages to run, one or more: built-in names, .toml "
                        f"profile paths, generated sets gen:DIFFICULTY:SEEDS or the "
                        f"hand-made sets {HANDMADE_NAMES}, each "
                        f"set ending with its completion rate (default: all of "
                        f"{', '.join(list_stages())})")
    p.add_argument("--agent", action="extend", nargs="+", metavar="NAME",
                   help=f"the baselines to run, one or more (default: all of "
                        f"{', '.join(BASELINES)})")
    p.add_argument("--max-steps", type=int, default=DEFAULT_MAX_STEPS, metavar="N",
                   help=f"frames per episode (default {DEFAULT_MAX_STEPS})")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="processes to run the episodes in (default 1)")
    p.add_argument("--markdown", action="store_true", help="print a Markdown table")
    p.add_argument("--summary", action="store_true",
                   help=f"instead of one row per episode, the stages each agent finishes "
                        f"of gen:DIFFICULTY:{SUMMARY_SEEDS} at every difficulty "
                        f"({', '.join(DIFFICULTIES)}); not with --stage")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    given = args.stage or list_stages()
    agents = args.agent or list(BASELINES)
    from_set = any(names_several(s) for s in given)
    try:
        stages = expand_stages(given)
    except StageSetError as e:
        parser.error(str(e))
    bad = [s for s in stages if s not in list_stages() and not is_stage_set(s)
           and not s.endswith(".toml")]
    if bad:
        parser.error(f"unknown stage {bad[0]!r}; accepted: {', '.join(list_stages())}, "
                     f"a .toml profile path, a generated set gen:DIFFICULTY:SEEDS, or "
                     f"{HANDMADE_NAMES}")
    bad = [a for a in agents if a not in BASELINES]
    if bad:
        parser.error(f"unknown agent {bad[0]!r}; accepted: {', '.join(BASELINES)}")
    if args.max_steps < 1:
        parser.error(f"--max-steps must be at least 1, got {args.max_steps}")
    if args.workers < 1:
        parser.error(f"--workers must be at least 1, got {args.workers}")

    if args.summary:
        if args.stage:
            parser.error("--summary plays its own stages (gen:DIFFICULTY:"
                         f"{SUMMARY_SEEDS}); leave out --stage")
        stages = [s for d in DIFFICULTIES for s in expand_stages([f"gen:{d}:{SUMMARY_SEEDS}"])]
    # Each profile is read and built before any episode: a bad one is bad
    # input (exit 2), not an episode that failed.
    for stage in dict.fromkeys(s for s in stages if s.endswith(".toml")):
        try:
            resolve_stage(stage)
        except (ValueError, KeyError, OSError) as e:
            message = str(e)
            parser.error(message if "accepted" in message else f"{message}; {STAGES_ACCEPTED}")
    pairs = [(agent, stage) for stage in stages for agent in agents]
    try:
        results = run_episodes(pairs, RunnerConfig(max_steps=args.max_steps),
                               workers=args.workers)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 1
    if args.summary:
        by: dict[str, dict[str, list[EpisodeResult]]] = {
            a: {d: [] for d in DIFFICULTIES} for a in agents}
        for (agent, stage), r in zip(pairs, results):
            by[agent][stage.split(":")[1]].append(r)
        print(summary_table(agents, by, markdown=args.markdown))
        return 0
    print(format_table(_rows(pairs, results), markdown=args.markdown))
    if from_set:
        for agent in agents:
            mine = [r for (a, _), r in zip(pairs, results) if a == agent]
            for line in completion_lines(given, mine):
                print(f"{agent}: {line}" if line.startswith("completed")
                      else f"{agent} on {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

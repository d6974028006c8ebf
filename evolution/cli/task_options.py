"""The `evolution.run` options that `evolution.compare` and
`evolution.tune` set themselves for each run they start. A task (the
options after `--`, or its `--task` file) leaves them out: either command
refuses a task that gives one, in one line, before any run starts.
"""
from __future__ import annotations

from typing import Sequence

from evolution.cli.run_options import build_parser as run_parser

__all__ = ["EACH_RUN", "COMPARE_OWN", "TUNE_OWN", "given_in"]

# Set by both for every run: its method and the method's settings
# (--algorithm, and the settings a comparison reads from its --settings
# files or a tuning draws for each trial, given as options: a --settings
# file in the task would override them), its budget (--max-frames; the
# generations set so high that only the frames stop a run), where it goes
# (--out, or --resume when a run directory is picked up again) and what
# it prints (--quiet).
EACH_RUN = ("--algorithm", "--settings", "--max-frames", "--generations", "--out",
            "--resume", "--quiet")
# evolution.compare runs each method once per seed of its --seeds: each
# run's --seed is the comparison's too.
COMPARE_OWN = (*EACH_RUN, "--seed")
# evolution.tune plays every trial with the task's --seed, the same for
# all of them, so that settings are told apart on one draw of stages and
# first genomes: the seed stays the task's.
TUNE_OWN = EACH_RUN


def given_in(task: Sequence[str], own: Sequence[str]) -> list[str]:
    """Those of `own` that the options of a task give, in the order of
    `own`, however typed: `--max-frames 5`, `--max-frames=5`, or an
    abbreviation evolution.run's parser takes for it (`--max-fr 5`)."""
    options = [s for action in run_parser()._actions for s in action.option_strings]
    found = set()
    for word in task:
        if not word.startswith("--") or word == "--":
            continue
        name = word.split("=", 1)[0]
        if name not in options:
            matches = [o for o in options if o.startswith(name)]
            name = matches[0] if len(matches) == 1 else name
        found.add(name)
    return [o for o in own if o in found]

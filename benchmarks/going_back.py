"""How often a genome goes back: the left presses of its play.

    python benchmarks/going_back.py RUN_DIR [RUN_DIR ...] [--stage ...]
                                    [--stalled-at 30]

Where a genome stalls on a designed stage, the planner's way on mostly
goes back first (`runners.replay --why`), and `--why` shows what the
genome pressed in its last 240 frames there. Whether it ever goes back
anywhere, at a stall or not, is what a new observation or training stage
meant to teach the move has to change first, so this counts it. It plays
each run's genome on the stages on the readable runner, as it was scored
(its observation and action repeat), and prints, per run:

- the decisions that pressed left (left or left+jump), of all it took;
- of those, the ones taken while the stall clock (`stalled_for`, frames
  since the farthest x last grew) read STALLED_AT frames or more, where
  an observation has it;
- the episodes that pressed left at 10 decisions or more, and how many of
  them reached the goal;
- its run-ups: stretches of MIN_STRETCH frames or more in which the
  farthest x did not grow and left was held RUN_UP_FRAMES frames or more.
  How many passed (the farthest x grew again before the episode ended),
  and, for those that passed and those that did not, the median frames
  from the last gain to the first left press and the median distance
  gone back from the farthest x. A run-up has to pass within the stall
  clock's frames of the last gain, so one begun late fails however well
  it is taken.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runners.episode import EpisodeRunner  # noqa: E402
from runners.genome_file import GenomeFileError, load_genome_file  # noqa: E402
from speednik.actions import ACTION_LEFT, ACTION_LEFT_JUMP  # noqa: E402
from speednik.cli import OneLineParser  # noqa: E402
from speednik.observation.registry import get_observation  # noqa: E402
from speednik.observation.stall import STALL_NORM  # noqa: E402
from speednik.stages import BUILTIN_STAGES, StageError, playable_stages  # noqa: E402

DEFAULT_STAGES = ("handmade:validation", "handmade:heldout", *BUILTIN_STAGES,
                  "gen:skills:1000-1099")
# Decisions pressing left that make an episode one that went back.
WENT_BACK = 10
LEFT = (ACTION_LEFT, ACTION_LEFT_JUMP)
# A run-up: left held this many frames within a stretch of at least
# MIN_STRETCH frames without a gain (shorter stretches are a stumble).
RUN_UP_FRAMES = 10
MIN_STRETCH = 30


@dataclass(frozen=True)
class RunUp:
    """One stretch without gain in which the player went back."""

    waited: int         # frames from the last gain to the first left press
    back: float         # px from the farthest x to the least x of the stretch
    passed: bool        # the farthest x grew again before the episode ended


def run_ups(x: np.ndarray, actions: np.ndarray) -> list[RunUp]:
    """The run-ups of one recorded episode, from its per-frame x and
    actions."""
    farthest = np.maximum.accumulate(x)
    gains = np.flatnonzero(np.r_[True, np.diff(farthest) > 0])
    ends = np.r_[gains[1:], len(x)]
    left = np.isin(actions, LEFT)
    found = []
    for start, end in zip(gains, ends):
        pressed = left[start:end]
        if end - start < MIN_STRETCH or pressed.sum() < RUN_UP_FRAMES:
            continue
        found.append(RunUp(int(np.argmax(pressed)), float(farthest[start] - x[start:end].min()),
                           bool(end < len(x))))
    return found


@dataclass
class Presses:
    """What a genome pressed over the stages played."""

    decisions: int = 0
    left: int = 0
    left_stalled: int = 0
    episodes: int = 0
    went_back: int = 0
    went_back_finished: int = 0
    run_ups: list[RunUp] = field(default_factory=list)


class Counting:
    """The genome's policy, counting its left presses in one episode."""

    def __init__(self, policy, clock_at: int | None, stalled_at: int) -> None:
        self.policy, self.clock_at, self.stalled_at = policy, clock_at, stalled_at
        self.reset()

    def reset(self) -> None:
        self.policy.reset()
        self.decisions = self.left = self.left_stalled = 0

    def get_action(self, obs) -> int:
        action = self.policy.get_action(obs)
        self.decisions += 1
        if action in LEFT:
            self.left += 1
            if self.clock_at is not None and \
                    round(float(obs[self.clock_at]) * STALL_NORM) >= self.stalled_at:
                self.left_stalled += 1
        return action


def count(record, stages: list[str], stalled_at: int) -> Presses:
    names = get_observation(record.observation).feature_names
    clock_at = names.index("stalled_for") if "stalled_for" in names else None
    presses = Presses()
    for stage in stages:
        runner = EpisodeRunner(stage, observation=record.observation,
                               max_steps=record.max_steps, stall_frames=record.stall_frames,
                               action_repeat=record.action_repeat, record=True)
        agent = Counting(record.policy(), clock_at, stalled_at)
        result = runner.run_episode(agent)
        end = result.done_reason
        trajectory = result.trajectory
        presses.run_ups += run_ups(trajectory.array("x"), trajectory.array("action"))
        presses.decisions += agent.decisions
        presses.left += agent.left
        presses.left_stalled += agent.left_stalled
        presses.episodes += 1
        if agent.left >= WENT_BACK:
            presses.went_back += 1
            presses.went_back_finished += end == "goal"
    return presses


def line(run: Path, p: Presses, stalled_at: int, has_clock: bool) -> str:
    stalled = (f" ({p.left_stalled} with the stall clock at {stalled_at} frames or more)"
               if has_clock else " (no stall clock in its observation)")
    return (f"{run}: {p.episodes} stages; left pressed at {p.left} of {p.decisions} "
            f"decisions{stalled}; {p.went_back} episodes pressed left at {WENT_BACK} "
            f"decisions or more, {p.went_back_finished} of them to the goal; "
            f"{run_up_summary(p.run_ups)}")


def run_up_summary(found: list[RunUp]) -> str:
    passed = [r for r in found if r.passed]
    failed = [r for r in found if not r.passed]
    text = f"{len(found)} run-ups, {len(passed)} passed"

    def medians(group: list[RunUp], who: str) -> str:
        if not group:
            return ""
        return (f"; {who}: the first left press a median "
                f"{np.median([r.waited for r in group]):.0f} frames after the last gain, "
                f"back a median {np.median([r.back for r in group]):.0f} px")
    return text + medians(passed, "passed") + medians(failed, "not passed")


def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("runs", type=Path, nargs="+", help="run directories or their best.json")
    p.add_argument("--stage", nargs="+", default=list(DEFAULT_STAGES),
                   help="the stages played (default: the six hand-made stages, the four "
                        "held out, the three built-in ones and 100 skill test stages)")
    p.add_argument("--stalled-at", type=int, default=30,
                   help="stall clock frames from which a left press counts as taken at a "
                        "stall (default 30)")
    a = p.parse_args(argv)
    try:
        if not 1 <= a.stalled_at <= STALL_NORM:
            raise ValueError(f"--stalled-at must be from 1 to {STALL_NORM} frames, "
                             f"got {a.stalled_at}")
        records = [load_genome_file(run) for run in a.runs]
        names = playable_stages(a.stage, workers=os.cpu_count() or 1)
    except (GenomeFileError, StageError, ValueError) as exc:
        p.error(str(exc))
    for run, record in zip(a.runs, records):
        has_clock = "stalled_for" in get_observation(record.observation).feature_names
        print(line(run, count(record, names, a.stalled_at), a.stalled_at, has_clock))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How much of what a genome fails a run-up taken backwards could mend.

    python benchmarks/stall_oracle.py RUN_DIR [--stage ...] [--trigger 60]
                                      [--back 30 60 90]

Where a genome stalls on a designed stage, the planner's way on mostly
goes back first (`runners.replay --why`): a run-up the genome never
takes, since it never holds left against a climb or a wall. This plays
the run's genome on the stages on the readable runner: as it is, and
with a reflex that, once the stall clock (`stalled_for`, frames since
the farthest x last grew) has reached TRIGGER frames, holds left for
BACK frames and then hands the buttons back to the genome, which runs at
the obstacle again from there. The reflex acts once per stall: only a
new farthest x, which sets the stall clock back, arms it again. It is a
fixed rule, no policy, and it reads nothing the genome does not see, so
what it adds is what going back alone, timed by the stall clock, would
mend; what it costs shows on the stages it loses.

Prints, per way of playing, the stages finished and the ends of the
rest, and which stages the reflex gains and loses.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runners.ends import changed_stages, ends_summary  # noqa: E402
from runners.episode import DEFAULT_STALL_FRAMES, EpisodeRunner  # noqa: E402
from runners.genome_file import GenomeFileError, load_genome_file  # noqa: E402
from speednik.actions import ACTION_LEFT  # noqa: E402
from speednik.cli import OneLineParser  # noqa: E402
from speednik.observation.registry import get_observation  # noqa: E402
from speednik.observation.stall import STALL_NORM  # noqa: E402
from speednik.stages import BUILTIN_STAGES, StageError, playable_stages  # noqa: E402

DEFAULT_STAGES = ("handmade:validation", "handmade:heldout", *BUILTIN_STAGES)


class StallReflex:
    """The genome's policy, but once the stall clock reads `trigger` frames
    it holds left for `back` frames, once per stall; `reflexes` counts
    the times it did."""

    def __init__(self, policy, observation: str, action_repeat: int, trigger: int,
                 back: int) -> None:
        names = get_observation(observation).feature_names
        if "stalled_for" not in names:
            raise ValueError(f"the {observation!r} observation has no stall clock "
                             f"(stalled_for), so no reflex can read it; accepted: an "
                             f"observation that reads it, such as reach or stall")
        self.policy, self.at = policy, names.index("stalled_for")
        self.repeat, self.trigger, self.back = action_repeat, trigger, back
        self.reflexes = 0
        self.reset()

    def reset(self) -> None:
        self.policy.reset()
        self.armed, self.left_for = True, 0

    def get_action(self, obs) -> int:
        action = self.policy.get_action(obs)   # the genome's own state moves on alike
        stalled = round(float(obs[self.at]) * STALL_NORM)
        if stalled < self.trigger:
            self.armed = True
        elif self.armed:
            self.armed, self.left_for = False, self.back
            self.reflexes += 1
        if self.left_for > 0:
            self.left_for -= self.repeat
            return ACTION_LEFT
        return action


def play(record, stages: list[str], reflex: tuple[int, int] | None) -> tuple[list[str], int]:
    """Each stage's end, and the reflexes taken (with `reflex` = (trigger,
    back); without it, the genome as it is)."""
    ends, taken = [], 0
    for stage in stages:
        runner = EpisodeRunner(stage, observation=record.observation,
                               max_steps=record.max_steps, stall_frames=record.stall_frames,
                               action_repeat=record.action_repeat)
        agent = record.policy()
        if reflex is not None:
            agent = StallReflex(agent, record.observation, record.action_repeat, *reflex)
        ends.append(runner.run_episode(agent).done_reason)
        taken += agent.reflexes if reflex is not None else 0
    return ends, taken


def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("run", type=Path, help="a run directory or its best.json")
    p.add_argument("--stage", nargs="+", default=list(DEFAULT_STAGES),
                   help="the stages played (default: the six hand-made stages, the four "
                        "held out and the three built-in ones)")
    p.add_argument("--trigger", type=int, default=60,
                   help="frames of stall clock before the reflex goes back (default 60)")
    p.add_argument("--back", type=int, nargs="+", default=[30, 60, 90],
                   help="frames it holds left, one way of playing each (default 30 60 90)")
    a = p.parse_args(argv)
    try:
        record = load_genome_file(a.run)
        stall_frames = record.stall_frames or DEFAULT_STALL_FRAMES
        if not 1 <= a.trigger < min(stall_frames, STALL_NORM):
            raise ValueError(f"--trigger must be from 1 to {min(stall_frames, STALL_NORM) - 1} "
                             f"frames (the stall clock ends the episode at {stall_frames}), "
                             f"got {a.trigger}")
        if min(a.back) < 1:
            raise ValueError(f"--back must be 1 frame or more, got {min(a.back)}")
        StallReflex(record.policy(), record.observation, record.action_repeat, 1, 1)
        names = playable_stages(a.stage, workers=os.cpu_count() or 1)
    except (GenomeFileError, StageError, ValueError) as exc:
        p.error(str(exc))
    plain, _ = play(record, names, None)
    print(f"as it is                      {ends_summary(plain)}")
    for back in a.back:
        ends, taken = play(record, names, (a.trigger, back))
        print(f"back {back:>3} frames after {a.trigger:>3}  {ends_summary(ends)} "
              f"({taken} reflexes)")
        print(f"    finished only with it: {changed_stages(names, plain, ends)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

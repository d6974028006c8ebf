"""How much of what a genome fails its decisions in the air could save.

    python benchmarks/air_oracle.py RUN_DIR [--stage gen:expert:10000-10199]

Plays the run's genome on the stages twice on the readable runner: as it
is, and with an oracle steering its decisions in the air. At each
decision the player is airborne, the oracle plays the flight of the
action the genome chose, held (`speednik.observation.landing.flight`:
the game's air physics against the terrain, spikes a fall), and when that
flight does not come down and stand ORACLE_STAND frames on the ground,
it presses instead the first of right+jump, right and left whose flight
does. It sees what no policy sees (the whole terrain ahead), so what it
adds is about what a better reading of the air, braking in it included,
could add (about: it takes the first plan that comes down, not the one
that leaves the best take-off after). Decisions on the ground are the genome's own. (The same
rule at take-off, a jump whose flight does not come down replaced by one
that does or by running on, finishes far fewer stages: flights do not
play springs and enemies, and running on is no plan of its own.)

Prints, per way of playing, the stages finished and the ends of the rest.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runners.ends import changed_stages, ends_summary  # noqa: E402
from runners.episode import EpisodeRunner  # noqa: E402
from runners.genome_file import GenomeFileError, load_genome_file  # noqa: E402
from speednik.actions import (ACTION_LEFT, ACTION_RIGHT, ACTION_RIGHT_JUMP,  # noqa: E402
                              action_to_input)
from speednik.observation.footing import FOOTING_RULE  # noqa: E402
from speednik.observation.landing import FlightRule, flight  # noqa: E402
from speednik.cli import OneLineParser  # noqa: E402
from speednik.stages import StageError, playable_stages  # noqa: E402

# Standing this many frames is coming down: a touch of a ledge's lip on
# the way into a pit is not.
ORACLE_STAND = 8
ORACLE_RULE = FlightRule(FOOTING_RULE.frames, None, True, ORACLE_STAND)
# The plans tried in turn, as buttons (left, right, jump held).
PLANS = ((ACTION_RIGHT_JUMP, (False, True, True)), (ACTION_RIGHT, (False, True, False)),
         (ACTION_LEFT, (True, False, False)))


class AirOracle:
    """The genome's policy, its airborne decisions steered as the module
    docstring says; `steered` counts the decisions it changed."""

    def __init__(self, policy, runner: EpisodeRunner) -> None:
        self.policy, self.runner, self.steered = policy, runner, 0

    def reset(self) -> None:
        self.policy.reset()

    def get_action(self, obs) -> int:
        action = self.policy.get_action(obs)
        sim = self.runner.sim
        if sim.player.physics.on_ground:
            return action
        held = action_to_input(action, True)[0]
        if flight(sim, held.left, held.right, held.jump_held, rule=ORACLE_RULE) is not None:
            return action
        for other, (left, right, jump) in PLANS:
            if other != action and flight(sim, left, right, jump, rule=ORACLE_RULE) is not None:
                self.steered += 1
                return other
        return action

def play(record, stages, steer: bool) -> tuple[list[str], int]:
    """Each stage's end, and the decisions steered."""
    ends, steered = [], 0
    for stage in stages:
        runner = EpisodeRunner(stage, observation=record.observation,
                               max_steps=record.max_steps, stall_frames=record.stall_frames,
                               action_repeat=record.action_repeat)
        agent = AirOracle(record.policy(), runner) if steer else record.policy()
        ends.append(runner.run_episode(agent).done_reason)
        steered += agent.steered if steer else 0
    return ends, steered



def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("run", type=Path, help="a run directory or its best.json")
    p.add_argument("--stage", nargs="+", default=["gen:expert:10000-10199"])
    a = p.parse_args(argv)
    try:
        record = load_genome_file(a.run)
        names = playable_stages(a.stage, workers=os.cpu_count() or 1)
    except (GenomeFileError, StageError) as exc:
        p.error(str(exc))
    plain, _ = play(record, names, False)
    ends, changed = play(record, names, True)
    print(f"as it is             {ends_summary(plain)}")
    print(f"steered in the air   {ends_summary(ends)} ({changed} decisions steered)")
    print(f"finished only steered: {changed_stages(names, plain, ends)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

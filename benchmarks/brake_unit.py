"""What one hand-set hidden unit that brakes does to evolved genomes.

    python benchmarks/brake_unit.py RUN_DIR [RUN_DIR ...]

Each RUN_DIR is a run of the `reach` recipe (an MLP over `reach`).
Its genome is played on the recipe's validation sets as it is, then with
one hidden unit added and every evolved weight kept: the unit fires in
the air when the full jump and the hop read 0 and the brake flight reads
1 (`full_onward`, `hop_onward`, `brake_onward`, `on_ground`), and then
adds `STRENGTH` to the score of left. Prints the stages completed of each
set, both ways.

`python -m runners.replay RUN_DIR --stage gen:expert:10000-10199 --why`
finds that most of the recipe's deaths on expert stages are where braking
was the last way down; this asks how much of that one plain rule, which
the evolved network could hold, would take back. It is a probe of what
the policy lacks, not a way to make policies: nothing here is chosen or
trained. Only validation stages are played.
"""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runners import run_episodes  # noqa: E402
from runners.genome_file import GenomeFileError, load_genome_file  # noqa: E402
from runners.mlp import mlp_layers  # noqa: E402
from runners.policies import Policy  # noqa: E402
from speednik.actions import ACTION_LEFT, NUM_ACTIONS  # noqa: E402
from speednik.observation import get_observation, index_of  # noqa: E402
from speednik.stages import expand_stages  # noqa: E402

from generalization import RECIPE  # noqa: E402


def recipe_validation_sets() -> list[str]:
    """The sets the recipe's `--validation-stage` names."""
    at = RECIPE.index("--validation-stage") + 1
    sets = []
    while at < len(RECIPE) and not RECIPE[at].startswith("--"):
        sets.append(RECIPE[at])
        at += 1
    return sets


VALIDATION_SETS = recipe_validation_sets()

# The unit's input weights and bias: about +3 (tanh 0.995) in the air with
# only the brake flight landing, -3 or less otherwise.
UNIT_INPUTS = {"full_onward": -6.0, "hop_onward": -6.0, "brake_onward": 6.0, "on_ground": -6.0}
UNIT_BIAS = -3.0
# What the unit adds to left's score when it fires (and, as tanh is about
# -1 otherwise, about nothing when it does not). With 15 or 60 instead,
# seeds 0, 1 and 2 of the README's table complete as many stages.
STRENGTH = 30.0


def with_brake_unit(genome: np.ndarray, observation: str, hidden: int) -> np.ndarray:
    """The MLP genome (`speednik.engine.policy.mlp_size` layout) with one
    more hidden unit, the brake unit, after its own."""
    values = get_observation(observation).values
    n, a = len(values), NUM_ACTIONS
    w1, b1, w2, b2 = mlp_layers(genome, hidden, n)
    b2 = b2.copy()
    row = np.zeros(n)
    for name, weight in UNIT_INPUTS.items():
        row[index_of(values, name)] = weight
    column = np.zeros(a)
    column[ACTION_LEFT] = STRENGTH
    b2[ACTION_LEFT] += STRENGTH
    return np.concatenate([np.vstack([w1, row]).ravel(), np.append(b1, UNIT_BIAS),
                           np.hstack([w2, column[:, None]]).ravel(), b2])


def completed(record, stage_set: str) -> int:
    stages = expand_stages([stage_set])
    results = run_episodes([(record.policy_spec.spec(record.genome), s) for s in stages],
                           record.runner_config(), workers=2, engine="compiled")
    return sum(bool(r.metrics["goal_reached"]) for r in results)


def main(run_dirs: list[str]) -> None:
    print(f"stages completed of {', '.join(VALIDATION_SETS)}")
    for run_dir in run_dirs:
        try:
            record = load_genome_file(run_dir)
        except GenomeFileError as e:
            sys.exit(f"brake_unit: error: {e}")
        spec = record.policy_spec
        hidden = dict(spec.settings).get("hidden")
        if spec.family != "mlp" or hidden is None:
            sys.exit(f"brake_unit: error: {run_dir}: an MLP genome is needed, "
                     f"got a {spec.family} one")
        genome = with_brake_unit(record.genome, record.observation, hidden)
        braking = dataclasses.replace(
            record, genome=genome, policy_spec=Policy("mlp", record.observation,
                                                      hidden=hidden + 1))
        for label, played in (("as evolved", record), ("with the brake unit", braking)):
            counts = [completed(played, s) for s in VALIDATION_SETS]
            print(f"{run_dir}  {label:<20s} " + " / ".join(map(str, counts)))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    main(sys.argv[1:])

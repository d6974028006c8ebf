"""Programs that genetic programming finds, shown as code.

    python benchmarks/gp_programs.py smallest   the fewest-node program that finishes hillside
    python benchmarks/gp_programs.py unseen     a program chosen on validation stages, played
                                                on test stages it never saw

`smallest` runs `--algorithm gp` on hillside (its training stage) with a
height limit of 2 and the strongest parsimony pressure (`SMALLEST`), then
plays every program of its last population and hall of fame on hillside
with the compiled engine and prints the one with the fewest nodes among
those that reach the goal (ties: the shallower, then the faster), with
its size and frames. It also prints the fewest nodes any program needs to
finish hillside: a program under `fewest_deciding_nodes()` nodes reads no
observation value and plays one action throughout, and none of the 8
actions held alone finishes the stage (played here to show it).

`unseen` runs GP on generated medium and hard training stages (`UNSEEN`,
the task of `configs/compare-learners-task.toml` with validation stages):
best.json's program is the one the validation stages chose, and it is
then played on the test stages, 50 medium and 50 hard generated ones and
the three built-in stages, none of which the run trains or chooses on.

`--seed` and `--out` (keep the run's directory) change the run; the
wall time printed is the run's and the replays'. Nothing is asserted.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import shlex
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evolution.loop.checkpoint import load_checkpoint  # noqa: E402
from evolution.run import main as evolution_main  # noqa: E402
from runners import EpisodeResult, RunnerConfig, run_episodes  # noqa: E402
from runners.genome_file import load_genome_file  # noqa: E402
from speednik import gp_program  # noqa: E402
from speednik.actions import ACTION_NAMES, NUM_ACTIONS  # noqa: E402
from speednik.observation import get_observation  # noqa: E402
from speednik.stages import expand_stages  # noqa: E402

# The smallest program finishing hillside: trees of depth 2 at most (an
# `if_then_else` of one comparison of two leaves between two actions: 6
# nodes), the smaller of two tournament winners always kept
# (--gp-parsimony-size 2), and the whole last population kept in the hall
# of fame, among which the finishing programs are looked for.
SMALLEST_STAGE = "hillside"
SMALLEST_OBSERVATION = "pits"
SMALLEST = ["--algorithm", "gp", "--stage", SMALLEST_STAGE, "--observation",
            SMALLEST_OBSERVATION, "--max-steps", "3600", "--population", "100",
            "--generations", "60", "--hall-of-fame", "100", "--gp-max-height", "2",
            "--gp-init-min", "1", "--gp-init-max", "2", "--gp-parsimony-size", "2",
            "--workers", "2"]
SMALLEST_SEED = 2

# A program for stages it never trained on: the task of
# configs/compare-learners-task.toml (32 generated training stages, 8
# drawn a generation, --observation pits, action repeat 4), with
# validation stages choosing best.json's program, stopped at a number
# of frames.
VALIDATION = ("gen:medium:2000-2049", "gen:hard:2000-2049")
TEST_SETS = ("gen:medium:1000-1049", "gen:hard:1000-1049")
BUILT_IN = ("hillside", "pipeworks", "skybridge")
UNSEEN = ["--config", "configs/compare-learners-task.toml", "--algorithm", "gp",
          "--validation-stage", *VALIDATION, "--test-stage", *TEST_SETS, *BUILT_IN,
          "--max-frames", "30000000", "--generations", "100000", "--workers", "2"]
UNSEEN_SEED = 1


@dataclass(frozen=True, eq=False)
class Played:
    """A program and how it played one stage."""

    genome: np.ndarray
    result: EpisodeResult

    @property
    def size(self) -> tuple[int, int]:
        """(nodes, depth); a leaf alone has depth 0."""
        return gp_program.sizes(self.genome)

    @property
    def finished(self) -> bool:
        return bool(self.result.metrics["goal_reached"])

    def rank(self) -> tuple:
        """The order among finishing programs: fewest nodes, then the
        shallower, the faster, then the row itself (so that the choice is
        one and the same every time)."""
        nodes, depth = self.size
        return nodes, depth, self.result.steps, tuple(self.genome.tolist())


def fewest_deciding_nodes() -> int:
    """The fewest nodes of a program whose action can depend on the
    observation: an action-typed tree holding at least one observation
    value, from the operator table of `speednik.gp_program`. Smaller
    programs have only True and False in their conditions, so they choose
    one action, always the same."""
    types = range(len(gp_program.TYPE_NAMES))
    # Every type has a leaf of one node (a constant, True, an action).
    least = {t: 1 for t in types}
    reading = {t: (1 if t == gp_program.T_FLOAT else None) for t in types}
    changed = True
    while changed:
        changed = False
        for op, (_, args) in gp_program.OPERATORS.items():
            ret = gp_program.RETURNS[op]
            for k, arg in enumerate(args):
                if reading[arg] is None:
                    continue
                size = 1 + reading[arg] + sum(least[a] for j, a in enumerate(args) if j != k)
                if reading[ret] is None or size < reading[ret]:
                    reading[ret] = size
                    changed = True
    return reading[gp_program.T_ACTION]


def action_program(n_inputs: int, action: int) -> np.ndarray:
    """The one-node program that plays `action` on every frame."""
    return gp_program.encode(n_inputs, [(gp_program.OP_ACTION, action)])


def play(genomes, stage: str, config: RunnerConfig, workers: int = 1) -> list[Played]:
    """Each distinct program of `genomes` (in their first order) played on
    `stage` by the compiled engine."""
    distinct: dict[bytes, np.ndarray] = {}
    for genome in genomes:
        genome = np.asarray(genome, dtype=np.float64)
        distinct.setdefault(genome.tobytes(), genome)
    rows = list(distinct.values())
    results = run_episodes([(("gp", (config.observation, g)), stage) for g in rows], config,
                           workers=workers, engine="compiled")
    return [Played(g, r) for g, r in zip(rows, results)]


def smallest_finishing(played: list[Played]) -> Played | None:
    """The finishing program of fewest nodes (`Played.rank` breaks ties);
    None when none finishes."""
    finishing = [p for p in played if p.finished]
    return min(finishing, key=Played.rank) if finishing else None


def population_and_hall_of_fame(run_dir: Path) -> list[np.ndarray]:
    """The genomes of a run's checkpoint: its last population, then its
    hall of fame."""
    ckpt = load_checkpoint(run_dir)
    return [g for g, _ in ckpt.population] + [g for g, _ in ckpt.hall_of_fame]


def run_gp(args: list[str], seed: int, out: Path) -> float:
    """Run `python -m evolution.run ARGS --seed SEED --out OUT` in this
    process (its summary silenced); its wall time."""
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        status = evolution_main([*args, "--seed", str(seed), "--out", str(out), "--quiet",
                                 "--no-plots"])
    if status != 0:
        raise SystemExit(status)
    return time.perf_counter() - t0


def command(args: list[str], seed: int) -> str:
    return shlex.join(["python", "-m", "evolution.run", *args, "--seed", str(seed)])


def describe(genome: np.ndarray, names) -> list[str]:
    """The program in DEAP's form, then as code with what its constants
    decide already decided (as `runners.replay` prints it)."""
    nodes, depth = gp_program.sizes(genome)
    lines = [f"program ({nodes} nodes, depth {depth}):",
             f"    {gp_program.text(genome, names)}"]
    folded = gp_program.fold(genome)
    if not np.array_equal(folded, genome):
        f_nodes, f_depth = gp_program.sizes(folded)
        lines.append(f"as code, with what its constants decide already decided "
                     f"({f_nodes} nodes, depth {f_depth}):")
    else:
        lines.append("as code:")
    lines.append(textwrap.indent(gp_program.listing(genome, names, fold=True), "    "))
    return lines


def smallest(seed: int, out: Path, workers: int) -> int:
    t0 = time.perf_counter()
    seconds = run_gp(SMALLEST, seed, out)
    names = get_observation(SMALLEST_OBSERVATION).feature_names
    config = load_genome_file(out / "best.json").runner_config()
    candidates = population_and_hall_of_fame(out)
    played = play(candidates, SMALLEST_STAGE, config, workers)
    chosen = smallest_finishing(played)
    print(f"$ {command(SMALLEST, seed)}")
    n_finishing = sum(p.finished for p in played)
    print(f"run: {seconds:.1f} s; {len(played)} distinct programs in its last population and "
          f"hall of fame, {n_finishing} of them finish {SMALLEST_STAGE} (compiled engine)")
    if chosen is None:
        print(f"none of them finishes {SMALLEST_STAGE}")
        return 1
    print(f"the smallest that finishes {SMALLEST_STAGE}:")
    print("\n".join(describe(chosen.genome, names)))
    print(f"{SMALLEST_STAGE}: {chosen.result.done_reason} after {chosen.result.steps} frames, "
          f"reward {chosen.result.total_reward:.2f}")
    bound = fewest_deciding_nodes()
    alone = play([action_program(len(names), a) for a in range(NUM_ACTIONS)],
                 SMALLEST_STAGE, config)
    held = [ACTION_NAMES[a] for a, p in enumerate(alone) if p.finished]
    print(f"fewer than {bound} nodes: a program reads no observation value and plays one "
          f"action throughout; of the {NUM_ACTIONS} actions held alone, "
          f"{', '.join(held) if held else 'none'} finish{'es' if len(held) == 1 else ''} "
          f"{SMALLEST_STAGE}")
    if not held and chosen.size[0] == bound:
        print(f"so {bound} nodes is the fewest any program finishing {SMALLEST_STAGE} can have")
    print(f"wall time {time.perf_counter() - t0:.1f} s")
    return 0


def finished_of(genome: np.ndarray, stages: list[str], config: RunnerConfig,
                workers: int) -> list[str]:
    results = run_episodes([(("gp", (config.observation, genome)), s) for s in stages],
                           config, workers=workers, engine="compiled")
    return [s for s, r in zip(stages, results) if r.metrics["goal_reached"]]


def unseen(seed: int, out: Path, workers: int) -> int:
    t0 = time.perf_counter()
    seconds = run_gp(UNSEEN, seed, out)
    record = load_genome_file(out / "best.json")
    names = get_observation(record.observation).feature_names
    config = record.runner_config()
    print(f"$ {command(UNSEEN, seed)}")
    chosen = record.chosen or {}
    print(f"run: {seconds:.1f} s, {len(record.fitness_stages or record.stages)} training "
          f"stages; best.json's program chosen on the validation stages in generation "
          f"{chosen.get('generation', record.generation)} (of the {chosen.get('candidate', '?')})")
    print("\n".join(describe(record.genome, names)))
    print(f"played by the compiled engine (observation {record.observation}, action repeat "
          f"{record.action_repeat}, {record.max_steps} frames at most):")
    for label, sets in (("training", record.stages), ("validation", VALIDATION),
                        ("test", TEST_SETS)):
        for given in sets:
            stages = expand_stages([given])
            done = finished_of(record.genome, stages, config, workers)
            print(f"  {label:10s} {given:22s} {len(done):3d} of {len(stages)} "
                  f"({100 * len(done) / len(stages):.0f}%)")
    done = finished_of(record.genome, list(BUILT_IN), config, workers)
    print(f"  {'test':10s} {'built-in':22s} {len(done):3d} of {len(BUILT_IN)}: "
          f"{', '.join(done) if done else 'none'}")
    print(f"wall time {time.perf_counter() - t0:.1f} s")
    return 0


COMMANDS = {"smallest": (smallest, SMALLEST_SEED), "unseen": (unseen, UNSEEN_SEED)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python benchmarks/gp_programs.py",
        description="Programs that genetic programming finds, shown as code: the smallest "
                    "that finishes hillside, and one that finishes stages it never trained on.")
    parser.add_argument("what", choices=sorted(COMMANDS),
                        help="'smallest': the fewest-node program of a run on hillside that "
                             "finishes it; 'unseen': a program chosen on validation stages, "
                             "played on held-out test stages")
    parser.add_argument("--seed", type=int, default=None,
                        help="the run's seed (default: smallest 2, unseen 1)")
    parser.add_argument("--out", type=Path, default=None,
                        help="a new directory to keep the run in (default: a temporary one)")
    parser.add_argument("--workers", type=int, default=2,
                        help="threads the replays play on (default: 2)")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error(f"--workers {args.workers}: accepted is a whole number >= 1")
    run, default_seed = COMMANDS[args.what]
    seed = default_seed if args.seed is None else args.seed
    if args.out is not None:
        if args.out.exists():
            parser.error(f"--out {args.out}: exists already; accepted is a new directory")
        return run(seed, args.out, args.workers)
    with tempfile.TemporaryDirectory() as tmp:
        return run(seed, Path(tmp) / "run", args.workers)


if __name__ == "__main__":
    sys.exit(main())

"""Programs that genetic programming finds, shown as code.

    python benchmarks/gp_programs.py smallest   the fewest-node program that finishes hillside
    python benchmarks/gp_programs.py unseen     a program chosen on validation stages, played
                                                on test stages it never saw

`smallest` runs `--algorithm gp` on hillside (its training stage) with a
height limit of 3 and the strongest parsimony pressure (`SMALLEST`), then
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
the three built-in stages, none of which the run trains or chooses on,
and after the run on 200 more medium and hard stages and 50 expert ones,
a harder difficulty than it trained on.

Each run is `python -m evolution.run` in a process of its own, as the
printed command runs it again, with the same result. `--seed` and `--out` (keep the run's directory) change the run; the
wall time printed is the run's and the replays'. Nothing is asserted;
`smallest` exits with 1 when no program it kept finishes hillside.
"""
from __future__ import annotations

import argparse
import shlex
import subprocess
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
from runners import EpisodeResult, RunnerConfig, run_episodes  # noqa: E402
from runners.genome_file import load_genome_file  # noqa: E402
from speednik import gp_program  # noqa: E402
from speednik.actions import ACTION_NAMES, NUM_ACTIONS  # noqa: E402
from speednik.observation import get_observation  # noqa: E402
from speednik.stages import expand_stages  # noqa: E402

# The smallest program finishing hillside: trees of depth 3 at most, the
# smaller of two tournament winners always kept (--gp-parsimony-size 2),
# and the whole last population kept in the hall of fame, among which the
# finishing programs are looked for. Tried on hillside, seeds 1 to 6:
# with a height limit of 2 (a program reading the observation is then
# `if_then_else` of one comparison of two leaves, 6 nodes once folded)
# seeds 4 and 5 kept no finishing program and seed 3 only a 9-node one:
# the search has no smaller steps to climb by; with 3, every seed kept a
# 6-node one, the fewest possible.
SMALLEST_STAGE = "hillside"
SMALLEST_OBSERVATION = "pits"
SMALLEST = ["--algorithm", "gp", "--stage", SMALLEST_STAGE, "--observation",
            SMALLEST_OBSERVATION, "--max-steps", "3600", "--population", "100",
            "--generations", "100", "--hall-of-fame", "100", "--gp-max-height", "3",
            "--gp-init-min", "1", "--gp-init-max", "3", "--gp-parsimony-size", "2",
            "--workers", "2"]
SMALLEST_SEED = 1

# A program for stages it never trained on: the task of
# configs/compare-learners-task.toml (32 generated training stages, 8
# drawn a generation, --observation pits, action repeat 4), with
# validation stages choosing best.json's program, stopped at a number
# of frames. Its settings were chosen on the validation stages (seed 1,
# 150 M frames, runs made while the crossover's draws still depended on
# the process): the default height limit and parsimony (8, 1.4)
# finished 90 of the 100, a limit of 5 with a parsimony size of 1.8 99,
# from 32 M frames on and no more later.
VALIDATION = ("gen:medium:2000-2049", "gen:hard:2000-2049")
TEST_SETS = ("gen:medium:1000-1049", "gen:hard:1000-1049")
BUILT_IN = ("hillside", "pipeworks", "skybridge")
# Played after the run only: 200 more stages of each trained difficulty,
# and 50 of a harder one (expert) that the run never played.
MORE_TESTS = ("gen:medium:20000-20199", "gen:hard:20000-20199", "gen:expert:1000-1049")
UNSEEN = ["--config", "configs/compare-learners-task.toml", "--algorithm", "gp",
          "--validation-stage", *VALIDATION, "--test-stage", *TEST_SETS, *BUILT_IN,
          "--gp-max-height", "5", "--gp-parsimony-size", "1.8",
          "--max-frames", "60000000", "--generations", "100000", "--workers", "2"]
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
    """Run `python -m evolution.run ARGS --seed SEED --out OUT` (from the
    repository's root, its summary silenced); its wall time."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "evolution.run", *args, "--seed", str(seed),
                           "--out", str(out.resolve()), "--quiet", "--no-plots"],
                          cwd=ROOT, stdout=subprocess.DEVNULL)
    if done.returncode != 0:
        raise SystemExit(done.returncode)
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
    # A program folded (`gp_program.fold`) plays as the program itself.
    least = min(chosen.size[0], gp_program.sizes(gp_program.fold(chosen.genome))[0])
    if not held and least == bound:
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
    print(f"run: {seconds:.1f} s, {len(expand_stages(record.stages))} training "
          f"stages; best.json's program chosen on the validation stages in generation "
          f"{chosen.get('generation', record.generation)} (of the {chosen.get('candidate', '?')})")
    print("\n".join(describe(record.genome, names)))
    print(f"played by the compiled engine (observation {record.observation}, action repeat "
          f"{record.action_repeat}, {record.max_steps} frames at most):")
    for label, sets in (("training", record.stages), ("validation", VALIDATION),
                        ("test", TEST_SETS), ("more tests", MORE_TESTS)):
        for given in sets:
            stages = expand_stages([given])
            done = finished_of(record.genome, stages, config, workers)
            print(f"  {label:10s} {given:23s} {len(done):3d} of {len(stages)} "
                  f"({100 * len(done) / len(stages):.1f}%)")
    done = finished_of(record.genome, list(BUILT_IN), config, workers)
    print(f"  {'test':10s} {'built-in':23s} {len(done):3d} of {len(BUILT_IN)}: "
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
                        help="the run's seed (default: 1)")
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

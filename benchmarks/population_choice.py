"""What a run would give if its genome were chosen among its whole last
population, and what that choice does on stages nothing was chosen on.

    python benchmarks/population_choice.py RUN_DIR [RUN_DIR ...] [--vote]
    python benchmarks/population_choice.py RUN_DIR [RUN_DIR ...] --candidates
    python benchmarks/population_choice.py RUN_DIR --members DIR

A run with validation stages keeps one genome, chosen on them among a
few candidates: its hall of fame, the strategy's recommendation and
CMA-ES's mean (`evolution.loop.validation`). Its last population, kept in
the checkpoint, holds many more, each one step of the search from the
mean. This plays all of them, and the run's own genome, on

- the run's validation sets, the six hand-made stages
  (`handmade:validation`) and 100 place stages (`gen:places:2000-2099`),
  which a rule below may choose on, and the eight more hand-made ones
  (`handmade:extra`), which none does;
- the four hand-made stages held out (`handmade:heldout`), the three
  built-in stages and the run's test sets, which nothing is chosen on;

at the action repeat the run's last generation was scored at (a run
with `final_action_repeat` ends deciding every frame), and prints, per
run, how many of the population finish each designed
stage, then which genome each rule of choice picks and how it plays:

- "the run's": the run's own genome (chosen as the run chose it);
- "validation": the run's own rule (`validation_weight`: with "set", the
  highest share of each validation set, averaged over the sets) over the
  population too;
- "+ six" and "+ places": the same with the six hand-made stages, or the
  place stages, as one more set;
- "six, near": the generated validation stages first and the six among
  the genomes nearly as good there: of those that finish at most
  `--near` (3) validation stages fewer than the population's best, the
  one that finishes the most of the six.

`--candidates` plays, in place of the last population, every candidate
the run's validation played over the whole run, which a run started with
`--keep-candidates` keeps in RUN_DIR/candidates/ (each genome once, at
its first validation): what another rule would have chosen among the
genomes the run's own rule chose among. Two rules more are then applied
as the run applies its own, at each validation in turn with the genome
chosen so far carried over:

- "run, plain": the validation sets alone (it gives the run's own
  genome, but where the run broke a tie by the mean reward);
- "run, near": the run's `validation_prefer` sets (without them: the
  six) among the genomes at most `validation_near` (without it:
  `--near`) validation stages below the best, what a run given
  `--validation-prefer` would have chosen: validation never steers the
  search, and the starts are ranked without the preferred sets, so the
  same run would have played the same candidates.
- "run, floor": the same with a fixed bar in place of the nearly best
  (`--validation-floor`): of the genomes completing at least the run's
  `validation_floor` (without it: `--floor`) shares of the validation
  sets, the most of the preferred sets; none meeting it, "run, near".

The validation sets a run prefers are left out of "validation" (the
generated stages, usually). `--each` prints every genome's figures too.

Totals over the runs follow, and how well finishing each set a rule may
choose on goes with finishing the four held out, over every genome of
every run (each run's counts less their mean there, so that what one
seed does better than another does not count). With `--vote`, the population's plurality
vote (each genome's action counted once, the lowest action on a tie),
played on the readable engine, joins the designed stages' figures.
Every figure comes from playing: nothing here is read from the run's
logs but its genomes.

`--members DIR` plays nothing: it writes each genome of each run's last
population as a genome file, DIR/RUN_NAME/member-N.json, for `python -m
plots replay DIR/RUN_NAME/member-N.json --stage ... --plot run.png` to
play and draw one at a time. Their fitness is left out: it was measured
on the stages of one generation's draw.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from evolution.config import EvolutionConfig  # noqa: E402
from evolution.loop.checkpoint import load_checkpoint  # noqa: E402
from evolution.loop.outputs import CANDIDATES_DIR  # noqa: E402
from evolution.loop.validation import completion_score  # noqa: E402
from runners.agent import BaseAgent  # noqa: E402
from runners.genome_file import load_genome_file, write_genome_file  # noqa: E402
from runners.parallel import run_episodes  # noqa: E402
from runners.specs import build_agent  # noqa: E402
from runners.runner_config import RunnerConfig  # noqa: E402
from speednik.actions import NUM_ACTIONS  # noqa: E402
from speednik.cli import OneLineParser  # noqa: E402
from speednik.stages import expand_stages  # noqa: E402

SIX = "handmade:validation"
EIGHT = "handmade:extra"
PLACES = "gen:places:2000-2099"
HELD_OUT = "handmade:heldout"
BUILT_IN = ("hillside", "pipeworks", "skybridge")


class PopulationVote(BaseAgent):
    """Presses what most of its members would press (the lowest action on
    a tie)."""

    def __init__(self, members: list[BaseAgent], observation: str) -> None:
        self.members = members
        self.observation = observation

    def get_action(self, obs) -> int:
        counts = [0] * NUM_ACTIONS
        for member in self.members:
            counts[member.get_action(obs)] += 1
        return counts.index(max(counts))

    def reset(self) -> None:
        for member in self.members:
            member.reset()


def last_action_repeat(ckpt, config: EvolutionConfig) -> int:
    """The action repeat the checkpoint's last generation was scored at: a
    run with `final_action_repeat` ends at that one, and its logbook says
    which each generation played."""
    repeat = ckpt.logbook[-1].get("action_repeat") if ckpt.logbook else None
    return config.action_repeat if repeat in (None, "") else int(repeat)


# The genomes a rule "over the whole population" may pick beside the
# run's own: the last population's, or with --candidates every candidate.
POOL = ("population ", "candidate ")


def in_pool(name: str) -> bool:
    return name.startswith(POOL)


def run_candidates(run_dir: str | Path) -> tuple[EvolutionConfig, dict[str, np.ndarray], int,
                                                list[list[str]]]:
    """As `run_genomes`, with every candidate the run's validation played
    (RUN_DIR/candidates/, "candidate gen-0075-hall-of-fame-0": the run's
    own genome and each other once, by its first validation) in place of
    its last population; and which of those each validation played, in
    order (the genome chosen before it aside)."""
    config, genomes, repeat = run_genomes(run_dir)
    folder = Path(run_dir) / CANDIDATES_DIR
    files = sorted(folder.glob("gen-*.json"))
    if not files:
        raise ValueError(f"{folder}: no candidates kept; accepted: a run started with "
                         f"--keep-candidates (keep_candidates = true)")
    out = {"the run's": genomes["the run's"]}
    named = {out["the run's"].tobytes(): "the run's"}
    schedule: dict[str, list[str]] = {}
    for path in files:
        genome = np.asarray(load_genome_file(path).genome, dtype=np.float64)
        if genome.tobytes() not in named:
            named[genome.tobytes()] = f"candidate {path.stem}"
            out[f"candidate {path.stem}"] = genome
        schedule.setdefault(path.stem[:8], []).append(named[genome.tobytes()])
    return config, out, repeat, list(schedule.values())


def run_genomes(run_dir: str | Path) -> tuple[EvolutionConfig, dict[str, np.ndarray], int]:
    """The run's configuration, its genomes by name: "the run's" (best.json),
    "mean" (CMA-ES's, when the run has one), "hall of fame N" and
    "population N" (the checkpoint's last generation), and the action
    repeat they were last scored at, which they are played at here."""
    ckpt = load_checkpoint(run_dir)
    config = EvolutionConfig.from_dict(ckpt.config)
    if not config.validation_stages:
        raise ValueError(f"{run_dir}: this run has no validation stages, so there is "
                         f"no choice to compare with; accepted: a run with validation_stages")
    genomes = {"the run's": np.asarray(load_genome_file(Path(run_dir) / "best.json").genome,
                                       dtype=np.float64)}
    if ckpt.search is not None and "centroid" in ckpt.search["arrays"]:
        genomes["mean"] = np.asarray(ckpt.search["arrays"]["centroid"], dtype=np.float64)
    for i, (genome, _) in enumerate(ckpt.hall_of_fame):
        genomes[f"hall of fame {i}"] = np.asarray(genome, dtype=np.float64)
    for i, (genome, _) in enumerate(ckpt.population):
        genomes[f"population {i}"] = np.asarray(genome, dtype=np.float64)
    return config, genomes, last_action_repeat(ckpt, config)


def write_members(run_dir: str | Path, folder: str | Path) -> list[Path]:
    """Each genome of the run's last population as a genome file in
    folder/RUN_NAME/ (member-0.json, member-1.json, ...); the paths."""
    ckpt = load_checkpoint(run_dir)
    config = EvolutionConfig.from_dict(ckpt.config)
    out = Path(folder) / Path(run_dir).resolve().name
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, (genome, _) in enumerate(ckpt.population):
        path = out / f"member-{i}.json"
        write_genome_file(path, np.asarray(genome, dtype=np.float64),
                          observation=config.observation,
                          stages=list(config.stages), max_steps=config.max_steps,
                          stall_frames=config.stall_frames,
                          action_repeat=last_action_repeat(ckpt, config), fitness=None,
                          generation=ckpt.generation, seed=config.seed, results={},
                          policy=config.policy_spec())
        paths.append(path)
    return paths


# The designed sets by the short names the figures use.
SHORT = {SIX: "six", EIGHT: "eight"}


def generated_validation(config: EvolutionConfig) -> list[str]:
    """The validation sets a run ranks its candidates on: all of them but
    those it prefers among the nearly best (`validation_prefer`)."""
    return [s for s in config.validation_stages if s not in config.validation_prefer]


def stage_sets(config: EvolutionConfig) -> dict[str, list[str]]:
    """Every set played, by a short name: the validation sets as the run
    names them, then the designed and test sets."""
    sets = {name: expand_stages([name]) for name in generated_validation(config)}
    sets.update({name: expand_stages([name]) for name in config.validation_prefer
                 if name not in SHORT})
    sets["six"] = expand_stages([SIX])
    sets["eight"] = expand_stages([EIGHT])
    sets["places"] = expand_stages([PLACES])
    sets["held out"] = expand_stages([HELD_OUT])
    sets["built-in"] = list(BUILT_IN)
    sets.update({f"test {name}": expand_stages([name]) for name in config.test_stages})
    return sets


def episode_settings(config: EvolutionConfig, repeat: int) -> RunnerConfig:
    """The episodes the run's last generation played: its observation,
    frame limits and decision interval (`repeat`)."""
    return RunnerConfig(observation=config.observation, max_steps=config.max_steps,
                        stall_frames=config.stall_frames, action_repeat=repeat)


def play(config: EvolutionConfig, genomes: dict[str, np.ndarray], sets: dict[str, list[str]],
         repeat: int, workers: int) -> dict[str, dict[str, list[bool]]]:
    """genome name -> set name -> whether it finished each stage, played on
    the compiled engine with the run's episode settings."""
    policy = config.policy_spec()
    stages = [s for names in sets.values() for s in names]
    results = run_episodes([(policy.spec(g), s) for g in genomes.values() for s in stages],
                           episode_settings(config, repeat), workers=workers,
                           engine="compiled")
    out: dict[str, dict[str, list[bool]]] = {}
    for i, name in enumerate(genomes):
        row = results[i * len(stages):(i + 1) * len(stages)]
        at, out[name] = 0, {}
        for set_name, names in sets.items():
            out[name][set_name] = [r.goal_reached for r in row[at:at + len(names)]]
            at += len(names)
    return out


def vote_play(config: EvolutionConfig, genomes: dict[str, np.ndarray],
              stages: list[str], repeat: int) -> list[bool]:
    """Whether the population's vote finishes each of `stages` (readable
    engine, one process: the vote is an agent object, not a spec)."""
    policy = config.policy_spec()
    members = [build_agent(policy.spec(g)) for name, g in genomes.items()
               if in_pool(name)]
    vote = PopulationVote(members, policy.observation)
    return [r.goal_reached
            for r in run_episodes([(vote, s) for s in stages],
                                  episode_settings(config, repeat))]


def rules(config: EvolutionConfig) -> dict[str, tuple[bool, list[str]]]:
    """Each rule of choice: (over the whole population?, the sets it scores)."""
    validation = generated_validation(config)
    return {"the run's": (False, []),
            "validation": (True, validation),
            "+ six": (True, validation + ["six"]),
            "+ places": (True, validation + ["places"])}


def score_over(row: dict[str, list[bool]], set_names: list[str],
               sets: dict[str, list[str]], weight: str) -> float:
    """One genome's score over `set_names` by the run's own
    `validation_weight` (`completion_score`); `row` is its entry of
    `play`'s result."""
    completed = {stage: done for s in set_names for stage, done in zip(sets[s], row[s])}
    return completion_score(completed, [sets[s] for s in set_names], weight)


def choose(played: dict[str, dict[str, list[bool]]], over_population: bool,
           set_names: list[str], sets: dict[str, list[str]], weight: str) -> str:
    """The genome a rule picks: the highest score over `set_names` by the
    run's own `validation_weight` (`completion_score`), the earlier genome
    on a tie (the run's own first)."""
    if not set_names:
        return "the run's"
    names = [n for n in played if over_population or not in_pool(n)]
    return max(names, key=lambda n: (score_over(played[n], set_names, sets, weight),
                                     -names.index(n)))


# "six, near": how many validation stages below the population's best a
# genome may finish and still be chosen for the six.
NEAR = 3


def choose_near(played: dict[str, dict[str, list[bool]]], validation: list[str],
                sets: dict[str, list[str]], weight: str, near: int = NEAR,
                preferred: tuple[str, ...] = ("six",)) -> str:
    """The generated validation stages first, the six (or the `preferred`
    sets) among those nearly as good: of every genome that finishes at
    least the most validation stages any does less `near`, the one that
    finishes the most of the six, then the highest validation score
    (`completion_score`), then the earlier genome."""
    names = list(played)

    def finished(name: str) -> int:
        return sum(count(played[name][s]) for s in validation)

    floor = max(finished(n) for n in names) - near
    eligible = [n for n in names if finished(n) >= floor]
    return max(eligible, key=lambda n: (sum(count(played[n][s]) for s in preferred),
                                        score_over(played[n], validation, sets, weight),
                                        -names.index(n)))


def meets_floor(row: dict[str, list[bool]], validation: list[str],
                floor: tuple[float, ...]) -> bool:
    """Whether a genome completes at least `floor`'s share of each set of
    `validation`, in order (as `Validation._meets_floor`)."""
    return all(count(row[s]) >= share * len(row[s]) - 1e-9 for share, s in zip(floor, validation))


def figure_row(row: dict[str, list[bool]], validation: list[str],
               tests: list[str]) -> dict[str, int]:
    """What one genome finishes of each set printed, by the set's short name."""
    figures = {"validation": sum(count(row[s]) for s in validation),
               "places": count(row["places"]), "six": count(row["six"]),
               "eight": count(row["eight"]), "held out": count(row["held out"]),
               "built-in": count(row["built-in"])}
    figures.update({s: count(row[s]) for s in tests})
    return figures


def figures_line(figures: dict[str, int]) -> str:
    test = " / ".join(str(v) for k, v in figures.items() if k.startswith("test "))
    return (f"{figures['validation']:>10} {figures['places']:>6} {figures['six']:>3} "
            f"{figures['eight']:>5} {figures['held out']:>8} {figures['built-in']:>8}  {test}")


def choose_as_run(played: dict[str, dict[str, list[bool]]], schedule: list[list[str]],
                  validation: list[str], sets: dict[str, list[str]], weight: str,
                  preferred: list[str], near: int, floor: tuple[float, ...] = ()) -> str:
    """The genome a run's own validation would have given, applying its rule
    at each validation in turn as `evolution.loop.validation` does: the
    genome chosen so far first, then that validation's candidates; the
    best score on `validation` (by `weight`), or with `preferred` sets,
    of those completing at least the `floor` shares of `validation` (or,
    none doing so or no floor, at most `near` stages of `validation`
    fewer than the best), the most of `preferred`; the earlier on a tie (the run
    breaks a tie on the score by the mean reward, which is not played
    here)."""
    chosen = None
    for names in schedule:
        pool = {n: played[n] for n in ([chosen] if chosen is not None else []) + names}
        barred = {n: row for n, row in pool.items()
                  if floor and meets_floor(row, validation, floor)}
        # Every genome meeting the floor is in reach, however far below the best.
        reach = sum(len(sets[s]) for s in validation) if barred else near
        chosen = (choose_near(barred or pool, validation, sets, weight, reach, tuple(preferred))
                  if preferred else choose(pool, True, validation, sets, weight))
    return chosen


def correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson's r of two centred series; 0 where either never varies."""
    spread = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum()) / spread if spread else 0.0


def count(finished: list[bool]) -> int:
    return int(sum(finished))


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", metavar="RUN_DIR",
                        help="a run directory; its checkpoint.npz and best.json are read")
    parser.add_argument("--candidates", action="store_true",
                        help="choose among every candidate the run's validation played "
                             "(RUN_DIR/candidates/, kept by --keep-candidates) instead of its "
                             "last population")
    parser.add_argument("--near", type=int, default=NEAR, metavar="K",
                        help=f"'six, near' chooses among the genomes at most K validation "
                             f"stages below the best (default {NEAR})")
    parser.add_argument("--floor", type=float, nargs="+", metavar="SHARE",
                        help="'run, floor' chooses among the genomes completing at least "
                             "these shares of the validation sets, in order (default: the "
                             "run's --validation-floor; without either, no such rule)")
    parser.add_argument("--each", action="store_true",
                        help="print every genome's figures, not only each rule's pick")
    parser.add_argument("--vote", action="store_true",
                        help="also play the population's plurality vote on the designed stages")
    parser.add_argument("--workers", type=int, default=2, help="threads that play (default 2)")
    parser.add_argument("--members", type=Path, metavar="DIR",
                        help="play nothing; write each genome of each run's last population "
                             "as DIR/RUN_NAME/member-N.json, a genome file that python -m "
                             "plots replay plays and draws")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error(f"--workers must be 1 or more, got {args.workers}")
    if args.floor is not None and not all(0 <= v <= 1 for v in args.floor):
        parser.error(f"--floor takes shares from 0 to 1, got {' '.join(map(str, args.floor))}")
    if args.floor is not None and not args.candidates:
        parser.error("--floor applies the 'run, floor' rule to kept candidates; accepted: "
                     "--floor with --candidates")
    if args.near < 0:
        parser.error(f"--near must be 0 or more validation stages, got {args.near}")
    if args.vote and args.candidates:
        parser.error("--vote plays the last population's vote, --candidates plays no "
                     "population; accepted: one of them")
    if args.members is not None:
        for run_dir in args.runs:
            try:
                paths = write_members(run_dir, args.members)
            except ValueError as exc:   # CheckpointError among them
                print(f"{parser.prog}: error: {exc}", file=sys.stderr)
                return 1
            print(f"{run_dir}: wrote {len(paths)} genome files in {paths[0].parent}")
        return 0
    totals: dict[str, dict[str, int]] = {}
    centred: dict[str, list[float]] = {}
    for run_dir in args.runs:
        try:
            if args.candidates:
                config, genomes, repeat, schedule = run_candidates(run_dir)
            else:
                config, genomes, repeat = run_genomes(run_dir)
        except ValueError as exc:   # CheckpointError and GenomeFileError among them
            print(f"{parser.prog}: error: {exc}", file=sys.stderr)
            return 1
        sets = stage_sets(config)
        played = play(config, genomes, sets, repeat, args.workers)
        population = [n for n in played if in_pool(n)]
        validation = generated_validation(config)
        for key, set_names in (("validation", validation), ("six", ["six"]),
                               ("eight", ["eight"]), ("places", ["places"]),
                               ("held out", ["held out"])):
            counts = np.array([sum(count(played[n][s]) for s in set_names) for n in played],
                              dtype=np.float64)
            centred.setdefault(key, []).extend(counts - counts.mean())
        deciding = (f"deciding {'every frame' if repeat == 1 else f'every {repeat} frames'} "
                    f"as they were last scored")
        if args.candidates:
            print(f"{run_dir} (seed {config.seed}): its own genome and {len(population)} "
                  f"more candidates its validation played, {deciding}")
        else:
            print(f"{run_dir} (seed {config.seed}): {len(population)} genomes of its last "
                  f"generation, its hall of fame and mean, and its own genome, {deciding}")
        print(f"  {'designed stage':<16} {'finished by the population':>27}")
        for set_name in ("six", "eight", "held out", "built-in"):
            for i, stage in enumerate(sets[set_name]):
                done = sum(played[n][set_name][i] for n in population)
                print(f"  {Path(stage).stem:<16} {done:>20} of {len(population)}")
        tests = [s for s in sets if s.startswith("test ")]
        header = (f"{'validation':>10} {'places':>6} {'six':>3} {'eight':>5} {'held out':>8} "
                  f"{'built-in':>8}  test")
        if args.each:
            print(f"  {'genome':<40} {header}")
            for name in played:
                print(f"  {name:<40} {figures_line(figure_row(played[name], validation, tests))}")
        print(f"  {'rule':<12} {'genome':<40} {header}")
        picks = {rule: choose(played, over_population, chosen_on, sets,
                              config.validation_weight)
                 for rule, (over_population, chosen_on) in rules(config).items()}
        picks["six, near"] = choose_near(played, validation, sets, config.validation_weight,
                                         args.near)
        if args.candidates:
            preferred = [SHORT.get(s, s) for s in config.validation_prefer] or ["six"]
            near = config.validation_near if config.validation_prefer else args.near
            picks["run, plain"] = choose_as_run(played, schedule, validation, sets,
                                                config.validation_weight, [], 0)
            picks["run, near"] = choose_as_run(played, schedule, validation, sets,
                                               config.validation_weight, preferred, near)
            floor = tuple(config.validation_floor or args.floor or ())
            if floor:
                if len(floor) != len(validation):
                    print(f"{parser.prog}: error: --floor gives {len(floor)} share(s) for "
                          f"{len(validation)} validation set(s); accepted: one share for "
                          f"each of {', '.join(validation)}", file=sys.stderr)
                    return 2
                picks["run, floor"] = choose_as_run(played, schedule, validation, sets,
                                                    config.validation_weight, preferred, near,
                                                    floor)
        for rule, name in picks.items():
            figures = figure_row(played[name], validation, tests)
            for key, value in figures.items():
                totals.setdefault(rule, {}).setdefault(key, 0)
                totals[rule][key] += value
            print(f"  {rule:<12} {name:<40} {figures_line(figures)}")
        if args.vote:
            designed = sets["six"] + sets["held out"] + sets["built-in"]
            finished = vote_play(config, genomes, designed, repeat)
            six, held = len(sets["six"]), len(sets["held out"])
            figures = {"six": count(finished[:six]),
                       "held out": count(finished[six:six + held]),
                       "built-in": count(finished[six + held:])}
            for key, value in figures.items():
                totals.setdefault("vote", {}).setdefault(key, 0)
                totals["vote"][key] += value
            print(f"  {'vote':<12} {'the population':<40} {'':>10} {'':>6} "
                  f"{figures['six']:>3} {'':>5} {figures['held out']:>8} "
                  f"{figures['built-in']:>8}")
    if len(args.runs) > 1:
        print(f"over the {len(args.runs)} runs")
        for rule, figures in totals.items():
            print("  " + f"{rule:<12} " + ", ".join(f"{k} {v}" for k, v in figures.items()))
    held_out = np.array(centred["held out"])
    print(f"with the four held out, over the {len(held_out)} genomes, correlation of")
    for key in ("validation", "six", "eight", "places"):
        print(f"  {key:<12} {correlation(np.array(centred[key]), held_out):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The options of `python -m evolution.run` and the settings they give:
the parser (its choices and help read from the registries) and the run
configuration built from what was given."""
from __future__ import annotations

import argparse
from dataclasses import fields
from pathlib import Path

from evolution.config import (
    STAGE_DRAWS,
    STAGE_LISTS,
    VALIDATION_WEIGHTS,
    ConfigError,
    EvolutionConfig,
)
from evolution.strategies.registry import (
    STRATEGIES,
    all_settings,
    get_strategy,
    list_strategies,
    readers,
)
from evolution.cli.config_file import with_config_file
from speednik.cli import OneLineParser
from runners.compiled import ENGINES
from runners.pool import MAX_WORKER_DEATHS
from runners.policies import POLICY_FAMILIES, list_policies
from speednik.observation import OBSERVATIONS


DEFAULTS = EvolutionConfig.__dataclass_fields__


def _default(name: str):
    f = DEFAULTS[name]
    return f.default_factory() if callable(f.default_factory) else f.default


def build_parser() -> argparse.ArgumentParser:
    # Every option defaults to None, so that what was given is visible:
    # --resume refuses settings that a checkpoint fixes. The defaults are
    # filled in from EvolutionConfig and shown in the help.
    d = _default
    p = OneLineParser(
        prog="python -m evolution.run", error_name="evolution.run",
        description="Evolve policies (see --policy) that play Speednik stages, "
                    "with a search strategy (see --algorithm). Fitness is the "
                    "episode's total reward, averaged over the training stages.",
        epilog=f"exit status: 0 done; 1 the run failed (its last finished generation is "
               f"checkpointed): an episode raised, the Dask scheduler was lost, or worker "
               f"processes died {MAX_WORKER_DEATHS} times in all (a worker that dies "
               f"before that costs nothing: its episodes run again); 2 bad input; 130 "
               f"Ctrl-C, 143 SIGTERM (checkpointed, continue with --resume).")

    def opt(*names: str, help: str, default_of: str | None = None, **kw) -> None:
        name = default_of or names[0].lstrip("-").replace("-", "_")
        shown = d(name) if name in DEFAULTS else None
        if shown not in (None, ()) and "(default" not in help:
            help = f"{help} (default: {' '.join(shown) if isinstance(shown, tuple) else shown})"
        target.add_argument(*names, default=None, help=help, **kw)

    # The options in groups, as a configuration file has them in tables
    # (`evolution.config_file.TABLES`), the method's own under its name.
    task = p.add_argument_group(
        "the task", "what the policies play and see ([task] in a --config file)")
    policy = p.add_argument_group("the policy", "[policy] in a --config file")
    method = p.add_argument_group(
        "the method", "the search and its population ([method] in a --config file, "
                      "with the method's own settings below)")
    own = {name: p.add_argument_group(
               f"--algorithm {name}'s own settings",
               "[method] in a --config file; a setting read by several methods is "
               "listed under the first")
           for name in list_strategies() if get_strategy(name).settings}
    budget = p.add_argument_group("the budget", "[budget] in a --config file")
    where = p.add_argument_group("where and how it runs", "[run] in a --config file")
    files = p.add_argument_group("its files")

    target = budget
    opt("--generations", type=int,
        help="generations to run after the initial population "
             "(with --resume: the total to reach)")
    opt("--max-frames", type=int, metavar="N",
        help="stop once the search has played N frames (the generation that reaches "
             "them is finished; held-out and validation episodes are not counted), "
             "or at --generations, whichever comes first: an equal budget for "
             "comparing search methods (default: no limit)")
    opt("--starts", type=int, metavar="K",
        help="start K searches, each from a seed of its own, one after the other for "
             "--start-frames frames each; the one whose genomes did best on the "
             "validation stages then goes on alone until --max-frames (all starts' "
             "frames count in it); needs --validation-stage")
    opt("--start-frames", type=int, metavar="N",
        help="frames each of the --starts plays before the best goes on")
    opt("--final-frames", type=int, metavar="N",
        help="the last N frames of --max-frames decide every --final-action-repeat "
             "frames: genomes are scored, validated and tested so from then on, and "
             "best.json plays so")
    target = task
    opt("--stage", dest="stages", nargs="+", metavar="NAME", default_of="stages",
        help="stage(s) to evolve on: built-in names (hillside, pipeworks, skybridge), "
             ".toml profile paths (a copy of each is kept in the run directory), "
             "generated sets gen:DIFFICULTY:SEEDS (gen:hard:0-31: 32 stages; "
             "gen:skills:0-63: 64 skill stages; gen:places:0-63: 64 stages strung "
             "from stretches of the hand-made validation stages) or the "
             "hand-made sets handmade:validation (6 stages), handmade:extra (8) and "
             "handmade:heldout (4)")
    opt("--stages-per-generation", type=int, metavar="K",
        help="score each generation on K of the training stages, drawn anew "
             "(--stage-draw), the same K for every genome (default: all)")
    opt("--always-stage", dest="always_stages", nargs="+", metavar="NAME",
        default_of="always_stages",
        help="training stages (named as in --stage) every generation is scored on: "
             "they count among --stages-per-generation, the rest of which is drawn "
             "from the other training stages, e.g. --always-stage handmade:validation "
             "to score six designed stages every generation beside generated ones")
    opt("--stage-draw", choices=STAGE_DRAWS,
        help="how --stages-per-generation draws them: 'uniform', every stage alike, "
             "or 'failures', a stage the more often the more of the population "
             "failed it the last time it was played")
    opt("--start-shift", type=int, metavar="PX",
        help="play each training stage of a generation from a start moved by up to PX "
             "pixels either way, drawn anew each generation, the same for every genome "
             "(default 0: from the stage's own start); validation and tests play "
             "the stages' own starts")
    opt("--test-stage", dest="test_stages", nargs="+", metavar="NAME",
        default_of="test_stages",
        help="held-out stages (same forms as --stage, e.g. gen:medium:1000-1099) the "
             "best genome so far is played on every --test-every generations; they "
             "never influence the run")
    opt("--test-every", type=int, metavar="N",
        help="generations between held-out tests (and the last one)")
    opt("--validation-stage", dest="validation_stages", nargs="+", metavar="NAME",
        default_of="validation_stages",
        help="validation stages (same forms as --stage): every --test-every "
             "generations the candidates the run keeps are played on them, and the "
             "best there becomes best.json's genome (and the one the held-out test "
             "plays); they never steer the search")
    opt("--validation-weight", choices=VALIDATION_WEIGHTS,
        help="what a validation stage counts for when candidates are compared: "
             "'stage', each stage alike (the most stages completed wins); 'set', each "
             "--validation-stage set alike (the highest fraction completed, averaged "
             "over the sets, wins), so that gen:medium:2000-2049 weighs as much as "
             "gen:expert:10000-10199 beside it")
    opt("--validation-prefer", nargs="+", metavar="SET",
        help="validation sets (as named in --validation-stage) preferred among the "
             "candidates nearly best on the others: of those completing at most "
             "--validation-near stages of the other sets fewer than the best, the one "
             "completing the most of these wins, e.g. --validation-prefer "
             "handmade:validation to choose on six designed stages only among genomes "
             "as good as any on the generated ones (they do not rank the --starts)")
    opt("--validation-near", type=int, metavar="N",
        help="how many stages of the other validation sets a candidate may complete "
             "fewer than the best one and still be chosen for --validation-prefer")
    opt("--validation-screen", type=int, metavar="N",
        help="at each validation, play the last population on the --validation-prefer "
             "sets alone and add the N members completing the most of them (then the "
             "fittest) to the candidates (default 0: the hall of fame, the strategy's "
             "recommendation and its own candidates only)")
    opt("--validation-floor", nargs="+", type=float, metavar="SHARE",
        help="with --validation-prefer: the least share of each other validation set, "
             "in order, a candidate must complete for the preferred sets to choose it, "
             "e.g. 0.97 0.95 0.9 for gen:medium:2000-2049 gen:hard:2000-2049 "
             "gen:expert:10000-10199; a fixed bar, where --validation-near counts from "
             "the best so far (none meeting it: --validation-near decides)")
    opt("--keep-candidates", action="store_true",
        help="write every candidate validation plays as a genome file in "
             "RUN_DIR/candidates/ (gen-GENERATION-CANDIDATE.json, with what it "
             "validated), to replay or to choose among afterwards "
             "(benchmarks/population_choice.py --candidates)")
    opt("--observation",
        help="what the policy sees: " + "; ".join(
            f"'{e.name}' ({e.size} values: {e.description})"
            for e in OBSERVATIONS.values() if not e.for_the_record)
        + "; kept for the record, as steps on the way to 'reach' (python -m "
          "evolution.choices describes them): " + ", ".join(
            f"'{e.name}'" for e in OBSERVATIONS.values() if e.for_the_record))
    opt("--max-steps", type=int, help="frames per episode before it ends as a timeout")
    opt("--stall-frames", type=int,
        help="end an episode as stalled after this many frames without new "
             "progress (0: never)")
    opt("--training-stall-frames", type=int, metavar="N",
        help="the search's own episodes stall after N frames instead, longer than "
             "--stall-frames; validation and test keep --stall-frames. A move that "
             "gets on only after a while (going back for a run-up) then scores above "
             "standing at a wall, before it is fast enough to be judged")
    opt("--action-repeat", type=int, metavar="K",
        help="the policy decides every K frames and holds its action in between "
             "(jump stays held, it is not pressed again); observing and deciding are "
             "most of a frame's cost, so episodes play faster")
    opt("--final-action-repeat", type=int, metavar="K",
        help="decide every K frames for the last --final-frames frames of the budget "
             "instead (e.g. --action-repeat 2 --final-action-repeat 1: a search "
             "mostly at the cheaper repeat ends adapting to deciding every frame)")
    target = policy
    opt("--policy", choices=list_policies(),
        help="the policy family: " + "; ".join(
            f"'{f.name}' ({f.summary})" for f in POLICY_FAMILIES.values())
        + " (default: the family the algorithm evolves where it has its own, else "
          "linear)")
    # A setting several families share (hidden) is one option.
    for name, (setting, families) in family_settings().items():
        opt(f"--{name}", type=int, metavar=name[0].upper(),
            help=f"{setting.help} of --policy {' and '.join(families)}")
    target = method
    opt("--algorithm", choices=list_strategies(),
        help="the search: " + "; ".join(
            f"'{e.name}' ({e.summary})" for e in STRATEGIES.values()))
    opt("--population", type=int, help="genomes per generation")
    opt("--hall-of-fame", type=int, metavar="N",
        help="best genomes ever scored that the run keeps: the first is the genome "
             "it gives without validation stages, all are validation's candidates, "
             "and the GA's --elite is taken from them")
    opt("--imitation", type=int, metavar="ROUNDS",
        help="before the search, fit the policy to the planner's actions on the "
             "training stages in ROUNDS rounds (the first on the planner's own play, "
             "each further one on the states the last fit reached, labelled by the "
             "planner) and start the search's mean there instead of at zero; the "
             "fit is kept as imitation.json in the run directory; for --algorithm "
             "cmaes or openai-es with --policy mlp or linear (0: none)")
    opt("--imitation-stage", dest="imitation_stages", nargs="+", metavar="NAME",
        default_of="imitation_stages",
        help="the stages --imitation fits on (same forms as --stage; default: the "
             "training stages), e.g. gen:skills:0-63 for moves the training stages "
             "seldom ask for; the search's fitness never plays them")
    opt("--imitation-back-weight", type=float, metavar="X",
        help="how many times an example that presses left (left or left+jump) counts "
             "in the --imitation fit: going back is rare among the planner's presses "
             "and the fit averages it away (default: 1, as any other; from 1 to 100)")
    for name, (entries, setting) in all_settings().items():
        own[entries[0].name].add_argument(
            setting.flag, dest=setting.name, type=int if setting.whole else float,
            default=None, metavar="X",
            help=f"{setting.help}, a setting of {readers(name)} (default: "
                 f"{setting.default:g}; from {setting.minimum:g} to {setting.maximum:g})")
    target = where
    opt("--seed", type=int, help="the one seed every random choice flows from")
    opt("--engine", choices=ENGINES,
        help="what runs the episodes: 'compiled' (the Numba engine, tens of times "
             "faster; compiles on first use) or 'python' (the readable "
             "simulation); both give identical results")
    opt("--workers", type=int,
        help=f"with --engine compiled: threads sharing each generation; with "
             f"--engine python: worker processes; with --scheduler local: the "
             f"cluster's worker processes (a scheduler address brings its own). At "
             f"most one per episode of a generation (default: all cores, "
             f"{d('workers')})")
    opt("--scheduler", metavar="ADDRESS",
        help="evaluate each generation on a Dask distributed cluster: the address "
             "of its scheduler (tcp://HOST:PORT), or 'local' for a cluster of "
             "--workers processes on this machine, listening on 127.0.0.1 only. "
             "Results are the same as without; needs the 'cluster' extra. Not kept "
             "by --resume: give it again to continue on a cluster (default: none, "
             "this process)")
    opt("--checkpoint-every", type=int,
        help="write the checkpoint every N generations (and at the end, on Ctrl-C "
             "and on SIGTERM)")
    target = files
    files.add_argument(
        "--config", metavar="FILE.toml",
        help="the run's settings from a TOML file (tables [task], [policy], [method], "
             "[budget], [run]; keys named as in config.json): a preset of configs/, or "
             "the config.toml a run writes, which plays that run again. An option typed "
             "here overrides the file's, wherever it stands; --out is not in a file")
    opt("--out", help="run directory, new or empty (default: runs/<stage>-seed<seed>, "
                      "numbered -2, -3, ... when taken)")
    opt("--resume", metavar="RUN_DIR",
        help="continue a run from its checkpoint with the settings it holds: "
             "--generations (the total to reach), --workers, --checkpoint-every, "
             "--engine and --scheduler may change; any other setting given (a "
             "requeued command line repeats them all, --out RUN_DIR included, and a "
             "--config file's count as given) must equal the checkpoint's")
    files.add_argument("--settings", metavar="FILE",
                       help="a search method's settings from a file (the best.json of "
                            "python -m evolution.tune), as if typed where --settings "
                            "stands; it sets --algorithm when neither the command line "
                            "nor --config gives it")
    files.add_argument("--quiet", action="store_true", help="print only the final summary")
    files.add_argument("--no-plots", action="store_true",
                       help="do not draw fitness.png at the end (it takes a second or two "
                            "in a child process; draw it later with python -m plots "
                            "fitness RUN_DIR)")
    return p


# May be given with --resume; every other setting comes from the checkpoint.
RESUMABLE = ("generations", "max_frames", "workers", "checkpoint_every", "engine",
             "scheduler")


# Options named otherwise than their setting.
FIXED_OPTIONS = {"stages": "--stage", "test_stages": "--test-stage",
                 "validation_stages": "--validation-stage", "always_stages": "--always-stage",
                 "imitation_stages": "--imitation-stage",
                 "out": "--out"}


def option_name(dest: str) -> str:
    return FIXED_OPTIONS.get(dest, "--" + dest.replace("_", "-"))


def given_settings(args: argparse.Namespace) -> dict:
    """The settings given on the command line, as a run records them: a
    profile path made absolute, `--stall-frames 0` as None (never)."""
    names = {f.name for f in fields(EvolutionConfig)}
    values = {k: v for k, v in vars(args).items()
              if k in names and v is not None}
    if args.stall_frames == 0:
        values["stall_frames"] = None
    options = {name: getattr(args, name) for name in all_settings()
               if getattr(args, name, None) is not None}
    if options:
        values["options"] = options
    for key in STAGE_LISTS:
        if key in values:
            # A profile path is recorded absolute, so that replay and resume
            # find it from any directory.
            values[key] = [str(Path(s).resolve()) if s.endswith(".toml") else s
                           for s in values[key]]
    return values


def config_from_args(args: argparse.Namespace) -> EvolutionConfig:
    """The run configuration of a command line: its --config file's
    settings with those typed on the line over them."""
    args = with_config_file(args)
    config = EvolutionConfig(**given_settings(args))
    # A policy family's setting given with a family that has none such
    # would do nothing: refused, as a strategy's setting given to another is.
    own = {s.name for s in config.policy_spec().spec_family.settings}
    for name, (setting, families) in family_settings().items():
        if getattr(args, name, None) is not None and name not in own:
            raise ConfigError(
                f"--{name} ({setting.help}) is a setting of --policy "
                f"{' and '.join(families)}, not of --policy {config.policy}; it would "
                f"do nothing")
    return config


def family_settings() -> dict[str, tuple]:
    """Each policy setting's name: the setting (as its first family
    declares it) and the names of the families that have it."""
    owners: dict[str, tuple] = {}
    for family in POLICY_FAMILIES.values():
        for setting in family.settings:
            owners.setdefault(setting.name, (setting, []))[1].append(family.name)
    return owners

"""`--resume`: the checkpoint's settings, what may change on resuming, a
requeued command line's equal settings accepted and differing ones named,
and a checkpoint checked against its own settings before anything runs."""
from __future__ import annotations

import argparse
from pathlib import Path

from evolution.loop.checkpoint import CHECKPOINT_NAME, CheckpointError, load_checkpoint
from evolution.config import ConfigError, EvolutionConfig
from evolution.loop.method_file import read_method_file
from evolution.loop.outputs import CONFIG_NAME, RunFileError, read_config
from evolution.cli.run_options import RESUMABLE, STAGE_LISTS, given_settings, option_name
from evolution.strategies.registry import all_settings, get_strategy
from runners.atomic import remove_stale_temporaries
from runners.genome_file import STAGE_COPIES, locate_stage
from speednik.stages import StageSetError, expand_stages


def differences_from_checkpoint(args: argparse.Namespace, saved: EvolutionConfig,
                                run_dir: Path) -> list[str]:
    """Each setting given with --resume that the checkpoint fixes and that
    differs from it, as "--option VALUE (recorded: VALUE)". A requeued
    command line repeats the settings of the run: equal ones are no
    difference, compared as the run records them (stage sets expanded)."""
    recorded = saved.to_dict()
    out = []
    for name, value in given_settings(args).items():
        if name in RESUMABLE:
            continue
        if name == "options":
            for option, given in value.items():
                held = recorded["options"].get(option)
                if given != held:
                    out.append(f"{all_settings()[option][1].flag} {given} "
                               f"(recorded: {'none' if held is None else held})")
            continue
        if name in STAGE_LISTS:
            same = _same_stages(value, recorded[name], run_dir)
        else:
            same = value == recorded[name]
        if not same:
            out.append(f"{option_name(name)} {_shown(name, value)} "
                       f"(recorded: {_shown(name, recorded[name])})")
    if args.out is not None and not _same_directory(args.out, run_dir):
        out.append(f"--out {args.out} (the run is {run_dir})")
    return out


def _same_stages(given: list[str], recorded: list[str], run_dir: Path) -> bool:
    try:
        given = expand_stages(given)
    except StageSetError as exc:
        raise ConfigError(str(exc)) from None
    recorded = expand_stages(recorded)
    # A profile that moved is replaced by the run's copy of it: either
    # path names the recorded stage.
    return len(given) == len(recorded) and all(
        g in (r, locate_stage(r, run_dir)) for g, r in zip(given, recorded))


def _same_directory(a: str, b: Path) -> bool:
    try:
        return Path(a).resolve() == b.resolve()
    except OSError:
        return False


def _shown(name: str, value: object) -> str:
    """A setting as an option would give it."""
    if value is None:
        return "0" if name == "stall_frames" else "none"
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value)) or "none"
    return str(value)


def config_for_resume(args: argparse.Namespace, run_dir: Path) -> EvolutionConfig:
    """The checkpoint's settings, with the resumable ones given on the
    command line; refuses any other setting given that differs from the
    checkpoint's, and a config.json that is not the checkpoint's."""
    remove_stale_temporaries(run_dir)
    ckpt = load_checkpoint(run_dir)
    try:
        saved = EvolutionConfig.from_dict(ckpt.config)
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"{run_dir / CHECKPOINT_NAME}: bad settings ({exc})") from None
    check_checkpoint_fits(ckpt, saved, run_dir / CHECKPOINT_NAME)
    differ = differences_from_checkpoint(args, saved, run_dir)
    if differ:
        raise ConfigError(
            f"settings that differ from the checkpoint's cannot be given with "
            f"--resume: {', '.join(differ)}; a run continues with the settings of "
            f"its checkpoint: give them as recorded or leave them out (or start a "
            f"new run in another --out); accepted changes: --generations, --max-frames, --workers, "
            f"--checkpoint-every, --engine, --scheduler")
    check_new_totals(args, ckpt, saved)
    check_stage_files(saved, run_dir)
    check_method_file(run_dir)
    recorded = read_config(run_dir)

    def settings(config: EvolutionConfig) -> dict:
        # A profile that moved is replaced by the run's copy of it; either
        # name means the same stage.
        return dict(config.to_dict(), **{
            key: [locate_stage(s, run_dir) for s in getattr(config, key)]
            for key in STAGE_LISTS})

    differ = [k for k, v in settings(saved).items()
              if k not in RESUMABLE and settings(recorded)[k] != v]
    if differ:
        raise ConfigError(
            f"{run_dir / CONFIG_NAME} disagrees with the checkpoint on "
            f"{', '.join(differ)}; a run resumes with its checkpoint's settings: "
            f"restore {CONFIG_NAME} or start a new run")
    located = {key: v for key, v in settings(saved).items() if key in STAGE_LISTS}
    # A cluster belongs to this invocation: without --scheduler the run
    # continues in this process, whatever the last invocation used.
    return saved.replace(**located, scheduler=args.scheduler, **{
        a: getattr(args, a) for a in RESUMABLE
        if getattr(args, a) is not None and a != "scheduler"})


def check_new_totals(args: argparse.Namespace, ckpt, saved: EvolutionConfig) -> None:
    """--generations and --max-frames given with --resume are the new
    totals: a new one the run has already reached would stop it at once
    (the recorded ones, which a requeued command line repeats, are fine)."""
    if (args.generations is not None and args.generations != saved.generations
            and args.generations < ckpt.generation):
        raise ConfigError(
            f"--generations {args.generations} is below the generation the run has reached "
            f"({ckpt.generation}); with --resume it is the new total: accepted "
            f"{ckpt.generation} or more")
    played = (ckpt.logbook[-1].get("frames") if ckpt.logbook else None) or 0
    if (args.max_frames is not None and args.max_frames != saved.max_frames
            and args.max_frames <= played):
        raise ConfigError(
            f"--max-frames {args.max_frames} is no more than the {played} frames the run "
            f"has played; with --resume it is the new budget: accepted more than {played}")


def check_method_file(run_dir: Path) -> None:
    """The method's numbers the run keeps (method.jsonl) must read, before
    anything runs; without them (a run from before the file existed)
    the resumed run records its own from there on."""
    try:
        read_method_file(run_dir)
    except RunFileError as exc:
        raise RunFileError(f"{exc}; or remove it, and the resumed run records the "
                           f"numbers from its checkpoint on") from None


def check_stage_files(config: EvolutionConfig, run_dir: Path) -> None:
    """A .toml profile the run plays must be the one it started with (its
    copy in the run directory): an edited profile would make the resumed
    run another run."""
    for stage in (*config.stages, *config.validation_stages, *config.test_stages):
        if not stage.endswith(".toml") or not Path(stage).is_file():
            continue
        copy = run_dir / STAGE_COPIES / Path(stage).name
        if copy.is_file() and copy.read_bytes() != Path(stage).read_bytes():
            raise ConfigError(
                f"{stage} differs from the profile the run started with ({copy}); a "
                f"resumed run plays the stages it started on: restore the profile (the "
                f"copy holds it), or start a new run on the edited one")


def check_checkpoint_fits(ckpt, config: EvolutionConfig, path: Path) -> None:
    """CheckpointError unless the checkpoint's population, hall of fame,
    logbook and search state are what its own settings make: a damaged or
    crafted one would otherwise continue as another run (a GA with fewer
    genomes) or fail midway with a traceback (a CMA-ES without its state)."""
    size = config.genome_size()

    def damaged(what: str) -> CheckpointError:
        return CheckpointError(f"{path}: damaged checkpoint ({what}); accepted: a "
                               f"{CHECKPOINT_NAME} written by this tool")

    individuals = config.individuals()
    if len(ckpt.population) != individuals:
        raise damaged(f"{len(ckpt.population)} genomes where its settings say "
                      f"{individuals} (--algorithm {config.algorithm}, "
                      f"--population {config.population})")
    if not 1 <= len(ckpt.hall_of_fame) <= config.hall_of_fame:
        raise damaged(f"a hall of fame of {len(ckpt.hall_of_fame)}")
    genomes = [g for g, _ in ckpt.population + ckpt.hall_of_fame]
    policy = config.policy_spec()
    for genome in genomes:
        try:
            policy.check(genome)
        except ValueError as exc:
            raise damaged(f"a genome that is not one of {policy.describe()}: "
                          f"{exc}") from None
    if any(len(k) % 8 or (size is not None and len(k) != 8 * size)
           for k in ckpt.summaries):
        raise damaged("episode summaries of genomes of another size")
    if len(ckpt.logbook) != ckpt.generation + 1:
        raise damaged(f"{len(ckpt.logbook)} logbook rows for generation {ckpt.generation}")
    # The strategy rebuilt from its state, as the run will: a state that
    # is missing or of another shape is refused before anything is written.
    try:
        get_strategy(config.algorithm).load().from_state(config, size, ckpt.search)
    except (KeyError, TypeError, ValueError) as exc:
        raise damaged(f"its {config.algorithm} state: {exc}") from None

"""Replay an evolved genome, or a baseline agent, and say how it did.

    python -m runners.replay runs/hill                       its best.json, on its stages
    python -m runners.replay runs/hill/best.json --stage pipeworks
    python -m runners.replay --agent jump-runner --stage hillside
    python -m runners.replay runs/gen --stage gen:medium:1000-1099   held-out stages
    python -m runners.replay runs/gen --stage gen:easy:0-9 gen:hard:0-9   several

The genome file is read by `runners.genome_file`. The policy is rebuilt
from it and played with the observation, `max_steps` and `stall_frames` it
was evolved with. Played on its own stages, the mean total reward must
equal the recorded fitness (the game is deterministic); the command prints
both and exits with status 1 when they differ. `--stage` plays it
elsewhere instead: that is how a genome's generalisation is tried. A
generated set (`gen:DIFFICULTY:SEEDS`), or a hand-made one
(`handmade:validation`, `handmade:extra`, `handmade:heldout`), plays each
of its stages and ends with the completion rate (of each set and of all,
when several are named).

A genome plays on the compiled engine, a batch of stages at a time on
every core, with the readable runner's results (`runners.parallel`): a
hundred stages take seconds. Episodes that are drawn, and baseline agents,
play on the readable runner. The planner's draw of each expert stage is
taken from the record the run that certified it left
(`speednik.stages.certified_draws`), or found on every core before the
first episode.

`--why` adds, under each episode that ended in a death, what
`runners.diagnosis` finds: where the player left the ground, and the
last decision at which a plain plan would have come down alive; and
under each that ended in a stall, what `runners.stall_diagnosis` finds:
where the player was held up, what it pressed there, and what a way on
the planner finds from there does (go back first, charge a spindash).

Pictures of a replay (the run over the stage map, an animation) are drawn
by `python -m plots replay ... --plot FILE --gif FILE`, which is this
command with a drawing step: `run_replay` takes what to do with each
episode, and calls it for every stage played, those of a set included.

Bad input (a malformed genome file, an unknown stage or agent) is one line
on stderr, `replay: error: ...`, and exit status 2.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from runners.agents import BASELINES, make_baseline
from runners.archive_file import ArchiveFileError, load_archive, parse_cell
from speednik.cli import OneLineParser
from runners.diagnosis import describe, diagnose_death, summary_lines
from runners.stall_diagnosis import describe_stall, diagnose_stall, stall_summary_lines
from runners.episode import DEFAULT_STALL_FRAMES, EpisodeRunner, resolve_stage
from runners.genome_file import (  # noqa: F401  (the names replay callers use)
    BEST_NAME,
    GENOME_FORMAT,
    GenomeFileError,
    GenomeRecord,
    load_genome_file,
)
from runners.parallel import run_episodes
from runners.result import EpisodeResult
from runners.runner_config import RunnerConfig
from speednik.constants import DEFAULT_MAX_STEPS, FPS
from speednik.stages import (HANDMADE_NAMES, Stage, StageSetError, certify_expert_stages,
                             expand_stages, is_stage_set, list_stages, names_several,
                             stage_label)

STAGES_ACCEPTED = (f"accepted: a built-in stage ({', '.join(list_stages())}), a path "
                   "to a .toml profile, a generated set gen:DIFFICULTY:SEEDS, or "
                   f"{HANDMADE_NAMES}")
# Two fitness values this close are the same replay; they are sums of the
# same floats in the same order, so in practice they are equal.
FITNESS_TOLERANCE = 1e-9

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

# What --why asks of an episode that ended so: (diagnose, its line, the
# summary of a set's).
DIAGNOSES = {"death": (diagnose_death, describe, summary_lines),
             "stalled": (diagnose_stall, describe_stall, stall_summary_lines)}

# What a caller does with each replayed episode (draw it, for instance):
# (label, stage name, stage, result, several stages?) -> exit status.
EpisodeHook = Callable[[str, str, Stage, EpisodeResult, bool], int]


# -- playing and printing -------------------------------------------------------------

def replay_episode(agent: Any, stage: str | Stage, observation: str = "basic",
                   max_steps: int = DEFAULT_MAX_STEPS,
                   stall_frames: int | None = DEFAULT_STALL_FRAMES,
                   record: bool = False, action_repeat: int = 1) -> EpisodeResult:
    """One episode of `agent` on `stage` with these runner settings."""
    runner = EpisodeRunner(stage, observation=observation, max_steps=max_steps,
                           stall_frames=stall_frames, record=record,
                           action_repeat=action_repeat)
    return runner.run_episode(agent)


def replay_genome(record: GenomeRecord, stages: Sequence[str | Stage] | None = None,
                  max_steps: int | None = None, record_frames: bool = False
                  ) -> list[EpisodeResult]:
    """Play a genome on `stages` (default: its own; generated sets are
    played stage by stage) with the settings it was evolved with
    (`max_steps` overrides its own)."""
    chosen = record.stages if stages is None else stages
    if all(isinstance(s, str) for s in chosen):
        chosen = expand_stages(chosen)
    return [replay_episode(record.policy(), stage, record.observation,
                           record.max_steps if max_steps is None else max_steps,
                           record.stall_frames, record=record_frames,
                           action_repeat=record.action_repeat)
            for stage in chosen]


def mean_reward(results: Sequence[EpisodeResult]) -> float:
    """The fitness evolution gives a genome: its mean total reward over
    the stages."""
    return sum(r.total_reward for r in results) / len(results)


def format_result(result: EpisodeResult) -> str:
    """Two lines: how the episode went, then the reward by component."""
    m = result.metrics
    ended = result.done_reason
    if result.ended != ended:
        ended += f" ({result.ended})"
    head = (f"{m.get('stage', '?')}: {ended} after {result.steps} frames "
            f"({result.steps / FPS:.1f} s), progress {100 * m.get('progress', 0.0):.1f}%, "
            f"rings {m.get('rings', 0)}, total reward {result.total_reward:.4f}")
    parts = [f"{name} {value:+.4f}" for name, value in m.get("reward_components", {}).items()]
    return head + "\n  reward by component: " + (", ".join(parts) if parts else "(none)")


def format_row(name: str, result: EpisodeResult) -> str:
    """One line per stage of a set: name, how it ended (a death by its
    cause), progress, frames, reward."""
    m = result.metrics
    return (f"{stage_label(name):<20s} {result.ended:<12s} progress {100 * m['progress']:5.1f}%  "
            f"frames {result.steps:5d}  reward {result.total_reward:9.4f}")


def completion_line(results: Sequence[EpisodeResult]) -> str:
    done = sum(1 for r in results if r.metrics["goal_reached"])
    return (f"completed {done} of {len(results)} stages "
            f"({100 * done / len(results):.1f}%)")


def completion_lines(given: Sequence[str], results: Sequence[EpisodeResult]) -> list[str]:
    """The completion rate of each stage or set named in `given` (when
    several were), then of all: `results` are in the order `given`
    expands to, as a run's held-out report counts them."""
    lines = []
    if len(given) > 1:
        at = 0
        for name in given:
            count = len(expand_stages([name]))
            lines.append(f"{name}: {completion_line(results[at:at + count])}")
            at += count
    return lines + [completion_line(results)]


def fitness_report(fitness: float, recorded: float | None, stages: int) -> tuple[str, bool]:
    """The line comparing a replayed fitness with the recorded one, and
    whether they match (True when nothing was recorded)."""
    what = f"fitness {fitness:.9f} (mean total reward over {stages} stage{'s' * (stages > 1)})"
    if recorded is None:
        return f"{what}; the file records no fitness to compare with", True
    ok = abs(fitness - recorded) <= FITNESS_TOLERANCE
    verdict = "matches" if ok else f"DOES NOT MATCH (off by {fitness - recorded:+.3g})"
    return f"{what}; recorded {recorded:.9f}: {verdict}", ok


# -- the command -----------------------------------------------------------------------

def _whole_from(least: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected a whole number >= {least}, got {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {least}, got {value}")
        return value
    return parse


positive_whole = _whole_from(1)
non_negative_whole = _whole_from(0)


def build_parser(prog: str = "python -m runners.replay",
                 error_name: str = "replay") -> argparse.ArgumentParser:
    p = OneLineParser(
        prog=prog, error_name=error_name,
        usage="%(prog)s (RUN_DIR_OR_GENOME_FILE | --agent NAME) [--stage NAME ...] "
              "[--max-steps N] [--stall-frames N] [--why]",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Replay an evolved genome (or a baseline agent) and print how it did:\n"
                    "stage, why the episode ended, progress, frames, rings, total reward\n"
                    "and the reward by component.\n\n"
                    "examples:\n"
                    f"  {prog} runs/hill\n"
                    f"  {prog} runs/hill/best.json --stage pipeworks\n"
                    f"  {prog} runs/gen --stage gen:easy:1000-1099 gen:hard:1000-1099\n"
                    f"  {prog} --agent jump-runner --stage hillside\n"
                    f"  {prog} runs/gen --stage gen:expert:1000-1099 --why\n\n"
                    "pictures of a replay: python -m plots replay ... --plot FILE --gif FILE",
        epilog="exit status: 0 done; 1 the replayed fitness differs from the recorded\n"
               "one, or a picture could not be written; 2 bad input.")
    what = p.add_argument_group("what to replay (give exactly one)")
    # Required, but checked by parse_replay_args, which first takes back a
    # genome written after --stage's names.
    who = what.add_mutually_exclusive_group()
    who.add_argument("genome", nargs="?", metavar="RUN_DIR_OR_GENOME_FILE",
                     help=f"an evolution run directory (its {BEST_NAME} is used) or a "
                          f"genome file in that format; replayed with the observation, "
                          f"max_steps and stall_frames it was evolved with, on its own "
                          f"stages unless --stage is given")
    who.add_argument("--agent", metavar="NAME",
                     help=f"replay a baseline agent instead of a genome: "
                          f"{', '.join(BASELINES)}")
    p.add_argument("--stage", action="extend", nargs="+", metavar="NAME",
                   help=f"the stages to play, one or more: built-in names "
                        f"({', '.join(list_stages())}), .toml profile paths, "
                        f"generated sets gen:DIFFICULTY:SEEDS (gen:hard:0-31: 32 stages, "
                        f"a row each, ending with the completion rate of each set and "
                        f"of all), or the hand-made sets {HANDMADE_NAMES}. Default: "
                        f"the genome's own stages (then the fitness is checked), or every "
                        f"built-in stage for --agent")
    p.add_argument("--cell", metavar="I,J",
                   help="with a run of a search that keeps an archive (--algorithm "
                        "map-elites): replay the elite of archive cell I,J instead of "
                        "best.json's genome (python -m plots archive RUN_DIR draws the "
                        "cells)")
    p.add_argument("--max-steps", type=positive_whole, metavar="N",
                   help=f"frames before a timeout (default: the genome's own, or "
                        f"{DEFAULT_MAX_STEPS} for --agent); changing it makes the recorded "
                        f"fitness incomparable")
    p.add_argument("--stall-frames", type=non_negative_whole, metavar="N",
                   help=f"frames without new progress before a stall, 0 never (default: "
                        f"the genome's own, the one validation and test play at, but on "
                        f"its own stages the one its fitness was measured at; "
                        f"{DEFAULT_STALL_FRAMES} for --agent); changing it makes the "
                        f"recorded fitness incomparable")
    p.add_argument("--why", action="store_true",
                   help="under each episode that ended in a death, say where the player "
                        "left the ground and the last decision at which holding one "
                        "action (right+jump, right, left; before the take-off a jump "
                        "or a hop) would have come down alive, and what was pressed "
                        "there; under each that ended in a stall, where it was held "
                        "up, what was pressed there, and what a way on the planner "
                        "finds from there does (each such episode is played again "
                        "with the game itself, so this takes a while)")
    return p


def parse_replay_args(parser: argparse.ArgumentParser,
                      argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The arguments of a replay command (`build_parser`). --stage takes
    one or more names, so in `--stage hillside runs/hill` it swallows the
    genome: a run directory or .json file is never a stage, and is taken
    back as the genome."""
    args = parser.parse_args(argv)
    if args.genome is None and args.agent is None and args.stage:
        last = Path(args.stage[-1])
        if last.is_dir() or last.suffix == ".json":
            args.genome = args.stage.pop()
            args.stage = args.stage or None
    if args.genome is None and args.agent is None:
        parser.error("one of the arguments RUN_DIR_OR_GENOME_FILE --agent is required")
    if getattr(args, "cell", None) is not None and args.agent is not None:
        parser.error("--cell names an elite of a run's archive: give the run directory, "
                     "not --agent")
    return args


def elite_record(record: GenomeRecord, cell_text: str) -> GenomeRecord:
    """The run's genome record with the elite of archive cell "I,J" in
    place of its best genome, and the fitness the archive kept it with.
    That fitness was measured on its own generation's stages: in a run
    that scores every training stage each generation (the best genome's
    fitness was measured on all of them) they are the record's stages, and
    the replay compares with it; otherwise no fitness is recorded."""
    archive = load_archive(record.path.parent)
    cell = parse_cell(cell_text)
    genome = record.policy_spec.check(archive.elite(cell))
    every_stage = (record.fitness_stages is None
                   or len(record.fitness_stages) == len(expand_stages(record.stages)))
    fitness = archive.elite_fitness(cell) if every_stage else None
    return dataclasses.replace(record, genome=genome, fitness=fitness, generation=None,
                               fitness_stages=None, held_out=None)


def validation_origin(chosen: dict | None) -> str:
    """What a genome file says of its validation: the genome a run chose
    (best.json), or one candidate of the choice (a run's candidates/)."""
    if not chosen:
        return ""
    where = f"generation {chosen.get('generation')} ({chosen.get('candidate')})"
    if "validation_goals" in chosen:
        return (f"; a validation candidate of {where}, completing "
                f"{chosen['validation_goals']} of {len(chosen.get('validation_completed', {}))} "
                f"validation stages")
    return f"; chosen on validation stages in {where}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    return run_replay(parse_replay_args(parser, argv))



def _certify(names: list[str]) -> None:
    """The planner's draw of each expert stage among `names`, found before
    any is played: taken from the record the run that trained or tested on
    them left (a replay of its test stages plans nothing), or found on
    every core at once."""
    def certifying(done: int, total: int) -> None:
        if done == 1:
            print(f"certifying {total} expert stages (the planner finishes each once; "
                  f"recorded for later replays)", file=sys.stderr, flush=True)

    certify_expert_stages(names, os.cpu_count() or 1, certifying)



# Episodes a genome plays on the compiled engine at once: rows come as each
# batch ends, and a set of thousands is never built whole.
BATCH = 64


def _played(named: list, spec: Any, agent: Callable[[], Any], config: RunnerConfig,
            record_frames: bool):
    """(name, stage or its reference, result) of each stage in turn. A genome
    (`spec`) plays on the compiled engine, a batch at a time on every core,
    with the readable runner's results (`runners.parallel`); an agent, or
    an episode to be drawn (its frames recorded), on the readable runner."""
    if spec is None:
        for name, ref in named:
            stage = resolve_stage(ref)
            yield name, stage, replay_episode(agent(), stage, config.observation,
                                              config.max_steps, config.stall_frames,
                                              record=record_frames,
                                              action_repeat=config.action_repeat)
        return
    for start in range(0, len(named), BATCH):
        batch = named[start:start + BATCH]
        played = run_episodes([(spec, ref) for _, ref in batch], config,
                              workers=os.cpu_count() or 1, engine="compiled")
        for (name, ref), result in zip(batch, played):
            yield name, ref, result


def run_replay(args: argparse.Namespace, on_episode: EpisodeHook | None = None,
               error_name: str = "replay") -> int:
    """Replay what `args` (from `build_parser`) names, printing each
    episode; `on_episode` is called with each one (its frames recorded)
    and its exit status counts. The exit status."""

    def fail(message: str, status: int = EXIT_USAGE) -> int:
        print(f"{error_name}: error: {message}", file=sys.stderr)
        return status

    record: GenomeRecord | None = None
    if args.agent is not None:
        if args.agent not in BASELINES:
            return fail(f"unknown agent {args.agent!r}; accepted: {', '.join(BASELINES)}")
        names = args.stage or list_stages()
        observation, max_steps, stall = "basic", DEFAULT_MAX_STEPS, DEFAULT_STALL_FRAMES
        repeat = 1
        label = args.agent
    else:
        try:
            record = load_genome_file(args.genome)
        except GenomeFileError as e:
            return fail(str(e))
        if getattr(args, "cell", None) is not None:
            try:
                record = elite_record(record, args.cell)
            except (ArchiveFileError, ValueError) as e:
                return fail(str(e))
        names = args.stage or list(record.stages)
        observation, max_steps, stall, repeat = (record.observation, record.max_steps,
                                                 record.stall_frames, record.action_repeat)
        if args.stage is None and record.training_stall_frames is not None:
            # Its own stages are played as its fitness was measured.
            stall = record.training_stall_frames
        # A run is known by its directory's name, a lone file by its own.
        label = (record.path.parent.name if record.path.name == BEST_NAME
                 else record.path.stem)
    if args.max_steps is not None:
        max_steps = args.max_steps
    measured_stall = stall
    if args.stall_frames is not None:
        stall = args.stall_frames or None

    from_set = any(names_several(n) for n in names)
    given = list(names)
    try:
        names = expand_stages(names)
    except StageSetError as e:
        return fail(str(e))
    _certify(names)
    # A generated stage is built as it is played, and dropped after: a
    # set of thousands would not fit in memory at once (about 3 MB each).
    stages: list = []
    for name in names:
        try:
            stages.append(name if is_stage_set(name) else resolve_stage(name))
        except (ValueError, KeyError, OSError) as e:
            message = str(e)
            return fail(message if "accepted" in message else f"{message}; {STAGES_ACCEPTED}")

    if record is not None:
        print(f"genome {record.path}: {record.observation} observation, "
              f"{record.genome.size} numbers"
              + (f", found in generation {record.generation}" if record.generation is not None else "")
              + (f" of a run with seed {record.seed}" if record.seed is not None else "")
              + validation_origin(record.chosen))
        listing = record.policy_spec.listing(record.genome)
        if listing is not None:
            print("program (what its constants decide already decided):\n"
                  + "\n".join("    " + line for line in listing.splitlines()))
    else:
        print(f"agent {args.agent}")
    print(f"max_steps {max_steps}, stall_frames {stall}"
          + (f" (the search's own limit, which its fitness was measured at; validation "
             f"and test play at {record.stall_frames})"
             if record is not None and args.stall_frames is None
             and stall != record.stall_frames else "")
          + (f", deciding every {repeat} frames" if repeat > 1 else ""))

    def agent():
        return record.policy() if record is not None else make_baseline(args.agent)

    # Every stage played is drawn as it is played; its recording is dropped
    # once drawn (a set of thousands would not fit in memory).
    pictures = on_episode is not None
    config = RunnerConfig(observation=observation, max_steps=max_steps, stall_frames=stall,
                          action_repeat=repeat)
    spec = (record.policy_spec.spec(record.genome)
            if record is not None and not pictures else None)
    results = []
    reports: dict[str, list] = {end: [] for end in DIAGNOSES}
    status = EXIT_OK
    for name, stage, result in _played(list(zip(names, stages)), spec, agent, config, pictures):
        results.append(result)
        print(format_result(result) if not from_set else format_row(name, result))
        if getattr(args, "why", False) and result.done_reason in DIAGNOSES:
            diagnose, explain, _ = DIAGNOSES[result.done_reason]
            _, report = diagnose(agent(), resolve_stage(stage), observation=observation,
                                 max_steps=max_steps, stall_frames=stall, action_repeat=repeat)
            print(f"  why: {explain(report)}")
            reports[result.done_reason].append(report)
        if pictures:
            status = max(status, on_episode(label, name, resolve_stage(stage), result,
                                            len(stages) > 1))
            results[-1] = dataclasses.replace(result, trajectory=None)
    if from_set:
        print("\n".join(completion_lines(given, results)))
        for end, (_, _, summary) in DIAGNOSES.items():
            if reports[end]:
                print("\n".join(summary(reports[end])))

    if record is not None and args.stage is None:
        # The fitness is the mean over the stages it was measured on (all
        # of them, or those its generation drew).
        measured = set(record.fitness_stages or names)
        scored = [r for n, r in zip(names, results) if n in measured] or results
        fitness = mean_reward(scored)
        if max_steps != record.max_steps:
            print(f"fitness {fitness:.9f}; not comparable with the recorded one: "
                  f"--max-steps {max_steps} differs from the {record.max_steps} it was "
                  f"measured with")
        elif stall != measured_stall:
            print(f"fitness {fitness:.9f}; not comparable with the recorded one: "
                  f"--stall-frames {args.stall_frames} differs from the "
                  f"{measured_stall or 0} it was measured with")
        else:
            line, ok = fitness_report(fitness, record.fitness, len(scored))
            print(line)
            if not ok:
                status = max(status, EXIT_FAILED)
    return status


if __name__ == "__main__":
    sys.exit(main())

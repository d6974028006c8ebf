"""Replay an evolved genome, or a baseline agent, and say how it did.

    python -m runners.replay runs/hill                       its best.json, on its stages
    python -m runners.replay runs/hill/best.json --stage pipeworks
    python -m runners.replay runs/hill --plot run.png --gif run.gif
    python -m runners.replay --agent jump-runner --stage hillside

A genome file is the `best.json` an evolution run writes (or any file in
that format). The policy is rebuilt from it and played with the
observation, `max_steps` and `stall_frames` it was evolved with. Played on
its own stages, the mean total reward must equal the recorded fitness (the
game is deterministic); the command prints both and exits with status 1
when they differ. `--stage` plays it elsewhere instead: that is how a
genome's generalisation is tried.

Bad input (a malformed genome file, an unknown stage or agent) is one line
on stderr, `replay: error: ...`, and exit status 2.
"""
from __future__ import annotations

import argparse
import json
import math
import numbers
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from runners.agents import BASELINES, make_baseline
from runners.cli import OneLineParser
from runners.episode import DEFAULT_STALL_FRAMES, EpisodeRunner, resolve_stage
from runners.linear import LinearPolicy, genome_size
from runners.result import EpisodeResult
from speednik.actions import NUM_ACTIONS
from speednik.constants import DEFAULT_MAX_STEPS, FPS
from speednik.observation import OBSERVATIONS, get_observation
from speednik.stages import Stage, list_stages

GENOME_FORMAT = "speednik-evolve-genome"
BEST_NAME = "best.json"
REQUIRED_KEYS = ("format", "genome", "observation", "stages", "max_steps", "stall_frames")
GENOME_ACCEPTED = (
    f"accepted: a run directory holding {BEST_NAME}, or a genome file as evolution "
    f"writes it, a JSON object with \"format\": \"{GENOME_FORMAT}\" and the keys "
    f"{', '.join(REQUIRED_KEYS[1:])}")
STAGES_ACCEPTED = (f"accepted: a built-in stage ({', '.join(list_stages())}) or a path "
                   "to a .toml profile")
# Two fitness values this close are the same replay; they are sums of the
# same floats in the same order, so in practice they are equal.
FITNESS_TOLERANCE = 1e-9

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class GenomeFileError(ValueError):
    """A genome file that cannot be replayed; the message is one line:
    "<file>: <what is wrong>; <what is accepted>"."""


@dataclass(frozen=True)
class GenomeRecord:
    """A genome file, checked: everything needed to replay it exactly."""

    path: Path
    genome: np.ndarray
    observation: str
    stages: tuple[str, ...]
    max_steps: int
    stall_frames: int | None
    fitness: float | None = None
    generation: int | None = None
    seed: int | None = None
    results: dict[str, Any] = field(default_factory=dict)

    def policy(self) -> LinearPolicy:
        return LinearPolicy(self.genome, self.observation)


def load_genome_file(path: str | Path) -> GenomeRecord:
    """Read and check a genome file (or a run directory's best.json);
    `GenomeFileError` says what is wrong and what is accepted."""
    path = Path(path)
    if path.is_dir():
        if not (path / BEST_NAME).is_file():
            raise GenomeFileError(f"{path}: a directory without {BEST_NAME}; {GENOME_ACCEPTED}")
        path = path / BEST_NAME

    def bad(what: str, accepted: str = GENOME_ACCEPTED) -> GenomeFileError:
        return GenomeFileError(f"{path}: {what}; {accepted}")

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise bad("no such file or directory") from None
    except (OSError, UnicodeDecodeError) as e:
        raise bad(f"cannot be read ({e})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise bad(f"not JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    if not isinstance(data, dict):
        raise bad(f"holds a JSON {type(data).__name__}, not an object")
    if data.get("format") != GENOME_FORMAT and "format" in data:
        raise bad(f"the format marker is {data['format']!r}, not {GENOME_FORMAT!r}")
    missing = [k for k in REQUIRED_KEYS if k not in data]
    if missing:
        raise bad(f"missing key(s) {', '.join(repr(k) for k in missing)}")

    observation = data["observation"]
    if not isinstance(observation, str) or observation not in OBSERVATIONS:
        raise bad(f"unknown observation {observation!r}",
                  f"accepted: {', '.join(repr(n) for n in OBSERVATIONS)}")
    encoder = get_observation(observation)
    obs_dim = data.get("obs_dim", encoder.size)
    if obs_dim != encoder.size:
        raise bad(f"obs_dim is {obs_dim!r} but the {observation!r} observation has "
                  f"{encoder.size} values",
                  "accepted: obs_dim equal to the size of the named observation")
    if data.get("num_actions", NUM_ACTIONS) != NUM_ACTIONS:
        raise bad(f"num_actions is {data['num_actions']!r}",
                  f"accepted: {NUM_ACTIONS}, the size of the action space")

    raw = data["genome"]
    if not isinstance(raw, list) or not all(_is_number(v) for v in raw):
        raise bad("'genome' is not a list of numbers",
                  "accepted: a JSON list of finite numbers")
    genome = np.asarray(raw, dtype=np.float64)
    if not np.all(np.isfinite(genome)):
        i = int(np.nonzero(~np.isfinite(genome))[0][0])
        raise bad(f"'genome' holds {raw[i]!r} at index {i}",
                  "accepted: finite numbers only (no NaN or infinity)")
    expected = genome_size(encoder.size)
    if genome.size != expected:
        fits = [n for n, enc in OBSERVATIONS.items() if genome_size(enc.size) == genome.size]
        hint = f"; {genome.size} numbers fit the {fits[0]!r} observation" if fits else ""
        raise bad(f"the genome has {genome.size} numbers but a linear policy over the "
                  f"{observation!r} observation ({encoder.size} values) needs {expected}",
                  f"accepted: {NUM_ACTIONS} x {encoder.size} weights + {NUM_ACTIONS} "
                  f"biases = {expected} numbers{hint}")

    stages = data["stages"]
    if (not isinstance(stages, list) or not stages
            or not all(isinstance(s, str) and s for s in stages)):
        raise bad(f"'stages' is {stages!r}",
                  "accepted: a non-empty list of stage names or .toml paths")
    max_steps = data["max_steps"]
    if not _is_whole(max_steps) or max_steps < 1:
        raise bad(f"'max_steps' is {max_steps!r}", "accepted: a whole number >= 1")
    stall = data["stall_frames"]
    if stall is not None and (not _is_whole(stall) or stall < 1):
        raise bad(f"'stall_frames' is {stall!r}", "accepted: a whole number >= 1, or null")
    fitness = data.get("fitness")
    if fitness is not None and not (_is_number(fitness) and math.isfinite(fitness)):
        raise bad(f"'fitness' is {fitness!r}", "accepted: a finite number, or null")
    results = data.get("results") or {}
    if not isinstance(results, dict):
        raise bad(f"'results' is a {type(results).__name__}",
                  "accepted: an object of episode results by stage name")
    generation = data.get("found_in_generation")
    seed = data.get("seed")
    return GenomeRecord(
        path=path, genome=genome, observation=encoder.name, stages=tuple(stages),
        max_steps=int(max_steps), stall_frames=None if stall is None else int(stall),
        fitness=None if fitness is None else float(fitness),
        generation=generation if _is_whole(generation) else None,
        seed=seed if _is_whole(seed) else None, results=results)


def _is_number(v: object) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _is_whole(v: object) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


# -- playing and printing -------------------------------------------------------------

def replay_episode(agent: Any, stage: str | Stage, observation: str = "basic",
                   max_steps: int = DEFAULT_MAX_STEPS,
                   stall_frames: int | None = DEFAULT_STALL_FRAMES,
                   record: bool = False) -> EpisodeResult:
    """One episode of `agent` on `stage` with these runner settings."""
    runner = EpisodeRunner(stage, observation=observation, max_steps=max_steps,
                           stall_frames=stall_frames, record=record)
    return runner.run_episode(agent)


def replay_genome(record: GenomeRecord, stages: Sequence[str | Stage] | None = None,
                  max_steps: int | None = None, record_frames: bool = False
                  ) -> list[EpisodeResult]:
    """Play a genome on `stages` (default: its own) with the settings it
    was evolved with (`max_steps` overrides its own)."""
    return [replay_episode(record.policy(), stage, record.observation,
                           record.max_steps if max_steps is None else max_steps,
                           record.stall_frames, record=record_frames)
            for stage in (record.stages if stages is None else stages)]


def mean_reward(results: Sequence[EpisodeResult]) -> float:
    """The fitness evolution gives a genome: its mean total reward over
    the stages."""
    return sum(r.total_reward for r in results) / len(results)


def format_result(result: EpisodeResult) -> str:
    """Two lines: how the episode went, then the reward by component."""
    m = result.metrics
    head = (f"{m.get('stage', '?')}: {result.done_reason} after {result.steps} frames "
            f"({result.steps / FPS:.1f} s), progress {100 * m.get('progress', 0.0):.1f}%, "
            f"rings {m.get('rings', 0)}, total reward {result.total_reward:.4f}")
    parts = [f"{name} {value:+.4f}" for name, value in m.get("reward_components", {}).items()]
    return head + "\n  reward by component: " + (", ".join(parts) if parts else "(none)")


def fitness_report(fitness: float, recorded: float | None, stages: int) -> tuple[str, bool]:
    """The line comparing a replayed fitness with the recorded one, and
    whether they match (True when nothing was recorded)."""
    what = f"fitness {fitness:.9f} (mean total reward over {stages} stage{'s' * (stages > 1)})"
    if recorded is None:
        return f"{what}; the file records no fitness to compare with", True
    ok = abs(fitness - recorded) <= FITNESS_TOLERANCE
    verdict = "matches" if ok else f"DOES NOT MATCH (off by {fitness - recorded:+.3g})"
    return f"{what}; recorded {recorded:.9f}: {verdict}", ok


def _output_path(path: Path, stage_name: str, several: bool) -> Path:
    """`path` itself for one stage; with several, one file per stage
    (run.png -> run-hillside.png)."""
    if not several:
        return path
    return path.with_name(f"{path.stem}-{Path(stage_name).stem}{path.suffix}")


# -- the command -----------------------------------------------------------------------

def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="python -m runners.replay", error_name="replay",
        usage="%(prog)s (RUN_DIR_OR_GENOME_FILE | --agent NAME) [--stage NAME] "
              "[--max-steps N] [--plot FILE] [--gif FILE] [--gif-stride N] "
              "[--gif-max-frames N] [--gif-scale N]",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Replay an evolved genome (or a baseline agent) and print how it did:\n"
                    "stage, why the episode ended, progress, frames, rings, total reward\n"
                    "and the reward by component.\n\n"
                    "examples:\n"
                    "  python -m runners.replay runs/hill\n"
                    "  python -m runners.replay runs/hill/best.json --stage pipeworks\n"
                    "  python -m runners.replay runs/hill --plot run.png --gif run.gif\n"
                    "  python -m runners.replay --agent jump-runner --stage hillside",
        epilog="exit status: 0 done; 1 the replayed fitness differs from the recorded\n"
               "one, or a picture could not be written; 2 bad input.")
    what = p.add_argument_group("what to replay (give exactly one)")
    who = what.add_mutually_exclusive_group(required=True)
    who.add_argument("genome", nargs="?", metavar="RUN_DIR_OR_GENOME_FILE",
                     help=f"an evolution run directory (its {BEST_NAME} is used) or a "
                          f"genome file in that format; replayed with the observation, "
                          f"max_steps and stall_frames it was evolved with, on its own "
                          f"stages unless --stage is given")
    who.add_argument("--agent", metavar="NAME",
                     help=f"replay a baseline agent instead of a genome: "
                          f"{', '.join(BASELINES)}")
    p.add_argument("--stage", action="append", metavar="NAME",
                   help=f"the stage to play (repeatable): a built-in name "
                        f"({', '.join(list_stages())}) or a .toml profile path. Default: "
                        f"the genome's own stages (then the fitness is checked), or every "
                        f"built-in stage for --agent")
    p.add_argument("--max-steps", type=_positive, metavar="N",
                   help=f"frames before a timeout (default: the genome's own, or "
                        f"{DEFAULT_MAX_STEPS} for --agent); changing it makes the recorded "
                        f"fitness incomparable")
    p.add_argument("--plot", type=Path, metavar="FILE",
                   help="draw the run over the stage map into this PNG (with several "
                        "stages, one file each: FILE-<stage>.png)")
    p.add_argument("--gif", type=Path, metavar="FILE",
                   help="write an animation of the run, following the player, to this "
                        "GIF (with several stages, one file each: FILE-<stage>.gif)")
    p.add_argument("--gif-stride", type=_positive, default=3, metavar="N",
                   help="keep every N-th game frame in the GIF (default 3: 20 frames a "
                        "second, real speed)")
    p.add_argument("--gif-max-frames", type=_positive, default=1500, metavar="N",
                   help="most GIF frames; a longer episode gets a larger stride "
                        "(default 1500)")
    p.add_argument("--gif-scale", type=_positive, default=2, metavar="N",
                   help="GIF pixels per game pixel (default 2: 640 x 448)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)

    def fail(message: str, status: int = EXIT_USAGE) -> int:
        print(f"replay: error: {message}", file=sys.stderr)
        return status

    record: GenomeRecord | None = None
    if args.agent is not None:
        if args.agent not in BASELINES:
            return fail(f"unknown agent {args.agent!r}; accepted: {', '.join(BASELINES)}")
        names = args.stage or list_stages()
        observation, max_steps, stall = "basic", DEFAULT_MAX_STEPS, DEFAULT_STALL_FRAMES
        label = args.agent
    else:
        try:
            record = load_genome_file(args.genome)
        except GenomeFileError as e:
            return fail(str(e))
        names = args.stage or list(record.stages)
        observation, max_steps, stall = record.observation, record.max_steps, record.stall_frames
        # A run is known by its directory's name, a lone file by its own.
        label = (record.path.parent.name if record.path.name == BEST_NAME
                 else record.path.stem)
    if args.max_steps is not None:
        max_steps = args.max_steps

    stages = []
    for name in names:
        try:
            stages.append(resolve_stage(name))
        except (ValueError, KeyError, OSError) as e:
            message = str(e)
            return fail(message if "accepted" in message else f"{message}; {STAGES_ACCEPTED}")

    if record is not None:
        print(f"genome {record.path}: {record.observation} observation, "
              f"{record.genome.size} numbers"
              + (f", found in generation {record.generation}" if record.generation is not None else "")
              + (f" of a run with seed {record.seed}" if record.seed is not None else ""))
    else:
        print(f"agent {args.agent}")
    print(f"max_steps {max_steps}, stall_frames {stall}")

    pictures = args.plot is not None or args.gif is not None
    results = []
    status = EXIT_OK
    for name, stage in zip(names, stages):
        agent = record.policy() if record is not None else make_baseline(args.agent)
        result = replay_episode(agent, stage, observation, max_steps, stall, record=pictures)
        results.append(result)
        print(format_result(result))
        if pictures:
            status = max(status, _pictures(args, label, name, stage, result, len(stages) > 1))

    if record is not None and args.stage is None:
        fitness = mean_reward(results)
        if max_steps != record.max_steps:
            print(f"fitness {fitness:.9f}; not comparable with the recorded one: "
                  f"--max-steps {max_steps} differs from the {record.max_steps} it was "
                  f"measured with")
        else:
            line, ok = fitness_report(fitness, record.fitness, len(results))
            print(line)
            if not ok:
                status = max(status, EXIT_FAILED)
    return status


def _pictures(args: argparse.Namespace, label: str, name: str, stage: Stage,
              result: EpisodeResult, several: bool) -> int:
    """Write the --plot and --gif files of one episode; the exit status."""
    # plots sits above runners in the package layering (it draws what
    # runners produce), so it is imported here, only when a picture is
    # asked for, never at module level.
    target = None
    try:
        if args.plot is not None:
            from plots.stage_map import plot_stage_map
            target = _output_path(args.plot, name, several)
            plot_stage_map(stage, target, result, label=label)
            print(f"  wrote {target}")
        if args.gif is not None:
            from plots.animation import write_replay_gif
            target = _output_path(args.gif, name, several)
            write_replay_gif(result, stage, target, stride=args.gif_stride,
                             max_frames=args.gif_max_frames, scale=args.gif_scale)
            print(f"  wrote {target}")
    except OSError as e:
        print(f"replay: error: cannot write {target}: {e.strerror or e}", file=sys.stderr)
        return EXIT_FAILED
    except ValueError as e:
        print(f"replay: error: {e}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())

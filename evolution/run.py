"""`python -m evolution.run`: evolve linear policies for Speednik.

Prints one line per generation, writes the run directory (config.json,
logbook.csv, the checkpoint, best.json) and ends by saying where everything
went, how to replay the best genome and how to draw its fitness curves
(`python -m plots fitness`: plots sits above evolution, so the drawing is
its command).
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import fields
from pathlib import Path

from evolution.checkpoint import CHECKPOINT_NAME, CheckpointError, load_checkpoint
from evolution.config import ConfigError, EvolutionConfig
from evolution.outputs import BEST_NAME, CONFIG_NAME, LOGBOOK_NAME, read_config
from runners.cli import OneLineParser

DEFAULTS = EvolutionConfig.__dataclass_fields__


def _default(name: str):
    f = DEFAULTS[name]
    return f.default_factory() if callable(f.default_factory) else f.default


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows defaults, except where there is none or the help says it."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.default is None or action.default is False:
            return action.help or ""
        return super()._get_help_string(action)


def build_parser() -> argparse.ArgumentParser:
    d = _default
    p = OneLineParser(
        prog="python -m evolution.run", error_name="evolution.run",
        description="Evolve linear policies (argmax of W @ observation + b "
                    "over the 8 actions) that play Speednik stages. Fitness "
                    "is the episode's total reward, averaged over the stages.",
        formatter_class=_HelpFormatter)
    # These three may change on --resume, so "not given" must be visible.
    p.add_argument("--generations", type=int, default=None,
                   help="generations to run after the initial population "
                        f"(with --resume: the total to reach) (default: {d('generations')})")
    p.add_argument("--population", type=int, default=d("population"),
                   help="genomes per generation")
    p.add_argument("--stage", dest="stages", nargs="+", default=list(d("stages")),
                   metavar="NAME", help="stage(s) to evolve on: built-in names "
                   "(hillside, pipeworks, skybridge) or .toml profile paths")
    p.add_argument("--observation", default=d("observation"),
                   help="what the policy sees: 'basic' (12 values) or "
                        "'terrain' (the 12 plus rays for walls, gaps and "
                        "slopes ahead, and the nearest enemy and spikes)")
    p.add_argument("--seed", type=int, default=d("seed"),
                   help="the one seed every random choice flows from")
    p.add_argument("--workers", type=int, default=None,
                   help=f"processes evaluating episodes (default: all cores, {d('workers')})")
    p.add_argument("--max-steps", type=int, default=d("max_steps"),
                   help="frames per episode before it ends as a timeout")
    p.add_argument("--stall-frames", type=int, default=d("stall_frames"),
                   help="end an episode as stalled after this many frames "
                        "without new progress (0: never)")
    p.add_argument("--out", default=None,
                   help="run directory (default: runs/<stage>-seed<seed>, "
                        "numbered -2, -3, ... when taken)")
    p.add_argument("--resume", metavar="RUN_DIR", default=None,
                   help="continue a run from its checkpoint; its saved "
                        "settings are used, --generations sets the total")
    p.add_argument("--checkpoint-every", type=int, default=None,
                   help="write the checkpoint every N generations (and at the "
                        f"end and on Ctrl-C) (default: {d('checkpoint_every')})")
    g = p.add_argument_group("operators")
    g.add_argument("--cx-prob", type=float, default=d("cx_prob"),
                   help="probability that a pair of parents is blended")
    g.add_argument("--mut-prob", type=float, default=d("mut_prob"),
                   help="probability that an offspring is mutated")
    g.add_argument("--mut-sigma", type=float, default=d("mut_sigma"),
                   help="standard deviation of the Gaussian mutation")
    g.add_argument("--mut-indpb", type=float, default=d("mut_indpb"),
                   help="probability that each weight of a mutated genome moves")
    g.add_argument("--tournament", type=int, default=d("tournament"),
                   help="tournament size of the selection")
    g.add_argument("--elite", type=int, default=d("elite"),
                   help="best genomes ever found copied unchanged into each "
                        "generation (from the hall of fame)")
    g.add_argument("--init-sigma", type=float, default=d("init_sigma"),
                   help="standard deviation of the initial random weights")
    p.add_argument("--quiet", action="store_true",
                   help="print only the final summary")
    return p


RESUMABLE = ("generations", "workers", "checkpoint_every")


def config_from_args(args: argparse.Namespace) -> EvolutionConfig:
    names = {f.name for f in fields(EvolutionConfig)}
    values = {k: v for k, v in vars(args).items()
              if k in names and v is not None}
    if args.stall_frames == 0:
        values["stall_frames"] = None
    return EvolutionConfig(**values)


def default_run_dir(config: EvolutionConfig) -> Path:
    """runs/<stage>-seed<seed>, numbered on when that is taken, so running
    the same command twice never collides with (or overwrites) a run."""
    stage = Path(config.stages[0]).stem
    more = f"+{len(config.stages) - 1}" if len(config.stages) > 1 else ""
    base = Path("runs") / f"{stage}{more}-seed{config.seed}"
    path, n = base, 1
    while path.exists():
        n += 1
        path = base.with_name(f"{base.name}-{n}")
    return path


def _fmt_time(seconds: float) -> str:
    seconds = int(round(seconds))
    m, s = divmod(seconds, 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def make_reporter(quiet: bool):
    def report(record: dict, config: EvolutionConfig, elapsed: float) -> None:
        if quiet:
            return
        gen = record["gen"]
        done = max(gen, 1)
        left = elapsed / done * (config.generations - gen) if gen else 0.0
        print(f"gen {gen:4d}  best {record['max']:8.3f}  mean {record['mean']:8.3f}"
              f"  progress {100 * record['best_progress']:5.1f}%"
              f"  goals {record['completions']:3d}/{config.population}"
              f"  elapsed {_fmt_time(elapsed)}  left {_fmt_time(left)}",
              flush=True)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.resume:
            run_dir = Path(args.resume)
            if not (run_dir / CONFIG_NAME).is_file():
                raise CheckpointError(
                    f"{run_dir}: not a run directory of this tool (no {CONFIG_NAME})")
            load_checkpoint(run_dir)  # fails early on a foreign or torn one
            try:
                config = read_config(run_dir)
            except (ValueError, KeyError, OSError) as exc:
                raise CheckpointError(f"{run_dir / CONFIG_NAME}: unreadable ({exc})") from None
            config = config.replace(**{a: getattr(args, a) for a in RESUMABLE
                                       if getattr(args, a) is not None})
        else:
            config = config_from_args(args)
            run_dir = Path(args.out) if args.out else default_run_dir(config)
            if (run_dir / CHECKPOINT_NAME).exists():
                raise ConfigError(
                    f"{run_dir} already holds a run; continue it with "
                    f"--resume {run_dir} or choose another --out")
        config.check_stages_load()
    except (ConfigError, CheckpointError) as exc:
        print(f"evolution.run: error: {exc}", file=sys.stderr)
        return 2

    # Imported here so --help and argument errors stay fast.
    from evolution.evolve import evolve

    if not args.quiet:
        what = "resuming" if args.resume else "starting"
        print(f"{what} {run_dir}: stages {', '.join(config.stages)}, "
              f"observation {config.observation}, population {config.population}, "
              f"{config.generations} generations, seed {config.seed}, "
              f"{config.workers} worker(s)", flush=True)
    t0 = time.perf_counter()
    outcome = evolve(config, run_dir, resume=bool(args.resume),
                     report=make_reporter(args.quiet))
    best = outcome.best_summary
    print()
    if outcome.interrupted:
        print(f"interrupted after generation {outcome.generations}; "
              f"continue with: {_python()} -m evolution.run --resume {run_dir}")
    print(f"run directory: {run_dir}")
    print(f"  {CONFIG_NAME}, {LOGBOOK_NAME}, {CHECKPOINT_NAME}, {BEST_NAME}")
    print(f"best fitness {outcome.best_fitness:.3f}, progress "
          f"{100 * best['progress']:.1f}%, reached the goal on every stage: "
          f"{'yes' if best['all_goals'] else 'no'}")
    for stage, r in best["results"].items():
        m = r["metrics"]
        print(f"  {stage}: {r['done_reason']}, progress {100 * m['progress']:.1f}%, "
              f"{r['steps']} frames, {m['rings']} rings, reward {r['total_reward']:.3f}")
    print(f"wall time {_fmt_time(time.perf_counter() - t0)}")
    print(f"replay it: {_python()} -m runners.replay {run_dir / BEST_NAME}")
    print(f"draw its fitness curves: {_python()} -m plots fitness {run_dir}")
    return 130 if outcome.interrupted else 0


def _python() -> str:
    """How to call this interpreter again: the project's venv by its
    relative path when that is what runs, else plain `python`."""
    exe = Path(sys.executable)
    try:
        rel = exe.relative_to(Path.cwd())
    except ValueError:
        return "python"
    return str(rel)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        # Output piped into `head` and closed: not an error of the run.
        sys.stderr.close()
        sys.exit(0)

"""`python -m evolution.run`: evolve linear policies for Speednik.

Prints one line per generation, writes the run directory (config.json,
logbook.csv, the checkpoint, best.json) and ends by saying where everything
went, how to replay the best genome and how to draw its fitness curves
(`python -m plots fitness`: plots sits above evolution, so the drawing is
its command).
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import fields
from pathlib import Path

from evolution.checkpoint import (
    CHECKPOINT_NAME,
    LEGACY_NAME,
    CheckpointError,
    load_checkpoint,
)
from evolution.config import SIGMA_MAX, ConfigError, EvolutionConfig, available_memory
from evolution.outputs import BEST_NAME, CONFIG_NAME, LOGBOOK_NAME, RunFileError, read_config
from runners.atomic import remove_stale_temporaries
from runners.cli import OneLineParser
from runners.compiled import ENGINES
from runners.genome_file import locate_stage

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
        description="Evolve policies (linear: argmax of W @ observation + b "
                    "over the 8 actions, or a one-hidden-layer MLP) that play "
                    "Speednik stages. Fitness is the episode's total reward, "
                    "averaged over the training stages.",
        epilog="exit status: 0 done; 1 the run failed (its last finished generation is "
               "checkpointed); 2 bad input; 130 Ctrl-C, 143 SIGTERM (checkpointed, "
               "continue with --resume).")

    def opt(*names: str, help: str, default_of: str | None = None, **kw) -> None:
        name = default_of or names[0].lstrip("-").replace("-", "_")
        shown = d(name) if name in DEFAULTS else None
        if shown not in (None, ()) and "(default" not in help:
            help = f"{help} (default: {' '.join(shown) if isinstance(shown, tuple) else shown})"
        target.add_argument(*names, default=None, help=help, **kw)

    target = p
    opt("--generations", type=int,
        help="generations to run after the initial population "
             "(with --resume: the total to reach)")
    opt("--population", type=int, help="genomes per generation")
    opt("--stage", dest="stages", nargs="+", metavar="NAME", default_of="stages",
        help="stage(s) to evolve on: built-in names (hillside, pipeworks, skybridge), "
             ".toml profile paths (a copy of each is kept in the run directory) or "
             "generated sets gen:DIFFICULTY:SEEDS (gen:hard:0-31: 32 stages)")
    opt("--stages-per-generation", type=int, metavar="K",
        help="score each generation on K of the training stages, drawn from the "
             "seed and the generation, the same K for every genome (default: all)")
    opt("--test-stage", dest="test_stages", nargs="+", metavar="NAME",
        default_of="test_stages",
        help="held-out stages (same forms as --stage, e.g. gen:medium:1000-1099) the "
             "best genome so far is played on every --test-every generations; they "
             "never influence the run")
    opt("--test-every", type=int, metavar="N",
        help="generations between held-out tests (and the last one)")
    opt("--observation",
        help="what the policy sees: 'basic' (12 values) or 'terrain' (the 12 plus "
             "rays for walls, gaps and slopes ahead, and the nearest enemy and spikes)")
    opt("--policy", choices=("linear", "mlp"),
        help="the policy family: 'linear' (argmax of W @ observation + b) or 'mlp' "
             "(one hidden layer of --hidden tanh units)")
    opt("--hidden", type=int, metavar="H", help="hidden units of --policy mlp")
    opt("--algorithm", choices=("ga", "cmaes"),
        help="the search: 'ga' (tournament selection, blend crossover, Gaussian "
             "mutation, elitism: the operator options below) or 'cmaes' (DEAP's "
             "CMA-ES with --population samples a generation and --init-sigma as its "
             "first step size)")
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
    opt("--max-steps", type=int, help="frames per episode before it ends as a timeout")
    opt("--stall-frames", type=int,
        help="end an episode as stalled after this many frames without new "
             "progress (0: never)")
    opt("--out", help="run directory, new or empty (default: runs/<stage>-seed<seed>, "
                      "numbered -2, -3, ... when taken)")
    opt("--resume", metavar="RUN_DIR",
        help="continue a run from its checkpoint with the settings it holds; only "
             "--generations (the total to reach), --workers, --checkpoint-every, "
             "--engine and --scheduler may be given with it")
    opt("--checkpoint-every", type=int,
        help="write the checkpoint every N generations (and at the end, on Ctrl-C "
             "and on SIGTERM)")
    target = p.add_argument_group("operators")
    opt("--cx-prob", type=float, help="probability that a pair of parents is blended")
    opt("--mut-prob", type=float, help="probability that an offspring is mutated")
    opt("--mut-sigma", type=float,
        help=f"standard deviation of the Gaussian mutation, above 0 and at most "
             f"{SIGMA_MAX:g}")
    opt("--mut-indpb", type=float,
        help="probability that each weight of a mutated genome moves")
    opt("--tournament", type=int, help="tournament size of the selection")
    opt("--elite", type=int,
        help="best genomes ever found copied unchanged into each generation "
             "(from the hall of fame)")
    opt("--init-sigma", type=float,
        help=f"standard deviation of the initial random weights, above 0 and at "
             f"most {SIGMA_MAX:g}")
    p.add_argument("--quiet", action="store_true", help="print only the final summary")
    p.add_argument("--no-plots", action="store_true",
                   help="do not draw fitness.png at the end (it takes a second or two "
                        "in a child process; draw it later with python -m plots "
                        "fitness RUN_DIR)")
    return p


# May be given with --resume; every other setting comes from the checkpoint.
RESUMABLE = ("generations", "workers", "checkpoint_every", "engine", "scheduler")
# Options that are not settings of EvolutionConfig but are fixed on --resume.
FIXED_OPTIONS = {"stages": "--stage", "test_stages": "--test-stage", "out": "--out"}


def _option(dest: str) -> str:
    return FIXED_OPTIONS.get(dest, "--" + dest.replace("_", "-"))


def config_from_args(args: argparse.Namespace) -> EvolutionConfig:
    names = {f.name for f in fields(EvolutionConfig)}
    values = {k: v for k, v in vars(args).items()
              if k in names and v is not None}
    if args.stall_frames == 0:
        values["stall_frames"] = None
    for key in ("stages", "test_stages"):
        if key in values:
            # A profile path is recorded absolute, so that replay and resume
            # find it from any directory.
            values[key] = [str(Path(s).resolve()) if s.endswith(".toml") else s
                           for s in values[key]]
    return EvolutionConfig(**values)


def config_for_resume(args: argparse.Namespace, run_dir: Path) -> EvolutionConfig:
    """The checkpoint's settings, with the resumable ones given on the
    command line; refuses anything else given, and a config.json that is
    not the checkpoint's."""
    names = {f.name for f in fields(EvolutionConfig)} | set(FIXED_OPTIONS)
    fixed = [_option(k) for k, v in vars(args).items()
             if k in names and k not in RESUMABLE and v is not None]
    if fixed:
        raise ConfigError(
            f"{', '.join(fixed)} cannot be given with --resume: a run continues with "
            f"the settings of its checkpoint; accepted with --resume: --generations, "
            f"--workers, --checkpoint-every, --engine, --scheduler (or start a new "
            f"run in another --out)")
    remove_stale_temporaries(run_dir)
    ckpt = load_checkpoint(run_dir)
    try:
        saved = EvolutionConfig.from_dict(ckpt.config)
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"{run_dir / CHECKPOINT_NAME}: bad settings ({exc})") from None
    recorded = read_config(run_dir)

    def settings(config: EvolutionConfig) -> dict:
        # A profile that moved is replaced by the run's copy of it; either
        # name means the same stage.
        return dict(config.to_dict(),
                    stages=[locate_stage(s, run_dir) for s in config.stages],
                    test_stages=[locate_stage(s, run_dir) for s in config.test_stages])

    differ = [k for k, v in settings(saved).items()
              if k not in RESUMABLE and settings(recorded)[k] != v]
    if differ:
        raise ConfigError(
            f"{run_dir / CONFIG_NAME} disagrees with the checkpoint on "
            f"{', '.join(differ)}; a run resumes with its checkpoint's settings: "
            f"restore {CONFIG_NAME} or start a new run")
    stages = tuple(locate_stage(s, run_dir) for s in saved.stages)
    # A cluster belongs to this invocation: without --scheduler the run
    # continues in this process, whatever the last invocation used.
    tests = tuple(locate_stage(s, run_dir) for s in saved.test_stages)
    return saved.replace(stages=list(stages), test_stages=list(tests),
                         scheduler=args.scheduler, **{
                             a: getattr(args, a) for a in RESUMABLE
                             if getattr(args, a) is not None and a != "scheduler"})


def new_run_dir(args: argparse.Namespace, config: EvolutionConfig) -> Path:
    """The directory of a new run: --out, which must be new or empty and
    creatable, or a fresh default one. Created here."""
    if args.out is None:
        run_dir = default_run_dir(config)
    elif not args.out.strip():
        raise ConfigError("--out is empty; accepted: a path to a new or empty directory")
    else:
        run_dir = Path(args.out)
    if run_dir.exists() and not run_dir.is_dir():
        raise ConfigError(f"--out {run_dir}: exists and is not a directory; accepted: "
                          f"a path to a new or empty directory")
    if run_dir.is_dir():
        remove_stale_temporaries(run_dir)
        try:
            entries = sorted(os.listdir(run_dir))
        except OSError as exc:
            raise ConfigError(f"--out {run_dir}: cannot be read ({exc.strerror})") from None
        if CHECKPOINT_NAME in entries or LEGACY_NAME in entries:
            raise ConfigError(
                f"{run_dir} already holds a run; continue it with --resume {run_dir} "
                f"or choose another --out")
        if entries:
            raise ConfigError(
                f"--out {run_dir}: not empty (holds {', '.join(entries[:3])}"
                f"{', ...' if len(entries) > 3 else ''}); a run writes only into a new "
                f"or empty directory: choose another --out, or --resume a run")
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        probe = run_dir / f".write-test-{os.getpid()}"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise ConfigError(
            f"--out {run_dir}: cannot be written ({exc.strerror or exc}); accepted: a "
            f"path to a new or empty directory that can be written") from None
    return run_dir


def default_run_dir(config: EvolutionConfig) -> Path:
    """runs/<stage>-seed<seed>, numbered on when that is taken, so running
    the same command twice never collides with (or overwrites) a run."""
    stage = Path(config.stages[0]).stem.replace(":", "-")
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
              + (f"  held-out {record['test_goals']}/{len(config.held_out_stages())}"
                 f" ({100 * record['test_progress']:.1f}%)"
                 if record.get("test_goals") is not None else "")
              + f"  elapsed {_fmt_time(elapsed)}  left {_fmt_time(left)}",
              flush=True)
    return report


EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
# The final summary lists at most this many training stages one by one.
SHOWN_STAGES = 8
EXIT_INTERRUPTED = 128 + signal.SIGINT    # 130, as a shell reports Ctrl-C
EXIT_TERMINATED = 128 + signal.SIGTERM    # 143, as a shell reports SIGTERM


class _Signals:
    """SIGTERM (`timeout`, Slurm, `docker stop`) handled like Ctrl-C: it
    raises KeyboardInterrupt in the main thread, the run checkpoints its
    last finished generation, and the exit status says which it was."""

    def __init__(self) -> None:
        self.terminated = False
        self._previous = None

    def _on_sigterm(self, signum, frame) -> None:
        self.terminated = True
        raise KeyboardInterrupt

    def __enter__(self) -> _Signals:
        # Only the main thread may set a handler; main() called from another
        # thread leaves SIGTERM as it is.
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGTERM, self._on_sigterm)
        return self

    def __exit__(self, *exc) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGTERM, self._previous)

    @property
    def exit_status(self) -> int:
        return EXIT_TERMINATED if self.terminated else EXIT_INTERRUPTED


def main(argv: list[str] | None = None) -> int:
    with _Signals() as signals:
        try:
            return _main(argv, signals)
        except KeyboardInterrupt:
            # Before a run started or after it ended (writing the summary):
            # nothing is lost, and no traceback.
            print(f"evolution.run: {'terminated' if signals.terminated else 'interrupted'}",
                  file=sys.stderr)
            return signals.exit_status


def _error(message: str, status: int = EXIT_USAGE) -> int:
    print(f"evolution.run: error: {message}", file=sys.stderr)
    return status


def _main(argv: list[str] | None, signals: _Signals) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    note = None
    try:
        if args.resume is not None:
            run_dir = Path(args.resume)
            config = config_for_resume(args, run_dir)
        else:
            config = config_from_args(args)
        config.check_stages_load()
        config, note = capped_workers(config)
        check_memory(config)
        if args.resume is None:
            run_dir = new_run_dir(args, config)
    except (ConfigError, CheckpointError, RunFileError) as exc:
        return _error(str(exc))
    if note:
        print(f"evolution.run: note: {note}", file=sys.stderr)

    # Imported here so --help and argument errors stay fast.
    from evolution.evolve import evolve
    from evolution.cluster import ClusterError
    from runners.parallel import EpisodeError, WorkerDiedError

    if not args.quiet:
        what = "resuming" if args.resume else "starting"
        print(f"{what} {run_dir}: stages {', '.join(config.stages)}, "
              f"observation {config.observation}, policy {config.policy}"
              f"{f' ({config.hidden} hidden)' if config.policy == 'mlp' else ''}, "
              f"{config.algorithm}, population {config.population}, "
              f"{config.generations} generations, seed {config.seed}, "
              f"{_where(config)}", flush=True)
    t0 = time.perf_counter()
    try:
        # On a cluster the workers load the engine, not this process.
        if config.engine == "compiled" and config.scheduler is None:
            _prepare_engine(args.quiet)
        outcome = evolve(config, run_dir, resume=args.resume is not None,
                         report=make_reporter(args.quiet))
    except KeyboardInterrupt:
        # During the first generation: nothing finished, nothing to resume.
        if args.resume is None:
            _remove_if_empty(run_dir)
        print(f"evolution.run: {'terminated' if signals.terminated else 'interrupted'} "
              f"before the first generation finished; nothing was saved", file=sys.stderr)
        return signals.exit_status
    except (WorkerDiedError, EpisodeError, ClusterError) as exc:
        saved = _saved_generation(run_dir)
        if saved is None and args.resume is None:
            _remove_if_empty(run_dir)
        where = (f"; generation {saved} is checkpointed, continue with: "
                 f"{_python()} -m evolution.run --resume {run_dir}" if saved is not None
                 else "; nothing was saved")
        return _error(f"{exc}{where}", EXIT_FAILED)
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
    shown = list(best["results"].items())
    for stage, r in shown[:SHOWN_STAGES]:
        m = r["metrics"]
        print(f"  {stage}: {r['done_reason']}, progress {100 * m['progress']:.1f}%, "
              f"{r['steps']} frames, {m['rings']} rings, reward {r['total_reward']:.3f}")
    if len(shown) > SHOWN_STAGES:
        goals = sum(1 for _, r in shown if r["metrics"]["goal_reached"])
        print(f"  ... {len(shown) - SHOWN_STAGES} more; the goal on {goals} of "
              f"{len(shown)} training stages")
    if outcome.held_out is not None:
        h = outcome.held_out
        print(f"held-out: completed {h['goals']} of {h['count']} test stages "
              f"({100 * h['goals'] / h['count']:.1f}%), mean progress "
              f"{100 * h['progress']:.1f}%")
        if len(h["by_set"]) > 1:
            for name, (done, count) in h["by_set"].items():
                print(f"  {name}: {done} of {count} ({100 * done / count:.1f}%)")
    print(f"wall time {_fmt_time(time.perf_counter() - t0)}")
    print(f"replay it: {_python()} -m runners.replay {run_dir / BEST_NAME}")
    if args.no_plots:
        print(f"fitness.png not drawn (--no-plots); draw it with: "
              f"{_python()} -m plots fitness {run_dir}")
    else:
        _draw_fitness(run_dir)
    return signals.exit_status if outcome.interrupted else EXIT_OK


def _draw_fitness(run_dir: Path) -> None:
    """fitness.png, drawn by the plots command in a child process: pictures
    sit above evolution, which imports nothing of them. A picture that
    cannot be drawn costs the run nothing but a line saying so."""
    command = [sys.executable, "-m", "plots", "fitness", str(run_dir)]
    try:
        drawn = subprocess.run(command, capture_output=True, text=True)
    except OSError as exc:
        drawn = None
        why = str(exc)
    if drawn is not None and drawn.returncode == 0:
        print(f"fitness curves: {run_dir / 'fitness.png'}")
        return
    if drawn is not None:
        why = (drawn.stderr.strip().splitlines() or [f"exit status {drawn.returncode}"])[-1]
    print(f"fitness.png not drawn ({why}); draw it with: "
          f"{_python()} -m plots fitness {run_dir}")


def _where(config: EvolutionConfig) -> str:
    if config.scheduler is None:
        return f"{config.workers} worker(s)"
    if config.scheduler == "local":
        return f"a local Dask cluster of {config.workers} worker(s)"
    return f"the Dask cluster at {config.scheduler}"


def _prepare_engine(quiet: bool) -> None:
    """Compile the engine, or load it from its cache, saying so first: a
    first compile takes about a minute and must not look like a hang. (A
    signal meanwhile is held until it is ready: `signals_held`.)"""
    from speednik.engine import warm_up

    if not quiet:
        print("loading the compiled engine (the first use on a machine compiles "
              "it, about a minute) ...", end=" ", flush=True)
    t0 = time.perf_counter()
    try:
        warm_up()
    except KeyboardInterrupt:
        if not quiet:
            print(flush=True)
        raise
    if not quiet:
        print(f"ready in {time.perf_counter() - t0:.1f} s", flush=True)


def capped_workers(config: EvolutionConfig) -> tuple[EvolutionConfig, str | None]:
    """At most one worker per episode of a generation; a note when more
    workers than cores were asked for."""
    cores = os.cpu_count() or 1
    tasks = config.evaluation_tasks()
    workers = min(config.workers, tasks)
    note = None
    if config.workers > cores and config.scheduler in (None, "local"):
        note = (f"--workers {config.workers} is more than the {cores} cores of this "
                f"machine; using {workers} (one per episode of a generation at most)")
    return (config.replace(workers=workers) if workers != config.workers else config), note


def check_memory(config: EvolutionConfig) -> None:
    """Refuse settings whose population would not fit in memory."""
    need = config.memory_estimate(config.genome_size())
    have = available_memory()
    if have is not None and need > have:
        raise ConfigError(
            f"--population {config.population} with {config.workers} worker(s) needs "
            f"about {need / 2**30:.1f} GiB, more than the {have / 2**30:.1f} GiB of "
            f"memory available; accepted: a smaller population or fewer workers")


def _remove_if_empty(run_dir: Path) -> None:
    try:
        remove_stale_temporaries(run_dir)
        run_dir.rmdir()
    except OSError:
        pass


def _saved_generation(run_dir: Path) -> int | None:
    try:
        return load_checkpoint(run_dir).generation
    except CheckpointError:
        return None


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

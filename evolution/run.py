"""`python -m evolution.run`: evolve policies that play Speednik stages.

Prints one line per generation, writes the run directory (config.json,
logbook.csv, the checkpoint, best.json) and ends by saying where everything
went, how to replay the best genome and how to draw its fitness curves
(`python -m plots fitness`: plots sits above evolution, so the drawing is
its command).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from functools import partial
from pathlib import Path

from evolution.loop.checkpoint import CHECKPOINT_NAME, CheckpointError
from evolution.config import ConfigError, EvolutionConfig
from evolution.loop.outputs import BEST_NAME, CONFIG_NAME, LOGBOOK_NAME, RunFileError, read_config_data
from evolution.numeric_env import differences, numeric_environment
from evolution.cli.resume import config_for_resume
from evolution.cli.run_memory import check_memory
from evolution.cli.run_dir import (RunDirLock, new_run_dir, out_holds_no_run, remove_if_empty,
                                   saved_generation)
from evolution.cli.run_lines import (
    ClusterLines,
    format_time,
    make_reporter,
    policy_words,
    this_python,
    where_it_runs,
)
from evolution.cli.config_file import config_path, with_config_file
from evolution.cli.run_options import build_parser, config_from_args
from evolution.config_file import CONFIG_TOML_NAME, read_config_file
from evolution.cli.run_stages import check_stages_load
from evolution.cli.settings_file import SettingsFileError, expand_settings
from runners.result import ending


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


def population_words(config) -> str:
    from evolution.strategies.registry import get_strategy

    if get_strategy(config.algorithm).learner:
        return f"{config.population} episodes at once"
    return f"population {config.population}"


def main(argv: list[str] | None = None) -> int:
    with _Signals() as signals, RunDirLock() as lock:
        try:
            return _main(argv, signals, lock)
        except KeyboardInterrupt:
            # Before a run started or after it ended (writing the summary):
            # nothing is lost, and no traceback.
            print(f"evolution.run: {'terminated' if signals.terminated else 'interrupted'}",
                  file=sys.stderr)
            return signals.exit_status


def _error(message: str, status: int = EXIT_USAGE) -> int:
    print(f"evolution.run: error: {message}", file=sys.stderr)
    return status


def _main(argv: list[str] | None, signals: _Signals, lock: RunDirLock) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        # The --config file's method, which a --settings file must match.
        path = config_path(argv)
        held = read_config_file(path).get("algorithm") if path is not None else None
        argv = expand_settings(argv, None if held is None else (path, held))
    except (SettingsFileError, ConfigError) as exc:
        return _error(str(exc))
    args = parser.parse_args(argv)
    note = None
    try:
        # The file's settings where the command line gives none.
        args = with_config_file(args)
        if args.resume is not None:
            run_dir = Path(args.resume)
            if run_dir.is_dir():
                lock.take(run_dir)
            config = config_for_resume(args, run_dir)
        else:
            config = config_from_args(args)
            out_holds_no_run(args)
        config, note = capped_workers(config)
        check_memory(config)
        # Every stage is built here, once, and kept for the run.
        check_stages_load(config, quiet=args.quiet)
        if args.resume is None:
            run_dir = new_run_dir(args, config, lock)
    except (ConfigError, CheckpointError, RunFileError) as exc:
        return _error(str(exc))
    if note:
        print(f"evolution.run: note: {note}", file=sys.stderr)
    if args.resume is not None:
        changed = numeric_differences(run_dir)
        if changed:
            print(f"evolution.run: note: this machine computes with other numeric "
                  f"kernels or versions than the run's start ({'; '.join(changed)}); "
                  f"the resumed run may depart from an uninterrupted one", file=sys.stderr)

    # Imported here so --help and argument errors stay fast.
    from evolution.loop.evolve import evolve
    from evolution.cluster import ClusterError
    from evolution.imitation.rounds import ImitationError
    from runners.errors import EpisodeError, WorkerDiedError

    if not args.quiet:
        what = "resuming" if args.resume else "starting"
        print(f"{what} {run_dir}: stages {', '.join(config.stages)}, "
              f"observation {config.observation}, {policy_words(config)}, "
              f"{config.algorithm}, {population_words(config)}, "
              f"{config.generations} generations, seed {config.seed}, "
              f"{where_it_runs(config)}", flush=True)
    t0 = time.perf_counter()
    try:
        # On a cluster the workers load the engine, not this process.
        if config.engine == "compiled" and config.scheduler is None:
            _prepare_engine(config, args.quiet)
        with ClusterLines(args.quiet):
            outcome = evolve(config, run_dir, resume=args.resume is not None,
                             report=make_reporter(args.quiet),
                             notes=None if args.quiet else partial(print, flush=True))
    except KeyboardInterrupt:
        # Mostly during the first generation, with nothing to resume; but a
        # signal may also land just after generation 0 was saved, before
        # the loop that would report it: what is on disk says which.
        word = "terminated" if signals.terminated else "interrupted"
        where = _what_was_saved(run_dir, args.resume is None)
        when = " before the first generation finished" if where == NOTHING_SAVED else ""
        print(f"evolution.run: {word}{when}{where}", file=sys.stderr)
        return signals.exit_status
    except (WorkerDiedError, EpisodeError, ClusterError) as exc:
        return _error(f"{exc}{_what_was_saved(run_dir, args.resume is None)}", EXIT_FAILED)
    except ImitationError as exc:
        return _error(str(exc))
    best = outcome.best_summary
    print()
    if outcome.interrupted:
        print(f"interrupted after generation {outcome.generations}; "
              f"continue with: {this_python()} -m evolution.run --resume {run_dir}")
    print(f"run directory: {run_dir}")
    print(f"  {CONFIG_NAME}, {CONFIG_TOML_NAME} (plays the run again: --config "
          f"{run_dir / CONFIG_TOML_NAME} --out NEW_DIR), {LOGBOOK_NAME}, "
          f"{CHECKPOINT_NAME}, {BEST_NAME}")
    print(f"best fitness {outcome.best_fitness:.3f}, progress "
          f"{100 * best['progress']:.1f}%, reached the goal on every stage: "
          f"{'yes' if best['all_goals'] else 'no'}")
    shown = list(best["results"].items())
    for stage, r in shown[:SHOWN_STAGES]:
        m = r["metrics"]
        print(f"  {stage}: {ending(r['done_reason'], m)}, "
              f"progress {100 * m['progress']:.1f}%, {r['steps']} frames, "
              f"{m['rings']} rings, reward {r['total_reward']:.3f}")
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
    print(f"wall time {format_time(time.perf_counter() - t0)}")
    print(f"replay it: {this_python()} -m runners.replay {run_dir / BEST_NAME}")
    if args.no_plots:
        print(f"fitness.png not drawn (--no-plots); draw it with: "
              f"{this_python()} -m plots fitness {run_dir}")
    else:
        _draw_fitness(run_dir)
    return signals.exit_status if outcome.interrupted else EXIT_OK


NOTHING_SAVED = "; nothing was saved"


def _what_was_saved(run_dir: Path, new_run: bool) -> str:
    """The end of the line for a run that stopped outside the loop's own
    handling: the checkpointed generation to resume from, or that nothing
    was saved (a new run's empty directory is then removed)."""
    saved = saved_generation(run_dir)
    if saved is None:
        if new_run:
            remove_if_empty(run_dir)
        return NOTHING_SAVED
    return (f"; generation {saved} is checkpointed, continue with: "
            f"{this_python()} -m evolution.run --resume {run_dir}")


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
          f"{this_python()} -m plots fitness {run_dir}")


def _prepare_engine(config: EvolutionConfig, quiet: bool) -> None:
    """Compile the engine for the run's observation and policy family, or
    load them from the cache, saying so first: a first compile takes tens
    of seconds and must not look like a hang. Then the time it took, and
    whether that was a compile. (A signal meanwhile is held until it is
    ready: `signals_held`.)"""
    from evolution.strategies.registry import get_strategy
    from speednik.engine import warm_up

    learner = get_strategy(config.algorithm).learner
    if not quiet:
        print(f"loading the compiled engine for the {config.observation} observation and "
              f"{config.policy} policies (compiled on their first use on a machine, "
              f"once) ...", end=" ", flush=True)
    t0 = time.perf_counter()
    try:
        compiled = warm_up([config.observation], [config.policy], vector=learner)
    except KeyboardInterrupt:
        if not quiet:
            print(flush=True)
        raise
    if not quiet:
        took = time.perf_counter() - t0
        print(f"compiled in {took:.1f} s; later runs load it" if compiled
              else f"ready in {took:.1f} s", flush=True)


def numeric_differences(run_dir: Path) -> list[str]:
    """What of the numeric environment that decides a run's arithmetic
    differs here from what the run's config.json recorded at its start."""
    return differences(read_config_data(run_dir).get("numeric"), numeric_environment())


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


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        # Output piped into `head` and closed: not an error of the run.
        sys.stderr.close()
        sys.exit(0)

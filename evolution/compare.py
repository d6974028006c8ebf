"""`python -m evolution.compare`: search methods side by side on one task,
each given the same budget of frames played.

    python -m evolution.compare --methods ga cmaes openai-es map-elites \\
        --seeds 0 1 2 3 4 --frames 3000000 --out runs/compare -- \\
        --stage gen:medium:0-31 --stages-per-generation 16 \\
        --test-stage gen:medium:1000-1099 --observation terrain

Everything after `--` is the task: `evolution.run` options every run
shares (or a file of them, `--task configs/compare-task.toml`, which the
options after `--` override); `--settings FILE` (one per method, as `evolution.tune` writes
them) gives a method its tuned settings. Every method's task is checked
before any run starts. Each method and seed is one `evolution.run` into
OUT/METHOD-seedS, stopped by `--max-frames`; a run directory that exists
is resumed, so an interrupted comparison continues where it stopped (one
played to another budget is refused); one that played its budget is kept
as it is, read from its logbook and best.json (its checkpoint may be
gone). Ctrl-C and SIGTERM are passed to the
runs, which checkpoint, and the comparison exits 130 or 143 as they do.

It prints a line when a run starts and ends, and the frames played of the
total every few seconds. The table gives, per method, the final training
fitness (best.json's: the fitness of the genome each run gives) and the
held-out completion (when the task has `--test-stage`):
the median and the interquartile mean over the seeds, each with a 95%
bootstrap interval, and the wall time its runs took; the held-out stages
each seed finishes per test set as the task names it (so a hard set and
a single built-in stage are seen apart); then the probability
that a run of one method beats a run of another (on held-out completion,
or training fitness without held-out stages), in the manner of rliable
(`evolution.stats`). OUT/compare.json keeps every number, and
OUT/compare.png (drawn by `python -m plots methods OUT`) the best fitness
so far (each logbook's `best` column, which ends at best.json's fitness)
against frames played beside the performance profiles.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Sequence

import numpy as np

from evolution.cli.config_file import file_task_settings, settings_set_by, task_with_file
from evolution.cli.run_lines import this_python
from evolution.cli.run_options import build_parser as run_parser
from evolution.cli.run_options import config_from_args
from evolution.cli.settings_file import SettingsFileError, read_settings, settings_flags
from evolution.cli.task_options import COMPARE_OWN, given_in
from evolution.config import ConfigError
from evolution.loop.outputs import (
    BEST_NAME,
    CONFIG_NAME,
    LOGBOOK_NAME,
    RunFileError,
    read_config_data,
    read_logbook,
    run_complete,
)
from evolution.stats import improvement_table, summarise
from evolution.strategies.registry import list_strategies
from runners.atomic import atomic_write_json
from speednik.cli import OneLineParser

COMPARE_NAME = "compare.json"
# Long enough that only the frame budget stops a run.
GENERATIONS = 1_000_000
# How often the frames played are counted and printed (s).
PROGRESS_EVERY = 10.0
EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_TERMINATED = 1, 2, 130, 143


class CompareError(ValueError):
    """Bad input to the comparison; the message says what is accepted."""


def read_run(run_dir: Path) -> dict:
    """What the comparison keeps of one finished run."""
    log = read_logbook(run_dir)
    best = json.loads((run_dir / BEST_NAME).read_text())
    held = best.get("held_out")
    return {
        "frames": [r["frames"] for r in log],
        "best": best_so_far(log),
        # The fitness of the genome the run gives (best.json's), which is
        # also the last point of "best".
        "fitness": float(best["fitness"]),
        "held_out": None if held is None else held["goals"] / held["count"],
        # {test stage or set as named: [finished, played]}
        "held_out_by_set": None if held is None else held.get("by_set"),
        "generations": log[-1]["gen"],
        "seconds": float(sum(r["seconds"] for r in log)),
    }


def best_so_far(log: list[dict]) -> list[float]:
    """The run's best at each generation: the logbook's `best` (the fitness
    of the genome the run would give then, best.json's at the end); for a
    logbook written before that column, the running maximum of the
    population's `max`."""
    if log and all(r.get("best") is not None for r in log):
        return [float(r["best"]) for r in log]
    return np.maximum.accumulate([r["max"] for r in log]).tolist()


def wall_time(seconds: float) -> str:
    """"12 s" below a minute, "3.4 min" from one on."""
    return f"{seconds:.0f} s" if seconds < 59.5 else f"{seconds / 60:.1f} min"


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="python -m evolution.compare", error_name="evolution.compare",
        usage="%(prog)s --methods M [M ...] --seeds S [S ...] --frames N --out DIR "
              "[--jobs J] [--settings FILE ...] [--task FILE.toml] [--no-plots] "
              "[-- evolution.run options of the task]",
        description="Run several search methods on one task, each seed of each with the "
                    "same budget of frames played, and print how they did.",
        epilog="exit status: 0 done; 1 a run failed; 2 bad input; 130 Ctrl-C, 143 SIGTERM "
               "(the runs are checkpointed: run the same command again to go on).")
    p.add_argument("--methods", nargs="+", required=True, choices=list_strategies(),
                   metavar="METHOD", help=f"search methods, each once: "
                                          f"{', '.join(list_strategies())}")
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4], metavar="SEED",
                   help="seeds of each method, each once (default: 0 1 2 3 4)")
    p.add_argument("--frames", type=int, required=True, metavar="N",
                   help="frames each run may play (its --max-frames)")
    p.add_argument("--out", type=Path, required=True, metavar="DIR",
                   help="where the runs, compare.json and compare.png go")
    p.add_argument("--jobs", type=int, default=1, metavar="J",
                   help="runs side by side (give each fewer --workers in the task)")
    p.add_argument("--settings", nargs="+", type=Path, default=[], metavar="FILE",
                   help="tuned settings, one file per method (the best.json of "
                        "python -m evolution.tune); a method without one runs with its "
                        "defaults")
    p.add_argument("--task", dest="task_file", type=Path, metavar="FILE.toml",
                   help="the task as a file of evolution.run settings (configs/"
                        "compare-task.toml, say); options after -- override it. It "
                        "leaves out what the comparison sets for each run: algorithm "
                        "and a method's settings, seed, max_frames, generations")
    p.add_argument("--no-plots", action="store_true",
                   help="draw no compare.png (python -m plots methods DIR draws it later)")
    p.add_argument("task", nargs="*", metavar="-- RUN_OPTION",
                   help="after --: the evolution.run options every run shares")
    return p


def run_line(task: list[str], method: str, seed: int, frames: int, out: Path,
             settings: dict) -> list[str]:
    """The `evolution.run` options of one run (without --out or --resume)."""
    return [*task, *settings_flags(settings), "--algorithm", method, "--seed", str(seed),
            "--max-frames", str(frames), "--generations", str(GENERATIONS), "--quiet",
            "--no-plots"]


def check_task(task: list[str], methods: Sequence[str], seed: int, frames: int,
               settings: dict[str, dict]) -> None:
    """Each method's run of the task as evolution.run would check it,
    before anything runs; CompareError naming the method otherwise."""
    for method in methods:
        line = run_line(task, method, seed, frames, Path("."), settings.get(method, {}))
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                args = run_parser().parse_args(line)
            config_from_args(args)
        except SystemExit:
            message = err.getvalue().strip().splitlines()[-1] if err.getvalue() else ""
            message = message.removeprefix("evolution.run: error: ")
            raise CompareError(f"the task with --algorithm {method}: {message}") from None
        except ConfigError as exc:
            raise CompareError(f"the task with --algorithm {method}: {exc}") from None


def check_task_file(task: list[str]) -> None:
    """A task's --config file (--task) holds none of what the comparison
    sets for each run; CompareError naming them and the file."""
    found = file_task_settings(task)
    if found is None:
        return
    path, settings = found
    clash = settings_set_by(settings, COMPARE_OWN)
    if clash:
        raise CompareError(
            f"{path}: {', '.join(clash)} are set by the comparison for each run "
            f"(--methods, --settings, --seeds, --frames); leave them out of the task file")


def check_budgets(out: Path, pairs: Sequence[tuple[str, int]], frames: int) -> None:
    """A run directory that exists was played to the same budget, or it
    cannot be part of this comparison."""
    for method, seed in pairs:
        run_dir = out / f"{method}-seed{seed}"
        if not (run_dir / CONFIG_NAME).exists():
            continue
        try:
            held = read_config_data(run_dir)["settings"].get("max_frames")
        except RunFileError as exc:
            raise CompareError(str(exc)) from None
        if held != frames:
            raise CompareError(
                f"{run_dir} is a run played with --max-frames {held}, not --frames {frames}; "
                f"compare at --frames {held} or choose another --out")


def read_method_settings(paths: Sequence[Path], methods: Sequence[str]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for path in paths:
        try:
            method, settings = read_settings(path)
        except SettingsFileError as exc:
            raise CompareError(str(exc)) from None
        if method not in methods:
            raise CompareError(f"{path} holds settings of {method}, which is not among "
                               f"--methods {' '.join(methods)}")
        if method in out:
            raise CompareError(f"two --settings files for {method}; accepted: one per method")
        out[method] = settings
    return out


class Runs:
    """The comparison's runs as child processes: started in their own
    process group (Ctrl-C at a terminal reaches the comparison only),
    and given the signal the comparison gets."""

    def __init__(self, task, frames, out, settings, say) -> None:
        self.task, self.frames, self.out, self.settings = task, frames, out, settings
        self.say = say
        self.live: set[subprocess.Popen] = set()
        self.lock = threading.Lock()
        self.stopped: int | None = None     # the signal that stopped the comparison

    def run(self, method: str, seed: int) -> tuple[int, str]:
        run_dir = self.out / f"{method}-seed{seed}"
        if run_complete(run_dir):
            self.say(f"kept {method} seed {seed}: it played its {self.frames:,} frames")
            return 0, ""
        line = run_line(self.task, method, seed, self.frames, self.out,
                        self.settings.get(method, {}))
        resumed = (run_dir / "checkpoint.npz").exists()
        line += ["--resume", str(run_dir)] if resumed else ["--out", str(run_dir)]
        with self.lock:
            if self.stopped is not None:
                return -1, "not started: the comparison was stopped"
            proc = subprocess.Popen([sys.executable, "-m", "evolution.run", *line],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    text=True, start_new_session=True)
            self.live.add(proc)
        self.say(f"{'resumed' if resumed else 'started'} {method} seed {seed}")
        err = proc.communicate()[1]
        with self.lock:
            self.live.discard(proc)
        if proc.returncode == 0:
            self.say(f"finished {method} seed {seed}")
        return proc.returncode, err.strip()

    def forward(self, signum, frame) -> None:
        with self.lock:
            if self.stopped is None:
                self.stopped = signum
            for proc in self.live:
                with contextlib.suppress(ProcessLookupError):
                    proc.send_signal(signum)


def frames_played(out: Path, pairs: Sequence[tuple[str, int]]) -> int:
    """Frames the runs have played so far, from their logbooks."""
    total = 0
    for method, seed in pairs:
        path = out / f"{method}-seed{seed}" / LOGBOOK_NAME
        try:
            last = path.read_text().strip().splitlines()[-1].split(",")
            header = path.read_text().splitlines()[0].split(",")
            total += int(float(last[header.index("frames")]))
        except (OSError, IndexError, ValueError):
            continue
    return total


def table(methods: dict[str, dict]) -> str:
    def cell(s: dict | None, percent: bool = False) -> str:
        if s is None:
            return "- | -"
        f = (lambda v: f"{100 * v:.1f}%") if percent else (lambda v: f"{v:.2f}")
        return (f"{f(s['median'])} [{f(s['median_ci'][0])}, {f(s['median_ci'][1])}] | "
                f"{f(s['iqm'])} [{f(s['iqm_ci'][0])}, {f(s['iqm_ci'][1])}]")

    lines = ["| method | runs | training fitness: median [95% CI] | IQM [95% CI] "
             "| held-out completion: median [95% CI] | IQM [95% CI] | wall time |",
             "| --- | ---: | --- | --- | --- | --- | ---: |"]
    for name, m in methods.items():
        lines.append(f"| {name} | {m['runs']} | {cell(m['fitness'])} | "
                     f"{cell(m['held_out'], percent=True)} | {wall_time(m['wall_seconds'])} |")
    return "\n".join(lines)


def by_set_table(methods: dict[str, dict]) -> str:
    """Held-out stages finished per test set as the task names them, seed by
    seed: a set of many stages gives each seed's count, a single stage the
    seeds that finish it."""
    sets = next(iter(methods.values()))["held_out_by_set"]
    head = [f"{name} (of {s['of']})" if s["of"] > 1 else name for name, s in sets.items()]
    lines = ["held-out stages finished per test set, seed by seed:", "",
             "| method | " + " | ".join(head) + " |",
             "| --- |" + " --- |" * len(head)]
    for method, m in methods.items():
        cells = []
        for name, s in sets.items():
            finished = m["held_out_by_set"][name]["finished"]
            cells.append(" ".join(map(str, finished)) if s["of"] > 1
                         else f"{sum(finished)} of {len(finished)} seeds")
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def improvement_lines(improvement: dict, on: str) -> str:
    """P(a run of the row's method beats one of the column's), as a table."""
    names = list(improvement)
    lines = [f"probability that a run of the row's method beats one of the column's "
             f"({on}; 95% CI):", "", "| method | " + " | ".join(names) + " |",
             "| --- |" + " --- |" * len(names)]
    for a in names:
        cells = []
        for b in names:
            if a == b:
                cells.append("-")
            else:
                p = improvement[a][b]
                cells.append(f"{p['probability']:.2f} [{p['ci'][0]:.2f}, {p['ci'][1]:.2f}]")
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    task = list(args.task)
    clash = given_in(task, COMPARE_OWN)
    if clash:
        parser.error(f"{', '.join(clash)} are set by the comparison for each run; "
                     f"leave them out of the task")
    try:
        task = task_with_file(task, args.task_file)
        check_task_file(task)
    except (CompareError, ConfigError) as exc:
        parser.error(str(exc))
    if args.frames < 1 or args.jobs < 1:
        parser.error("--frames and --jobs must be whole numbers >= 1")
    for name, values in (("--methods", args.methods), ("--seeds", args.seeds)):
        repeated = sorted({v for v in values if values.count(v) > 1}, key=values.index)
        if repeated:
            parser.error(f"{name} names {', '.join(map(str, repeated))} more than once; "
                         f"accepted: each once")
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {args.out} is a file; accepted: a directory for the runs and "
                     f"{COMPARE_NAME} (a new one, or one a comparison wrote)")
    pairs = [(m, s) for m in args.methods for s in args.seeds]
    try:
        settings = read_method_settings(args.settings, args.methods)
        check_task(task, args.methods, args.seeds[0], args.frames, settings)
        check_budgets(args.out, pairs, args.frames)
    except CompareError as exc:
        parser.error(str(exc))
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        parser.error(f"--out {args.out}: cannot make the directory "
                     f"({exc.strerror or exc}); accepted: a directory that can be written")

    def say(text: str) -> None:
        print(text, flush=True)

    runs = Runs(task, args.frames, args.out, settings, say)
    total = len(pairs) * args.frames
    finished = threading.Event()

    def progress() -> None:
        while not finished.wait(PROGRESS_EVERY):
            played = min(frames_played(args.out, pairs), total)
            say(f"frames played {played:,} of {total:,} ({100 * played / total:.1f}%), "
                f"{time.perf_counter() - t0:.0f} s")

    say(f"{len(args.methods)} methods x {len(args.seeds)} seeds, {args.frames:,} frames "
        f"each, {args.jobs} at a time: python -m evolution.run {' '.join(task)}")
    t0 = time.perf_counter()
    previous = {s: signal.signal(s, runs.forward) for s in (signal.SIGINT, signal.SIGTERM)}
    watcher = threading.Thread(target=progress, daemon=True)
    watcher.start()
    try:
        with ThreadPoolExecutor(args.jobs) as pool:
            outcomes = list(pool.map(lambda ms: runs.run(*ms), pairs))
    finally:
        finished.set()
        for s, handler in previous.items():
            signal.signal(s, handler)
    if runs.stopped is not None:
        print(f"evolution.compare: stopped by {signal.Signals(runs.stopped).name}; the runs "
              f"are checkpointed: run the same command again to go on", file=sys.stderr)
        return EXIT_TERMINATED if runs.stopped == signal.SIGTERM else EXIT_INTERRUPTED
    failed = [(ms, err) for ms, (code, err) in zip(pairs, outcomes) if code != 0]
    for (method, seed), err in failed:
        print(f"evolution.compare: {method} seed {seed} failed: "
              f"{err.splitlines()[-1] if err else 'no message'}", file=sys.stderr)
    if failed:
        return EXIT_FAILED
    return report(args, task, pairs, time.perf_counter() - t0)


def report(args, task: list[str], pairs, wall: float) -> int:
    methods: dict[str, dict] = {}
    runs: dict[str, dict] = {}
    for method in args.methods:
        got = []
        for seed in args.seeds:
            try:
                got.append(read_run(args.out / f"{method}-seed{seed}"))
            except (RunFileError, OSError, ValueError, KeyError) as e:
                print(f"evolution.compare: error: {method} seed {seed}: {e}",
                      file=sys.stderr)
                return EXIT_FAILED
            runs[f"{method}-seed{seed}"] = got[-1]
        held = [g["held_out"] for g in got]
        methods[method] = {
            "runs": len(got),
            "fitness": summarise([g["fitness"] for g in got]),
            "held_out": None if None in held else summarise(held),
            "wall_seconds": sum(g["seconds"] for g in got),
        }
        if None not in held and all(g["held_out_by_set"] for g in got):
            methods[method]["held_out_by_set"] = {
                name: {"finished": [g["held_out_by_set"][name][0] for g in got],
                       "of": count}
                for name, (_, count) in got[0]["held_out_by_set"].items()}
    on_held_out = all(m["held_out"] is not None for m in methods.values())
    key, on = ("held_out", "held-out completion") if on_held_out else ("fitness",
                                                                       "training fitness")
    improvement = improvement_table({m: methods[m][key]["values"] for m in methods})
    atomic_write_json(args.out / COMPARE_NAME, {
        "methods": methods, "runs": runs, "seeds": args.seeds, "frames": args.frames,
        "task": task, "improvement": {"on": key, "pairs": improvement},
        "wall_seconds": wall})
    print(table(methods))
    if all(m.get("held_out_by_set") for m in methods.values()):
        print()
        print(by_set_table(methods))
    if len(methods) > 1:
        print()
        print(improvement_lines(improvement, on))
    print(f"wall time {wall:.0f} s; numbers in {args.out / COMPARE_NAME}")
    if args.no_plots:
        print(f"compare.png not drawn (--no-plots); draw it with: "
              f"{this_python()} -m plots methods {args.out}")
        return 0
    # plots sits above evolution: the picture is its command's.
    drawn = subprocess.run([sys.executable, "-m", "plots", "methods", str(args.out)],
                           capture_output=True, text=True)
    print(drawn.stdout.strip() or f"no picture: {drawn.stderr.strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`python -m plots`: draw the pictures of runs and stages.

    python -m plots fitness runs/hill                 -> runs/hill/fitness.png
    python -m plots compare runs/a runs/b --out cmp.png
    python -m plots stage hillside --out hillside.png
    python -m plots replay runs/hill --plot run.png --gif run.gif

`replay` is `python -m runners.replay` with pictures: the run drawn over
the stage map and an animation (see `plots.replay`).
"""
from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path
from typing import Sequence

from speednik.cli import OneLineParser
from speednik.stages import list_stages

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(error_name="plots", prog="python -m plots",
                description="Draw the pictures of evolution runs and stages as PNG files.",
                epilog="exit status: 0 done; 1 a file could not be written; 2 bad input. "
                       "python -m plots replay --help lists the options of replay.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND",
                           parser_class=functools.partial(OneLineParser, error_name="plots"))

    f = sub.add_parser("fitness", help="the run's best and its population's fitness per "
                                       "generation",
                       description="Draw the run's best (the logbook's best column: the "
                                   "fitness of the genome the run would give then) and the "
                                   "population's max, mean (with one standard deviation, "
                                   "within its min and max) and min per generation, with "
                                   "the first generation that reached the goal marked.")
    f.add_argument("run_dir", type=Path, metavar="RUN_DIR",
                   help="an evolution run directory (holds config.json and logbook.csv)")
    f.add_argument("--out", type=Path, metavar="FILE",
                   help="the PNG to write (default: RUN_DIR/fitness.png)")

    c = sub.add_parser("compare", help="best-fitness curves of several runs in one figure",
                       description="Draw the best fitness per generation (each logbook's "
                                   "best column) of several runs in one figure, each "
                                   "labelled by its seed and the settings that differ "
                                   "between the runs.")
    c.add_argument("run_dirs", type=Path, nargs="+", metavar="RUN_DIR",
                   help="evolution run directories to compare")
    c.add_argument("--out", type=Path, default=Path("compare.png"), metavar="FILE",
                   help="the PNG to write (default: compare.png)")

    a = sub.add_parser("archive", help="the archive of a MAP-Elites run as a heatmap",
                       description="Draw the archive of a quality-diversity run "
                                   "(--algorithm map-elites) as a heatmap: a cell per "
                                   "kind of play (mean speed, rings), coloured by the "
                                   "fitness of its elite. Replay a cell's elite with "
                                   "python -m runners.replay RUN_DIR --cell I,J.")
    a.add_argument("run_dir", type=Path, metavar="RUN_DIR",
                   help="a run directory holding archive.npz")
    a.add_argument("--out", type=Path, metavar="FILE",
                   help="the PNG to write (default: RUN_DIR/archive.png)")

    m = sub.add_parser("methods", help="search methods compared on frames played",
                       description="Draw the best fitness against frames played of the "
                                   "runs of python -m evolution.compare: per method, the "
                                   "median over seeds and the range as a band.")
    m.add_argument("run_dir", type=Path, metavar="OUT_DIR",
                   help="the --out directory of python -m evolution.compare")
    m.add_argument("--out", type=Path, metavar="FILE",
                   help="the PNG to write (default: OUT_DIR/compare.png)")
    m.add_argument("--methods", nargs="+", metavar="M",
                   help="draw only these of the comparison's methods (each in the "
                        "colour it has among all of them): --methods cmaes ppo")

    sub.add_parser("replay", add_help=False,
                   help="replay a genome or an agent and draw it (--plot FILE, --gif FILE); "
                        "the options of python -m runners.replay and more, see "
                        "python -m plots replay --help")

    d = sub.add_parser("dashboard", help="a page in the browser that shows the runs, live",
                       description="Serve a page that lists the runs under RUNS_DIR and "
                                   "follows them live: their rows, curves and settings. "
                                   "It only reads RUNS_DIR. Ctrl-C stops it.")
    d.add_argument("runs_dir", type=Path, nargs="?", default=Path("runs"), metavar="RUNS_DIR",
                   help="the directory of run directories (default: runs)")
    d.add_argument("--port", type=int, default=5006, help="the port (default 5006)")
    d.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1: this machine only)")

    s = sub.add_parser("stage", help="a whole stage drawn side-on, with its objects",
                       description="Draw a whole stage side-on: terrain, rings, springs, "
                                   "spikes, enemies, checkpoint, start and goal.")
    s.add_argument("stage", metavar="NAME",
                   help=f"a built-in stage ({', '.join(list_stages())}), a .toml profile "
                        f"path, or one generated stage gen:DIFFICULTY:SEED")
    s.add_argument("--out", type=Path, metavar="FILE",
                   help="the PNG to write (default: stage-NAME.png)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(list(sys.argv[1:] if argv is None else argv))
    except KeyboardInterrupt:
        # Files are written atomically: an interrupted picture is no picture.
        print("plots: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _main(argv: list[str]) -> int:
    if argv[:1] == ["replay"]:
        from plots.replay import main as replay_main
        return replay_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    from plots import PlotError

    if args.command == "dashboard":
        return _dashboard(parser, args)
    out = args.out
    try:
        if args.command == "fitness":
            from plots.fitness import FITNESS_NAME, plot_fitness
            out = out or args.run_dir / FITNESS_NAME
            plot_fitness(args.run_dir, out)
        elif args.command == "methods":
            from plots.methods import METHODS_PICTURE, plot_methods
            out = out or args.run_dir / METHODS_PICTURE
            plot_methods(args.run_dir, out, args.methods)
        elif args.command == "archive":
            from plots.archive import ARCHIVE_PICTURE, plot_archive
            out = out or args.run_dir / ARCHIVE_PICTURE
            plot_archive(args.run_dir, out)
        elif args.command == "compare":
            from plots.compare import plot_compare
            plot_compare(args.run_dirs, out)
        else:
            from plots.stage_map import plot_stage_map
            stage = _stage(args.stage)
            out = out or Path(f"stage-{Path(stage.name).stem}.png")
            plot_stage_map(stage, out)
    except PlotError as e:
        print(f"plots: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as e:
        print(f"plots: error: cannot write {out}: {e.strerror or e}", file=sys.stderr)
        return EXIT_FAILED
    print(f"wrote {out}")
    return EXIT_OK


def _dashboard(parser, args) -> int:
    if not args.runs_dir.is_dir():
        parser.error(f"dashboard: {args.runs_dir} is not a directory; accepted: a directory "
                     f"of run directories (evolution.run writes them into runs/)")
    if not 0 < args.port < 65536:
        parser.error(f"dashboard: --port {args.port}; accepted: 1 to 65535")
    from importlib.util import find_spec

    if find_spec("bokeh") is None:
        parser.error("dashboard: needs Bokeh, which the 'dashboard' extra installs: "
                     "pip install 'speednik-evolve[dashboard]' (make installs it)")
    from plots.dashboard.server import serve

    try:
        serve(args.runs_dir.resolve(), args.port, args.host, sys.stdout)
    except OSError as exc:
        print(f"plots: error: dashboard cannot listen on {args.host}:{args.port}: "
              f"{exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _stage(name: str):
    """The stage `name` names; `PlotError` with the accepted names if none."""
    from plots import PlotError
    from runners.episode import resolve_stage

    try:
        return resolve_stage(name)
    except (ValueError, KeyError) as e:
        message = str(e)
        if "accepted" not in message:
            message += (f"; accepted: a built-in stage ({', '.join(list_stages())}), "
                        "a path to a .toml profile, or gen:DIFFICULTY:SEED")
        raise PlotError(message) from None


if __name__ == "__main__":
    sys.exit(main())

"""`python -m plots replay`: the replay command of `runners.replay`, with
pictures of each episode.

    python -m plots replay runs/hill --plot run.png --gif run.gif
    python -m plots replay --agent jump-runner --stage pipeworks --gif jr.gif

Takes every argument `python -m runners.replay` takes, prints the same,
and draws the run over the stage map (`--plot`) and an animation
following the player (`--gif`). One stage played is drawn into FILE
itself; with several, every stage played gets its own file, FILE with the
stage's name before the suffix: run.png -> run-hillside.png,
run-pipeworks.png; a generated set (`--stage gen:hard:0-31`) one per stage
of it, finished or not: run-gen-hard-0.png ... run-gen-hard-31.png.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from plots.animation import write_replay_gif
from plots.stage_map import plot_stage_map
from runners.replay import EXIT_FAILED, EXIT_OK, parse_replay_args, positive_whole
from runners.replay import build_parser as replay_parser
from runners.replay import run_replay
from runners.result import EpisodeResult
from speednik.stages import Stage

ERROR_NAME = "plots replay"


def build_parser() -> argparse.ArgumentParser:
    p = replay_parser(prog="python -m plots replay", error_name=ERROR_NAME)
    p.usage = ("%(prog)s (RUN_DIR_OR_GENOME_FILE | --agent NAME) [--stage NAME ...] "
               "[--max-steps N] [--plot FILE] [--gif FILE] [--gif-stride N] "
               "[--gif-max-frames N] [--gif-scale N]")
    p.description = p.description.rsplit("\n\npictures", 1)[0] + (
        "\n\nand draws it: --plot, the run over the stage map; --gif, an animation.")
    g = p.add_argument_group("pictures (give one or both)")
    g.add_argument("--plot", type=Path, metavar="FILE",
                   help="draw the run over the stage map into this PNG; with several "
                        "stages (a generated set's included), one PNG for every stage "
                        "played, finished or not, named after it: run.png -> "
                        "run-hillside.png, run-gen-hard-7.png")
    g.add_argument("--gif", type=Path, metavar="FILE",
                   help="write an animation of the run, following the player, to this "
                        "GIF; with several stages, one GIF for every stage played, "
                        "named as --plot's: run.gif -> run-gen-hard-7.gif")
    g.add_argument("--gif-stride", type=positive_whole, default=3, metavar="N",
                   help="keep every N-th game frame in the GIF (default 3: 20 frames a "
                        "second, real speed)")
    g.add_argument("--gif-max-frames", type=positive_whole, default=1500, metavar="N",
                   help="most GIF frames; a longer episode gets a larger stride "
                        "(default 1500)")
    g.add_argument("--gif-scale", type=positive_whole, default=2, metavar="N",
                   help="GIF pixels per game pixel (default 2: 640 x 448)")
    return p


def output_path(path: Path, stage_name: str, several: bool) -> Path:
    """`path` itself for one stage; with several, one file per stage
    (run.png -> run-hillside.png, gen:hard:7 -> run-gen-hard-7.png)."""
    if not several:
        return path
    stem = Path(stage_name).stem.replace(":", "-")
    return path.with_name(f"{path.stem}-{stem}{path.suffix}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parse_replay_args(parser, argv)
    if args.plot is None and args.gif is None:
        parser.error("nothing to draw: give --plot FILE and/or --gif FILE "
                     "(python -m runners.replay replays without pictures)")

    def draw(label: str, name: str, stage: Stage, result: EpisodeResult,
             several: bool) -> int:
        target = None
        try:
            if args.plot is not None:
                target = output_path(args.plot, name, several)
                plot_stage_map(stage, target, result, label=label)
                print(f"  wrote {target}")
            if args.gif is not None:
                target = output_path(args.gif, name, several)
                write_replay_gif(result, stage, target, stride=args.gif_stride,
                                 max_frames=args.gif_max_frames, scale=args.gif_scale)
                print(f"  wrote {target}")
        except OSError as e:
            print(f"{ERROR_NAME}: error: cannot write {target}: {e.strerror or e}",
                  file=sys.stderr)
            return EXIT_FAILED
        except ValueError as e:
            print(f"{ERROR_NAME}: error: {e}", file=sys.stderr)
            return EXIT_FAILED
        return EXIT_OK

    return run_replay(args, on_episode=draw, error_name=ERROR_NAME)


if __name__ == "__main__":
    sys.exit(main())

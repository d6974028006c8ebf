"""`python -m speednik.stages`: the built-in stages, and generated stages
written as profiles.

    python -m speednik.stages list
    python -m speednik.stages generate --difficulty hard --seed 7 --out my.toml

A profile written by `generate` loads (`load_stage("my.toml")`, `--stage
my.toml`) to a stage equal tile for tile and entity for entity to
`generate_stage(seed, difficulty)`, so it can be edited by hand from there.
Bad input is one line on stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from speednik.cli import OneLineParser
from speednik.stages import (
    BUILTIN_STAGES,
    GENERATED_KINDS,
    MAX_SEED,
    StageError,
    generate_profile,
    load_profile,
    profile_to_toml,
)

EXIT_OK, EXIT_FAILED = 0, 1


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="python -m speednik.stages",
                description="List the built-in stages, or write a generated stage "
                            "as a .toml profile.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    sub.add_parser("list", help="print the built-in stages, one a line")
    g = sub.add_parser("generate", help="write a generated stage as a profile")
    g.add_argument("--difficulty", required=True, choices=GENERATED_KINDS,
                   help="a difficulty, or skills, places or stalls: the stages of "
                   "gen:skills:SEEDS, gen:places:SEEDS or gen:stalls:SEEDS")
    g.add_argument("--seed", required=True, type=int, help="a whole number >= 0")
    g.add_argument("--out", required=True, type=Path,
                   help="the .toml file to write (replaced if it exists)")
    return p


def write_text_atomically(path: Path, text: str) -> None:
    """Write through a temporary file in the same directory and a rename,
    so a reader never sees half a profile."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp",
                               dir=path.parent or Path("."))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "list":
        for name in BUILTIN_STAGES:
            info = load_profile(name).stage
            print(f"{name:<10s} {info.description}".rstrip())
        return EXIT_OK
    if not 0 <= args.seed < MAX_SEED:
        parser.error(f"--seed must be a whole number from 0 to {MAX_SEED - 1} (as in "
                     f"gen:DIFFICULTY:SEED), got {args.seed}")
    if args.out.suffix != ".toml":
        parser.error(f"--out {args.out}: accepted: a path ending in .toml")
    if not args.out.parent.is_dir() and str(args.out.parent):
        parser.error(f"--out {args.out}: no directory {args.out.parent}; accepted: a "
                     f".toml path in an existing directory")
    try:
        profile = generate_profile(args.seed, args.difficulty)
        write_text_atomically(args.out, profile_to_toml(profile))
    except StageError as e:
        parser.error(str(e))
    except OSError as e:
        print(f"{parser.prog}: error: cannot write {args.out}: {e.strerror or e}",
              file=sys.stderr)
        return EXIT_FAILED
    print(f"wrote {args.out}: {profile.stage.name}, {profile.width} px wide, "
          f"{len(profile.segments)} segments, {len(profile.entities)} entities")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())

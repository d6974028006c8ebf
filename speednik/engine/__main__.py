"""Compile the engine ahead of its first use, or find it in the cache.

    python -m speednik.engine [OBSERVATION ...] [--policy P ...] [--vector]

compiles the batch runner of each observation named (every observation
when none is) for the policy families named (every family when none is),
and with `--vector` the kernel of the vector environment too, then says
what it did and how long it took. A run compiles what it uses by itself;
this is for doing it beforehand: in an image a cluster's workers start
from, or beside a slower step (`make run` compiles the default run's
engine while pip installs what the engine does not need). It needs only
numpy and Numba.
"""
from __future__ import annotations

import sys
import time

from speednik.cli import OneLineParser
from speednik.engine.batch import warm_up
from speednik.engine.observation import OBSERVATION_KINDS
from speednik.engine.policy import POLICY_KINDS


def build_parser() -> OneLineParser:
    p = OneLineParser(
        prog="python -m speednik.engine",
        description="Compile the engine for some observations and policy families "
                    "(or load it from the cache), before a run needs it.")
    p.add_argument("observations", nargs="*", metavar="OBSERVATION",
                   choices=OBSERVATION_KINDS,
                   help=f"observations to compile (default: all): "
                        f"{', '.join(OBSERVATION_KINDS)}")
    p.add_argument("--policy", nargs="+", choices=POLICY_KINDS, metavar="POLICY",
                   help=f"policy families (default: all): {', '.join(POLICY_KINDS)}")
    p.add_argument("--vector", action="store_true",
                   help="also the vector environment's kernel (what PPO trains on)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    names = args.observations or list(OBSERVATION_KINDS)
    print(f"compiling the engine for {', '.join(names)} "
          f"({', '.join(args.policy or POLICY_KINDS)} policies) ...", flush=True)
    t0 = time.perf_counter()
    compiled = warm_up(names, args.policy, vector=args.vector)
    took = time.perf_counter() - t0
    print(f"engine compiled in {took:.1f} s" if compiled
          else f"engine already compiled: loaded in {took:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

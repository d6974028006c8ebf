"""benchmarks/tuning.py: the tuning processes share the machine's cores."""
from __future__ import annotations

from pathlib import Path

from paths import benchmark_module
from evolution.cli.run_options import build_parser


def _workers(command: list[str]) -> int:
    task = command[command.index("--") + 1:]
    return build_parser().parse_args(task).workers


def test_two_tuning_processes_take_a_core_each_and_one_alone_takes_both():
    tuning = benchmark_module("tuning")
    shared = tuning.tune_commands("ppo", tuning.RANDOM_START, 1000, Path("out"))
    alone = tuning.tune_commands("ppo", tuning.RANDOM_START + 1, 1000, Path("out"))
    assert len(shared) == 2 and len(alone) == 1
    assert [_workers(c) for c in shared] == [1, 1]
    assert _workers(alone[0]) == tuning.CORES == 2
    assert shared[0][shared[0].index("--out") + 1] == str(Path("out") / "tune-ppo")

"""benchmarks/gp_programs.py: the smallest finishing program is the
finishing one of fewest nodes, replays to the goal on both engines, and a
program that does not finish is never reported as one; the size below
which no program reads the observation is what the operator table gives."""
from __future__ import annotations

import io
import re
from contextlib import redirect_stdout

import numpy as np
import pytest
from deap import gp

from evolution.strategies.gp_strategy import Lowering
from paths import benchmark_module
from runners import RunnerConfig
from runners.gp_program import GPPolicy
from speednik import gp_program
from speednik.observation import get_observation

OBS = "pits"
CONFIG = RunnerConfig(observation=OBS, max_steps=3600, stall_frames=240)
# Hand-written programs, and what they do on hillside (the tests check it):
FINISH_A = "if_then_else(gt(gap_ahead, 0.5), right_jump, right)"        # goal, 6 nodes
FINISH_B = "if_then_else(lt(pit_ahead_dx, 0.2), right_jump, right)"     # goal, 6 nodes, sooner
FINISH_BIG = f"if_then_else(True, {FINISH_A}, left)"                    # goal, 8 nodes
FALLS = "if_then_else(gt(jump_ready, 0.5), right_jump, right)"          # a pit, 6 nodes


def load_script():
    return benchmark_module("gp_programs")


@pytest.fixture(scope="module")
def script():
    return load_script()


@pytest.fixture(scope="module")
def lowering():
    return Lowering(get_observation(OBS).feature_names)


def row(lowering, text: str) -> np.ndarray:
    return lowering.lower(gp.PrimitiveTree.from_string(text, lowering.pset))


def readable_goal(lowering, genome: np.ndarray) -> tuple[bool, int]:
    """Whether the readable runner takes `genome` to hillside's goal, and
    in how many frames."""
    result = CONFIG.build("hillside").run_episode(GPPolicy(genome, OBS))
    return result.metrics["goal_reached"], result.steps


def test_the_chooser_picks_the_fewest_nodes_among_finishing_programs(script, lowering):
    texts = ["right", FALLS, FINISH_BIG, FINISH_A, FINISH_B, FINISH_A]
    played = script.play([row(lowering, t) for t in texts], "hillside", CONFIG)
    # The repeated program is played once.
    assert len(played) == 5
    finished = {gp_program.text(p.genome, lowering.names): p.finished for p in played}
    assert finished == {"right": False, FALLS: False, FINISH_BIG: True, FINISH_A: True,
                        FINISH_B: True}
    chosen = script.smallest_finishing(played)
    # Two finish in 6 nodes: the one that gets there in fewer frames.
    a, b = (next(p for p in played if gp_program.text(p.genome, lowering.names) == t)
            for t in (FINISH_A, FINISH_B))
    assert a.size == b.size == (6, 2) and b.result.steps < a.result.steps
    assert chosen is b
    assert readable_goal(lowering, chosen.genome) == (True, chosen.result.steps)
    # Without the 6-node ones, the 8-node one, though smaller programs fall.
    rest = [p for p in played if p not in (a, b)]
    assert gp_program.text(script.smallest_finishing(rest).genome,
                           lowering.names) == FINISH_BIG


def test_a_program_that_does_not_finish_is_never_reported(script, lowering):
    played = script.play([row(lowering, t) for t in ("right", FALLS, "jump")], "hillside",
                         CONFIG)
    assert [p.finished for p in played] == [False, False, False]
    assert script.smallest_finishing(played) is None
    assert script.smallest_finishing([]) is None


def trees(kind: int, nodes: int):
    """Every tree of type `kind` with exactly `nodes` nodes over one input,
    one constant, True, False and two actions, as (reads an input, text)."""
    out = []
    if nodes == 1:
        leaves = {gp_program.T_FLOAT: [(True, "x"), (False, "0.5")],
                  gp_program.T_BOOL: [(False, "True"), (False, "False")],
                  gp_program.T_ACTION: [(False, "right"), (False, "jump")]}
        return leaves[kind]
    for op, (name, args) in gp_program.OPERATORS.items():
        if gp_program.RETURNS[op] != kind:
            continue
        for split in splits(nodes - 1, len(args)):
            combos = [[]]
            for arg, n in zip(args, split):
                combos = [c + [t] for c in combos for t in trees(arg, n)]
            out += [(any(r for r, _ in c), f"{name}({', '.join(t for _, t in c)})")
                    for c in combos]
    return out


def splits(total: int, parts: int):
    if parts == 1:
        return [(total,)] if total >= 1 else []
    return [(k, *rest) for k in range(1, total) for rest in splits(total - k, parts - 1)]


def test_no_program_under_the_bound_reads_the_observation(script):
    bound = script.fewest_deciding_nodes()
    assert bound == 6
    smaller = [t for n in range(1, bound) for t in trees(gp_program.T_ACTION, n)]
    # right, jump; if_then_else(True, right, jump) ...; ... not_(False) ...
    assert {"right", "if_then_else(True, right, jump)",
            "if_then_else(not_(False), jump, jump)"} <= {text for _, text in smaller}
    assert not any(reads for reads, _ in smaller)
    assert any(reads for reads, _ in trees(gp_program.T_ACTION, bound))


@pytest.mark.slow
def test_the_smallest_command_prints_a_program_that_finishes_hillside(script, lowering,
                                                                      tmp_path):
    out = io.StringIO()
    with redirect_stdout(out):
        status = script.main(["smallest", "--out", str(tmp_path / "run"), "--workers", "1"])
    text = out.getvalue()
    assert status == 0, text
    program = re.search(r"program \((\d+) nodes, depth (\d+)\):\n    (.*)\n", text)
    frames = int(re.search(r"hillside: goal after (\d+) frames", text).group(1))
    genome = row(lowering, program.group(3))
    assert gp_program.sizes(genome) == (int(program.group(1)), int(program.group(2)))
    # The readable runner agrees with the compiled engine's replay.
    assert readable_goal(lowering, genome) == (True, frames)
    # And nothing in the run that finishes has fewer nodes.
    played = script.play(script.population_and_hall_of_fame(tmp_path / "run"), "hillside",
                         CONFIG)
    assert min(p.size[0] for p in played if p.finished) == int(program.group(1))


@pytest.mark.parametrize("argv", [["largest"], ["smallest", "--workers", "0"],
                                  ["unseen", "--seed", "one"]])
def test_bad_input_exits_2(script, argv, capsys):
    with pytest.raises(SystemExit) as exc:
        script.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "accepted" in err or "invalid" in err


def test_an_existing_out_directory_is_refused(script, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        script.main(["smallest", "--out", str(tmp_path)])
    assert exc.value.code == 2
    assert "exists already" in capsys.readouterr().err

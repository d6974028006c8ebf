"""Genetic programming: DEAP's typed trees lowered to one flat row that
reads back into the same tree, played by the compiled engine and the
readable agent exactly as DEAP's own `gp.compile` plays the tree, and
evolved as a search strategy whose runs are exact whether repeated,
resumed or spread over workers."""
from __future__ import annotations

import csv
import json
import os
import random
import subprocess
import sys
from itertools import permutations

import numpy as np
import pytest
from deap import gp

from evolution.config import ConfigError, EvolutionConfig
from evolution.loop.checkpoint import load_checkpoint
from evolution.loop.evolve import evolve
from evolution.loop.method_file import read_method_file
from evolution.strategies.gp_strategy import (Action, GeneticProgramming, Lowering,
                                              one_point_crossover)
from paths import REPO_ROOT
from runners import EpisodeRunner, RunnerConfig, run_episodes
from runners.agent import BaseAgent
from runners.genome_file import load_genome_file
from runners.gp_program import GPPolicy, checked_program
from runners.parallel import EpisodeError
from runners.policies import Policy
from speednik import gp_program
from speednik.engine import run_policy_batch
from speednik.engine.policy import gp_action
from speednik.observation import get_observation
from speednik.stages import load_stage


def random_trees(observation: str, seed: int, count: int, low: int = 2, high: int = 6):
    lowering = Lowering(get_observation(observation).feature_names)
    random.seed(seed)
    trees = [gp.PrimitiveTree(gp.genHalfAndHalf(lowering.pset, low, high))
             for _ in range(count)]
    return lowering, trees


class DeapAgent(BaseAgent):
    """The tree as DEAP compiles it to Python, recording every observation
    it is shown."""

    def __init__(self, tree, lowering: Lowering, observation: str) -> None:
        self.function = gp.compile(tree, lowering.pset)
        self.observation = observation
        self.seen: list[np.ndarray] = []
        self.actions: list[int] = []

    def get_action(self, obs) -> int:
        self.seen.append(np.array(obs))
        action = self.function(*np.asarray(obs).tolist())
        self.actions.append(action)
        return action

    def reset(self) -> None:
        pass


# -- the row and its tree -------------------------------------------------------------

@pytest.mark.parametrize("observation", ["basic", "pits"])
def test_a_tree_lowers_to_a_row_that_reads_back_into_the_same_tree(observation):
    lowering, trees = random_trees(observation, 1, 40, 1, 7)
    n = get_observation(observation).size
    kinds = set()
    for tree in trees:
        row = lowering.lower(tree)
        assert gp_program.problem(row, n) is None
        back = lowering.to_tree(row)
        assert list(back) == list(tree) and str(back) == str(tree)
        assert gp_program.text(row, lowering.names) == str(tree)
        assert gp_program.sizes(row) == (len(tree), tree.height)
        assert lowering.lower(back).tobytes() == row.tobytes()
        kinds |= {op for op, _ in gp_program.nodes_of(row)}
    assert kinds == set(range(gp_program.NUM_OPCODES))     # every opcode was met
    # Constants have two decimals, so the text shows them so.
    constants = [v for t in trees for op, v in gp_program.nodes_of(lowering.lower(t))
                 if op == gp_program.OP_CONST]
    assert constants and all(len(repr(abs(v)).split(".")[1]) <= 2 for v in constants)


def test_every_observation_s_values_can_name_inputs_and_a_clash_is_refused():
    from evolution.strategies.gp_strategy import primitive_set
    from speednik.observation import list_observations

    for observation in list_observations():
        names = get_observation(observation).feature_names
        assert primitive_set(names).arguments == list(names)
    for names, bad in ((("x", "jump"), "'jump'"), (("x", "lt"), "'lt'"),
                       (("x", "x"), "'a repeated name'"), (("x", "a b"), "'a b'")):
        with pytest.raises(ValueError, match=f"and {bad} cannot be one: accepted are"):
            primitive_set(names)


def test_a_program_prints_as_indented_code():
    lowering = Lowering(get_observation("basic").feature_names)
    tree = gp.PrimitiveTree.from_string(
        "if_then_else(lt(x_vel, 0.19), right_jump, if_then_else(not_(gt(on_ground, 0.5)), "
        "jump, right))", lowering.pset)
    row = lowering.lower(tree)
    assert gp_program.listing(row, lowering.names) == (
        "if lt(x_vel, 0.19):\n"
        "    right_jump\n"
        "elif not_(gt(on_ground, 0.5)):\n"
        "    jump\n"
        "else:\n"
        "    right")
    assert Policy("gp", "basic").text(row) == str(tree)
    assert Policy("linear", "basic").text(np.zeros(8 * 12 + 8)) is None


def test_folding_constant_conditions_changes_no_action():
    lowering, trees = random_trees("basic", 5, 60, 2, 6)
    rng = np.random.default_rng(1)
    observations = [rng.normal(size=12).astype(np.float32) * 3 for _ in range(40)]
    smaller = 0
    for tree in trees:
        row = lowering.lower(tree)
        folded = gp_program.fold(row)
        assert gp_program.problem(folded, 12) is None
        assert gp_program.listing(row, lowering.names, fold=True) == \
            gp_program.listing(folded, lowering.names)
        full, short = GPPolicy(row, "basic"), GPPolicy(folded, "basic")
        assert [full.get_action(o) for o in observations] == \
            [short.get_action(o) for o in observations]
        smaller += folded.size < row.size
    assert smaller > len(trees) // 2
    text = ("if_then_else(and_(True, lt(x, y)), if_then_else(or_(False, not_(True)), left, "
            "right), if_then_else(gt(x, 0.5), jump, jump))")
    row = lowering.lower(gp.PrimitiveTree.from_string(text, lowering.pset))
    assert gp_program.text(gp_program.fold(row), lowering.names) == \
        "if_then_else(lt(x, y), right, jump)"


def _bad_cases():
    lowering = Lowering(get_observation("basic").feature_names)
    tree = gp.PrimitiveTree.from_string(
        "if_then_else(lt(x_vel, div(y, 0.5)), right_jump, left)", lowering.pset)
    good = lowering.lower(tree)

    def bad(at, value, cut=None):
        out = good.copy()
        out[at] = value
        return out if cut is None else out[:cut]

    node = lambda k: gp_program.HEADER + 2 * k     # noqa: E731
    return [
        (np.zeros(1), "fewer than the 2 of its header"),
        (bad(0, 28), "the header gives 28 inputs, not the observation's 12"),
        (bad(1, 0, 2), "the header gives no nodes"),
        (bad(1, 9), "the header gives 9 nodes, 20 numbers, but the genome has 18"),
        (bad(node(0), 4), r"node 0 \(add\) gives a float where an action is needed"),
        (bad(node(1) + 1, 5), r"node 1 \(lt\) has operand 5, not 0"),
        (bad(node(2) + 1, 12), "node 2 reads input 12, not a whole number from 0 to 11"),
        (bad(node(7) + 1, 8), "node 7 is action 8, not a whole number from 0 to 7"),
        (bad(node(0), 1.5), "node 0 has opcode 1.5"),
        (bad(node(1), 4), r"node 1 \(add\) gives a float where a bool is needed"),
        (gp_program.encode(12, [(3, 0), (3, 1)]), "node 1 follows a complete tree"),
        (gp_program.encode(12, [(13, 0), (2, 1.0), (3, 1)]), "the tree is cut short"),
        (gp_program.encode(12, [(13, 0), (2, 0.5), (3, 1), (3, 2)]),
         "truth value 0.5, not 0 or 1"),
        (gp_program.encode(12, [(13, 0)] + [(12, 0)] * 91 + [(2, 0), (3, 0), (3, 0)]),
         "node 91 is at depth 91, deeper than the 90 accepted"),
        (bad(node(4) + 1, np.inf), "NaN or infinite"),
    ]


@pytest.mark.parametrize("genome, message", _bad_cases())
def test_a_malformed_program_is_refused_in_one_line_everywhere(genome, message):
    with pytest.raises(ValueError, match=message) as policy_error:
        Policy("gp", "basic").check(genome)
    text = str(policy_error.value)
    assert "\n" not in text
    assert text.startswith("a gp policy over the 'basic' observation (12 values) needs "
                           "a genome laid out as [inputs, nodes] + (opcode")
    with pytest.raises(ValueError) as agent_error:
        checked_program(genome, "basic")
    assert str(agent_error.value) == text
    for engine in ("python", "compiled"):
        with pytest.raises(EpisodeError, match=message):
            run_episodes([(("gp", ("basic", genome)), "hillside")],
                         RunnerConfig(max_steps=10), engine=engine)


# -- both engines play what DEAP plays ------------------------------------------------

@pytest.mark.parametrize("observation, stage", [("basic", "hillside"),
                                                ("pits", "pipeworks")])
def test_both_engines_choose_deaps_action_frame_by_frame(observation, stage):
    lowering, trees = random_trees(observation, 3, 80)
    config = RunnerConfig(max_steps=900)
    stack = np.empty(1024)
    played = []
    varied = 0
    # Random trees, until six of them changed their mind during the
    # episode (most hold one action throughout): the comparison is of
    # decisions.
    for tree in trees:
        row = lowering.lower(tree)
        deap_agent = DeapAgent(tree, lowering, observation)
        want = EpisodeRunner(stage, observation, max_steps=900).run_episode(deap_agent)
        readable = GPPolicy(row, observation)
        for obs, action in zip(deap_agent.seen, deap_agent.actions):
            assert readable.get_action(obs) == action
            assert gp_action(row, obs, stack) == action
        played.append((("gp", (observation, row)), stage))
        got = run_episodes([played[-1]], config, engine="compiled")[0]
        assert got.to_dict() == want.to_dict()
        varied += len(set(deap_agent.actions)) > 1
        if varied == 6:
            break
    assert varied == 6
    # Several programs at once, padded in one batch, as the readable runner plays them.
    expected = run_episodes(played, config)
    got = run_episodes(played, config, engine="compiled", workers=2)
    assert [r.to_dict() for r in got] == [r.to_dict() for r in expected]
    assert len({r.total_reward for r in expected}) > 2


def test_the_arithmetic_edges_are_the_same_in_both_engines():
    lowering = Lowering(get_observation("basic").feature_names)
    stack = np.empty(64)
    # div by zero is 1.0; inf - inf is NaN, which no comparison holds.
    texts = ["if_then_else(gt(div(x, sub(y, y)), 0.99), right, left)",
             "if_then_else(lt(sub(mul(x_vel, div(x, 0.0)), mul(x_vel, div(x, 0.0))), 1.0), "
             "jump, if_then_else(gt(div(0.0, 0.0), 0.5), down, noop))",
             "if_then_else(and_(not_(False), or_(False, gt(x_vel, y_vel))), left_jump, "
             "down_jump)"]
    rng = np.random.default_rng(0)
    observations = [np.zeros(12, np.float32), np.full(12, 3e38, np.float32),
                    *(rng.normal(size=12).astype(np.float32) for _ in range(20))]
    for text in texts:
        tree = gp.PrimitiveTree.from_string(text, lowering.pset)
        row = lowering.lower(tree)
        function = gp.compile(tree, lowering.pset)
        agent = GPPolicy(row, "basic")
        for obs in observations:
            want = function(*obs.tolist())
            assert agent.get_action(obs) == want == gp_action(row, obs, stack)


def test_a_program_row_may_be_padded_but_never_overrun():
    lowering, (tree,) = random_trees("basic", 4, 1)
    row = lowering.lower(tree)
    padded = np.zeros((1, row.size + 7))
    padded[0, :row.size] = row
    stage = load_stage("hillside")
    a = run_policy_batch([stage], [0], [0], padded, policy="gp", max_steps=300)
    b = run_episodes([(("gp", ("basic", row)), "hillside")], RunnerConfig(max_steps=300))[0]
    assert a.total_reward[0] == b.total_reward and a.steps[0] == b.steps
    with pytest.raises(ValueError, match="parameter row 0 is not a gp program over the "
                                         "'basic' observation: its header"):
        run_policy_batch([stage], [0], [0], padded[:, :row.size - 1], policy="gp",
                         max_steps=10)


# -- the strategy ---------------------------------------------------------------------

def run_config(**changes):
    settings = dict(algorithm="gp", population=16, generations=6, seed=4,
                    stages=("hillside", "gen:easy:3"), stages_per_generation=1,
                    max_steps=900, workers=1, checkpoint_every=2)
    settings.update(changes)
    return EvolutionConfig(**settings)


def without_time(rows):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def test_the_algorithm_brings_its_policy_and_checks_its_settings():
    config = EvolutionConfig(algorithm="gp")
    assert config.policy == "gp" and config.genome_size() is None
    assert config.options == {"gp_cx_prob": 0.5, "gp_mut_prob": 0.2, "gp_point_prob": 0.1,
                              "gp_tournament": 5, "gp_parsimony_size": 1.4,
                              "gp_max_height": 8, "gp_init_min": 1, "gp_init_max": 4,
                              "gp_elite": 1}
    for options, says in (({"gp_parsimony_size": 2.5}, "gp_parsimony_size must be a number "
                                                       "from 1 to 2"),
                          ({"gp_init_max": 9}, r"--gp-init-max \(9\) <= --gp-max-height "
                                               r"\(8\)"),
                          ({"gp_tournament": 61}, "--gp-tournament 61 cannot exceed the "
                                                  "population")):
        with pytest.raises(ConfigError, match=says):
            EvolutionConfig(algorithm="gp", options=options)
    with pytest.raises(ConfigError, match="--algorithm gp evolves its own --policy gp"):
        EvolutionConfig(algorithm="gp", policy="linear")
    with pytest.raises(ConfigError, match="--policy gp genomes vary in size, which "
                                          "--algorithm ga cannot search"):
        EvolutionConfig(algorithm="ga", policy="gp")


def test_a_run_is_its_seed_and_resumes_exactly(tmp_path):
    config = run_config()
    straight = evolve(config, tmp_path / "a")
    again = evolve(config, tmp_path / "b")
    assert without_time(straight.logbook) == without_time(again.logbook)
    evolve(config.replace(generations=3), tmp_path / "d")
    resumed = evolve(config, tmp_path / "d", resume=True)
    assert without_time(resumed.logbook) == without_time(straight.logbook)
    best = [json.loads((tmp_path / d / "best.json").read_text()) for d in ("a", "b", "d")]
    assert all(b == best[0] for b in best[1:])
    record = load_genome_file(tmp_path / "a")
    assert record.policy_spec.family == "gp" and isinstance(record.policy(), GPPolicy)
    assert best[0]["program"] == record.policy().text()
    assert best[0]["program"].startswith(("if_then_else(", *(
        name for name in ("noop", "left", "right", "jump", "down"))))
    ends = [load_checkpoint(tmp_path / d) for d in ("a", "d")]
    assert ends[0].random_state == ends[1].random_state
    assert [(g.tobytes(), f) for g, f in ends[0].population] == \
        [(g.tobytes(), f) for g, f in ends[1].population]
    assert len({g.size for g, _ in ends[0].population}) > 1
    # The program sizes of every generation, the resumed run's too.
    numbers = [read_method_file(tmp_path / d) for d in ("a", "d")]
    assert [r["gen"] for r in numbers[0]] == list(range(7))
    assert numbers[1] == numbers[0]
    last = numbers[0][-1]
    assert {"mean_nodes", "max_nodes", "mean_depth", "max_depth", "best_nodes",
            "best_depth"} <= set(last)
    assert 1 <= last["best_depth"] <= last["max_depth"] <= 8
    assert last["mean_nodes"] <= last["max_nodes"]


def test_the_same_run_with_one_or_two_workers_and_on_either_engine(tmp_path):
    config = run_config(generations=3, population=10, max_steps=600)
    one = evolve(config, tmp_path / "one")
    two = evolve(config.replace(workers=2), tmp_path / "two")
    python = evolve(config.replace(engine="python", workers=2), tmp_path / "python")
    assert without_time(one.logbook) == without_time(two.logbook)
    assert without_time(one.logbook) == without_time(python.logbook)
    texts = [(tmp_path / d / "best.json").read_text().split('"seed"')[0]
             for d in ("one", "two", "python")]
    assert texts[0] == texts[1] == texts[2]


def test_the_strategy_keeps_trees_within_the_height_limit_and_elite_unchanged():
    config = run_config(population=20, options={"gp_max_height": 5, "gp_mut_prob": 0.9,
                                                "gp_cx_prob": 0.9, "gp_elite": 2})
    random.seed(2)
    search = GeneticProgramming(config, None)
    population = search.initial()
    rng = np.random.default_rng(0)
    from evolution.loop.generation import new_hall_of_fame
    hof = new_hall_of_fame(3)
    for _ in range(6):
        for ind in population:
            ind.fitness.values = (float(rng.normal()),)
        hof.update(population)
        search.tell(population, [])
        population = search.ask(population, hof)
        assert len(population) == 20
        assert [g.tobytes() for g in population[:2]] == [g.tobytes() for g in hof[:2]]
        assert max(gp_program.sizes(g)[1] for g in population) <= 5
        assert all(gp_program.problem(g, 12) is None for g in population)


def swaps(first, second):
    """Every pair of trees that swapping one subtree of `first` for one of
    the same type in `second`, both below the roots, makes (as texts)."""
    out = set()
    for i in range(1, len(first)):
        for j in range(1, len(second)):
            if first[i].ret is not second[j].ret:
                continue
            one, two = first.searchSubtree(i), second.searchSubtree(j)
            a, b = gp.PrimitiveTree(first), gp.PrimitiveTree(second)
            a[one], b[two] = second[two], first[one]
            out.add((str(a), str(b)))
    return out


def test_the_crossover_swaps_two_subtrees_of_one_type_below_the_roots():
    lowering, trees = random_trees("basic", 7, 80, 1, 4)
    n = get_observation("basic").size
    leaf = gp.PrimitiveTree([lowering.pset.mapping["right"]])
    random.seed(3)
    swapped = 0
    for a, b in [*zip(trees[::2], trees[1::2]), (leaf, trees[0]), (trees[1], leaf)]:
        children = one_point_crossover(gp.PrimitiveTree(a), gp.PrimitiveTree(b))
        texts = tuple(str(c) for c in children)
        for child in children:
            assert child.root.ret is Action
            assert gp_program.problem(lowering.lower(child), n) is None
        possible = swaps(a, b)
        if possible:
            assert texts in possible
            swapped += texts != (str(a), str(b))
        else:       # a single leaf, or no type below both roots
            assert texts == (str(a), str(b))
    assert swapped >= 30


def test_the_crossover_draws_the_type_in_name_order_whatever_order_the_trees_hold(
        monkeypatch):
    lowering = Lowering(get_observation("basic").feature_names)
    texts = ["if_then_else(lt(x_vel, 0.5), right, jump)",
             "if_then_else(not_(True), if_then_else(gt(add(x_vel, 1.0), y_vel), left, noop), "
             "down)",
             "if_then_else(and_(gt(y_vel, x_vel), False), noop, if_then_else(True, down, "
             "left))"]
    offered = []

    def first_offered(seq):
        offered.append(list(seq))
        return seq[0]

    monkeypatch.setattr(random, "choice", first_offered)
    for one, two in permutations(texts, 2):
        offered.clear()
        children = one_point_crossover(gp.PrimitiveTree.from_string(one, lowering.pset),
                                       gp.PrimitiveTree.from_string(two, lowering.pset))
        # Every pair shares the three types below its roots.
        assert offered[0] == [Action, bool, float]
        assert len(offered) == 3 and all(len(children[k]) > 1 for k in (0, 1))
    # The first of each: the first action below each root swapped.
    children = one_point_crossover(*(gp.PrimitiveTree.from_string(t, lowering.pset)
                                     for t in texts[:2]))
    assert [str(c) for c in children] == [
        "if_then_else(lt(x_vel, 0.5), if_then_else(gt(add(x_vel, 1.0), y_vel), left, noop), "
        "jump)",
        "if_then_else(not_(True), right, down)"]


def test_a_run_is_its_seed_in_every_process(tmp_path):
    # Python's hash seed moves where the classes of the node types lie in
    # memory, hence the order of a set of them: a crossover drawing the
    # type from such a set made this run differ between these two.
    argv = [sys.executable, "-m", "evolution.run", "--algorithm", "gp", "--stage", "hillside",
            "--population", "16", "--generations", "4", "--max-steps", "600", "--workers",
            "1", "--seed", "3", "--quiet", "--no-plots"]
    runs = {seed: subprocess.Popen([*argv, "--out", str(tmp_path / seed)], cwd=REPO_ROOT,
                                   env={**os.environ, "PYTHONHASHSEED": seed},
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   text=True)
            for seed in ("0", "1")}
    for proc in runs.values():
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
    logs = []
    for seed in runs:
        with open(tmp_path / seed / "logbook.csv", newline="") as f:
            logs.append(without_time(list(csv.DictReader(f))))
    assert len(logs[0]) == 5 and logs[0] == logs[1]
    assert (tmp_path / "0" / "best.json").read_bytes() == \
        (tmp_path / "1" / "best.json").read_bytes()
    assert read_method_file(tmp_path / "0") == read_method_file(tmp_path / "1")


def test_gp_improves_on_hillside(tmp_path):
    # Holding right runs into hillside's first pit (fitness -0.45): a
    # program must learn when to jump.
    config = run_config(stages=("hillside",), stages_per_generation=None,
                        max_steps=1800, population=50, generations=20, seed=0,
                        checkpoint_every=20)
    log = evolve(config, tmp_path / "gp").logbook
    assert log[-1]["max"] > log[0]["max"] + 8.0
    assert np.mean([r["mean"] for r in log[-3:]]) > log[0]["mean"] + 3.0


def test_the_command_line_runs_gp_replay_prints_the_program_and_compare_takes_it(
        tmp_path, capsys):
    from evolution import compare, run
    from runners import replay

    out = tmp_path / "cli"
    argv = ["--algorithm", "gp", "--population", "8", "--generations", "2",
            "--max-steps", "300", "--workers", "1", "--quiet", "--stage", "hillside",
            "--gp-max-height", "6", "--no-plots", "--out", str(out)]
    assert run.main(argv) == 0
    settings = json.loads((out / "config.json").read_text())["settings"]
    assert settings["policy"] == "gp" and settings["options"]["gp_max_height"] == 6
    capsys.readouterr()
    assert replay.main([str(out)]) == 0
    printed = capsys.readouterr().out
    record = load_genome_file(out)
    listing = record.policy_spec.listing(record.genome)
    assert ("program (what its constants decide already decided):\n"
            + "\n".join("    " + line for line in listing.splitlines())) in printed
    assert run.main([*argv[:-2], "--gp-parsimony-size", "3", "--out",
                     str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "gp_parsimony_size must be a number from 1 to 2" in err[0]
    assert compare.main(["--methods", "gp", "--seeds", "0", "--frames", "3000", "--out",
                         str(tmp_path / "cmp"), "--no-plots", "--", "--stage", "hillside",
                         "--population", "6", "--max-steps", "300", "--workers", "1"]) == 0
    assert "| gp | 1 |" in capsys.readouterr().out


def test_the_dashboard_shows_the_best_program(tmp_path):
    from plots.dashboard.views import method_view, view_files

    config = run_config(generations=2, population=8, max_steps=300)
    evolve(config, tmp_path / "run")
    assert view_files("gp") == ("best.json",)
    page = method_view(tmp_path / "run", {"algorithm": "gp"}, {})
    record = load_genome_file(tmp_path / "run")
    listing = record.policy_spec.listing(record.genome)
    assert f"found in generation {record.generation}" in page
    assert "<pre>" + listing.replace("<", "&lt;").replace(">", "&gt;") + "</pre>" in page
    (tmp_path / "run" / "best.json").write_text("{}")
    assert "no best program to show" in method_view(tmp_path / "run", {"algorithm": "gp"}, {})


def test_the_dashboard_draws_the_program_sizes_per_generation(tmp_path):
    from plots.dashboard.page import Page
    from plots.dashboard.runs import RunsDir

    evolve(run_config(generations=3, population=8, max_steps=300), tmp_path / "gp")
    page = Page(RunsDir(tmp_path))
    page.refresh()
    page.chosen = "gp"
    page.show_run()
    records = read_method_file(tmp_path / "gp")
    data = page.history.method_source.data
    for name in ("mean_nodes", "best_nodes", "mean_depth", "max_depth"):
        assert data[name] == [r[name] for r in records]
    assert [name for name, block in page.history.blocks.items() if block.visible] == ["gp"]

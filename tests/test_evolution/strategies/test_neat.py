"""NEAT: networks of evolving topology as one flat genome, played the same
by both engines, and evolved by neat-python as a search strategy whose
runs are exact whether repeated, resumed or on either engine."""
from __future__ import annotations

import importlib.util
import json
import random

import neat as neat_python
import numpy as np
import pytest

from evolution import run
from evolution.loop.checkpoint import (
    CHECKPOINT_NAME,
    Checkpoint,
    CheckpointError,
    load_checkpoint,
    save_checkpoint,
)
from evolution.cluster import evaluate_chunk, stage_payload, unpack_results
from evolution.config import ConfigError, EvolutionConfig
from evolution.loop.evolve import evolve
from evolution.individual import make_individual
from evolution.strategies.neat_strategy import NEAT, lower, neat_config
from runners import RunnerConfig, run_episodes
from runners.genome_file import GenomeFileError, load_genome_file, write_genome_file
from runners.neat_net import ACTIVATION_FUNCTIONS, NeatPolicy, checked_network
from runners.neat_net import soft_tanh as readable_tanh
from runners.parallel import EpisodeError
from runners.policies import Policy
from speednik import neat_genome
from speednik.actions import NUM_ACTIONS
from speednik.engine import run_policy_batch
from speednik.engine.policy import activation
from speednik.stages import list_stages, load_stage

OBS_SIZE = {"basic": 12, "terrain": 28}


def random_network(rng, n_inputs: int, hidden: int, fan_in: int, scale: float,
                   activations=range(len(neat_genome.ACTIVATIONS))) -> np.ndarray:
    """A network with every activation, links from inputs, hidden nodes
    and earlier action nodes, and nodes with no link at all."""
    nodes = hidden + NUM_ACTIONS
    codes = rng.choice(list(activations), size=nodes)
    links = []
    for k in range(nodes):
        target = n_inputs + k
        for _ in range(int(rng.integers(0, fan_in + 1))):
            links.append((int(rng.integers(0, target)), target, rng.normal() * scale))
    return neat_genome.encode(n_inputs, rng.normal(size=nodes) * scale, codes, links,
                              hidden)


def network_items(observation: str, seed: int, stages) -> list:
    rng = np.random.default_rng(seed)
    genomes = [random_network(rng, OBS_SIZE[observation], hidden, fan_in, scale)
               for hidden, fan_in in ((0, 4), (3, 6), (12, 3)) for scale in (0.5, 2.0)]
    return [(("neat", (observation, g)), stage) for stage in stages for g in genomes]


# -- the policy family ----------------------------------------------------------------

def test_a_network_is_evaluated_as_its_encoding_says():
    # Over the 12 basic values: one hidden soft_tanh node (12) fed by
    # values 10 and 11; action 0 (node 13, identity) and action 7 (node
    # 20, identity) fed by the hidden node, action 1 (relu) by value 11;
    # the other actions are their biases.
    hidden = 1
    biases = [0.25] + [0.0] * NUM_ACTIONS
    codes = [0, 2, 1] + [2] * (NUM_ACTIONS - 2)
    links = [(10, 12, 1.5), (11, 12, -0.5), (12, 13, 2.0), (11, 14, 3.0), (12, 20, -1.0)]
    genome = neat_genome.encode(12, biases, codes, links, hidden)
    assert genome.size == neat_genome.encoded_size(hidden, NUM_ACTIONS, len(links))
    assert genome[:4].tolist() == [12, NUM_ACTIONS, 1, 5]
    assert genome[4:6].tolist() == [0.25, 0]
    assert genome[-3:].tolist() == [12, 20, -1.0]
    policy = NeatPolicy(genome, "basic")
    obs = np.zeros(12, dtype=np.float32)
    obs[10], obs[11] = 0.5, 0.75
    h = np.tanh(0.25 + 1.5 * 0.5 - 0.5 * 0.75)
    values = policy.node_values(obs)
    assert values[:12] == obs.tolist()
    assert values[12] == pytest.approx(h, abs=1e-6)
    assert values[13] == 2.0 * values[12]           # identity
    assert values[14] == 3.0 * 0.75                  # relu
    assert values[15:20] == [0.0] * 5
    assert values[20] == -values[12]
    assert policy.get_action(obs) == 1
    obs[11] = -0.75     # relu shuts action 1 off; action 0 wins
    assert policy.get_action(obs) == 0
    obs[10] = -3.0      # the hidden node turns negative: action 7 wins
    assert policy.get_action(obs) == 7


def test_the_activations_are_the_same_in_both_engines():
    xs = np.concatenate([np.random.default_rng(1).normal(size=2000) * 3,
                         [0.0, -0.0, 1.0, -1.0, 4.97, -4.97, 5.2, 1e300, -1e300, np.nan]])
    for code, readable in enumerate(ACTIVATION_FUNCTIONS):
        a = np.array([readable(float(x)) for x in xs])
        b = np.array([activation(code, float(x)) for x in xs])
        assert np.array_equal(a, b, equal_nan=True), neat_genome.ACTIVATIONS[code]
    assert np.abs(np.array([readable_tanh(float(x)) for x in xs[:-1]])
                  - np.tanh(xs[:-1])).max() < 1e-4


@pytest.mark.parametrize("observation", ["basic", "terrain"])
@pytest.mark.parametrize("config", [
    RunnerConfig(),
    RunnerConfig(action_repeat=3, stall_frames=90, max_steps=1500),
], ids=["default", "repeat3"])
def test_network_episodes_equal_on_both_engines(observation, config):
    stages = list_stages() + [(1, "hard"), (4, "medium")]
    items = network_items(observation, 7, stages)
    expected = run_episodes(items, config)
    got = run_episodes(items, config, engine="compiled", workers=2)
    assert [r.to_dict() for r in got] == [r.to_dict() for r in expected]
    assert len({r.done_reason for r in expected}) > 1
    assert len({r.total_reward for r in expected}) > len(stages)


def test_networks_of_many_sizes_and_other_families_mix_in_one_batch():
    rng = np.random.default_rng(3)
    items = (network_items("terrain", 5, ["hillside"])
             + [(("linear", ("terrain", rng.normal(size=8 * 28 + 8))), "hillside")]
             + network_items("terrain", 6, [(0, "medium")]))
    config = RunnerConfig(max_steps=1200)
    assert [r.to_dict() for r in run_episodes(items, config, engine="compiled")] == \
        [r.to_dict() for r in run_episodes(items, config)]


def test_a_network_row_may_be_padded_but_never_overrun():
    rng = np.random.default_rng(4)
    genome = random_network(rng, 12, 2, 3, 1.0)
    padded = np.zeros((1, genome.size + 9))
    padded[0, :genome.size] = genome
    stage = load_stage("hillside")
    a = run_policy_batch([stage], [0], [0], padded, policy="neat", max_steps=300)
    b = run_episodes([(("neat", ("basic", genome)), "hillside")],
                     RunnerConfig(max_steps=300))[0]
    assert a.total_reward[0] == b.total_reward and a.steps[0] == b.steps
    cut = padded[:, :genome.size - 1]
    with pytest.raises(ValueError, match="parameter row 0 is not a neat network over "
                                         "the 'basic' observation: its header"):
        run_policy_batch([stage], [0], [0], cut, policy="neat", max_steps=10)


def _bad(genome: np.ndarray, at: int, value: float) -> np.ndarray:
    out = genome.copy()
    out[at] = value
    return out


def _bad_cases():
    rng = np.random.default_rng(5)
    good = random_network(rng, 12, 2, 3, 1.0)
    nodes = 2 + NUM_ACTIONS
    first_link = neat_genome.HEADER + 2 * nodes
    links = good[first_link:].reshape(-1, 3)
    assert links[1, 1] < links[-1, 1]
    return [
        (np.zeros(3), "the genome has 3 numbers, fewer than the 4 of its header"),
        (_bad(good, 0, 28), "the header gives 28 inputs, not the observation's 12"),
        (_bad(good, 1, 7), "the header gives 7 outputs, not one per action"),
        (_bad(good, 2, 1.5), r"the header \[12.0, 8.0, 1.5, "),
        (_bad(good, 3, links.shape[0] + 1), "connections, .* numbers, but the genome has"),
        (good[:-1], "but the genome has"),
        (_bad(good, neat_genome.HEADER + 1, 4), "node 12 has activation 4, not a whole "
                                                "number from 0 to 3"),
        (_bad(good, first_link + 1, 12 + nodes), f"connection 0 targets node {12 + nodes}"),
        (_bad(good, first_link, links[0, 1]), "connection 0 goes from node"),
        (_bad(good, first_link, 0.5), "connection 0 joins 0.5 to"),
        (_bad(good, first_link + 1, links[-1, 1]),
         f"connection 1 targets node .* after a connection to node {int(links[-1, 1])}"),
        (_bad(good, 10, np.nan), "NaN or infinite"),
    ]


@pytest.mark.parametrize("genome, message", _bad_cases())
def test_a_malformed_network_is_refused_in_one_line_everywhere(genome, message, tmp_path):
    with pytest.raises(ValueError, match=message) as policy_error:
        Policy("neat", "basic").check(genome)
    text = str(policy_error.value)
    assert "\n" not in text
    assert text.startswith("a neat policy over the 'basic' observation (12 values) needs "
                           "a genome laid out as [inputs, 8 outputs, hidden, connections]")
    with pytest.raises(ValueError) as agent_error:
        checked_network(genome, "basic")
    assert str(agent_error.value) == text
    for engine in ("python", "compiled"):
        with pytest.raises(EpisodeError, match=message):
            run_episodes([(("neat", ("basic", genome)), "hillside")],
                         RunnerConfig(max_steps=10), engine=engine)


def test_a_network_genome_file_round_trips_and_a_bad_one_is_named(tmp_path):
    rng = np.random.default_rng(6)
    genome = random_network(rng, 28, 4, 5, 1.0)
    policy = Policy("neat", "terrain")
    write_genome_file(tmp_path / "best.json", genome, observation="terrain",
                      stages=["hillside"], max_steps=600, stall_frames=None, fitness=1.0,
                      generation=3, seed=0, results={}, policy=policy)
    record = load_genome_file(tmp_path / "best.json")
    assert record.policy_spec == policy
    assert record.genome.tobytes() == genome.tobytes()
    assert isinstance(record.policy(), NeatPolicy)
    write_genome_file(tmp_path / "bad.json", genome[:-2], observation="terrain",
                      stages=["hillside"], max_steps=600, stall_frames=None, fitness=1.0,
                      generation=3, seed=0, results={}, policy=policy)
    with pytest.raises(GenomeFileError, match=r"bad.json: 'genome' is not a neat policy "
                                              r"over the 'terrain' observation .*: the "
                                              r"header gives .* but the genome has .*; "
                                              r"accepted: \[inputs, 8 outputs"):
        load_genome_file(tmp_path / "bad.json")


def test_a_cluster_chunk_of_networks_of_many_sizes_gives_the_in_process_results():
    rng = np.random.default_rng(8)
    rows = [random_network(rng, 12, hidden, 4, 1.0) for hidden in (0, 2, 7)]
    assert len({r.size for r in rows}) == 3
    stages = ["hillside", (2, "easy")]
    settings = {"observation": "basic", "reward": None, "max_steps": 500,
                "stall_frames": 120, "action_repeat": 1, "record": False}
    got = evaluate_chunk(rows, [stage_payload(s) for s in stages], settings,
                         policy={"policy": "neat"})
    want = run_episodes([(("neat", ("basic", r)), s) for r in rows for s in stages],
                        RunnerConfig(max_steps=500, stall_frames=120), engine="compiled")
    assert unpack_results(got) == [r.to_dict() for r in want]


# -- genomes of many sizes in a run's checkpoint ---------------------------------------

def test_genomes_of_many_sizes_round_trip_through_a_checkpoint(tmp_path):
    rng = np.random.default_rng(9)
    genomes = [random_network(rng, 12, hidden, 3, 1.0) for hidden in (0, 5, 1, 5)]
    same_size = [random_network(rng, 12, 0, 0, 1.0) for _ in range(2)]
    ckpt = Checkpoint(
        generation=2, population=[(g, float(i)) for i, g in enumerate(genomes)],
        hall_of_fame=[(same_size[0], 3.0), (same_size[1], 1.0)], logbook=[{"gen": 0}],
        random_state=random.Random(1).getstate(),
        summaries={g.tobytes(): (float(i), {"progress": 0.5})
                   for i, g in enumerate(genomes + same_size)},
        config={"seed": 1}, elapsed=0.5)
    save_checkpoint(tmp_path, ckpt)
    with np.load(tmp_path / CHECKPOINT_NAME, allow_pickle=False) as npz:
        assert npz["population"].ndim == 1
        assert npz["population_lengths"].tolist() == [g.size for g in genomes]
        assert npz["hall_of_fame"].shape == (2, same_size[0].size)   # one size: a matrix
        assert "hall_of_fame_lengths" not in npz.files
    back = load_checkpoint(tmp_path)
    for a, b in ((back.population, ckpt.population), (back.hall_of_fame, ckpt.hall_of_fame)):
        assert [(g.tobytes(), f) for g, f in a] == [(g.tobytes(), f) for g, f in b]
    assert back.summaries == ckpt.summaries
    # Lengths that do not add up are a damaged checkpoint, in one line.
    with np.load(tmp_path / CHECKPOINT_NAME, allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    arrays["population_lengths"] = arrays["population_lengths"] + 1
    with open(tmp_path / CHECKPOINT_NAME, "wb") as f:
        np.savez(f, **arrays)
    with pytest.raises(CheckpointError, match="damaged checkpoint \\(population and its "
                                              "lengths do not match\\)"):
        load_checkpoint(tmp_path)


# -- the strategy ---------------------------------------------------------------------

def run_config(**changes):
    settings = dict(algorithm="neat", population=16, generations=6, seed=4,
                    stages=("hillside", "gen:easy:3"), stages_per_generation=1,
                    max_steps=900, workers=1, checkpoint_every=2,
                    options={"neat_node_add_prob": 0.5})
    settings.update(changes)
    return EvolutionConfig(**settings)


def without_time(rows):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def same_state(a: dict, b: dict) -> bool:
    return (set(a["arrays"]) == set(b["arrays"])
            and all(a["arrays"][k].dtype == b["arrays"][k].dtype
                    and a["arrays"][k].shape == b["arrays"][k].shape
                    and a["arrays"][k].tobytes() == b["arrays"][k].tobytes()
                    for k in a["arrays"])
            and json.dumps(a["meta"], sort_keys=True) == json.dumps(b["meta"], sort_keys=True))


def test_the_algorithm_brings_its_policy_and_refuses_any_other():
    config = EvolutionConfig(algorithm="neat")
    assert config.policy == "neat" and config.genome_size() is None
    assert config.options == {"neat_compat_threshold": 1.5, "neat_node_add_prob": 0.2,
                              "neat_conn_add_prob": 0.5, "neat_weight_power": 0.5,
                              "neat_max_stagnation": 15}
    assert EvolutionConfig().policy == "linear"
    with pytest.raises(ConfigError, match="--algorithm neat evolves its own --policy neat "
                                          "genomes, not --policy mlp"):
        EvolutionConfig(algorithm="neat", policy="mlp")
    with pytest.raises(ConfigError, match="--policy neat genomes vary in size, which "
                                          "--algorithm cmaes cannot search; accepted "
                                          "with --policy neat: --algorithm neat"):
        EvolutionConfig(algorithm="cmaes", policy="neat")
    with pytest.raises(ConfigError, match="unknown observation 'pixels'"):
        EvolutionConfig(algorithm="neat", observation="pixels")
    with pytest.raises(ConfigError, match="neat_max_stagnation must be a whole number"):
        EvolutionConfig(algorithm="neat", options={"neat_max_stagnation": 2.5})


def test_without_neat_python_the_run_says_how_to_get_it(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "neat" else real(name, *a))
    with pytest.raises(ConfigError, match=r"^--algorithm neat needs neat, one of the "
                                          r"package's dependencies, .*: install the "
                                          r"package again \(pip install -e \., or make\)$"):
        run_config()


def test_neat_python_genomes_lower_to_the_network_neat_python_runs():
    config = neat_config(run_config(observation="terrain"))
    random.seed(1)
    population = neat_python.Population(config)
    genome_config = config.genome_config
    rng = np.random.default_rng(2)
    hidden = 0
    for genome in population.population.values():
        for _ in range(6):
            genome.mutate_add_node(genome_config)
            genome.mutate_add_connection(genome_config)
            genome.mutate_delete_connection()
            genome.mutate(genome_config)
        lowered = lower(genome, genome_config)
        agent = NeatPolicy(lowered, "terrain")
        hidden += agent.n_hidden
        network = neat_python.nn.FeedForwardNetwork.create(genome, config)
        for _ in range(5):
            obs = rng.normal(size=28).astype(np.float32)
            want = network.activate(obs.astype(np.float64).tolist())
            got = agent.node_values(obs)[28 + agent.n_hidden:]
            assert got == pytest.approx(want, abs=1e-12)
    assert hidden > 20     # hidden nodes, some of them fed by others


def test_a_run_is_its_seed_and_resumes_exactly(tmp_path):
    config = run_config()
    straight = evolve(config, tmp_path / "a")
    again = evolve(config, tmp_path / "b")
    assert without_time(straight.logbook) == without_time(again.logbook)
    other = evolve(config.replace(seed=5), tmp_path / "c")
    assert without_time(other.logbook) != without_time(straight.logbook)
    evolve(config.replace(generations=3), tmp_path / "d")
    resumed = evolve(config, tmp_path / "d", resume=True)
    assert without_time(resumed.logbook) == without_time(straight.logbook)
    best = [json.loads((tmp_path / d / "best.json").read_text()) for d in ("a", "b", "d")]
    assert all((b["genome"], b["fitness"]) == (best[0]["genome"], best[0]["fitness"])
               for b in best)
    ends = [load_checkpoint(tmp_path / d) for d in ("a", "d")]
    assert same_state(ends[0].search, ends[1].search)
    assert ends[0].random_state == ends[1].random_state
    # Genomes of several sizes: the checkpoint holds them as data.
    assert len({g.size for g, _ in ends[0].population}) > 1
    assert {"species", "connections"} <= set(straight.logbook[-1])
    assert record_policy(tmp_path / "a") == "neat"


def record_policy(run_dir) -> str:
    record = load_genome_file(run_dir)
    assert isinstance(record.policy(), NeatPolicy)
    return record.policy_spec.family


def test_the_state_restores_to_the_same_state():
    config = run_config(population=12)
    random.seed(0)
    search = NEAT(config, None)
    population = search.initial()
    rng = np.random.default_rng(0)
    for _ in range(4):
        for ind in population:
            ind.fitness.values = (float(rng.normal()),)
        search.tell(population, [])
        population = search.ask(population, None)
    state = search.state()
    back = NEAT.from_state(config, None, state)
    assert same_state(back.state(), state)
    assert [g.tobytes() for g in back.ask([], None)] == [g.tobytes() for g in population]
    # Both go on alike, drawing from `random` as they do.
    for one in (search, back):
        random.seed(7)
        told = [make_individual(g) for g in population]
        for ind in told:
            ind.fitness.values = (float(ind.size),)
        one.tell(told, [])
    assert same_state(back.state(), search.state())
    assert back.state()["meta"]["generation"] == 5


def test_a_missing_or_damaged_state_is_one_line():
    config = run_config(population=6)
    with pytest.raises(CheckpointError, match="no NEAT population"):
        NEAT.from_state(config, None, None)
    random.seed(0)
    search = NEAT(config, None)
    search.initial()
    state = search.state()
    state["arrays"]["node_counts"] = state["arrays"]["node_counts"][:-1]
    with pytest.raises(CheckpointError, match=r"^the NEAT population in the checkpoint "
                                              r"is damaged \(ValueError: the genome "
                                              r"arrays do not match\)$"):
        NEAT.from_state(config, None, state)


def test_both_engines_evolve_the_same_serially_and_in_parallel(tmp_path):
    config = run_config(generations=3, population=10, max_steps=600)
    compiled = evolve(config, tmp_path / "compiled")
    threads = evolve(config.replace(workers=2), tmp_path / "threads")
    python = evolve(config.replace(engine="python", workers=2), tmp_path / "python")
    assert without_time(compiled.logbook) == without_time(threads.logbook)
    assert without_time(compiled.logbook) == without_time(python.logbook)


@pytest.mark.slow
def test_neat_improves_on_hillside_and_only_with_its_fitness(tmp_path, monkeypatch):
    config = run_config(stages=("hillside",), stages_per_generation=None,
                        max_steps=3600, population=50, generations=30, seed=0,
                        options={}, checkpoint_every=30)
    guided = evolve(config, tmp_path / "neat").logbook
    # neat-python told the same fitness for every genome: a blind search.
    told = NEAT.tell

    def blind(self, individuals, summaries):
        kept = [ind.fitness.values for ind in individuals]
        for ind in individuals:
            ind.fitness.values = (0.0,)
        told(self, individuals, summaries)
        for ind, values in zip(individuals, kept):
            ind.fitness.values = values

    monkeypatch.setattr(NEAT, "tell", blind)
    unguided = evolve(config, tmp_path / "blind").logbook
    assert guided[0] == {**unguided[0], "seconds": guided[0]["seconds"]}
    late = lambda log, column: np.mean([r[column] for r in log[-5:]])
    assert guided[-1]["max"] > guided[0]["max"] + 15.0
    assert late(guided, "mean") > guided[0]["mean"] + 1.5
    assert guided[-1]["max"] > unguided[-1]["max"] + 10.0
    assert late(guided, "mean") > late(unguided, "mean") + 1.5


def test_the_command_line_runs_neat_and_names_a_wrong_policy(tmp_path, capsys):
    out = tmp_path / "cli"
    argv = ["--algorithm", "neat", "--population", "8", "--generations", "2",
            "--max-steps", "300", "--workers", "1", "--quiet", "--stage", "hillside",
            "--neat-compat-threshold", "2.0", "--no-plots", "--out", str(out)]
    assert run.main(argv) == 0
    settings = json.loads((out / "config.json").read_text())["settings"]
    assert settings["policy"] == "neat" and settings["algorithm"] == "neat"
    assert settings["options"]["neat_compat_threshold"] == 2.0
    assert record_policy(out) == "neat"
    assert run.main([*argv, "--generations", "3", "--resume", str(out)]) == 0
    capsys.readouterr()
    for wrong, says in ((["--algorithm", "neat", "--policy", "mlp"],
                         "--algorithm neat evolves its own --policy neat genomes"),
                        (["--policy", "neat"], "--algorithm ga cannot search")):
        assert run.main([*wrong, "--generations", "1", "--out",
                         str(tmp_path / "x")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and says in err[0]
    assert not (tmp_path / "x").exists()

"""NEAT (Stanley and Miikkulainen 2002, "Evolving Neural Networks through
Augmenting Topologies") with neat-python: networks that start as inputs
wired straight to the 8 action nodes and grow hidden nodes and
connections, with speciation protecting new structure while its weights
settle.

neat-python does the search with its own classes (DefaultGenome,
DefaultReproduction, DefaultSpeciesSet, DefaultStagnation, Population):
`ask` lowers its population, in the order of the genome keys, to `neat`
policy genomes (`speednik.neat_genome`), and `tell` gives each genome its
fitness and runs one generation of the Population (stagnation,
reproduction, speciation). The configuration is neat-python's usual one,
with the few numbers a user tunes as settings of the strategy
(`neat_compat_threshold`, ...); response is fixed at 1, aggregation at
sum, and every node squashes with soft_tanh, so the lowered network is the
one neat-python describes.

neat-python draws from Python's `random` module, which the run seeds and
checkpoints: with the strategy's state, the whole population as data
(genes with their innovation numbers, fitness, species and their
stagnation records, the counters of genomes, nodes, species and
innovations, the generation), a resumed run goes on exactly as a straight
one. No pickle is ever written or read.
"""
from __future__ import annotations

import tempfile
from itertools import count
from pathlib import Path
from typing import Any

import neat
import numpy as np
from neat.graphs import required_for_output
from neat.species import Species

from evolution.individual import make_individual
from evolution.search_state import CheckpointError
from evolution.strategies.base import SearchSettings, Strategy
from runners.neat_net import soft_tanh
from speednik import neat_genome
from speednik.actions import NUM_ACTIONS


# neat-python's configuration file; {names} are filled in from the run.
CONFIG_TEMPLATE = """\
[NEAT]
fitness_criterion = max
fitness_threshold = 0.0
no_fitness_termination = True
pop_size = {population}
reset_on_extinction = True

[DefaultGenome]
num_inputs = {inputs}
num_outputs = {outputs}
num_hidden = 0
feed_forward = True
initial_connection = full_direct
compatibility_disjoint_coefficient = 1.0
compatibility_weight_coefficient = 0.5
conn_add_prob = {conn_prob}
conn_delete_prob = {conn_prob}
node_add_prob = {node_prob}
node_delete_prob = {node_prob}
single_structural_mutation = False
structural_mutation_surer = default
activation_default = soft_tanh
activation_mutate_rate = 0.0
activation_options = soft_tanh
aggregation_default = sum
aggregation_mutate_rate = 0.0
aggregation_options = sum
bias_init_mean = 0.0
bias_init_stdev = 1.0
bias_max_value = 30.0
bias_min_value = -30.0
bias_mutate_power = {power}
bias_mutate_rate = 0.7
bias_replace_rate = 0.1
response_init_mean = 1.0
response_init_stdev = 0.0
response_max_value = 1.0
response_min_value = 1.0
response_mutate_power = 0.0
response_mutate_rate = 0.0
response_replace_rate = 0.0
weight_init_mean = 0.0
weight_init_stdev = 1.0
weight_max_value = 30.0
weight_min_value = -30.0
weight_mutate_power = {power}
weight_mutate_rate = 0.8
weight_replace_rate = 0.1
enabled_default = True
enabled_mutate_rate = 0.01

[DefaultSpeciesSet]
compatibility_threshold = {threshold}

[DefaultStagnation]
species_fitness_func = max
max_stagnation = {stagnation}
species_elitism = 2

[DefaultReproduction]
# One elite and one genome at least per species: however many species
# there are, they fit in the population.
elitism = 1
survival_threshold = 0.2
min_species_size = 1
"""


def config_text(config: SearchSettings, inputs: int) -> str:
    """neat-python's configuration for a run of `config`."""
    o = config.options
    return CONFIG_TEMPLATE.format(
        population=config.population, inputs=inputs, outputs=NUM_ACTIONS,
        conn_prob=repr(float(o["neat_conn_add_prob"])),
        node_prob=repr(float(o["neat_node_add_prob"])),
        power=repr(float(o["neat_weight_power"])),
        threshold=repr(float(o["neat_compat_threshold"])),
        stagnation=int(o["neat_max_stagnation"]))


def neat_config(config: SearchSettings) -> neat.Config:
    inputs = config.policy_spec().observation_size()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "neat.cfg"
        path.write_text(config_text(config, inputs), encoding="utf-8")
        out = neat.Config(neat.DefaultGenome, neat.DefaultReproduction,
                          neat.DefaultSpeciesSet, neat.DefaultStagnation, str(path))
    # So that neat-python's own networks (neat.nn) can run these genomes too.
    out.genome_config.add_activation("soft_tanh", soft_tanh)
    return out


def lower(genome: neat.DefaultGenome, genome_config) -> np.ndarray:
    """The `neat` policy genome of a neat-python genome: its enabled
    connections and the hidden nodes they need to reach an action, hidden
    nodes in dependency order (the lowest key first among the ready), each
    node's connections by source."""
    inputs = genome_config.input_keys          # -1, -2, ...: value 0, 1, ...
    outputs = genome_config.output_keys        # 0 .. 7: the actions
    n = len(inputs)
    enabled = [cg.key for cg in genome.connections.values() if cg.enabled]
    required = required_for_output(inputs, outputs, enabled)
    sources: dict[int, list[int]] = {k: [] for k in required}
    for source, target in enabled:
        if target in required and (source in required or source < 0):
            sources[target].append(source)
    hidden = sorted(k for k in required if k not in outputs)
    order: list[int] = []
    done = set(inputs)
    while len(order) < len(hidden):
        ready = [k for k in hidden if k not in done and all(s in done for s in sources[k])]
        if not ready:
            raise ValueError(f"genome {genome.key}: its hidden nodes form a cycle")
        order.append(ready[0])
        done.add(ready[0])
    index = {k: -k - 1 for k in inputs}
    index.update({k: n + i for i, k in enumerate(order)})
    index.update({k: n + len(order) + k for k in outputs})
    nodes = order + list(outputs)
    links = []
    for target in nodes:
        for source in sorted(sources[target], key=index.__getitem__):
            if index[source] >= index[target]:
                raise ValueError(f"genome {genome.key}: action node {source} feeds "
                                 f"node {target}")
            links.append((index[source], index[target],
                          genome.connections[source, target].weight))
    return neat_genome.encode(
        n, [genome.nodes[k].bias for k in nodes],
        [neat_genome.ACTIVATIONS.index(genome.nodes[k].activation) for k in nodes],
        links, len(order))


class NEAT(Strategy):
    def __init__(self, config: SearchSettings, size: int | None) -> None:
        super().__init__(config, size)
        self.neat_config = neat_config(config)
        self.population: neat.Population | None = None
        self.order: list[int] = []
        self._columns: dict[str, float] = {}
        # The scored generation's species sizes, by species key (not in
        # the state: neat-python has speciated the next generation by
        # then, and the checkpoint keeps that one).
        self._sizes: dict[str, int] = {}

    # -- the search

    def initial(self) -> list:
        # Here, not in __init__: the run seeds `random` just before.
        self.population = neat.Population(self.neat_config)
        return self._lowered()

    def ask(self, population: list, hall_of_fame) -> list:
        return self._lowered()

    def _lowered(self) -> list:
        self.order = sorted(self.population.population)
        genomes = self.population.population
        return [make_individual(lower(genomes[k], self.neat_config.genome_config))
                for k in self.order]

    def tell(self, individuals: list, summaries: list[dict] | None = None) -> None:
        genomes = self.population.population
        for key, ind in zip(self.order, individuals, strict=True):
            genomes[key].fitness = float(ind.fitness.values[0])
        self._columns = {
            "species": len(self.population.species.species),
            "connections": float(np.mean([g.size()[1] for g in genomes.values()])),
        }
        species = self.population.species.species
        self._sizes = {str(k): len(species[k].members) for k in sorted(species)}
        self.population.run(lambda genomes, config: None, 1)
        # Who bred whom matters to nothing that follows; keeping only the
        # living genomes' parents keeps it (and the state) from growing.
        ancestors = self.population.reproduction.ancestors
        self.population.reproduction.ancestors = {
            k: ancestors[k] for k in self.population.population if k in ancestors}

    def columns(self) -> dict[str, float]:
        """The scored generation's species and mean enabled connections."""
        return dict(self._columns)

    def numbers(self) -> dict[str, dict[str, int]]:
        """The size of each species of the scored generation, by species
        key (the oldest species first); none after a resume until the
        next generation is told."""
        return {"species_sizes": dict(self._sizes)} if self._sizes else {}

    # -- its state, as data

    def state(self) -> dict[str, Any]:
        pop = self.population
        members = list(pop.population.values())
        best = pop.best_genome
        best_in_population = best is None or pop.population.get(best.key) is best
        records = members + ([] if best_in_population else [best])
        arrays, names = _genome_arrays(records)
        tracker = pop.reproduction.innovation_tracker
        genome_config = self.neat_config.genome_config
        species = pop.species
        meta = {
            "generation": pop.generation,
            "in_population": len(members),
            "best": None if best is None else {"key": best.key,
                                               "in_population": best_in_population},
            "next_genome_key": _peek(pop.reproduction, "genome_indexer"),
            "next_species_key": _peek(species, "indexer"),
            "next_node_key": (None if genome_config.node_indexer is None
                              else _peek(genome_config, "node_indexer")),
            "innovations": tracker.global_counter,
            "generation_innovations": [[i, o, kind, number] for (i, o, kind), number
                                       in tracker.generation_innovations.items()],
            "species": [{
                "key": s.key, "created": s.created, "last_improved": s.last_improved,
                "representative": s.representative.key, "members": list(s.members),
                "fitness": s.fitness, "adjusted_fitness": s.adjusted_fitness,
                "fitness_history": list(s.fitness_history),
            } for s in species.species.values()],
            "genome_to_species": [[g, s] for g, s in species.genome_to_species.items()],
            "ancestors": [[k, list(v)] for k, v in pop.reproduction.ancestors.items()],
            "order": list(self.order),
            "columns": dict(self._columns),
            **names,
        }
        return {"arrays": arrays, "meta": meta}

    @classmethod
    def from_state(cls, config: SearchSettings, size: int | None,
                   state: dict | None) -> NEAT:
        if state is None:
            raise CheckpointError("the checkpoint holds no NEAT population")
        search = cls(config, size)
        try:
            search._restore(state["arrays"], state["meta"])
        except (KeyError, IndexError, TypeError, ValueError, AssertionError) as exc:
            raise CheckpointError(f"the NEAT population in the checkpoint is damaged "
                                  f"({type(exc).__name__}: {exc})") from None
        return search

    def _restore(self, arrays: dict, meta: dict) -> None:
        cfg = self.neat_config
        records = _genomes(arrays, meta, cfg)
        population = {g.key: g for g in records[:meta["in_population"]]}
        species_set = cfg.species_set_type(cfg.species_set_config, None)
        species_set.indexer = count(meta["next_species_key"])
        for data in meta["species"]:
            s = Species(data["key"], data["created"])
            s.last_improved = data["last_improved"]
            s.update(population[data["representative"]],
                     {k: population[k] for k in data["members"]})
            s.fitness = data["fitness"]
            s.adjusted_fitness = data["adjusted_fitness"]
            s.fitness_history = list(data["fitness_history"])
            species_set.species[s.key] = s
        species_set.genome_to_species = {g: s for g, s in meta["genome_to_species"]}
        pop = neat.Population(cfg, (population, species_set, meta["generation"]))
        pop.reproduction.genome_indexer = count(meta["next_genome_key"])
        pop.reproduction.ancestors = {k: tuple(v) for k, v in meta["ancestors"]}
        tracker = pop.reproduction.innovation_tracker
        tracker.global_counter = meta["innovations"]
        tracker.generation_innovations = {(i, o, kind): number for i, o, kind, number
                                          in meta["generation_innovations"]}
        cfg.genome_config.innovation_tracker = tracker
        cfg.genome_config.node_indexer = (None if meta["next_node_key"] is None
                                          else count(meta["next_node_key"]))
        best = meta["best"]
        if best is not None:
            pop.best_genome = (population[best["key"]] if best["in_population"]
                               else records[-1])
        self.population = pop
        self.order = list(meta["order"])
        self._columns = dict(meta["columns"])


def _peek(owner: Any, name: str) -> int:
    """The next number of `owner.name`, an itertools.count, which goes on
    from there as before."""
    value = next(getattr(owner, name))
    setattr(owner, name, count(value))
    return value


def _genome_arrays(genomes: list) -> tuple[dict[str, np.ndarray], dict[str, list]]:
    """neat-python genomes as arrays, genes in each genome's own order (the
    order neat-python draws from), and the activation and aggregation
    names their codes index."""
    activations: list[str] = []
    aggregations: list[str] = []

    def code(names: list[str], name: str) -> int:
        if name not in names:
            names.append(name)
        return names.index(name)

    nodes = [(k, g) for genome in genomes for k, g in genome.nodes.items()]
    links = [c for genome in genomes for c in genome.connections.values()]
    arrays = {
        "genome_keys": np.array([g.key for g in genomes], dtype=np.int64),
        "genome_scored": np.array([g.fitness is not None for g in genomes]),
        "genome_fitness": np.array([np.nan if g.fitness is None else g.fitness
                                    for g in genomes], dtype=np.float64),
        "node_counts": np.array([len(g.nodes) for g in genomes], dtype=np.int64),
        "connection_counts": np.array([len(g.connections) for g in genomes],
                                      dtype=np.int64),
        "node_keys": np.array([k for k, _ in nodes], dtype=np.int64),
        "node_values": np.array([[n.bias, n.response, n.time_constant] for _, n in nodes],
                                dtype=np.float64).reshape(-1, 3),
        "node_codes": np.array([[code(activations, n.activation),
                                 code(aggregations, n.aggregation)] for _, n in nodes],
                               dtype=np.int64).reshape(-1, 2),
        "connection_keys": np.array([[c.key[0], c.key[1], c.innovation] for c in links],
                                    dtype=np.int64).reshape(-1, 3),
        "connection_weights": np.array([c.weight for c in links], dtype=np.float64),
        "connection_enabled": np.array([c.enabled for c in links], dtype=np.bool_),
    }
    return arrays, {"activations": activations, "aggregations": aggregations}


def _genomes(arrays: dict, meta: dict, cfg: neat.Config) -> list:
    """The neat-python genomes `_genome_arrays` gave, genes in their order."""
    genome_config = cfg.genome_config
    keys = arrays["genome_keys"].tolist()
    node_counts = arrays["node_counts"].tolist()
    link_counts = arrays["connection_counts"].tolist()
    node_keys = arrays["node_keys"].tolist()
    node_values = arrays["node_values"].tolist()
    node_codes = arrays["node_codes"].tolist()
    link_keys = arrays["connection_keys"].tolist()
    weights = arrays["connection_weights"].tolist()
    enabled = arrays["connection_enabled"].tolist()
    scored = arrays["genome_scored"].tolist()
    fitness = arrays["genome_fitness"].tolist()
    if not (len(keys) == len(node_counts) == len(link_counts) == len(scored)
            == len(fitness)) or sum(node_counts) != len(node_keys) \
            or sum(link_counts) != len(link_keys):
        raise ValueError("the genome arrays do not match")
    activations, aggregations = meta["activations"], meta["aggregations"]
    out = []
    at_node = at_link = 0
    for i, key in enumerate(keys):
        genome = cfg.genome_type(key)
        for j in range(at_node, at_node + node_counts[i]):
            node = genome_config.node_gene_type(node_keys[j])
            node.bias, node.response, node.time_constant = node_values[j]
            node.activation = activations[node_codes[j][0]]
            node.aggregation = aggregations[node_codes[j][1]]
            genome.nodes[node.key] = node
        for j in range(at_link, at_link + link_counts[i]):
            source, target, innovation = link_keys[j]
            link = genome_config.connection_gene_type((source, target),
                                                      innovation=innovation)
            link.weight = weights[j]
            link.enabled = bool(enabled[j])
            genome.connections[link.key] = link
        genome.fitness = fitness[i] if scored[i] else None
        at_node += node_counts[i]
        at_link += link_counts[i]
        out.append(genome)
    return out

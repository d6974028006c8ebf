"""The search methods by name, and the settings each declares: the
registry the run, the command line, the checkpoint and tuning ask; none
of them names a method.

To add one: a module in this package with a `Strategy` subclass
(`evolution.strategies.base`), and one `STRATEGIES` line below (the entry
names its class by "module:Class", so the command line lists the
strategies without importing them).
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any, Callable

from evolution.strategies.base import SearchSettings, Strategy

__all__ = ["SearchSettings", "Strategy", "StrategySetting", "Tunable", "Panel", "MethodView",
           "StrategyEntry",
           "STRATEGIES", "SIGMA_MAX", "all_settings", "readers", "list_strategies",
           "get_strategy"]


@dataclass(frozen=True)
class StrategySetting:
    """A number only one strategy reads: its option on the command line
    is `--` and the name with dashes (`es_lr`: `--es-lr`), and a run keeps
    it in `EvolutionConfig.options`."""

    name: str
    default: float
    minimum: float
    maximum: float
    help: str
    whole: bool = False     # a whole number, not any number

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def check(self, value: Any) -> float | int:
        kind = "a whole number" if self.whole else "a number"
        ok = isinstance(value, int) if self.whole else isinstance(value, (int, float))
        if (isinstance(value, bool) or not ok or value != value
                or not self.minimum <= value <= self.maximum):
            raise ValueError(f"{self.name} must be {kind} from {self.minimum:g} to "
                             f"{self.maximum:g}, got {value!r}")
        return int(value) if self.whole else float(value)


@dataclass(frozen=True)
class Tunable:
    """One dimension of a strategy's search space for `evolution.tune`:
    a setting of `evolution.run` (its dest name: `es_lr`, `init_sigma`)
    and the range it is drawn from (on a log scale when `log`)."""

    name: str
    low: float
    high: float
    log: bool = False
    whole: bool = False

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


# Gaussian standard deviations beyond this only throw weights about; the
# observations are of order 1 and a policy compares weighted sums of them.
SIGMA_MAX = 1000.0

# The spread of the first genomes, read by both the GA and CMA-ES.
INIT_SIGMA = StrategySetting(
    "init_sigma", 1.0, 1e-6, SIGMA_MAX,
    "standard deviation of the first genomes' weights (CMA-ES: its first step size)")


def _ga_limits(options: dict, config: SearchSettings) -> str | None:
    """The GA's settings against the run's: a tournament from the
    population, an elite from the hall of fame."""
    if options["tournament"] > config.population:
        return (f"--tournament {options['tournament']} cannot exceed the population "
                f"({config.population})")
    if options["elite"] >= config.population:
        return (f"--elite {options['elite']} must be smaller than the population "
                f"({config.population})")
    if options["elite"] > config.hall_of_fame:
        return (f"--elite {options['elite']} needs --hall-of-fame {options['elite']} or "
                f"more: the elite is the hall of fame's best (it holds "
                f"{config.hall_of_fame})")
    return None


def _ppo_limits(options: dict, config: SearchSettings) -> str | None:
    """PPO trains on the compiled vector environment, which offers the
    compiled observations only."""
    from speednik.engine.observation import OBSERVATION_KINDS

    observation = getattr(config, "observation", None)
    if observation is not None and observation not in OBSERVATION_KINDS:
        return (f"--algorithm ppo trains on the compiled engine, which has no "
                f"--observation {observation}; accepted: {', '.join(OBSERVATION_KINDS)}")
    return None


def _gp_limits(options: dict, config: SearchSettings) -> str | None:
    """GP's settings against the run's and each other: a tournament from
    the population, an elite from the hall of fame, first trees within
    the height limit."""
    if options["gp_tournament"] > config.population:
        return (f"--gp-tournament {options['gp_tournament']} cannot exceed the population "
                f"({config.population})")
    if options["gp_elite"] >= config.population:
        return (f"--gp-elite {options['gp_elite']} must be smaller than the population "
                f"({config.population})")
    if options["gp_elite"] > config.hall_of_fame:
        return (f"--gp-elite {options['gp_elite']} needs --hall-of-fame "
                f"{options['gp_elite']} or more: the elite is the hall of fame's best "
                f"(it holds {config.hall_of_fame})")
    if not options["gp_init_min"] <= options["gp_init_max"] <= options["gp_max_height"]:
        return (f"the first trees' depths must satisfy --gp-init-min "
                f"({options['gp_init_min']}) <= --gp-init-max ({options['gp_init_max']}) "
                f"<= --gp-max-height ({options['gp_max_height']})")
    return None


@dataclass(frozen=True)
class Panel:
    """One of a method's own numbers that the dashboard draws against
    generations: a number of its method.jsonl (`Strategy.numbers`) or,
    with `logbook`, a logbook column of its own (`Strategy.columns`)."""

    name: str
    label: str
    log: bool = False      # on a log scale
    logbook: bool = False


# A run's files a method's view may be drawn from (the names the run
# writes them under: evolution.loop.checkpoint, runners.genome_file,
# runners.archive_file).
CHECKPOINT_FILE = "checkpoint.npz"
BEST_FILE = "best.json"
ARCHIVE_FILE = "archive.npz"


@dataclass(frozen=True)
class MethodView:
    """What the dashboard shows of a method's own state besides its
    panels, and the run's files it is drawn from (drawn again when one of
    them changes). `kind` is one the dashboard draws ("archive": a
    MAP-Elites-style archive; "network": the best network and, at the
    last checkpoint, its species; "search-distribution": the checkpoint's
    search distribution, its mean or its covariance's axes; "program": the
    best program as code), or "module:function", a function of (run
    directory, settings, logbook) returning the view's HTML."""

    kind: str
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class StrategyEntry:
    name: str
    summary: str
    target: str     # "module:Class"
    settings: tuple[StrategySetting, ...] = ()
    # The population must be a multiple of this (antithetic pairs: 2).
    population_multiple: int = 1
    # Modules it imports that only an extra of the package installs, and
    # that extra's name ("": the package's own dependencies install them).
    needs: tuple[str, ...] = ()
    extra: str = ""
    # The one policy family it evolves, whose genomes it encodes itself
    # (NEAT's networks); None: any family whose genomes are of one size.
    policy: str | None = None
    # A learner (PPO): one policy a generation, trained on episodes it
    # plays itself (`--population` of them at once), not a population of
    # genomes.
    learner: bool = False
    # A search around a mean (CMA-ES, OpenAI-ES), which can start from a
    # given genome instead of all zeros (`--imitation` gives one).
    has_mean: bool = False
    # What `evolution.tune` searches, with the same budget for every
    # strategy: the settings that most change what it finds.
    tuning: tuple[Tunable, ...] = ()
    # Its own numbers, as the dashboard draws them.
    panels: tuple[Panel, ...] = ()
    # Its own state at the last checkpoint, as the dashboard shows it
    # (None: the population's fitness is all it has).
    view: MethodView | None = None
    # Its settings checked against the run's (population, hall of fame):
    # a one-line reason they do not fit, or None.
    limits: Callable[[dict, SearchSettings], str | None] | None = None

    def missing(self) -> str | None:
        """A one-line reason it cannot run here, or None."""
        from importlib.util import find_spec

        absent = [m for m in self.needs if find_spec(m) is None]
        if not absent:
            return None
        if not self.extra:
            return (f"--algorithm {self.name} needs {', '.join(absent)}, one of the "
                    f"package's dependencies, which this environment lacks: install "
                    f"the package again (pip install -e ., or make)")
        return (f"--algorithm {self.name} needs {', '.join(absent)}, which the "
                f"'{self.extra}' extra installs: pip install 'speednik-evolve[{self.extra}]' "
                f"(make installs it)")

    def load(self) -> type[Strategy]:
        module, _, cls = self.target.partition(":")
        return getattr(import_module(module), cls)


STRATEGIES: dict[str, StrategyEntry] = {
    "ga": StrategyEntry(
        "ga", "tournament selection, blend crossover, Gaussian mutation, elitism",
        "evolution.strategies.ga:GeneticAlgorithm",
        settings=(
            StrategySetting("cx_prob", 0.5, 0.0, 1.0,
                            "probability that a pair of parents is blended"),
            StrategySetting("mut_prob", 0.4, 0.0, 1.0,
                            "probability that an offspring is mutated"),
            StrategySetting("mut_sigma", 0.3, 1e-6, SIGMA_MAX,
                            "standard deviation of the Gaussian mutation"),
            StrategySetting("mut_indpb", 0.15, 0.0, 1.0,
                            "probability that each weight of a mutated genome moves"),
            StrategySetting("tournament", 3, 1, 100000,
                            "tournament size of the selection", whole=True),
            StrategySetting("elite", 2, 0, 100000,
                            "best genomes ever found (the hall of fame's first) copied "
                            "unchanged into each generation", whole=True),
            INIT_SIGMA,
        ),
        limits=_ga_limits,
        tuning=(Tunable("mut_sigma", 0.02, 1.0, log=True), Tunable("mut_prob", 0.1, 0.9),
                Tunable("mut_indpb", 0.02, 0.5, log=True), Tunable("cx_prob", 0.0, 0.9),
                Tunable("tournament", 2, 7, whole=True),
                Tunable("init_sigma", 0.05, 2.0, log=True))),
    "cmaes": StrategyEntry(
        "cmaes", "DEAP's CMA-ES: --population samples a generation, --init-sigma "
                 "is its first step size", "evolution.strategies.cmaes:CMAES",
        has_mean=True,
        settings=(INIT_SIGMA,
                  StrategySetting("cma_eigen_every", 1, 1, 10000,
                                  "updates between decompositions of the covariance "
                                  "matrix (1: after every update, as DEAP does; more: "
                                  "faster for large genomes)", whole=True),
                  StrategySetting("cma_diagonal", 0, 0, 1,
                                  "1: keep the covariance diagonal (sep-CMA-ES), which "
                                  "learns each weight's spread within a run; 0: a full "
                                  "covariance", whole=True),
                  StrategySetting("cma_validate_mean", 0, 0, 1,
                                  "1: play the search's mean on the validation stages "
                                  "too, beside the hall of fame (the mean averages out "
                                  "the noise every sample carries); 0: the hall of "
                                  "fame only", whole=True)),
        panels=(Panel("sigma", "step size sigma", log=True),
                Panel("condition", "condition number of C", log=True)),
        view=MethodView("search-distribution", files=(CHECKPOINT_FILE,)),
        tuning=(Tunable("init_sigma", 0.05, 2.0, log=True),
                Tunable("population", 16, 160, log=True, whole=True))),
    "openai-es": StrategyEntry(
        "openai-es", "OpenAI's evolution strategy (Salimans et al. 2017): antithetic "
                     "Gaussian samples around a mean, centred-rank fitness shaping, "
                     "Adam with weight decay; best.json holds the mean",
        "evolution.strategies.openai_es:OpenAIES", has_mean=True,
        # The noise and weight decay are rounded from what evolution.tune
        # found on the generalisation task at 150M frames
        # (benchmarks/tuning.py; it found es_lr 0.00116). Adam moves every
        # weight by about es_lr a generation, so what counts is es_lr
        # against es_sigma: at a fiftieth (0.001) the mean of a run of 1M
        # or 3M frames on hillside had barely moved from standing still;
        # at a fifth (0.01) or more it walked, for some seeds within 10
        # generations, to weights many sigmas long, where every sample
        # plays alike and nothing is left to follow (so did the earlier
        # 0.1, 0.1, 0.005). A tenth improved the mean at 3M and 10M
        # frames for every seed tried (docs/openai_es_reference.md).
        settings=(
            StrategySetting("es_sigma", 0.05, 1e-6, 100.0, "noise standard deviation"),
            StrategySetting("es_lr", 0.005, 1e-6, 10.0,
                            "Adam's learning rate: about how far each weight of the mean "
                            "moves a generation"),
            StrategySetting("es_weight_decay", 0.003, 0.0, 1.0,
                            "L2 weight decay coefficient"),
        ),
        population_multiple=2,
        panels=(Panel("learning_rate", "learning rate now (bias-corrected)"),
                Panel("noise_sigma", "noise sigma"),
                Panel("mean_norm", "|theta|, the mean's norm"),
                Panel("first_moment_norm", "|m|, Adam's first moment's norm")),
        view=MethodView("search-distribution", files=(CHECKPOINT_FILE,)),
        tuning=(Tunable("es_sigma", 0.005, 1.0, log=True), Tunable("es_lr", 0.001, 0.3, log=True),
                Tunable("es_weight_decay", 1e-4, 0.05, log=True))),
    "map-elites": StrategyEntry(
        "map-elites", "MAP-Elites with pyribs (the 'qd' extra): a grid archive over "
                      "mean speed and rings, Iso+LineDD variation of its elites; "
                      "QD-score and coverage are logged",
        "evolution.strategies.map_elites:MapElites", needs=("ribs",), extra="qd",
        settings=(
            StrategySetting("qd_bins", 16, 2, 256, "archive cells per descriptor",
                            whole=True),
            StrategySetting("qd_iso_sigma", 0.1, 1e-6, 100.0,
                            "isotropic mutation of an elite"),
            StrategySetting("qd_line_sigma", 0.2, 0.0, 100.0,
                            "step along the line to another elite"),
        ),
        panels=(Panel("qd_score", "QD-score", logbook=True),
                Panel("coverage", "coverage", logbook=True)),
        view=MethodView("archive", files=(ARCHIVE_FILE,)),
        tuning=(Tunable("qd_iso_sigma", 0.005, 1.0, log=True),
                Tunable("qd_line_sigma", 0.01, 1.0, log=True),
                Tunable("qd_bins", 4, 32, whole=True))),
    "neat": StrategyEntry(
        "neat", "NEAT with neat-python: networks grown from inputs wired to the "
                "actions, speciated, bred within species; evolves --policy neat "
                "(the default with it)",
        "evolution.strategies.neat_strategy:NEAT", policy="neat", needs=("neat",),
        settings=(
            # neat-python's examples use 3.0 on networks of a few genes;
            # distances are means over genes, and on networks of ~100
            # connections 1.5 gives several species, 3.0 one.
            StrategySetting("neat_compat_threshold", 1.5, 0.01, 1000.0,
                            "genetic distance within which genomes share a species"),
            StrategySetting("neat_node_add_prob", 0.2, 0.0, 1.0,
                            "probability that a child gains a node (and that it "
                            "loses one)"),
            StrategySetting("neat_conn_add_prob", 0.5, 0.0, 1.0,
                            "probability that a child gains a connection (and that "
                            "it loses one)"),
            StrategySetting("neat_weight_power", 0.5, 1e-6, 100.0,
                            "standard deviation of a weight's or bias's mutation"),
            StrategySetting("neat_max_stagnation", 15, 1, 100000,
                            "generations a species may go without improving before "
                            "it is dropped (the best two never are)", whole=True),
        ),
        panels=(Panel("species", "species", logbook=True),
                Panel("connections", "mean enabled connections", logbook=True)),
        view=MethodView("network", files=(CHECKPOINT_FILE, BEST_FILE)),
        tuning=(Tunable("neat_compat_threshold", 0.3, 4.0, log=True),
                Tunable("neat_node_add_prob", 0.02, 0.5, log=True),
                Tunable("neat_conn_add_prob", 0.05, 0.9, log=True),
                Tunable("neat_weight_power", 0.05, 2.0, log=True))),
    "ppo": StrategyEntry(
        "ppo", "Stable-Baselines3's PPO (the 'rl' extra): a learner; each generation "
               "is one update on --population episodes played at once by the "
               "compiled engine, --ppo-steps decisions each; evolves --policy mlp "
               "(its actor), whose genome best.json holds",
        "evolution.strategies.ppo:PPO", policy="mlp", needs=("stable_baselines3", "torch"),
        extra="rl", learner=True,
        # SB3's defaults for PPO, but for the rollout length (its 2048
        # decisions an episode would make a generation of 64 episodes 0.5M
        # decisions), the passes (its 10 make the update, most of the time
        # already, 2.5 times longer) and the minibatch (Procgen's PPO
        # baseline's 2048 where SB3 has 64: at 256 episodes at once it
        # trained 1.3 times faster than 512, benchmarks/bench_ppo.py).
        settings=(
            StrategySetting("ppo_steps", 128, 1, 100000,
                            "decisions each episode plays per update (SB3's n_steps)",
                            whole=True),
            StrategySetting("ppo_minibatch", 2048, 1, 10000000,
                            "decisions per gradient step (SB3's batch_size)", whole=True),
            StrategySetting("ppo_epochs", 4, 1, 1000,
                            "passes over an update's decisions (SB3's n_epochs)",
                            whole=True),
            StrategySetting("ppo_lr", 3e-4, 1e-8, 1.0, "Adam's learning rate"),
            StrategySetting("ppo_gamma", 0.99, 0.0, 1.0, "discount factor"),
            StrategySetting("ppo_gae_lambda", 0.95, 0.0, 1.0,
                            "GAE's bias-variance trade-off"),
            StrategySetting("ppo_clip", 0.2, 1e-6, 10.0, "clipping range of the ratio"),
            StrategySetting("ppo_ent_coef", 0.01, 0.0, 10.0,
                            "entropy bonus in the loss (exploration)"),
            StrategySetting("ppo_vf_coef", 0.5, 0.0, 100.0, "value loss coefficient"),
            StrategySetting("ppo_max_grad_norm", 0.5, 1e-6, 1000.0,
                            "gradient norm clipping"),
        ),
        limits=_ppo_limits,
        panels=(Panel("entropy_loss", "entropy loss (minus the entropy)"),
                Panel("value_loss", "value loss", log=True),
                Panel("approx_kl", "approximate KL of an update"),
                Panel("clip_fraction", "clip fraction"),
                Panel("explained_variance", "explained variance of the value"),
                Panel("learning_rate", "learning rate")),
        tuning=(Tunable("ppo_lr", 3e-5, 3e-3, log=True),
                Tunable("ppo_ent_coef", 1e-4, 0.05, log=True),
                Tunable("ppo_gamma", 0.95, 0.999),
                Tunable("ppo_steps", 32, 512, log=True, whole=True))),
    "gp": StrategyEntry(
        "gp", "genetic programming with DEAP: typed program trees over the "
              "observation's named values choosing an action, one-point crossover, "
              "subtree and point mutation, double tournament against bloat; evolves "
              "--policy gp (the default with it)",
        "evolution.strategies.gp_strategy:GeneticProgramming", policy="gp",
        settings=(
            StrategySetting("gp_cx_prob", 0.5, 0.0, 1.0,
                            "probability that a pair of parents swaps subtrees "
                            "(one_point_crossover)"),
            StrategySetting("gp_mut_prob", 0.2, 0.0, 1.0,
                            "probability that an offspring has a subtree replaced by a "
                            "new one (mutUniform)"),
            StrategySetting("gp_point_prob", 0.1, 0.0, 1.0,
                            "probability that an offspring has one node replaced by "
                            "another of its kind, or a constant drawn again"),
            StrategySetting("gp_tournament", 5, 1, 100000,
                            "programs in each fitness tournament", whole=True),
            StrategySetting("gp_parsimony_size", 1.4, 1.0, 2.0,
                            "size tournament of the double tournament: the smaller of "
                            "two winners goes on with probability this / 2 (1: size "
                            "plays no part)"),
            StrategySetting("gp_max_height", 8, 1, 90,
                            "deepest tree a crossover or mutation may make (a leaf "
                            "alone has depth 0)", whole=True),
            StrategySetting("gp_init_min", 1, 0, 90,
                            "least depth of the first trees (ramped half-and-half)",
                            whole=True),
            StrategySetting("gp_init_max", 4, 0, 90,
                            "most depth of the first trees", whole=True),
            StrategySetting("gp_elite", 1, 0, 100000,
                            "best programs ever found (the hall of fame's first) copied "
                            "unchanged into each generation", whole=True),
        ),
        limits=_gp_limits,
        panels=(Panel("mean_nodes", "mean nodes of the programs"),
                Panel("best_nodes", "nodes of the generation's best program"),
                Panel("mean_depth", "mean depth of the programs"),
                Panel("max_depth", "deepest program")),
        view=MethodView("program", files=(BEST_FILE,)),
        tuning=(Tunable("gp_cx_prob", 0.1, 0.9), Tunable("gp_mut_prob", 0.05, 0.6),
                Tunable("gp_point_prob", 0.0, 0.5), Tunable("gp_tournament", 2, 7, whole=True),
                Tunable("gp_parsimony_size", 1.0, 2.0),
                Tunable("gp_max_height", 4, 12, whole=True))),
}


def all_settings() -> dict[str, tuple[tuple[StrategyEntry, ...], StrategySetting]]:
    """Every strategy's own settings by name, with the strategies that
    read each (the spread of the first genomes is read by two)."""
    out: dict[str, tuple[tuple[StrategyEntry, ...], StrategySetting]] = {}
    for entry in STRATEGIES.values():
        for s in entry.settings:
            held = out.get(s.name, ((), s))[0]
            out[s.name] = (held + (entry,), s)
    return out


def readers(name: str) -> str:
    """"--algorithm ga, cmaes": the strategies that read setting `name`."""
    return "--algorithm " + ", ".join(e.name for e in all_settings()[name][0])


def list_strategies() -> tuple[str, ...]:
    return tuple(STRATEGIES)


def get_strategy(name: object) -> StrategyEntry:
    """The strategy registered as `name`; ValueError naming the accepted ones."""
    entry = STRATEGIES.get(name) if isinstance(name, str) else None
    if entry is None:
        raise ValueError(f"unknown algorithm {name!r}; accepted: "
                         f"{', '.join(STRATEGIES)}")
    return entry

"""The policy families a genome can be: one registry, asked by everything
that turns genomes into agents.

A family says how many numbers a genome holds for a given observation and
settings, builds the readable agent, names its kind in the compiled engine
(or None: it runs on the readable runner only), and checks a genome. A
`Policy` is one family with its observation and settings fixed, the way a
run, a genome file or a cluster task knows it:

    policy = Policy("mlp", "terrain", hidden=16)
    policy.genome_size()            # numbers in one genome (None: any, see below)
    policy.check(genome)            # the one genome check: array or ValueError
    policy.agent(genome)            # the readable agent
    policy.spec(genome)             # the runners' agent spec, for any process
    policy.to_json(), Policy.from_json(data)

The runners' agent spec of a family's genome is `(family, (observation,
*settings, genome))`: `("linear", (observation, genome))`, `("mlp",
(observation, hidden, genome))`.

A family's genomes are of one size (its `genome_size` gives it), or vary
in size, as a network whose topology evolves does: then `genome_size`
gives None and the family's `structure` check says what a genome must be.

To add a family: a module with its agent class and genome size, and one
`PolicyFamily` entry in `POLICY_FAMILIES` below.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from runners.agent import BaseAgent
from runners.linear import LinearPolicy, checked_genome, genome_size as linear_size
from runners.mlp import MAX_HIDDEN, MLPPolicy, mlp_genome_size
from runners.rnn import RecurrentPolicy, rnn_genome_size, rnn_layout
from runners.gp_program import GPPolicy
from runners.neat_net import NeatPolicy
from speednik import gp_program, neat_genome
from speednik.actions import NUM_ACTIONS
from speednik.observation import get_observation


@dataclass(frozen=True)
class Setting:
    """One whole-number setting of a family (the MLP's hidden units)."""

    name: str
    default: int
    minimum: int
    maximum: int
    help: str

    def check(self, value: Any, family: str) -> int:
        if (isinstance(value, bool) or not isinstance(value, numbers.Integral)
                or not self.minimum <= value <= self.maximum):
            raise ValueError(
                f"{self.name} must be a whole number from {self.minimum} to "
                f"{self.maximum}, got {value!r}")
        return int(value)


@dataclass(frozen=True)
class PolicyFamily:
    name: str
    summary: str
    # Numbers in a genome: (observation size, **settings) -> int, or None
    # for a family whose genomes vary in size.
    genome_size: Callable[..., int | None]
    # The readable agent: (genome, observation, **settings) -> agent.
    agent: Callable[..., BaseAgent]
    # What it is and how its genome is laid out, for error messages:
    # (**settings) -> "an mlp policy with 16 hidden units",
    # (n, **settings) -> "16 x 12 + 16 + 8 x 16 + 8".
    noun: Callable[..., str]
    layout: Callable[..., str]
    # Its kind in `speednik.engine.policy`, or None: readable runner only.
    compiled_kind: str | None = None
    settings: tuple[Setting, ...] = field(default=())
    # For genomes of varying size: (genome, observation size, **settings)
    # -> what is wrong with a flat float64 genome, or None.
    structure: Callable[..., str | None] | None = None
    # For genomes of varying size: numbers in a typical one, for the
    # memory a run needs: (observation size, **settings) -> int.
    typical_size: Callable[..., int] | None = None
    # For families whose genome reads as a program: (genome, observation
    # value names, **settings) -> its text in one line, and -> as indented
    # code for a person to read (what it leaves out changes no action);
    # None: a genome is only numbers.
    text: Callable[..., str] | None = None
    listing: Callable[..., str] | None = None


POLICY_FAMILIES: dict[str, PolicyFamily] = {
    "linear": PolicyFamily(
        "linear", "argmax(W @ observation + b) over the 8 actions",
        genome_size=lambda n: linear_size(n),
        agent=lambda genome, observation: LinearPolicy(genome, observation),
        noun=lambda: "a linear policy",
        layout=lambda n: f"{NUM_ACTIONS} x {n} weights + {NUM_ACTIONS} biases",
        compiled_kind="linear"),
    "mlp": PolicyFamily(
        "mlp", "one hidden layer of tanh units, then argmax over the 8 actions",
        genome_size=lambda n, hidden: mlp_genome_size(n, hidden),
        agent=lambda genome, observation, hidden: MLPPolicy(genome, hidden, observation),
        noun=lambda hidden: f"an mlp policy with {hidden} hidden units",
        layout=lambda n, hidden: (f"{hidden} x {n} + {hidden} + {NUM_ACTIONS} x "
                                  f"{hidden} + {NUM_ACTIONS}"),
        compiled_kind="mlp",
        settings=(Setting("hidden", 16, 1, MAX_HIDDEN, "hidden tanh units"),)),
    "rnn": PolicyFamily(
        "rnn", "one hidden layer of tanh units that also read their own values of "
               "the decision before (a recurrent, Elman network), then argmax over the "
               "8 actions",
        genome_size=lambda n, hidden: rnn_genome_size(n, hidden),
        agent=lambda genome, observation, hidden: RecurrentPolicy(genome, hidden,
                                                                  observation),
        noun=lambda hidden: f"an rnn policy with {hidden} hidden units",
        layout=lambda n, hidden: rnn_layout(n, hidden),
        compiled_kind="rnn",
        settings=(Setting("hidden", 16, 1, MAX_HIDDEN, "hidden tanh units"),)),
    "neat": PolicyFamily(
        "neat", "a feed-forward network whose topology evolves (NEAT): soft_tanh "
                "units (relu, identity, clamped also read), argmax over the 8 action "
                "nodes; evolved by --algorithm neat",
        genome_size=lambda n: None,
        agent=lambda genome, observation: NeatPolicy(genome, observation),
        noun=lambda: "a neat policy",
        layout=lambda n: neat_genome.LAYOUT,
        compiled_kind="neat",
        structure=lambda genome, n: neat_genome.problem(genome, n),
        # Fully connected, as NEAT starts, with as many hidden nodes and
        # connections again as it grows.
        typical_size=lambda n: 2 * neat_genome.encoded_size(0, NUM_ACTIONS,
                                                            n * NUM_ACTIONS)),
    "gp": PolicyFamily(
        "gp", "a program (genetic programming): a typed tree of arithmetic and "
              "comparisons over the observation's values, if_then_else choosing "
              "among the 8 actions; evolved by --algorithm gp",
        genome_size=lambda n: None,
        agent=lambda genome, observation: GPPolicy(genome, observation),
        noun=lambda: "a gp policy",
        layout=lambda n: gp_program.LAYOUT,
        compiled_kind="gp",
        structure=lambda genome, n: gp_program.problem(genome, n),
        # A tree of some 40 nodes, as a search of the default depth keeps.
        typical_size=lambda n: gp_program.encoded_size(40),
        text=lambda genome, names: gp_program.text(genome, names),
        listing=lambda genome, names: gp_program.listing(genome, names, fold=True)),
}
DEFAULT_FAMILY = "linear"


def list_policies() -> tuple[str, ...]:
    return tuple(POLICY_FAMILIES)


def get_family(name: object) -> PolicyFamily:
    """The family registered as `name`; ValueError naming the accepted ones."""
    family = POLICY_FAMILIES.get(name) if isinstance(name, str) else None
    if family is None:
        raise ValueError(f"unknown policy {name!r}; accepted: "
                         f"{', '.join(POLICY_FAMILIES)}")
    return family


@dataclass(frozen=True)
class Policy:
    """A family with its observation and settings: what a genome means."""

    family: str = DEFAULT_FAMILY
    observation: str = "basic"
    # The family's settings in its declared order, as (name, value) pairs.
    settings: tuple[tuple[str, int], ...] = ()

    def __init__(self, family: str = DEFAULT_FAMILY, observation: str = "basic",
                 **settings: Any) -> None:
        fam = get_family(family)
        encoder = get_observation(observation)
        unknown = sorted(set(settings) - {s.name for s in fam.settings})
        if unknown:
            accepted = ", ".join(s.name for s in fam.settings) or "none"
            raise ValueError(f"a {fam.name} policy has no setting {unknown[0]!r}; "
                             f"accepted: {accepted}")
        values = tuple((s.name, s.check(settings.get(s.name, s.default), fam.name))
                       for s in fam.settings)
        object.__setattr__(self, "family", fam.name)
        object.__setattr__(self, "observation", encoder.name)
        object.__setattr__(self, "settings", values)

    @property
    def spec_family(self) -> PolicyFamily:
        return POLICY_FAMILIES[self.family]

    def options(self) -> dict[str, int]:
        return dict(self.settings)

    def observation_size(self) -> int:
        return get_observation(self.observation).size

    def genome_size(self) -> int | None:
        """Numbers in one genome; None when the family's genomes vary in
        size."""
        return self.spec_family.genome_size(self.observation_size(), **self.options())

    def typical_size(self) -> int:
        """Numbers in one genome, or in a typical one where they vary."""
        size = self.genome_size()
        if size is not None:
            return size
        return self.spec_family.typical_size(self.observation_size(), **self.options())

    def describe(self) -> str:
        """`an mlp policy with 16 hidden units over the 'terrain'
        observation (28 values)`."""
        return (f"{self.spec_family.noun(**self.options())} over the "
                f"{self.observation!r} observation ({self.observation_size()} values)")

    def check(self, genome: Any) -> np.ndarray:
        """`genome` as a flat float64 array of the right size (or
        structure) and finite, or a ValueError saying what this policy
        needs."""
        n = self.observation_size()
        size = self.genome_size()
        layout = self.spec_family.layout(n, **self.options())
        if size is None:
            genome = np.asarray(genome, dtype=np.float64)
            found = self.spec_family.structure(genome, n, **self.options())
            if found is not None:
                raise ValueError(f"{self.describe()} needs a genome laid out as "
                                 f"{layout}: {found}")
            return genome
        return checked_genome(genome, size,
                              f"{self.describe()} needs a genome of {size} numbers "
                              f"({layout})")

    def text(self, genome: Any) -> str | None:
        """The genome as a program in one line (DEAP's form), for families
        whose genomes are programs; None for the others."""
        if self.spec_family.text is None:
            return None
        names = get_observation(self.observation).feature_names
        return self.spec_family.text(self.check(genome), names, **self.options())

    def listing(self, genome: Any) -> str | None:
        """The genome as a program in indented lines, for a person (a gp
        program's constant conditions folded), or None."""
        if self.spec_family.listing is None:
            return None
        names = get_observation(self.observation).feature_names
        return self.spec_family.listing(self.check(genome), names, **self.options())

    def agent(self, genome: Any) -> BaseAgent:
        return self.spec_family.agent(genome, self.observation, **self.options())

    def spec(self, genome: Any) -> tuple:
        """The runners' agent spec: `(family, (observation, *settings, genome))`."""
        return (self.family, (self.observation, *(v for _, v in self.settings), genome))

    def runs_compiled(self) -> bool:
        """Whether the compiled engine has both the family and the observation."""
        return (self.spec_family.compiled_kind is not None
                and get_observation(self.observation).compiled)

    def to_json(self) -> dict[str, Any]:
        """The policy's keys in a genome file: {"policy": family, **settings}."""
        return {"policy": self.family, **self.options()}

    @classmethod
    def from_json(cls, data: dict[str, Any], observation: str) -> Policy:
        family = get_family(data.get("policy", DEFAULT_FAMILY))
        return cls(family.name, observation,
                   **{s.name: data[s.name] for s in family.settings if s.name in data})


def policy_of_spec(family: str, params: Any) -> tuple[Policy, Any]:
    """(policy, genome) of a family's spec params `(observation, *settings,
    genome)`; ValueError when they are not of that shape."""
    fam = get_family(family)
    if not isinstance(params, (tuple, list)) or len(params) != 2 + len(fam.settings):
        names = ", ".join(["observation", *(s.name for s in fam.settings), "genome"])
        raise ValueError(f"a {fam.name} agent spec's params are ({names}), "
                         f"got {type(params).__name__}")
    observation, *values, genome = params
    return Policy(fam.name, observation,
                  **{s.name: v for s, v in zip(fam.settings, values)}), genome


class FamilyAgentFactory:
    """The runners' agent factory of one family: `(observation, *settings,
    genome)` -> its agent. Pickles by the family's name, so prepared jobs
    cross to `spawn` workers."""

    def __init__(self, family: str) -> None:
        self.family = family

    def __call__(self, params: Any) -> BaseAgent:
        policy, genome = policy_of_spec(self.family, params)
        return policy.agent(genome)

    def __reduce__(self):
        return (FamilyAgentFactory, (self.family,))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FamilyAgentFactory) and other.family == self.family

    def __hash__(self) -> int:
        return hash(("family", self.family))

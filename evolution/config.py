"""Every setting of an evolution run, its defaults, and their checks."""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field, fields
from typing import TextIO

import numpy as np

from evolution.cluster import check_scheduler
from evolution.progress import ProgressLine
from runners.compiled import ENGINES
from runners.linear import genome_size as linear_genome_size
from runners.mlp import MAX_HIDDEN, mlp_genome_size
from speednik.observation import get_observation, list_observations
from speednik.stages import KeptStages, StageSetError, expand_stages, is_stage_set, list_stages


# Gaussian standard deviations beyond this only throw weights about; the
# observations are of order 1 and a policy compares weighted sums of them.
SIGMA_MAX = 1000.0


# What one genome costs beyond its weights (the array, its DEAP fitness),
# one episode summary (measured: about 0.9 KB), one worker process.
GENOME_OVERHEAD = 400
SUMMARY_BYTES = 1500
WORKER_BYTES = 80 * 2**20


def available_memory() -> int | None:
    """Bytes of memory this machine can still give, or None if unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


POLICIES = ("linear", "mlp")
ALGORITHMS = ("ga", "cmaes")


class ConfigError(ValueError):
    """A setting out of range or unknown; the message names it."""


def build_stages(names: list[str], out: TextIO | None = None,
                 quiet: bool = False, lower: bool = False) -> KeptStages:
    """Build (or find built) every stage named, and with `lower` its arrays
    for the compiled engine, and keep them until the result is released; a
    stage that cannot be built is a ConfigError naming it, and then none is
    kept. Progress as `ProgressLine` shows it."""
    kept = KeptStages()
    line = ProgressLine("building stages", len(names), out) if not quiet else None
    try:
        for done, name in enumerate(names, 1):
            try:
                stage = kept.add(name)
            except (KeyError, ValueError, OSError) as exc:
                raise ConfigError(f"stage {name!r} cannot be loaded: {exc}") from None
            if lower:
                stage.derive("compiled")
            if line is not None:
                line.update(done)
    except BaseException:
        kept.release()
        if line is not None:
            line.abort()
        raise
    if line is not None:
        line.finish()
    return kept


@dataclass(frozen=True)
class EvolutionConfig:
    generations: int = 200
    population: int = 60
    stages: tuple[str, ...] = ("hillside",)
    observation: str = "basic"
    seed: int = 0
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)
    engine: str = "compiled"
    max_steps: int = 3600
    stall_frames: int | None = 240
    checkpoint_every: int = 10
    cx_prob: float = 0.5
    mut_prob: float = 0.4
    mut_sigma: float = 0.3
    mut_indpb: float = 0.15
    tournament: int = 3
    elite: int = 2
    init_sigma: float = 1.0
    # Where generations are evaluated: None in this process, "local" or a
    # Dask scheduler's address. Recorded; it changes nothing in the results.
    scheduler: str | None = None
    # Held-out stages the best genome so far is played on every
    # `test_every` generations; they never influence the run.
    test_stages: tuple[str, ...] = ()
    test_every: int = 10
    # Each generation is scored on this many of the training stages,
    # drawn from (seed, generation); None: on all of them.
    stages_per_generation: int | None = None
    # The policy family: "linear" (argmax of W @ obs + b) or "mlp" (one
    # hidden layer of `hidden` tanh units).
    policy: str = "linear"
    hidden: int = 16
    # The search: "ga" (tournament, blend, Gaussian mutation, elitism) or
    # "cmaes" (DEAP's CMA-ES, lambda = population, sigma = init_sigma).
    algorithm: str = "ga"

    def __post_init__(self) -> None:
        object.__setattr__(self, "stages", tuple(self.stages))
        object.__setattr__(self, "test_stages", tuple(self.test_stages))
        self.validate()

    def validate(self) -> None:
        def positive(name: str, value: object, minimum: int = 1) -> None:
            if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
                raise ConfigError(
                    f"{name} must be a whole number >= {minimum}, got {value!r}")

        def probability(name: str, value: float) -> None:
            if not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise ConfigError(f"{name} must be between 0 and 1, got {value!r}")

        positive("generations", self.generations, 0)
        positive("population", self.population, 2)
        positive("workers", self.workers)
        positive("max_steps", self.max_steps)
        positive("checkpoint_every", self.checkpoint_every)
        positive("tournament", self.tournament)
        positive("elite", self.elite, 0)
        if not isinstance(self.seed, int) or isinstance(self.seed, bool):
            raise ConfigError(f"seed must be a whole number, got {self.seed!r}")
        if self.stall_frames is not None:
            positive("stall_frames", self.stall_frames)
        if self.elite >= self.population:
            raise ConfigError(
                f"elite ({self.elite}) must be smaller than the population "
                f"({self.population})")
        if self.tournament > self.population:
            raise ConfigError(
                f"tournament ({self.tournament}) cannot exceed the population "
                f"({self.population})")
        probability("cx_prob", self.cx_prob)
        probability("mut_prob", self.mut_prob)
        probability("mut_indpb", self.mut_indpb)
        for name in ("mut_sigma", "init_sigma"):
            value = getattr(self, name)
            if (not isinstance(value, (int, float)) or isinstance(value, bool)
                    or not 0.0 < value <= SIGMA_MAX):
                raise ConfigError(
                    f"{name} must be a number above 0 and at most {SIGMA_MAX:g}, "
                    f"got {value!r}")
        if self.engine not in ENGINES:
            raise ConfigError(f"unknown engine {self.engine!r}; accepted: "
                              f"{', '.join(ENGINES)}")
        try:
            check_scheduler(self.scheduler)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        if not self.stages:
            raise ConfigError("at least one stage is needed")
        training = self._expanded("stages", self.stages)
        testing = self._expanded("test_stages", self.test_stages)
        shared = sorted(set(training) & set(testing))
        if shared:
            raise ConfigError(
                f"{shared[0]!r} is both a training and a test stage; accepted: test "
                f"stages the run never trains on")
        positive("test_every", self.test_every)
        if self.policy not in POLICIES:
            raise ConfigError(f"unknown policy {self.policy!r}; accepted: "
                              f"{', '.join(POLICIES)}")
        positive("hidden", self.hidden)
        if self.algorithm not in ALGORITHMS:
            raise ConfigError(f"unknown algorithm {self.algorithm!r}; accepted: "
                              f"{', '.join(ALGORITHMS)}")
        if self.hidden > MAX_HIDDEN:
            raise ConfigError(f"hidden must be at most {MAX_HIDDEN}, got {self.hidden}")
        if self.stages_per_generation is not None:
            positive("stages_per_generation", self.stages_per_generation)
            if self.stages_per_generation > len(training):
                raise ConfigError(
                    f"stages_per_generation ({self.stages_per_generation}) exceeds the "
                    f"{len(training)} training stage(s); accepted: 1 to {len(training)}")
        if self.observation not in list_observations():
            raise ConfigError(
                f"unknown observation {self.observation!r}; accepted: "
                f"{', '.join(list_observations())}")

    @staticmethod
    def _expanded(what: str, names: tuple[str, ...]) -> list[str]:
        try:
            expanded = expand_stages(names)
        except StageSetError as exc:
            raise ConfigError(f"{what}: {exc}") from None
        files = [os.path.basename(s) for s in names if s.endswith(".toml")]
        if len(set(files)) != len(files):
            raise ConfigError(
                f"two stage profiles share a file name in {list(names)}; a run "
                f"keeps a copy of each by its file name: rename one")
        builtin = list_stages()
        for stage in expanded:
            if stage not in builtin and not stage.endswith(".toml") \
                    and not is_stage_set(stage):
                raise ConfigError(
                    f"unknown stage {stage!r}; accepted: {', '.join(builtin)}, "
                    "a path to a .toml profile, or a generated set gen:DIFFICULTY:SEEDS")
        return expanded

    def training_stages(self) -> list[str]:
        """One name per training stage, generated sets expanded."""
        return expand_stages(self.stages)

    def held_out_stages(self) -> list[str]:
        """One name per test stage, generated sets expanded."""
        return expand_stages(self.test_stages)

    def genome_size(self) -> int:
        """Numbers in one genome of this run's policy."""
        n = get_observation(self.observation).size
        return (mlp_genome_size(n, self.hidden) if self.policy == "mlp"
                else linear_genome_size(n))

    def agent_spec(self, genome: np.ndarray) -> tuple:
        """The runners' agent spec of one genome of this run's policy."""
        if self.policy == "mlp":
            return ("mlp", (self.observation, self.hidden, genome))
        return ("linear", (self.observation, genome))

    def run_stages(self) -> list[str]:
        """Every stage the run plays: its training stages, then its test
        stages, one name each."""
        return self.training_stages() + self.held_out_stages()

    def check_stages_load(self, out: TextIO | None = None,
                          quiet: bool = False) -> KeptStages:
        """Build every stage of the run now, so a bad profile fails before
        the run (a ConfigError naming it), and keep them all for the run:
        each is built once, here. The stages are kept until the result is
        released. Building that takes a while shows its progress on one
        line of `out` (stdout by default) unless `quiet`.

        A run on the compiled engine in this process gets its stages'
        arrays for it here too (measured: 264 stages lowered in 0.2 s here,
        0.6 to 1.3 s when each was lowered by the generation first playing
        it)."""
        return build_stages(self.run_stages(), out=out, quiet=quiet,
                            lower=self.engine == "compiled" and self.scheduler is None)

    def evaluation_tasks(self) -> int:
        """Episodes in one generation: every genome on every stage it is
        scored on."""
        return self.population * self.stages_scored()

    def stages_scored(self) -> int:
        """How many training stages each generation is scored on."""
        return self.stages_per_generation or len(self.training_stages())

    def memory_estimate(self, genome_size: int) -> int:
        """Bytes a run of these settings needs, roughly: the population,
        its offspring and the remembered evaluations (genome, fitness and
        each stage's episode summary), and the worker processes."""
        per_genome = 8 * genome_size + GENOME_OVERHEAD + SUMMARY_BYTES * self.stages_scored()
        workers = min(self.workers, self.evaluation_tasks())
        return 3 * self.population * per_genome + workers * WORKER_BYTES

    def to_dict(self) -> dict:
        d = asdict(self)
        d["stages"] = list(self.stages)
        d["test_stages"] = list(self.test_stages)
        return d

    @classmethod
    def from_dict(cls, data: dict) -> EvolutionConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ConfigError(f"unknown settings {sorted(unknown)}")
        return cls(**data)

    def replace(self, **changes) -> EvolutionConfig:
        d = self.to_dict()
        d.update(changes)
        return EvolutionConfig.from_dict(d)

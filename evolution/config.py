"""Every setting of an evolution run, its defaults, and their checks: data,
which building the run's stages (`evolution.cli.run_stages`) and sizing it
(`evolution.cli.run_memory`) read."""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field, fields

import numpy as np

from evolution.imitation.fit import IMITATION_FAMILIES, MAX_BACK_WEIGHT
from evolution.scheduler_address import check_scheduler
from evolution.strategies.registry import (
    STRATEGIES,
    all_settings,
    get_strategy,
    list_strategies,
    readers,
)
from runners.compiled import ENGINES
from runners.policies import DEFAULT_FAMILY, Policy, get_family, list_policies
from speednik.observation import list_observations
from speednik.stages import (HANDMADE_NAMES, StageSetError, expand_stages, is_stage_set,
                             list_stages)
from speednik.stages.start_shift import MAX_START_SHIFT


# How a generation's training stages are drawn (`evolution.loop.stage_draw`).
STAGE_DRAWS = ("uniform", "failures")
# What a validation stage counts for when candidates are compared
# (`evolution.loop.validation`): each stage alike, or each validation set
# alike (the fraction of it completed, averaged over the sets).
VALIDATION_WEIGHTS = ("stage", "set")
# The settings that are lists of stage names: profile paths in them are
# recorded absolute and relocated to the run's copies on resume.
STAGE_LISTS = ("stages", "test_stages", "validation_stages", "always_stages",
               "imitation_stages", "validation_prefer")


class ConfigError(ValueError):
    """A setting out of range or unknown; the message names it."""


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
    # The search's own episodes (those its fitness is scored on) stall
    # after this many frames instead; validation and test keep
    # `stall_frames`. A longer limit scores a move that gets on only
    # after a while (a run-up taken backwards) above standing at the
    # wall, so the search can find it before it is fast enough to be
    # judged. None: the training episodes stall as the others do.
    training_stall_frames: int | None = None
    # The policy decides every `action_repeat` frames and its action is
    # held in between: the observation and the policy, most of a frame's
    # cost, are computed that much less often.
    action_repeat: int = 1
    # The last `final_frames` frames of the budget (`max_frames`) decide
    # every `final_action_repeat` frames instead (`evolution.loop.final_repeat`):
    # a search at the cheaper repeat ends adapting to the one the genome
    # it gives plays at. None: `action_repeat` throughout.
    final_action_repeat: int | None = None
    final_frames: int | None = None
    checkpoint_every: int = 10
    # Stop once the search has played this many frames (the generation
    # that reaches it is finished); None: only `generations` stops a run.
    max_frames: int | None = None
    # Several searches, each from a seed of its own (`start_seed`), play
    # `start_frames` frames one after the other; the one whose genomes
    # validated best then goes on alone to `max_frames`
    # (`evolution.loop.starts`). 1: a single search.
    starts: int = 1
    start_frames: int | None = None
    # The best genomes ever scored that the run keeps (its first is the
    # genome a run without validation gives; all are validation's
    # candidates; the GA's elite is taken from them).
    hall_of_fame: int = 2
    # Where generations are evaluated: None in this process, "local" or a
    # Dask scheduler's address. Recorded; it changes nothing in the results.
    scheduler: str | None = None
    # Held-out stages the best genome so far is played on every
    # `test_every` generations; they never influence the run.
    test_stages: tuple[str, ...] = ()
    test_every: int = 10
    # Validation stages: with them, the genome a run gives (best.json, the
    # held-out test) is the candidate with the best results on them,
    # chosen every `test_every` generations; they never steer the search.
    validation_stages: tuple[str, ...] = ()
    # How candidates are compared there: "stage", by the stages completed;
    # "set", by the fraction of each validation set completed, averaged
    # over the sets, so that a small set counts as much as a large one.
    validation_weight: str = "stage"
    # Validation sets (named as in `validation_stages`) preferred among the
    # candidates nearly best on the others: of the candidates completing
    # at most `validation_near` stages of the other sets fewer than the
    # best of them does, the one completing the most of these wins (then
    # the rule above over the other sets). Empty: all sets compare alike.
    validation_prefer: tuple[str, ...] = ()
    validation_near: int = 0
    # With `validation_prefer`: at each validation, the last population
    # plays the preferred sets alone (a few designed stages cost little
    # beside the generated ones), and this many of its members, those
    # completing the most of them (then the fittest), join the candidates.
    # The hall of fame and the strategy's own candidates come from one
    # corner of the search; a designed stage may be finished by a member
    # that none of them is.
    validation_screen: int = 0
    # With `validation_prefer`: the least share of each other validation
    # set (in the order of `validation_stages`) a candidate must complete
    # for the preferred sets to choose it, e.g. (0.97, 0.95, 0.9): a fixed
    # bar that a better genome found later does not raise, where
    # `validation_near` counts from the best so far. Candidates meeting it
    # are chosen among by the preferred sets (then the rank over the
    # others); none meeting it, `validation_near` decides. Empty: no bar.
    validation_floor: tuple[float, ...] = ()
    # Write every candidate validation plays as a genome file in the run's
    # `candidates/` folder, so that another rule of choice can be tried
    # on them afterwards (benchmarks/population_choice.py --candidates).
    keep_candidates: bool = False
    # Each generation is scored on this many of the training stages,
    # drawn anew (`stage_draw`); None: on all of them.
    stages_per_generation: int | None = None
    # Training stages every generation is scored on, whatever the draw:
    # they count among `stages_per_generation`, the rest of which is drawn
    # from the other training stages. Each is named as in `stages` (a set,
    # a profile) and must be one of them.
    always_stages: tuple[str, ...] = ()
    # How those are drawn (`evolution.loop.stage_draw`): "uniform", or
    # "failures", the stages the population failed more often.
    stage_draw: str = "uniform"
    # Each stage of a generation's draw is played from a start moved by up
    # to this many px either way, drawn anew each generation
    # (`evolution.loop.stage_draw`); 0: from the stage's own start.
    start_shift: int = 0
    # The policy family (`runners.policies`: "linear", "mlp", ...) and
    # its settings; `hidden` is the MLP's, ignored by families without it.
    # None: the family the algorithm evolves, if it has its own, else
    # "linear".
    policy: str | None = None
    hidden: int = 16
    # The search strategy (`evolution.strategies.registry`: "ga", "cmaes", ...), and
    # the settings only it reads (its registry entry's `settings`, filled
    # in with their defaults).
    algorithm: str = "ga"
    options: dict = field(default_factory=dict)
    # Rounds of imitating the planner on the training stages before the
    # search (`evolution.imitation`): the search's mean starts from the
    # fitted genome instead of all zeros. 0: none.
    imitation: int = 0
    # The stages imitated (empty: the training stages): moves the training
    # stages seldom ask for can be imitated on stages that ask for them,
    # without the search's fitness playing those.
    imitation_stages: tuple[str, ...] = ()
    # How many times an example that presses left (left or left+jump)
    # counts in the fit: going back is rare among the planner's presses
    # and the fit averages it away (1: as any other example).
    imitation_back_weight: float = 1.0

    def __post_init__(self) -> None:
        for key in STAGE_LISTS:
            object.__setattr__(self, key, tuple(getattr(self, key)))
        if isinstance(self.validation_floor, (list, tuple)):
            object.__setattr__(self, "validation_floor", tuple(self.validation_floor))
        object.__setattr__(self, "options", self._strategy_options())
        if self.policy is None:
            own = (get_strategy(self.algorithm).policy
                   if self.algorithm in list_strategies() else None)
            object.__setattr__(self, "policy", own or DEFAULT_FAMILY)
        self.validate()

    def _strategy_options(self) -> dict:
        """The chosen strategy's settings, given ones checked, the others
        at their defaults."""
        if not isinstance(self.options, dict):
            raise ConfigError(f"options must be a mapping of settings, got "
                              f"{type(self.options).__name__}")
        if self.algorithm not in list_strategies():
            return dict(self.options)   # validate() names the algorithm
        entry = get_strategy(self.algorithm)
        own = {s.name: s for s in entry.settings}
        others = all_settings()
        out = {}
        for name, value in self.options.items():
            if name not in own:
                if name in others:
                    raise ConfigError(
                        f"{others[name][1].flag} ({others[name][1].help}) is a setting "
                        f"of {readers(name)}, not of --algorithm {self.algorithm}; "
                        f"it would do nothing")
                raise ConfigError(f"unknown setting {name!r} of --algorithm "
                                  f"{self.algorithm}; accepted: "
                                  f"{', '.join(own) or 'none'}")
            try:
                out[name] = own[name].check(value)
            except ValueError as exc:
                raise ConfigError(str(exc)) from None
        return {name: out.get(name, s.default) for name, s in own.items()}

    def validate(self) -> None:
        def positive(name: str, value: object, minimum: int = 1) -> None:
            if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
                raise ConfigError(
                    f"{name} must be a whole number >= {minimum}, got {value!r}")

        positive("generations", self.generations, 0)
        positive("population", self.population, 2)
        positive("workers", self.workers)
        positive("max_steps", self.max_steps)
        positive("action_repeat", self.action_repeat)
        positive("checkpoint_every", self.checkpoint_every)
        if self.max_frames is not None:
            positive("max_frames", self.max_frames)
        positive("hall_of_fame", self.hall_of_fame)
        self._check_starts()
        self._check_final_repeat()
        if not isinstance(self.seed, int) or isinstance(self.seed, bool):
            raise ConfigError(f"seed must be a whole number, got {self.seed!r}")
        if self.stall_frames is not None and (
                not isinstance(self.stall_frames, int) or isinstance(self.stall_frames, bool)
                or self.stall_frames < 1):
            raise ConfigError(f"stall_frames must be a whole number >= 1, or none "
                              f"(--stall-frames 0: never), got {self.stall_frames!r}")
        self._check_training_stall()
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
        validating = self._expanded("validation_stages", self.validation_stages)
        imitating = self._expanded("imitation_stages", self.imitation_stages)
        for (a, names_a), (b, names_b) in (
                (("a training", training), ("a test", testing)),
                (("a training", training), ("a validation", validating)),
                (("a validation", validating), ("a test", testing)),
                (("an imitation", imitating), ("a test", testing)),
                (("an imitation", imitating), ("a validation", validating))):
            shared = sorted(set(names_a) & set(names_b))
            if shared:
                raise ConfigError(
                    f"{shared[0]!r} is both {a} and {b} stage; accepted: "
                    f"training (and imitation), validation and test stages that "
                    f"share none")
        positive("test_every", self.test_every)
        if self.policy not in list_policies():
            raise ConfigError(f"unknown policy {self.policy!r}; accepted: "
                              f"{', '.join(list_policies())}")
        positive("hidden", self.hidden)
        if self.algorithm not in list_strategies():
            raise ConfigError(f"unknown algorithm {self.algorithm!r}; accepted: "
                              f"{', '.join(list_strategies())}")
        missing = get_strategy(self.algorithm).missing()
        if missing:
            raise ConfigError(missing)
        entry = get_strategy(self.algorithm)
        reason = entry.limits(self.options, self) if entry.limits else None
        if reason:
            raise ConfigError(reason)
        multiple = entry.population_multiple
        if self.population % multiple:
            raise ConfigError(
                f"--algorithm {self.algorithm} needs a population that is a multiple "
                f"of {multiple}, got {self.population}")
        for setting in get_family(self.policy).settings:
            try:
                setting.check(getattr(self, setting.name), self.policy)
            except ValueError as exc:
                raise ConfigError(str(exc)) from None
        if self.stages_per_generation is not None:
            positive("stages_per_generation", self.stages_per_generation)
            if self.stages_per_generation > len(training):
                raise ConfigError(
                    f"stages_per_generation ({self.stages_per_generation}) exceeds the "
                    f"{len(training)} training stage(s); accepted: 1 to {len(training)}")
        self._check_always(training)
        if self.stage_draw not in STAGE_DRAWS:
            raise ConfigError(f"unknown stage_draw {self.stage_draw!r}; accepted: "
                              f"{', '.join(STAGE_DRAWS)}")
        if self.stage_draw != "uniform" and self.stages_per_generation is None:
            raise ConfigError(f"stage_draw {self.stage_draw!r} draws among the training "
                              f"stages, so it needs stages_per_generation; accepted: "
                              f"stage_draw 'uniform' without it")
        if (isinstance(self.start_shift, bool) or not isinstance(self.start_shift, int)
                or not 0 <= self.start_shift <= MAX_START_SHIFT):
            raise ConfigError(f"start_shift must be a whole number of px from 0 to "
                              f"{MAX_START_SHIFT}, got {self.start_shift!r}")
        if self.validation_weight not in VALIDATION_WEIGHTS:
            raise ConfigError(f"unknown validation_weight {self.validation_weight!r}; "
                              f"accepted: {', '.join(VALIDATION_WEIGHTS)}")
        if self.validation_weight != "stage" and not self.validation_stages:
            raise ConfigError(f"validation_weight {self.validation_weight!r} compares "
                              f"candidates on validation stages, so it needs "
                              f"validation_stages; accepted: validation_weight 'stage' "
                              f"without them")
        self._check_prefer()
        if not isinstance(self.keep_candidates, bool):
            raise ConfigError(f"keep_candidates must be true or false, got "
                              f"{self.keep_candidates!r}")
        if self.keep_candidates and not self.validation_stages:
            raise ConfigError("keep_candidates keeps the genomes validation plays, so it "
                              "needs validation_stages; accepted: keep_candidates false "
                              "without them")
        if self.observation not in list_observations():
            raise ConfigError(
                f"unknown observation {self.observation!r}; accepted: "
                f"{', '.join(list_observations())}")
        self._check_pairing()
        self._check_imitation()

    def _check_imitation(self) -> None:
        if not isinstance(self.imitation, int) or isinstance(self.imitation, bool) \
                or self.imitation < 0:
            raise ConfigError(f"imitation must be a whole number >= 0 (rounds; 0: none), "
                              f"got {self.imitation!r}")
        weight = self.imitation_back_weight
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) \
                or not 1 <= weight <= MAX_BACK_WEIGHT:
            raise ConfigError(f"imitation_back_weight must be a number from 1 to "
                              f"{MAX_BACK_WEIGHT:g} (times a left press counts in the fit), "
                              f"got {weight!r}")
        if not self.imitation:
            if self.imitation_stages:
                raise ConfigError("--imitation-stage names the stages imitated, so it needs "
                                  "--imitation ROUNDS >= 1; accepted: --imitation 0 "
                                  "without it")
            if weight != 1:
                raise ConfigError("--imitation-back-weight weighs the examples imitated, so "
                                  "it needs --imitation ROUNDS >= 1; accepted: --imitation 0 "
                                  "with --imitation-back-weight 1")
            return
        if self.policy not in IMITATION_FAMILIES:
            raise ConfigError(
                f"--imitation fits the policy's weights, which it knows for --policy "
                f"{' and '.join(IMITATION_FAMILIES)}, not --policy {self.policy}; "
                f"accepted: --imitation 0 with it")
        if not get_strategy(self.algorithm).has_mean:
            means = [e.name for e in STRATEGIES.values() if e.has_mean]
            raise ConfigError(
                f"--imitation gives a search its first mean, which --algorithm "
                f"{self.algorithm} has none of; accepted: --algorithm "
                f"{' or '.join(means)}, or --imitation 0")

    def _check_always(self, training: list[str]) -> None:
        if not self.always_stages:
            return
        always = self._expanded("always_stages", self.always_stages)
        outside = [s for s in always if s not in set(training)]
        if outside:
            raise ConfigError(
                f"always_stages: {outside[0]!r} is not a training stage; accepted: "
                f"stages named in stages (sets, built-in names, profiles)")
        k = self.stages_per_generation
        if k is None:
            raise ConfigError(
                "always_stages are kept in every generation's draw of training stages, "
                "so they need stages_per_generation; accepted: no always_stages "
                "without it")
        if k <= len(set(always)):
            raise ConfigError(
                f"stages_per_generation ({k}) leaves no stage to draw beside the "
                f"{len(set(always))} always_stages; accepted: "
                f"{len(set(always)) + 1} to {len(training)}")

    def _check_prefer(self) -> None:
        near = self.validation_near
        if isinstance(near, bool) or not isinstance(near, int) or near < 0:
            raise ConfigError(f"validation_near must be a whole number of validation "
                              f"stages >= 0, got {near!r}")
        screen = self.validation_screen
        if isinstance(screen, bool) or not isinstance(screen, int) or screen < 0:
            raise ConfigError(f"validation_screen must be a whole number of population "
                              f"members >= 0, got {screen!r}")
        if not self.validation_prefer:
            if near:
                raise ConfigError("validation_near widens the candidates validation_prefer "
                                  "chooses among, so it needs validation_prefer; accepted: "
                                  "validation_near 0 without it")
            if screen:
                raise ConfigError("validation_screen picks population members by the sets "
                                  "validation_prefer names, so it needs validation_prefer; "
                                  "accepted: validation_screen 0 without it")
            if self.validation_floor:
                raise ConfigError("validation_floor bars the candidates validation_prefer "
                                  "chooses among, so it needs validation_prefer; accepted: "
                                  "no validation_floor without it")
            return
        outside = [s for s in self.validation_prefer if s not in self.validation_stages]
        if outside:
            raise ConfigError(
                f"validation_prefer: {outside[0]!r} is not one of validation_stages; "
                f"accepted: names given in validation_stages "
                f"({', '.join(self.validation_stages) or 'none given'})")
        if set(self.validation_stages) <= set(self.validation_prefer):
            raise ConfigError(
                "validation_prefer names every validation set, leaving none for the "
                "candidates to be nearly best on; accepted: some of validation_stages")
        self._check_floor()

    def _check_floor(self) -> None:
        floor = self.validation_floor
        others = [s for s in self.validation_stages if s not in self.validation_prefer]
        if not isinstance(floor, tuple) or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1
                for v in floor):
            raise ConfigError(f"validation_floor must be shares from 0 to 1, one for each "
                              f"validation set not preferred, got {floor!r}")
        if floor and len(floor) != len(others):
            raise ConfigError(
                f"validation_floor gives {len(floor)} share(s) for {len(others)} validation "
                f"set(s) not preferred; accepted: one share for each of "
                f"{', '.join(others)}, in that order")

    def _check_starts(self) -> None:
        if not isinstance(self.starts, int) or isinstance(self.starts, bool) \
                or self.starts < 1:
            raise ConfigError(f"starts must be a whole number >= 1, got {self.starts!r}")
        if self.start_frames is not None and (
                not isinstance(self.start_frames, int) or isinstance(self.start_frames, bool)
                or self.start_frames < 1):
            raise ConfigError(f"start_frames must be a whole number >= 1, got "
                              f"{self.start_frames!r}")
        if self.starts == 1:
            if self.start_frames is not None:
                raise ConfigError("start_frames is what each of several starts plays, "
                                  "so it needs starts >= 2; accepted: starts 1 without it")
            return
        needs = [what for what, given in (
            ("start_frames", self.start_frames), ("max_frames", self.max_frames),
            ("validation_stages", self.validation_stages)) if not given]
        if needs:
            raise ConfigError(
                f"starts {self.starts} plays each start for start_frames frames and "
                f"continues the one that validates best until max_frames, so it needs "
                f"{', '.join(needs)}; accepted: starts 1 without them")
        if self.max_frames <= self.starts * self.start_frames:
            raise ConfigError(
                f"max_frames ({self.max_frames}) leaves nothing for the start that goes "
                f"on after {self.starts} starts of start_frames ({self.start_frames}); "
                f"accepted: max_frames above {self.starts * self.start_frames}")

    def start_seed(self, start: int) -> int:
        """The seed start number `start` (from 0) searches from: the run's
        own for the first, so that one start is the run without starts;
        for the others, one derived from the run's seed and the number."""
        if start == 0:
            return self.seed
        words = np.random.SeedSequence([self.seed & 0xFFFFFFFF, start]).generate_state(1)
        return int(words[0])

    def training_stall(self) -> int | None:
        """The stall limit of the search's own episodes."""
        own = self.training_stall_frames
        return self.stall_frames if own is None else own

    def _check_training_stall(self) -> None:
        frames = self.training_stall_frames
        if frames is None:
            return
        if not isinstance(frames, int) or isinstance(frames, bool) or frames < 1:
            raise ConfigError(f"training_stall_frames must be a whole number >= 1, or none "
                              f"(as stall_frames), got {frames!r}")
        if self.stall_frames is None:
            raise ConfigError(
                f"training_stall_frames {frames} lengthens a stall limit, and stall_frames "
                f"is never; accepted: a stall_frames, or no training_stall_frames")
        if frames <= self.stall_frames:
            raise ConfigError(
                f"training_stall_frames ({frames}) must be longer than stall_frames "
                f"({self.stall_frames}), which validation and test keep; accepted: a whole "
                f"number above {self.stall_frames}, or none")

    def _check_final_repeat(self) -> None:
        repeat, frames = self.final_action_repeat, self.final_frames
        if repeat is None and frames is None:
            return
        if repeat is None or frames is None:
            raise ConfigError(
                "final_action_repeat and final_frames go together (the repeat the last "
                "final_frames frames of the budget decide at); accepted: both, or neither")
        for name, value in (("final_action_repeat", repeat), ("final_frames", frames)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"{name} must be a whole number >= 1, got {value!r}")
        if repeat == self.action_repeat:
            raise ConfigError(
                f"final_action_repeat {repeat} is the action_repeat already, so it would "
                f"change nothing; accepted: another whole number >= 1, or none")
        if self.algorithm in list_strategies() and get_strategy(self.algorithm).learner:
            raise ConfigError(
                f"final_action_repeat changes how genomes are scored, and --algorithm "
                f"{self.algorithm} learns from episodes of its own; accepted: a genome "
                f"search, or none")
        if self.max_frames is None or frames >= self.max_frames:
            raise ConfigError(
                f"final_frames ({frames}) is the last part of the frame budget, so it "
                f"needs max_frames above it; accepted: final_frames below max_frames "
                f"({self.max_frames if self.max_frames is not None else 'not set'})")
        if self.starts > 1 and self.max_frames - frames < self.starts * self.start_frames:
            raise ConfigError(
                f"final_frames ({frames}) would begin while the {self.starts} starts still "
                f"play, which compare their genomes at one repeat; accepted: final_frames "
                f"up to max_frames - starts * start_frames "
                f"({self.max_frames - self.starts * self.start_frames})")

    def action_repeat_after(self, frames: int) -> int:
        """The action repeat of a generation begun once the search had
        played `frames` frames."""
        if (self.final_action_repeat is not None
                and frames >= self.max_frames - self.final_frames):
            return self.final_action_repeat
        return self.action_repeat

    def for_start(self, start: int) -> "EvolutionConfig":
        """These settings with start number `start`'s seed: what its
        search strategy is built from."""
        return self.replace(seed=self.start_seed(start))

    def _check_pairing(self) -> None:
        """A strategy with a family of its own evolves only that one; the
        others evolve only families whose genomes are of one size."""
        own = get_strategy(self.algorithm).policy
        if own is not None and self.policy != own:
            raise ConfigError(
                f"--algorithm {self.algorithm} evolves its own --policy {own} genomes, "
                f"not --policy {self.policy}; accepted: --policy {own}, or no --policy")
        if own is None and self.policy_spec().genome_size() is None:
            searches = [e.name for e in STRATEGIES.values() if e.policy == self.policy]
            raise ConfigError(
                f"--policy {self.policy} genomes vary in size, which --algorithm "
                f"{self.algorithm} cannot search; accepted with --policy {self.policy}: "
                f"--algorithm {' or '.join(searches) or 'none'}")

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
                    "a path to a .toml profile, a generated set gen:DIFFICULTY:SEEDS, or "
                    f"{HANDMADE_NAMES}")
        return expanded

    def tested(self, gen: int, frames: int) -> bool:
        """Whether generation `gen` (the search having played `frames`) is
        one the held-out test and validation play: every `test_every`
        generations and the last one."""
        return (gen % self.test_every == 0 or gen == self.generations
                or self.budget_spent(frames))

    def budget_spent(self, frames: int) -> bool:
        """Whether a search that played `frames` frames has used its budget."""
        return self.max_frames is not None and frames >= self.max_frames

    def training_stages(self) -> list[str]:
        """One name per training stage, generated sets expanded."""
        return expand_stages(self.stages)

    def always_stage_names(self) -> list[str]:
        """One name per stage every generation plays, in training order."""
        always = set(expand_stages(self.always_stages))
        return [s for s in self.training_stages() if s in always]

    def imitation_stage_names(self) -> list[str]:
        """One name per stage imitation fits on: its own, else the
        training stages."""
        if self.imitation_stages:
            return expand_stages(self.imitation_stages)
        return self.training_stages()

    def held_out_stages(self) -> list[str]:
        """One name per test stage, generated sets expanded."""
        return expand_stages(self.test_stages)

    def validation_stage_names(self) -> list[str]:
        """One name per validation stage, generated sets expanded."""
        return expand_stages(self.validation_stages)

    def validation_sets(self) -> list[list[str]]:
        """The validation stages by the set (or single stage) that named
        them, in order."""
        return [expand_stages([name]) for name in self.validation_stages]

    def policy_spec(self) -> Policy:
        """What a genome of this run is: its policy family with the run's
        observation and the family's settings."""
        family = get_family(self.policy)
        return Policy(family.name, self.observation,
                      **{s.name: getattr(self, s.name) for s in family.settings})

    def genome_size(self) -> int | None:
        """Numbers in one genome of this run's policy; None where they
        vary (a network whose topology evolves)."""
        return self.policy_spec().genome_size()

    def individuals(self) -> int:
        """Genomes a generation holds: --population, but one for a learner
        (PPO), whose --population is the episodes it plays at once."""
        return 1 if get_strategy(self.algorithm).learner else self.population

    def run_stages(self) -> list[str]:
        """Every stage the run plays: its training stages, then its
        validation and test stages, one name each."""
        return self.training_stages() + self.validation_stage_names() + self.held_out_stages()

    def evaluation_tasks(self) -> int:
        """Episodes in one generation: every genome on every stage it is
        scored on."""
        return self.population * self.stages_scored()

    def stages_scored(self) -> int:
        """How many training stages each generation is scored on."""
        return self.stages_per_generation or len(self.training_stages())

    def to_dict(self) -> dict:
        d = asdict(self)
        for key in STAGE_LISTS:
            d[key] = list(getattr(self, key))
        d["validation_floor"] = list(self.validation_floor)
        d["options"] = dict(self.options)
        return d

    @classmethod
    def from_dict(cls, data: dict) -> EvolutionConfig:
        data = _from_earlier_version(data)
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ConfigError(f"unknown settings {sorted(unknown)}")
        return cls(**data)

    def replace(self, **changes) -> EvolutionConfig:
        d = self.to_dict()
        if changes.get("algorithm", self.algorithm) != self.algorithm:
            d["options"] = {}   # another strategy's settings
        d.update(changes)
        return EvolutionConfig.from_dict(d)


# The GA's operators and the first genomes' spread were settings of every
# run before they became the strategies' own (`options`); the hall of
# fame then held max(elite, 1) genomes.
_EARLIER_SETTINGS = ("cx_prob", "mut_prob", "mut_sigma", "mut_indpb", "tournament", "elite",
                     "init_sigma")


def _from_earlier_version(data: dict) -> dict:
    """Settings recorded by an earlier version (config.json, a checkpoint)
    as this one keeps them: each operator moves into the options of the
    strategy that reads it, and is dropped by the others, where it did
    nothing."""
    if not any(k in data for k in _EARLIER_SETTINGS):
        return data
    data = dict(data)
    options = dict(data.get("options") or {})
    algorithm = data.get("algorithm", "ga")
    held = all_settings()
    elite = data.get("elite", 2)
    for name in _EARLIER_SETTINGS:
        if name in data:
            value = data.pop(name)
            readers_of = [e.name for e in held[name][0]] if name in held else []
            if algorithm in readers_of:
                options.setdefault(name, value)
    data["options"] = options
    data.setdefault("hall_of_fame", max(elite, 1) if isinstance(elite, int) else 2)
    return data

"""OpenAI-ES (`evolution.strategies.openai_es.OpenAIES`) beside pyribs'
`ribs.emitters.opt.OpenAIEvolutionStrategy`, on the same objectives with
the same settings: `evolution.run`'s defaults (population 60, the
registry's es_sigma, es_lr and es_weight_decay, Adam's 0.9, 0.999 and
1e-8), both starting from a mean of zeros.

Objectives, each maximised, on 104 numbers (the size of the default
linear policy over the basic observation):

- sphere: -sum((x - 0.5)^2)
- rastrigin: -sum(z^2 - 10 cos(2 pi z) + 10), z = x - 0.5
- hillside: the game's fitness of the default linear policy on hillside
  (`evolution.run --stage hillside`), the run's own evaluator

Two comparisons on each:

1. Same noise. Both draw their noise from `numpy.random.default_rng(seed)`
   (the same stream), and pyribs is given what makes its update ours
   exactly: its gradient is divided by population / 2 where ours is
   divided by the population, so its L2 coefficient is twice our weight
   decay and its Adam epsilon twice ours. Printed: the largest difference
   between the two means over all generations, and the generation where
   they first differ by more than 1e-9 (ties in fitness are where they
   part: pyribs ranks equal values by their order, ours gives them their
   mean rank; on the game it is run again with ties broken the same way
   for both).
2. Own streams, literal settings. Each with its own generator and seeds
   and pyribs given our numbers as they are (l2_coeff = weight decay,
   epsilon 1e-8): the fitness of the mean over generations, median and
   range over the seeds, printed every few generations and drawn side by
   side into docs/openai_es_reference.png.

    .venv/bin/python benchmarks/openai_es_reference.py            # all three
    .venv/bin/python benchmarks/openai_es_reference.py --no-game  # the functions only

With --sweep it instead prints how the default learning rate was chosen:
the fitness of the mean (best.json's) of `evolution.run --algorithm
openai-es --stage STAGE --max-frames N --seed S --es-lr LR`, everything
else at its default, for each learning rate, budget and seed given
(training stages only; a run stops at its frames, not at --generations):

    .venv/bin/python benchmarks/openai_es_reference.py --sweep \
        --rates 0.001 0.003 0.005 0.01 0.03 --budgets 1e6 3e6 1e7 --stage hillside

The game's part plays 60 episodes a generation; the whole takes a few
minutes on 2 cores. Nothing is asserted.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ribs.emitters.opt import OpenAIEvolutionStrategy  # noqa: E402

from evolution.config import EvolutionConfig  # noqa: E402
from evolution.loop.evaluate import GenomeEvaluator  # noqa: E402
from evolution.individual import make_individual  # noqa: E402
from evolution.strategies.openai_es import ADAM_EPSILON, BETA1, BETA2, OpenAIES  # noqa: E402
from evolution.strategies.registry import get_strategy  # noqa: E402

DIM = 104
SHIFT = 0.5
PRINT_EVERY = 25


@dataclass
class Settings:
    """What OpenAIES reads of a run's settings (`SearchSettings`)."""

    population: int
    seed: int
    options: dict[str, float]
    hall_of_fame: int = 2
    extra: dict = field(default_factory=dict)

    def policy_spec(self):   # never asked by OpenAIES
        raise NotImplementedError


def defaults() -> dict[str, float]:
    return {s.name: float(s.default) for s in get_strategy("openai-es").settings}


def sphere(x: np.ndarray) -> np.ndarray:
    z = np.atleast_2d(x) - SHIFT
    return -np.sum(z * z, axis=1)


def rastrigin(x: np.ndarray) -> np.ndarray:
    z = np.atleast_2d(x) - SHIFT
    return -np.sum(z * z - 10.0 * np.cos(2.0 * np.pi * z) + 10.0, axis=1)


def game_objective(workers: int | None) -> tuple[Callable[[np.ndarray], np.ndarray], int]:
    config = EvolutionConfig(algorithm="openai-es", stages=("hillside",),
                             **({"workers": workers} if workers else {}))
    evaluator = GenomeEvaluator(config).__enter__()

    def play(x: np.ndarray) -> np.ndarray:
        return np.array([f for f, _ in evaluator(list(np.atleast_2d(x)))])
    return play, config.genome_size()


def run_ours(objective, dim: int, population: int, options: dict, seed: int,
             generations: int, same_noise: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """Fitness of the mean after each generation (the zeros first), the
    means, and the number of generations whose fitness held ties."""
    es = OpenAIES(Settings(population, seed, dict(options)), dim)
    if same_noise:
        es.rng = np.random.default_rng(seed)
    curve, means, tied = [objective(es.theta)[0]], [es.theta.copy()], 0
    for _ in range(generations):
        pop = es.ask([], None)
        fitness = objective(np.array(pop))
        tied += len(np.unique(fitness)) < len(fitness)
        for ind, f in zip(pop, fitness):
            ind.fitness.values = (float(f),)
        es.tell(pop)
        curve.append(objective(es.theta)[0])
        means.append(es.theta.copy())
    return np.array(curve), np.array(means), tied


def run_ribs(objective, dim: int, population: int, options: dict, seed: int,
             generations: int, same_noise: bool) -> tuple[np.ndarray, np.ndarray]:
    """The same for pyribs' OpenAI-ES; with `same_noise`, its L2 and
    epsilon scaled to make its update ours (see the module's text)."""
    scale = 2.0 if same_noise else 1.0
    es = OpenAIEvolutionStrategy(
        options["es_sigma"], dim, batch_size=population,
        seed=seed if same_noise else seed + 10_000, mirror_sampling=True,
        lr=options["es_lr"], beta1=BETA1, beta2=BETA2, epsilon=ADAM_EPSILON * scale,
        l2_coeff=options["es_weight_decay"] * scale)
    es.reset(np.zeros(dim))
    theta = es.adam_opt.theta
    curve, means = [objective(theta)[0]], [theta.copy()]
    for _ in range(generations):
        solutions = es.ask()
        fitness = objective(solutions)
        # pyribs is told the indices best first; equal values keep their order.
        order = np.argsort(-fitness, kind="stable")
        es.tell(order, fitness[order], population // 2)
        theta = es.adam_opt.theta
        curve.append(objective(theta)[0])
        means.append(theta.copy())
    return np.array(curve), np.array(means)


def same_noise(name, objective, dim, population, options, generations) -> None:
    ours, ours_means, tied = run_ours(objective, dim, population, options, 0,
                                      generations, True)
    # Our pairs are interleaved (+eps, -eps, ...), pyribs' in halves
    # (+eps..., -eps...): the same individuals in another order.
    ribs, ribs_means = run_ribs(objective, dim, population, options, 0,
                                generations, True)
    gap = np.max(np.abs(ours_means - ribs_means), axis=1)
    parted = np.flatnonzero(gap > 1e-9)
    where = f"first differ at generation {parted[0]}" if len(parted) else "never differ by 1e-9"
    print(f"{name}, same noise, {generations} generations: largest |theta - theta_ribs| "
          f"{gap.max():.3g}; they {where}; generations with tied fitness: {tied}; "
          f"mean's fitness at the end: ours {ours[-1]:.6g}, pyribs {ribs[-1]:.6g}")


def own_streams(name, objective, dim, population, options, generations, seeds):
    ours = np.array([run_ours(objective, dim, population, options, s, generations,
                              False)[0] for s in range(seeds)])
    ribs = np.array([run_ribs(objective, dim, population, options, s, generations,
                              False)[0] for s in range(seeds)])
    print(f"{name}, own streams, {seeds} seeds: fitness of the mean, median [min, max]")
    print(f"  {'generation':>10}  {'ours':>32}  {'pyribs':>32}")
    for g in list(range(0, generations + 1, PRINT_EVERY)) + (
            [generations] if generations % PRINT_EVERY else []):
        cell = lambda c: (f"{np.median(c[:, g]):10.4g} [{c[:, g].min():9.4g}, "
                          f"{c[:, g].max():9.4g}]")
        print(f"  {g:>10}  {cell(ours):>32}  {cell(ribs):>32}")
    return ours, ribs


def draw(panels, options, population, path: Path) -> None:
    from plots import new_figure, save_figure

    fig = new_figure(4.2 * len(panels), 3.6)
    for i, (name, ours, ribs) in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), i + 1)
        x = np.arange(ours.shape[1])
        for curves, label, colour in ((ours, "ours (OpenAIES)", "tab:blue"),
                                      (ribs, "pyribs OpenAIEvolutionStrategy", "tab:orange")):
            ax.plot(x, np.median(curves, axis=0), color=colour, label=label)
            ax.fill_between(x, curves.min(axis=0), curves.max(axis=0), color=colour,
                            alpha=0.2, linewidth=0)
        ax.set_title(name)
        ax.set_xlabel("generation")
        if i == 0:
            ax.set_ylabel("fitness of the mean (median, range over seeds)")
            ax.legend(loc="lower right", fontsize=8)
        ax.grid(alpha=0.3)
    fig.suptitle(f"OpenAI-ES beside pyribs: population {population}, sigma "
                 f"{options['es_sigma']:g}, lr {options['es_lr']:g}, weight decay "
                 f"{options['es_weight_decay']:g}, Adam", fontsize=10)
    fig.tight_layout()
    save_figure(fig, path)
    print(f"figure: {path}")


def sweep(rates, budgets, stage: str, seeds: int, workers: int | None) -> None:
    import tempfile

    from evolution.loop.evolve import evolve

    print(f"{stage}: fitness of the mean after N frames, seeds 0-{seeds - 1} "
          f"(the zeros it starts from: {zeros_fitness(stage, workers):.6g})")
    print(f"  {'es_lr':>7} {'frames':>9}  fitness by seed")
    for lr in rates:
        for budget in budgets:
            ends = []
            for seed in range(seeds):
                config = EvolutionConfig(algorithm="openai-es", stages=(stage,), seed=seed,
                                         max_frames=int(budget), generations=10**7,
                                         checkpoint_every=10**7, options={"es_lr": lr},
                                         **({"workers": workers} if workers else {}))
                with tempfile.TemporaryDirectory() as run_dir:
                    ends.append(evolve(config, run_dir).best_fitness)
            print(f"  {lr:>7g} {int(budget):>9d}  " + " ".join(f"{f:8.3f}" for f in ends),
                  flush=True)


def zeros_fitness(stage: str, workers: int | None) -> float:
    config = EvolutionConfig(algorithm="openai-es", stages=(stage,),
                             **({"workers": workers} if workers else {}))
    with GenomeEvaluator(config) as evaluate:
        return evaluate([np.zeros(config.genome_size())])[0][0]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--generations", type=int, default=300,
                   help="generations on the functions")
    p.add_argument("--game-generations", type=int, default=100)
    p.add_argument("--game-seeds", type=int, default=3)
    p.add_argument("--population", type=int, default=60)
    p.add_argument("--no-game", action="store_true", help="the functions only")
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "openai_es_reference.png")
    p.add_argument("--sweep", action="store_true",
                   help="print the fitness of the mean by learning rate and budget instead")
    p.add_argument("--rates", type=float, nargs="+", default=[0.001, 0.005, 0.01])
    p.add_argument("--budgets", type=float, nargs="+", default=[1e6, 3e6, 1e7])
    p.add_argument("--stage", default="hillside")
    args = p.parse_args(argv)
    if args.sweep:
        if (args.seeds < 1 or min(args.budgets) < 1
                or not all(1e-6 <= r <= 10.0 for r in args.rates)):
            print("openai_es_reference: --seeds and --budgets must be at least 1 and "
                  "--rates from 1e-06 to 10", file=sys.stderr)
            return 2
        sweep(args.rates, args.budgets, args.stage, args.seeds, args.workers)
        return 0
    if args.seeds < 1 or args.generations < 1 or args.population < 2 or args.population % 2:
        print("openai_es_reference: --seeds and --generations must be at least 1 and "
              "--population an even number of at least 2", file=sys.stderr)
        return 2
    options = defaults()
    print(f"settings: population {args.population}, " +
          ", ".join(f"{k} {v:g}" for k, v in options.items()) +
          f", Adam beta1 {BETA1}, beta2 {BETA2}, epsilon {ADAM_EPSILON:g}")
    tasks = [("sphere", sphere, DIM, args.generations, args.seeds),
             ("rastrigin", rastrigin, DIM, args.generations, args.seeds)]
    if not args.no_game:
        play, size = game_objective(args.workers)
        tasks.append(("hillside (game)", play, size, args.game_generations, args.game_seeds))
    panels = []
    for name, objective, dim, generations, seeds in tasks:
        same_noise(name, objective, dim, args.population, options, generations)
        if name.startswith("hillside"):
            # Equal fitness made distinct the same way for both: if the
            # two still part, ties are not the only difference.
            same_noise(f"{name} with ties broken by 1e-9 x the first weight",
                       lambda x, f=objective: f(x) + 1e-9 * np.atleast_2d(x)[:, 0],
                       dim, args.population, options, generations)
        ours, ribs = own_streams(name, objective, dim, args.population, options,
                                 generations, seeds)
        panels.append((name, ours, ribs))
    draw(panels, options, args.population, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

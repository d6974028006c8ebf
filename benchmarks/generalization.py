"""Held-out completion of the README's generalisation recipe, beside the
hold-right and jump-runner baselines.

    python benchmarks/generalization.py                 the full recipe, seeds 0 1 2
    python benchmarks/generalization.py --seeds 0       one seed
    python benchmarks/generalization.py --seeds 0-4     five seeds
    python benchmarks/generalization.py --short         a few generations (make bench)
    python benchmarks/generalization.py --variant reach      the recipe before it: reach, no fit
    python benchmarks/generalization.py --variant one-start  reach of one start
    python benchmarks/generalization.py --variant landing-mlp  the recipe before reach
    python benchmarks/generalization.py --variant stand-520-by-set  reach's recipe over "stand"
    python benchmarks/generalization.py --variant behind-skills     over "behind", with skill stages
    python benchmarks/generalization.py --variant imitation  reach from a fit of the planner
    python benchmarks/generalization.py --variant start-shift  trained from moved starts
    python benchmarks/generalization.py --variant final-repeat  deciding every frame at the end
    python benchmarks/generalization.py --variant runup  seeing how far back from its farthest x
    python benchmarks/generalization.py --variant imitation-back  from a fit that goes back

Each variant is a preset of `configs/` (`VARIANTS`), a whole run file:
the recipe is `configs/recipe.toml`, the file the README runs. The
variants the record in docs/generalisation.md tried on the way to it and
no longer compares against are run by this script at the commit that
record names.

For each seed it runs `python -m evolution.run --config PRESET` into a
fresh directory, then prints, per difficulty, how many stages the evolved
policy (best.json's genome) completes: of its training stages, of its
validation stages (the presets that have them), of the README's test
stages (the held-out results best.json keeps), of `UNTOUCHED`, 200 more
stages per difficulty that no setting was ever chosen on, and of the
three built-in stages, which no run trains on (transfer), with the wall
time of the run; then how many of the hand-made validation stages
(`speednik/stages/handmade/`) it finishes, and apart from them how many
of the hand-made held-out stages (`speednik/stages/handmade/heldout/`,
which no setting is chosen on), and how many of 100 skill stages
(`SKILLS`) and of 100 place stages (`PLACES`). The baselines are played
on the same test stages. Targets: at least 97% of the medium, 95% of the
hard and 90% of the expert test stages and all three built-in stages, in
at most 15 minutes of wall time on a 2-core machine, for every seed.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evolution.cli.run_options import build_parser, config_from_args, option_name  # noqa: E402
from evolution.config import EvolutionConfig  # noqa: E402
from evolution.config_file import read_config_file  # noqa: E402
from evolution.run import main as evolution_main  # noqa: E402
from runners import RunnerConfig, run_episodes  # noqa: E402
from runners.genome_file import load_genome_file  # noqa: E402
from speednik.cli import OneLineParser  # noqa: E402
from speednik.stages import expand_stages, handmade_heldout_stages, handmade_stages  # noqa: E402

CONFIGS = ROOT / "configs"
# Reported only: never looked at while choosing the recipe's settings.
UNTOUCHED = ("gen:medium:20000-20199", "gen:hard:20000-20199", "gen:expert:20000-20199")
# Reported only: stages built around the moves made from little speed
# (a spring passed, steep climbs and half-pipes met slowly), which the
# hand-made stages ask for; the variants that train on skill stages
# train on others of the kind.
SKILLS = ("gen:skills:1000-1099",)
# Reported only: stages strung from stretches of the six hand-made
# validation stages (speednik.stages.places), for how a policy plays
# their places met in other orders.
PLACES = ("gen:places:1000-1099",)
# No variant trains on these: how a policy plays hand-made stages.
TRANSFER = ("hillside", "pipeworks", "skybridge")
# Hand-made stages that are not built-in, for choosing settings: how a
# policy plays stages a designer wrote, without looking at TRANSFER.
HANDMADE = tuple(handmade_stages())
# Reported only, as UNTOUCHED: hand-made stages written apart.
HANDMADE_HELDOUT = tuple(handmade_heldout_stages())
# --variant NAME: the preset it runs, and what it is.
VARIANTS = {
    "recipe": (CONFIGS / "recipe.toml", "the README's recipe"),
    "reach": (CONFIGS / "recipe-reach.toml",
              "the recipe before it: the reach observation, the search from a random start"),
    "one-start": (CONFIGS / "recipe-one-start.toml",
                  "the reach recipe with a single start of 520 M frames, as it was before"),
    "landing-mlp": (CONFIGS / "recipe-landing-mlp.toml",
                    "the recipe before reach: an MLP over the landing observation, a decision "
                    "every frame, 560 M frames, the genome chosen by stages completed"),
    "stand-520-by-set": (CONFIGS / "recipe-stand.toml",
                         "the reach recipe over the stand observation"),
    "behind-skills": (CONFIGS / "recipe-behind.toml",
                      "the reach recipe over the behind observation, with 64 skill stages "
                      "among its training stages"),
    "imitation": (CONFIGS / "recipe-imitation.toml",
                  "the reach recipe's search started from a fit of the planner's actions "
                  "(three rounds) on its training stages and 64 skill stages"),
    "start-shift": (CONFIGS / "recipe-start-shift.toml",
                    "the reach recipe with each training stage played from a start moved by up "
                    "to 12 px either way, drawn anew each generation"),
    "final-repeat": (CONFIGS / "recipe-final-repeat.toml",
                     "the reach recipe deciding every frame for its last 120 M frames: scored, "
                     "validated and tested so, and its genome plays so"),
    "runup": (CONFIGS / "recipe-runup.toml",
              "the reach recipe over the runup observation: reach and how far behind its "
              "farthest x the player is"),
    "imitation-back": (CONFIGS / "recipe-imitation-back.toml",
                       "the reach recipe over runup with 64 skill stages, started from a fit "
                       "of the planner in which its left presses count ten times"),
}
# `make bench`: a few generations of CMA-ES on a small task and test set.
SHORT = ("--stage gen:medium:0-7 gen:hard:0-7 --stages-per-generation 8 "
         "--test-stage gen:medium:1000-1019 gen:hard:1000-1019 --test-every 5 "
         "--observation stall --algorithm cmaes --init-sigma 0.5 --population 30 "
         "--generations 10").split()


def shown_value(value) -> str:
    """A setting as the command line takes it: a whole float as the whole
    number the file writes (10, not 10.0), any other float to its last
    digit."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


def preset_options(path: Path) -> list[str]:
    """A preset's settings as the `evolution.run` options that give them
    (the long command the README shows beside the file), in the file's
    order."""
    out: list[str] = []
    settings = read_config_file(path)
    options = settings.pop("options", {})
    for key, value in [*settings.items(), *options.items()]:
        if key == "stall_frames" and value is None:
            value = 0       # never, as the command line says it
        values = value if isinstance(value, list) else [value]
        out += [option_name(key), *(shown_value(v) for v in values)]
    return out


# The README's recipe as its long command, less --seed and --out.
RECIPE = preset_options(VARIANTS["recipe"][0])


def run_options(variant: str | None) -> list[str]:
    """The `evolution.run` options of a variant (None: the short setting),
    less --seed and --out."""
    return list(SHORT) if variant is None else ["--config", str(VARIANTS[variant][0])]


def config_of(args: list[str]) -> EvolutionConfig:
    return config_from_args(build_parser().parse_args(args))


TARGET = {"medium": 0.97, "hard": 0.95, "expert": 0.90}
TIME_LIMIT = 15 * 60


def per_difficulty(results: dict) -> dict[str, tuple[int, int]]:
    """{difficulty: (completed, stages)} of held-out results by stage name."""
    out: dict[str, list[int]] = {}
    for name, r in results.items():
        difficulty = name.split(":")[1]
        done, total = out.setdefault(difficulty, [0, 0])
        out[difficulty] = [done + bool(r["metrics"]["goal_reached"]), total + 1]
    return {d: (v[0], v[1]) for d, v in out.items()}


def baselines(test_sets: list[str]) -> dict[str, dict[str, tuple[int, int]]]:
    stages = expand_stages(test_sets)
    out = {}
    for agent in ("hold-right", "jump-runner"):
        results = run_episodes([(agent, s) for s in stages], RunnerConfig(max_steps=3600),
                               workers=2)
        out[agent] = per_difficulty({s: r.to_dict() for s, r in zip(stages, results)})
    return out


def run_recipe(args: list[str], seed: int, where: Path) -> tuple[Path, dict, float]:
    """The run's directory, its held-out results per difficulty and its
    wall time."""
    out = where / f"seed{seed}"
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):   # the run's own summary
        status = evolution_main([*args, "--seed", str(seed), "--out", str(out), "--quiet"])
    seconds = time.perf_counter() - t0
    if status != 0:
        raise SystemExit(f"evolution.run exited with {status}")
    held = json.loads((out / "best.json").read_text())["held_out"]
    return out, per_difficulty(held["results"]), seconds


def completed(run_dir: Path, sets: list[str]) -> dict[str, tuple[int, int]]:
    """{difficulty: (completed, stages)} of the run's best genome on `sets`,
    played with the run's episode settings."""
    record = load_genome_file(run_dir / "best.json")
    stages = expand_stages(sets)
    config = record.runner_config()
    spec = record.policy_spec.spec(record.genome)
    results = run_episodes([(spec, s) for s in stages], config, workers=2, engine="compiled")
    return per_difficulty({s: r.to_dict() for s, r in zip(stages, results)})


def finished(run_dir: Path, stages) -> list[str]:
    """Those of `stages` the run's best genome finishes."""
    record = load_genome_file(run_dir / "best.json")
    config = record.runner_config()
    spec = record.policy_spec.spec(record.genome)
    results = run_episodes([(spec, s) for s in stages], config, workers=2, engine="compiled")
    return [s for s, r in zip(stages, results) if r.to_dict()["metrics"]["goal_reached"]]


def transfer(run_dir: Path) -> list[str]:
    """The built-in stages (TRANSFER) the run's best genome finishes."""
    return finished(run_dir, TRANSFER)


def total(rates: dict[str, tuple[int, int]]) -> tuple[int, int]:
    return sum(v[0] for v in rates.values()), sum(v[1] for v in rates.values())


def fmt(done_total: tuple[int, int]) -> str:
    done, total = done_total
    return f"{done:3d}/{total} ({100 * done / total:5.1f}%)"


def seeds_of(text: str) -> list[int]:
    """A seed ("3") or a range of them, both ends included ("0-4")."""
    first, dash, last = text.partition("-")
    try:
        low = int(first)
        high = int(last) if dash else low
    except ValueError:
        low = high = -1
    if low < 0 or high < low:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a seed or a range of seeds: give a number (3) or a range "
            f"with its ends included (0-4)")
    return list(range(low, high + 1))


def main(argv: list[str] | None = None) -> int:
    # The docstring's first paragraph: its first line alone stops mid-sentence.
    p = OneLineParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("--seeds", type=seeds_of, nargs="+", default=[[0, 1, 2]],
                   help="the seeds to run, one after the other: numbers or ranges with "
                        "their ends included (0-4 is 0 1 2 3 4; default: 0 1 2)")
    p.add_argument("--short", action="store_true", help="the short setting of make bench")
    p.add_argument("--keep", type=Path, help="keep the run directories here")
    p.add_argument("--variant", choices=VARIANTS, default="recipe",
                   help="the preset of configs/ to run: " + "; ".join(
                       f"{name} ({path.relative_to(ROOT)}): {what}"
                       for name, (path, what) in VARIANTS.items()))
    a = p.parse_args(argv)
    args = run_options(None if a.short else a.variant)
    config = config_of(args)
    chosen = [seed for part in a.seeds for seed in part]
    seeds = [0] if a.short and chosen == [0, 1, 2] else chosen
    tests = list(config.test_stages)
    name = "short" if a.short else a.variant
    shown = args if a.short else ["--config", str(VARIANTS[a.variant][0].relative_to(ROOT))]
    print(f"{name}: python -m evolution.run " + " ".join(shown) + " --seed SEED")
    for agent, rates in baselines(tests).items():
        print(f"{agent:<12s} " + "  ".join(f"{d} {fmt(v)}" for d, v in rates.items()))
    met = True
    tested = {name.split(":")[1] for name in tests}
    untouched = [] if a.short else [u for u in UNTOUCHED if u.split(":")[1] in tested]
    with tempfile.TemporaryDirectory() as tmp:
        where = a.keep or Path(tmp)
        for seed in seeds:
            run_dir, rates, seconds = run_recipe(args, seed, where)
            training = total(completed(run_dir, list(config.stages)))
            validation = ({} if not config.validation_stages
                          else completed(run_dir, list(config.validation_stages)))
            built_in = transfer(run_dir)
            ok = (seconds <= TIME_LIMIT and len(built_in) == len(TRANSFER)
                  and all(v[0] >= TARGET.get(d, 0.0) * v[1] for d, v in rates.items()))
            met &= ok
            print(f"evolved seed {seed}  training {fmt(training)}  test "
                  + "  ".join(f"{d} {fmt(v)}" for d, v in rates.items())
                  + f"  built-in {len(built_in)}/{len(TRANSFER)} ({', '.join(built_in) or 'none'})"
                  + f"  wall {seconds / 60:.1f} min"
                  + ("" if a.short else f"  {'meets' if ok else 'MISSES'} the target"),
                  flush=True)
            if validation:
                print("    validation  " + "  ".join(
                    f"{d} {fmt(v)}" for d, v in validation.items()), flush=True)
            if not a.short:
                for label, stages in (("hand-made", HANDMADE),
                                      ("hand-made held-out", HANDMADE_HELDOUT)):
                    hand = [Path(p).stem for p in finished(run_dir, stages)]
                    print(f"    {label}  {len(hand)}/{len(stages)} "
                          f"({', '.join(hand) or 'none'})", flush=True)
            if untouched:
                print("    untouched  " + "  ".join(
                    f"{d} {fmt(v)}" for d, v in completed(run_dir, untouched).items()), flush=True)
            if not a.short:
                print(f"    skill stages  {fmt(total(completed(run_dir, list(SKILLS))))}"
                      f"  place stages  {fmt(total(completed(run_dir, list(PLACES))))}",
                      flush=True)
    if not a.short:
        print("target (held-out >= 97% medium, >= 95% hard, >= 90% expert, all built-in "
              f"stages, <= 15 min, every seed): {'met' if met else 'not met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

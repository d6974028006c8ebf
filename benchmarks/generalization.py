"""Held-out completion of the README's generalisation recipe, beside the
hold-right and jump-runner baselines.

    python benchmarks/generalization.py                 the full recipe, seeds 0 1 2
                                                        (reach-520-by-set)
    python benchmarks/generalization.py --seeds 0       one seed
    python benchmarks/generalization.py --short         a few generations (make bench)
    python benchmarks/generalization.py --variant landing-mlp  the recipe before, over "landing"
    python benchmarks/generalization.py --variant room     that over "room"
    python benchmarks/generalization.py --variant repeat-2 that deciding every other frame
    python benchmarks/generalization.py --variant footing  ... step 0.15, mean validated, "footing"
    python benchmarks/generalization.py --variant footing-520  ... stopped at 520 M frames
    python benchmarks/generalization.py --variant local-520  ... over "local"
    python benchmarks/generalization.py --variant onward-520  ... over "onward"
    python benchmarks/generalization.py --variant stride-520  ... over "stride"
    python benchmarks/generalization.py --variant stride-520-by-set  ... chosen by set
    python benchmarks/generalization.py --variant reach-520  stride-520 over "reach"
    python benchmarks/generalization.py --variant reach-520-by-set  ... chosen by set (the recipe)
    python benchmarks/generalization.py --variant stand-520-by-set  that over "stand"
    python benchmarks/generalization.py --variant failures-64  landing-mlp with 64 expert stages
    python benchmarks/generalization.py --variant uniform  before that: stages drawn alike
    python benchmarks/generalization.py --variant pits  ... and before: linear, over "pits"
    python benchmarks/generalization.py --variant landing  ... over "landing", 500 generations
    python benchmarks/generalization.py --variant ga-32 the same task with the genetic algorithm
    python benchmarks/generalization.py --variant stall    the recipe before expert stages
    python benchmarks/generalization.py --variant hazards  ... and before the stall clock

For each seed it runs `python -m evolution.run` with the recipe's options
(`RECIPE`, the same line the README shows) into a fresh directory, then
prints, per difficulty, how many stages the evolved policy (best.json's
genome) completes: of its training stages, of its validation stages
(the recipes that have them), of the README's test stages
(the held-out results best.json keeps), of `UNTOUCHED`, 200 more stages
per difficulty that no setting was ever chosen on, and of the three
built-in stages, which no run trains on (transfer), with the wall time
of the run; then how many of the hand-made validation stages
(`speednik/stages/handmade/`) it finishes. The baselines are played on the same test stages. Targets:
at least 97% of the medium, 95% of the hard and 90% of the expert test
stages and all three built-in stages, in at most 15 minutes of wall time
on a 2-core machine, for every seed.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evolution.run import main as evolution_main  # noqa: E402
from runners import RunnerConfig, run_episodes  # noqa: E402
from runners.genome_file import load_genome_file  # noqa: E402
from speednik.stages import expand_stages, handmade_stages  # noqa: E402

TEST_SETS = ("gen:medium:1000-1099", "gen:hard:1000-1099", "gen:expert:1000-1099")
# Reported only: never looked at while choosing the recipe's settings.
UNTOUCHED = ("gen:medium:20000-20199", "gen:hard:20000-20199", "gen:expert:20000-20199")
# No variant trains on these: how a policy plays hand-made stages.
TRANSFER = ("hillside", "pipeworks", "skybridge")
# Hand-made stages that are not built-in, for choosing settings: how a
# policy plays stages a designer wrote, without looking at TRANSFER.
HANDMADE = tuple(handmade_stages())
# The recipe's stages, for training, choosing and testing.
_STAGES = ("--stage gen:medium:0-15 gen:hard:0-15 gen:expert:200-263 --stages-per-generation 32 "
           "--validation-stage gen:medium:2000-2049 gen:hard:2000-2049 gen:expert:10000-10049 "
           f"--test-stage {' '.join(TEST_SETS)} --test-every 25")
# An earlier recipe: stages drawn uniformly, 450 generations.
UNIFORM = (f"{_STAGES} --observation landing --policy mlp --hidden 16 --algorithm cmaes "
           "--init-sigma 0.5 --population 40 --generations 450").split()
# The recipe before it: the stages failed more are drawn more, and it
# stops at 560 M frames if it gets there before generation 450 (its
# episodes run longer; the frames keep its time).
FAILURES_64 = [*UNIFORM[:UNIFORM.index("--observation")], "--stage-draw", "failures",
               *UNIFORM[UNIFORM.index("--observation"):], "--max-frames", "560000000"]
# The recipe before the one the README shows: that line with twice the
# expert training stages, its genome chosen on four times the expert
# validation stages.
LANDING_MLP = [{"gen:expert:200-263": "gen:expert:200-327",
                "gen:expert:10000-10049": "gen:expert:10000-10199"}.get(a, a)
               for a in FAILURES_64]
# The recipe over "room" (where a jump comes down, with the ground left
# past it). A frame costs a little more, so it stops at 510 M frames,
# which keeps every seed within 15 minutes.
ROOM = [{"landing": "room", "560000000": "510000000"}.get(a, a) for a in LANDING_MLP]
# The recipe with 8 hidden units: half the weights for CMA-ES to search.
# The frames stop it, not the generations.
HIDDEN_8 = [{"--hidden": "8", "--generations": "600"}.get(b, a)
            for a, b in zip(LANDING_MLP, ["", *LANDING_MLP])]
# With 24: a frame costs 7% more, so it stops at 515 M frames; the
# covariance of its 1,664 weights is decomposed every 8 updates (Hansen's
# 1 / ((c1 + cmu) n 10)), which makes CMA-ES's update cheaper than the
# recipe's.
HIDDEN_24 = [*({"--hidden": "24", "--generations": "600", "--max-frames": "515000000"}.get(b, a)
               for a, b in zip(LANDING_MLP, ["", *LANDING_MLP])), "--cma-eigen-every", "8"]
# The recipe with a diagonal covariance (sep-CMA-ES), which learns each
# weight's spread; with no decomposition a generation's update costs
# 0.1 s less, which buys 575 M frames in the time of 560 M.
SEP_CMAES = [*({"560000000": "575000000", "450": "600"}.get(a, a) for a in LANDING_MLP),
             "--cma-diagonal", "1"]
# The recipe deciding every other frame: a frame costs less, so it stops
# at 700 M frames (generation 800 is never reached).
REPEAT_2 = [*({"560000000": "700000000", "450": "800"}.get(a, a) for a in LANDING_MLP),
            "--action-repeat", "2"]
# The same with a smaller step: CMA-ES's step size barely moves over a
# run of 1,112 weights (0.5 to 0.37 in 500 generations), so the first
# is the step of the whole run.
REPEAT_2_SIGMA = [{"0.5": "0.3"}.get(a, a) for a in REPEAT_2]
# A smaller first step still, with CMA-ES's mean among the validation
# candidates (every sample carries the step's noise on all weights).
SIGMA_15_MEAN = [*({"0.3": "0.15"}.get(a, a) for a in REPEAT_2_SIGMA),
                 "--cma-validate-mean", "1"]
# The same over "footing": flights judged past a red spring's arc, at any
# depth, and spikes touched counted as a fall.
FOOTING = ["footing" if a == "landing" else a for a in SIGMA_15_MEAN]
# The same stopped at 520 M frames: a "footing" frame costs 1.08 to 1.16
# times a "landing" one (benchmarks/bench_landing.py), which puts 700 M
# at the 15-minute limit with no margin.
FOOTING_520 = ["520000000" if a == "700000000" else a for a in FOOTING]
# That over "local": "footing" without where on the stage the player is
# and when, so nothing ties the policy to the generator's stages.
LOCAL_520 = ["local" if a == "footing" else a for a in FOOTING_520]
# That over "onward": a jump that throws the player back down a climb
# reads as a fall.
ONWARD_520 = ["onward" if a == "local" else a for a in LOCAL_520]
# That over "stride": the later flights press jump at the next decision
# of a policy deciding every other frame, not a frame later.
STRIDE_520 = ["stride" if a == "onward" else a for a in ONWARD_520]
# That with its genome chosen by validation set, not by stage: 50 medium
# validation stages weigh as much as the 200 expert ones. The search is
# the same as stride-520's, run for run; only the genome chosen differs.
STRIDE_520_BY_SET = [*STRIDE_520, "--validation-weight", "set"]
# Those two over "reach": stride with its flights played whenever the
# player is faster than it runs, where a jump can come down past the
# pits in view. The second is the README's recipe.
REACH_520 = ["reach" if a == "stride" else a for a in STRIDE_520]
REACH_520_BY_SET = [*REACH_520, "--validation-weight", "set"]
# The recipe over "stand": a flight comes down only once the player has
# stood on the ground a few frames, so a touch of a ledge's lip on the
# way into a pit no longer reads as a landing.
STAND_520_BY_SET = ["stand" if a == "reach" else a for a in REACH_520_BY_SET]
# The README's recipe, less --seed and --out.
RECIPE = REACH_520_BY_SET
# The recipe before it: a linear policy over "pits", 800 generations.
PITS = (f"{_STAGES} --observation pits --algorithm cmaes --init-sigma 0.5 --population 40 "
        "--generations 800").split()
# The recipe before expert stages: medium and hard only, the stall clock.
STALL = ("--stage gen:medium:0-31 gen:hard:0-31 "
         "--validation-stage gen:medium:2000-2049 gen:hard:2000-2049 "
         f"--test-stage {' '.join(TEST_SETS[:2])} --test-every 25 --observation stall "
         "--algorithm cmaes --init-sigma 0.5 --population 80 --generations 150").split()
# `make bench`: the same recipe, a few generations and a small test set.
SHORT = ("--stage gen:medium:0-7 gen:hard:0-7 --stages-per-generation 8 "
         "--test-stage gen:medium:1000-1019 gen:hard:1000-1019 --test-every 5 "
         "--observation stall --algorithm cmaes --init-sigma 0.5 --population 30 "
         "--generations 10").split()
# That linear policy over "landing" (the flights of a jump played
# forward): a frame costs about twice as much, so 500 generations in the
# time of 800.
LANDING = [*("landing" if a == "pits" else "500" if a == "800" else a for a in PITS)]
# The stall task with the genetic algorithm, each generation on 32 or 16
# of the 64 training stages.
_TASK = STALL[:STALL.index("--algorithm")]
VARIANTS = {
    "recipe": RECIPE,
    "landing-mlp": LANDING_MLP,
    "room": ROOM,
    "hidden-8": HIDDEN_8,
    "hidden-24": HIDDEN_24,
    "sep-cmaes": SEP_CMAES,
    "repeat-2": REPEAT_2,
    "repeat-2-sigma": REPEAT_2_SIGMA,
    "sigma-0.15-mean": SIGMA_15_MEAN,
    "footing": FOOTING,
    "footing-520": FOOTING_520,
    "local-520": LOCAL_520,
    "onward-520": ONWARD_520,
    "stride-520": STRIDE_520,
    "stride-520-by-set": STRIDE_520_BY_SET,
    "reach-520": REACH_520,
    "reach-520-by-set": REACH_520_BY_SET,
    "stand-520-by-set": STAND_520_BY_SET,
    "failures-64": FAILURES_64,
    "uniform": UNIFORM,
    "pits": PITS,
    "landing": LANDING,
    "stall": STALL,
    "ga-32": [*_TASK, "--stages-per-generation", "32", "--algorithm", "ga",
              "--population", "80", "--generations", "150"],
    "ga-16": [*_TASK, "--stages-per-generation", "16", "--algorithm", "ga",
              "--population", "80", "--generations", "200"],
}
# The stall recipe's earlier steps: an observation without the stall
# clock (hazards) or without what lies ahead (terrain), 32 of the 64
# training stages a generation.
for _earlier in ("hazards", "terrain"):
    VARIANTS[_earlier] = [*(_earlier if a == "stall" else a for a in STALL),
                          "--stages-per-generation", "32"]
TARGET = {"medium": 0.97, "hard": 0.95, "expert": 0.90}
TIME_LIMIT = 15 * 60


def sets_of(args: list[str], option: str) -> list[str]:
    """The stage sets given to `option` in an evolution.run line."""
    i = args.index(option) + 1
    out = []
    while i < len(args) and not args[i].startswith("--"):
        out.append(args[i])
        i += 1
    return out


def test_sets_of(args: list[str]) -> list[str]:
    return sets_of(args, "--test-stage")


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


def main(argv: list[str] | None = None) -> int:
    # The docstring's first paragraph: its first line alone stops mid-sentence.
    p = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2],
                   help="the seeds to run, one after the other (default: 0 1 2)")
    p.add_argument("--short", action="store_true", help="the short setting of make bench")
    p.add_argument("--keep", type=Path, help="keep the run directories here")
    p.add_argument("--variant", choices=VARIANTS, default="recipe",
                   help="the recipe (the same as reach-520-by-set), the recipe before it "
                        "(landing-mlp: an MLP over the landing observation), that over the "
                        "room observation (room), that with 8 or 24 hidden units (hidden-8, "
                        "hidden-24), a "
                        "diagonal covariance (sep-cmaes) or deciding every other frame "
                        "(repeat-2; repeat-2-sigma: with --init-sigma 0.3; sigma-0.15-mean: "
                        "with 0.15 and CMA-ES's mean validated; footing: that over the "
                        "footing observation; footing-520: that stopped at 520 M frames; local-520, "
                        "onward-520, stride-520, reach-520: that over the local, onward, "
                        "stride or reach observation; stride-520-by-set, reach-520-by-set: "
                        "the genome chosen by validation set; stand-520-by-set: that over "
                        "the stand observation), the "
                        "one before landing-mlp (failures-64: 64 expert "
                        "training stages, chosen on 50 expert validation stages), the one "
                        "before that (uniform: 64 expert training stages drawn alike, "
                        "450 generations), the one before (pits: a "
                        "linear policy over the pits observation, 800 generations), that "
                        "policy over the "
                        "landing observation for 500 generations (landing), or an earlier "
                        "one: before expert stages (stall), that task with the genetic "
                        "algorithm (ga-32, ga-16), or its earlier steps (hazards, terrain)")
    a = p.parse_args(argv)
    args = SHORT if a.short else VARIANTS[a.variant]
    seeds = [0] if a.short and a.seeds == [0, 1, 2] else a.seeds
    tests = test_sets_of(args)
    name = "short" if a.short else a.variant
    print(f"{name}: python -m evolution.run " + " ".join(args) + " --seed SEED")
    for agent, rates in baselines(tests).items():
        print(f"{agent:<12s} " + "  ".join(f"{d} {fmt(v)}" for d, v in rates.items()))
    met = True
    tested = {name.split(":")[1] for name in tests}
    untouched = [] if a.short else [u for u in UNTOUCHED if u.split(":")[1] in tested]
    with tempfile.TemporaryDirectory() as tmp:
        where = a.keep or Path(tmp)
        for seed in seeds:
            run_dir, rates, seconds = run_recipe(args, seed, where)
            training = total(completed(run_dir, sets_of(args, "--stage")))
            validation = ({} if "--validation-stage" not in args
                          else completed(run_dir, sets_of(args, "--validation-stage")))
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
                hand = [Path(p).stem for p in finished(run_dir, HANDMADE)]
                print(f"    hand-made  {len(hand)}/{len(HANDMADE)} ({', '.join(hand) or 'none'})",
                      flush=True)
            if untouched:
                print("    untouched  " + "  ".join(
                    f"{d} {fmt(v)}" for d, v in completed(run_dir, untouched).items()), flush=True)
    if not a.short:
        print("target (held-out >= 97% medium, >= 95% hard, >= 90% expert, all built-in "
              f"stages, <= 15 min, every seed): {'met' if met else 'not met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

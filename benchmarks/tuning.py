"""Each search method's own settings tuned with `evolution.tune` on the
generalisation recipe's task, beside the method's defaults at the same
budget.

    python benchmarks/tuning.py [--methods M ...] [--trials 10]
                                [--frames 150000000] [--out runs/tuning]

Per method: one run with the method's defaults, stopped at --frames
(OUT/default-M), then --trials trials of `evolution.tune` at the same
frames each (OUT/tune-M). A method whose defaults were changed after
tuning (EARLIER_DEFAULTS) also gets a run with the defaults it had before
(OUT/earlier-M). Every run and trial is on the recipe's 96 training
stages and is scored on its 150 validation stages only; the test stages
are never played. Run it again after a stop: finished runs are read back,
a stopped run resumes, and the tuning resumes its study.

Prints a row per method: the trials, the settings the best trial found,
and the validation stages finished (of 150) with the defaults before
tuning, with the settings found, and with the defaults now. A trial of
CMA-ES took 4 minutes on the 2-core machine, quiet; PPO plays about six
times fewer frames a second (docs/ppo.md).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evolution.cli.settings_file import write_settings  # noqa: E402
from evolution.loop.outputs import read_logbook, run_complete  # noqa: E402
from evolution.strategies.registry import list_strategies  # noqa: E402
from evolution.tune import BEST_NAME, TRIALS_DIR, score_of  # noqa: E402

# The recipe's task (README, benchmarks/generalization.py) without its test
# stages, and with one seed for every run.
TASK = ["--stage", "gen:medium:0-15", "gen:hard:0-15", "gen:expert:200-263",
        "--validation-stage", "gen:medium:2000-2049", "gen:hard:2000-2049",
        "gen:expert:10000-10049", "--test-every", "25", "--observation", "pits",
        "--population", "80", "--workers", "2", "--seed", "0"]
VALIDATION_STAGES = 150
# Two tuning processes share each method's study, each playing a trial.
# No method keeps both cores busy alone: PPO's updates run torch on one
# thread (so its numbers do not depend on the machine), and the others'
# generations have stretches of Python between compiled batches (a trial
# of OpenAI-ES used 1.56 cores). The first ten trials are TPE's random
# start (optuna's default), whose settings do not depend on how many
# processes draw them (`evolution.tune`): up to ten trials the tuning is
# the one a single process makes. Asked for more, one process plays them
# all, so that every later trial is drawn from all the trials before it.
PROCESSES, RANDOM_START = 2, 10
# The cores a run of TASK uses: its --workers.
CORES = int(TASK[TASK.index("--workers") + 1])
# The defaults a method had before its tuning made new ones.
EARLIER_DEFAULTS = {
    "openai-es": {"es_sigma": 0.1, "es_lr": 0.1, "es_weight_decay": 0.005},
}


def python(*args: str) -> None:
    subprocess.run([sys.executable, *args], cwd=ROOT, check=True)


def validation_goals(run_dir: Path) -> int:
    """Validation stages the genome the run chose finishes: its logbook's
    last validation."""
    return score_of(read_logbook(run_dir), VALIDATION_STAGES)[1]


def validation_run(method: str, frames: int, run_dir: Path, settings: dict | None = None
                   ) -> int:
    """Validation stages a run of `method` finishes at `frames`, with its
    defaults or these settings."""
    if not run_complete(run_dir):
        if (run_dir / "checkpoint.npz").exists():
            python("-m", "evolution.run", "--resume", str(run_dir), "--quiet", "--no-plots")
        else:
            given = []
            if settings is not None:
                run_dir.parent.mkdir(parents=True, exist_ok=True)
                path = run_dir.parent / f"{run_dir.name}.settings.json"
                write_settings(path, method, settings)
                given = ["--settings", str(path)]
            python("-m", "evolution.run", *TASK, "--algorithm", method, *given,
                   "--max-frames", str(frames), "--generations", "1000000", "--quiet",
                   "--no-plots", "--out", str(run_dir))
    return validation_goals(run_dir)


def tune_commands(method: str, trials: int, frames: int, out: Path) -> list[list[str]]:
    """The `evolution.tune` processes that play a method's trials."""
    processes = PROCESSES if trials <= RANDOM_START else 1
    # Processes sharing the cores each take their share of the threads, so
    # that no step of one waits on a thread the other holds (PPO steps its
    # episodes once per decision). The logbook is the same at any --workers.
    share = ["--workers", str(max(1, CORES // processes))]
    command = [sys.executable, "-m", "evolution.tune", "--method", method, "--trials",
               str(trials), "--frames", str(frames), "--out", str(out / f"tune-{method}"),
               "--", *TASK, *share]
    return [command] * processes


def tuned(method: str, trials: int, frames: int, out: Path) -> tuple[int, dict, int]:
    """(trials, best settings, validation stages they finish)."""
    where = out / f"tune-{method}"
    commands = tune_commands(method, trials, frames, out)
    processes = [subprocess.Popen(command, cwd=ROOT) for command in commands]
    for command, status in zip(commands, [p.wait() for p in processes]):
        if status:
            raise subprocess.CalledProcessError(status, command)
    best = json.loads((where / BEST_NAME).read_text())
    trial_dir = where / TRIALS_DIR / f"{best['found']['trial']:04d}"
    goals = validation_goals(trial_dir)
    return best["found"]["trials"], best["settings"], goals


def shown(settings: dict) -> str:
    return ", ".join(f"{k} {v:.3g}" for k, v in settings.items())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("--methods", nargs="+", choices=list_strategies(), default=list_strategies())
    p.add_argument("--trials", type=int, default=10)
    p.add_argument("--frames", type=int, default=150_000_000)
    p.add_argument("--out", type=Path, default=ROOT / "runs" / "tuning")
    a = p.parse_args(argv)
    rows = []
    for method in a.methods:
        now = validation_run(method, a.frames, a.out / f"default-{method}")
        before = (validation_run(method, a.frames, a.out / f"earlier-{method}",
                                 EARLIER_DEFAULTS[method])
                  if method in EARLIER_DEFAULTS else now)
        trials, settings, found = tuned(method, a.trials, a.frames, a.out)
        rows.append(f"| {method} | {trials} | {shown(settings)} | {before} | {found} | {now} |")
    print(f"\nvalidation stages finished (of {VALIDATION_STAGES}) at {a.frames:,} frames, "
          "seed 0:\n")
    print("| method | trials | settings found | defaults before | with the settings found | "
          "defaults now |")
    print("| --- | ---: | --- | ---: | ---: | ---: |")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())

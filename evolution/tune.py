"""`python -m evolution.tune`: a search method's own settings tuned with
Optuna, on the training stages of a task, scored on its validation
stages only.

    python -m evolution.tune --method openai-es --trials 20 --frames 2000000 \\
        --out runs/tune-openai-es -- --stage gen:medium:0-31 \\
        --validation-stage gen:medium:2000-2049 --observation stall

The task may be a file of those options (`--task configs/tune-task.toml`),
which options after `--` override. Each trial is one `evolution.run` of the task with the settings Optuna's
TPE sampler proposes, stopped after `--frames` frames (its `--max-frames`),
into OUT/trials/NNNN. Its score is the validation completion of the genome
the run chose (the fraction of validation stages it finishes, plus a
hundredth of its mean progress to break ties). Test stages of the task
are dropped: tuning never plays them. What is searched is declared beside
each method, in its registry entry (`evolution.strategies.registry`, `tuning`).

The study lives in OUT/study.db (SQLite): run the same command again and
an interrupted tuning goes on until `--trials` trials are complete; a
trial a killed process left unfinished is played again with the same
settings. The sampler is seeded per trial from `--seed` and the number of
trials complete or being played when it is drawn, so a tuning stopped and
resumed proposes exactly what an uninterrupted one does.

Several processes may run the same command on one OUT at once (on one
machine, or on a file system whose flock reaches all of them): drawing a
trial is done holding a lock on OUT, so each process draws from its own
seed, none draws a trial once `--trials` are complete or being played,
and exactly `--trials` complete in all. A process that finds no trial left
to start stops (printing the best complete so far) while others finish
theirs. The first ten trials (TPE's random start) have the settings one
process alone draws; which process plays which, and the settings of later
trials (drawn from the trials complete at the time), depend on timing.

OUT/best.json holds the best settings found, as `evolution.run --settings`
and `evolution.compare --settings` read them.
"""
from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Sequence

from evolution.config import ConfigError
from evolution.cli.config_file import file_task_settings, settings_set_by, task_with_file
from evolution.cli.run_options import RESUMABLE, config_from_args
from evolution.cli.run_options import build_parser as run_parser
from evolution.cli.settings_file import settings_flags, write_settings
from evolution.cli.task_options import TUNE_OWN, given_in
from evolution.strategies.registry import Tunable, get_strategy, list_strategies
from evolution.tune_storage import (STUDY_NAME, StudyFileError, StudyLock, check_out,
                                    make_out, open_storage, storage_error)
from speednik.cli import OneLineParser

BEST_NAME = "best.json"
TRIALS_DIR = "trials"
GENERATIONS = 1_000_000


class TuneError(ValueError):
    """Bad input to the tuning; the message says what is accepted."""


def tunable_methods() -> list[str]:
    return [m for m in list_strategies() if get_strategy(m).tuning]


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="python -m evolution.tune", error_name="evolution.tune",
        usage="%(prog)s --method M --trials N --frames F --out DIR [--seed S] "
              "[--task FILE.toml] [-- evolution.run options of the task]",
        description="Tune a search method's own settings with Optuna: each trial is a "
                    "run of F frames on the task's training stages, scored on its "
                    "validation stages.",
        epilog="exit status: 0 done; 1 a trial failed; 2 bad input; 130 Ctrl-C, 143 "
               "SIGTERM (run the same command again to go on).")
    p.add_argument("--method", required=True, choices=list_strategies(), metavar="METHOD",
                   help=f"the search method: {', '.join(tunable_methods())}")
    p.add_argument("--trials", type=int, required=True, metavar="N",
                   help="trials to complete in all (a resumed tuning counts those done)")
    p.add_argument("--frames", type=int, required=True, metavar="F",
                   help="frames each trial's run may play (its --max-frames)")
    p.add_argument("--out", type=Path, required=True, metavar="DIR",
                   help="where the study (study.db), the trials' runs and best.json go")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the sampler (default 0); the runs use the task's --seed")
    p.add_argument("--task", dest="task_file", type=Path, metavar="FILE.toml",
                   help="the task as a file of evolution.run settings (configs/"
                        "tune-task.toml, say); options after -- override it. It leaves "
                        "out what each trial sets: algorithm and the method's settings, "
                        "max_frames, generations")
    p.add_argument("task", nargs="*", metavar="-- RUN_OPTION",
                   help="after --: the evolution.run options of the task, with "
                        "--validation-stage")
    return p


def check_task(method: str, task: list[str]):
    """The task's run configuration, without test stages; TuneError for
    a method with nothing to tune, a task without validation stages, or
    options the tuning sets itself."""
    if not get_strategy(method).tuning:
        raise TuneError(f"--method {method} has no tunable settings; methods with "
                        f"some: {', '.join(tunable_methods())}")
    clash = given_in(task, TUNE_OWN)
    if clash:
        raise TuneError(f"{', '.join(clash)} are set by the tuning for each trial; "
                        f"leave them out of the task")
    found = file_task_settings(task)
    if found is not None:
        clash = settings_set_by(found[1], TUNE_OWN)
        if clash:
            raise TuneError(f"{found[0]}: {', '.join(clash)} are set by the tuning for "
                            f"each trial (--method, --frames); leave them out of the "
                            f"task file")
    config = trial_config(method, task, {}, frames=1)
    if not config.validation_stages:
        raise TuneError("the task has no --validation-stage: a trial is scored on "
                        "validation stages only; give some (gen:medium:2000-2049, say)")
    return config


def trial_config(method: str, task: list[str], params: dict, frames: int):
    """The run configuration of a trial: the task with the method, the
    trial's settings and the frame budget, and no test stages."""
    line = [*task, "--algorithm", method, "--max-frames", str(frames),
            "--generations", str(GENERATIONS), *settings_flags(params)]
    parser = run_parser()
    try:
        args = parser.parse_args(line)
    except SystemExit as exc:
        raise TuneError(f"the task's options are not accepted by evolution.run "
                        f"(exit status {exc.code}): {' '.join(task)}") from None
    try:
        return config_from_args(args).replace(test_stages=[])
    except ConfigError as exc:
        raise TuneError(str(exc)) from None


def suggest(trial, tuning: Sequence[Tunable]) -> dict:
    params = {}
    for t in tuning:
        if t.whole:
            params[t.name] = trial.suggest_int(t.name, int(t.low), int(t.high), log=t.log)
        else:
            params[t.name] = trial.suggest_float(t.name, t.low, t.high, log=t.log)
    return params


def distributions(tuning: Sequence[Tunable]) -> dict:
    import optuna

    return {t.name: (optuna.distributions.IntDistribution(int(t.low), int(t.high), log=t.log)
                     if t.whole else
                     optuna.distributions.FloatDistribution(t.low, t.high, log=t.log))
            for t in tuning}


def score_of(logbook: list[dict], stages: int) -> tuple[float, int, float]:
    """(score, validation goals, validation progress) of a finished run:
    its last validation."""
    rows = [r for r in logbook if r.get("val_goals") is not None]
    if not rows:
        return 0.0, 0, 0.0
    goals, progress = int(rows[-1]["val_goals"]), float(rows[-1]["val_progress"])
    return goals / stages + 0.01 * progress, goals, progress


def untuned(method: str, settings: dict) -> dict:
    """A task's settings without those each trial sets itself: what the
    task holds of them (a method's defaults, which tuning may change)
    makes no other tuning."""
    if method not in list_strategies():
        return settings
    tuned = {t.name for t in get_strategy(method).tuning}
    out = {k: v for k, v in settings.items() if k not in tuned}
    if isinstance(out.get("options"), dict):
        out["options"] = {k: v for k, v in out["options"].items() if k not in tuned}
    return out


def open_study(out: Path, method: str, frames: int, task, seed: int, lock: StudyLock):
    """The study in OUT/study.db, created or reopened holding `lock` (so
    processes started together make one study and agree on its identity);
    TuneError when it holds another method, budget, task (its settings
    that change results) or seed."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    settings = untuned(method, {k: v for k, v in task.to_dict().items()
                                if k not in RESUMABLE})
    identity = {"method": method, "frames": frames, "seed": seed, "task": settings}
    with lock:
        storage = open_storage(out)
        study = optuna.create_study(study_name="tune", storage=storage,
                                    direction="maximize", load_if_exists=True)
        held = study.user_attrs.get("identity")
        if held is None:
            study.set_user_attr("identity", identity)
            return study
    # Studies recorded the tuned settings' task values too: left out here.
    recorded = untuned(method, held.get("task") or {})
    if {**held, "task": recorded} != identity:
        differ = [f"{k} {identity[k]!r} (recorded: {held.get(k)!r})"
                  for k in ("method", "frames", "seed") if held.get(k) != identity[k]]
        differ += [f"the task's {k} {v!r} (recorded: {recorded.get(k)!r})"
                   for k, v in settings.items() if recorded.get(k) != v]
        differ = ", ".join(differ)
        raise TuneError(f"{out} holds another tuning: {differ}; give its settings or "
                        f"choose another --out")
    return study


def requeue_abandoned(study, out: Path) -> None:
    """Trials a killed process of this machine left running are marked
    failed, their runs removed, and their settings queued to play again.
    Called holding the study's lock, so two processes never queue one
    trial twice."""
    host = socket.gethostname()
    _requeue(study, out, lambda owner: bool(owner) and owner[0] == host
             and not _playing(owner))


def requeue_running(study, out: Path) -> None:
    """Every trial the study holds as running is queued to play again, as
    one a killed process left: for a copy of a study taken while its trials
    play, which another machine continues."""
    _requeue(study, out, lambda owner: True)


def _requeue(study, out: Path, abandoned) -> None:
    from optuna.trial import TrialState

    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        if not abandoned(t.user_attrs.get("owner")):
            continue
        study._storage.set_trial_state_values(t._trial_id, TrialState.FAIL)
        shutil.rmtree(out / TRIALS_DIR / f"{t.number:04d}", ignore_errors=True)
        study.enqueue_trial(t.params, user_attrs={"replays": t.number})


# The tunings this process is running now, each named by a token its
# trials record beside the host and process: a trial of this process that
# no running tuning plays (one that failed, called from Python) is
# abandoned too.
_RUNNING: set[str] = set()


def _playing(owner: list) -> bool:
    if owner[1] == os.getpid():
        return len(owner) < 3 or owner[2] in _RUNNING
    return _alive(owner[1])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def complete(study) -> list:
    from optuna.trial import TrialState

    return study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))


def in_play(study) -> list:
    """Trials complete or being played: those that count towards --trials."""
    from optuna.trial import TrialState

    return study.get_trials(deepcopy=False,
                            states=(TrialState.COMPLETE, TrialState.RUNNING))


def sampler(seed: int, index: int):
    """TPE seeded for the trial drawn when `index` trials are complete or
    being played: unique among the processes sharing a study, and the
    number complete when one process plays alone. With its constant liar,
    a trial drawn while others are played avoids their settings."""
    import warnings

    import optuna

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return optuna.samplers.TPESampler(seed=seed * 100_003 + index, constant_liar=True)


def draw(study, out: Path, lock: StudyLock, trials: int, tuning: Sequence[Tunable],
         seed: int, token: str = ""):
    """(the next trial, its index), or None when `trials` are complete or
    being played. Holding the lock, counting and asking are one step for
    all the processes sharing the study."""
    with lock:
        requeue_abandoned(study, out)
        index = len(in_play(study))
        if index >= trials:
            return None
        study.sampler = sampler(seed, index)
        trial = study.ask(distributions(tuning))
        trial.set_user_attr("owner", [socket.gethostname(), os.getpid(), token])
        return trial, index


def tune(method: str, trials: int, frames: int, out: Path, task: list[str], seed: int = 0,
         say=print) -> dict | None:
    """Runs trials until `trials` are complete or being played in OUT's
    study; the best settings complete (also written to OUT/best.json), or
    None when none is complete yet (other processes play them)."""
    from evolution.loop.evolve import evolve

    entry = get_strategy(method)
    base = check_task(method, task)
    check_out(out)
    make_out(out)
    lock = StudyLock(out)
    token = secrets.token_hex(6)
    _RUNNING.add(token)
    try:
        study = open_study(out, method, frames, base, seed, lock)
        stages = len(base.validation_stage_names())
        while (drawn := draw(study, out, lock, trials, entry.tuning, seed, token)) is not None:
            trial, index = drawn
            params = {t.name: trial.params[t.name] for t in entry.tuning}
            config = trial_config(method, task, params, frames)
            t0 = time.perf_counter()
            outcome = evolve(config, out / TRIALS_DIR / f"{trial.number:04d}")
            if outcome.interrupted:
                # Left running: the next start plays it again from the start.
                raise KeyboardInterrupt
            value, goals, progress = score_of(outcome.logbook, stages)
            with lock:
                study.tell(trial, value)
                best = study.best_trial
                write_settings(out / BEST_NAME, method, best.params,
                               {"trial": best.number, "score": best.value, "frames": frames,
                                "trials": len(complete(study)), "task": task})
            shown = "  ".join(f"{k} {_num(v)}" for k, v in params.items())
            say(f"trial {index + 1}/{trials} (#{trial.number})  {shown}  validation "
                f"{goals}/{stages} goals, progress {100 * progress:.1f}%  score {value:.4f}  "
                f"best {best.value:.4f} (#{best.number})  {time.perf_counter() - t0:.0f} s",
                flush=True)
        done = complete(study)
        playing = len(in_play(study)) - len(done)
    finally:
        _RUNNING.discard(token)
        lock.close()
    if not done:
        return None
    best = study.best_trial
    return {"params": best.params, "score": best.value, "trial": best.number,
            "playing": playing}


def _num(v) -> str:
    return str(v) if isinstance(v, int) else f"{v:.4g}"


class Terminated(KeyboardInterrupt):
    """SIGTERM, stopping the tuning as Ctrl-C does."""


def _terminate(signum, frame) -> None:
    raise Terminated


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.trials < 1 or args.frames < 1:
        parser.error("--trials and --frames must be whole numbers >= 1")
    from importlib.util import find_spec

    if find_spec("optuna") is None:
        print("evolution.tune: error: tuning needs Optuna, which the 'tune' extra "
              "installs: pip install 'speednik-evolve[tune]' (make installs it)",
              file=sys.stderr)
        return 2
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        best = tune(args.method, args.trials, args.frames, args.out,
                    task_with_file(list(args.task), args.task_file), args.seed)
    except (TuneError, StudyFileError, ConfigError) as exc:
        print(f"evolution.tune: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        print("evolution.tune: interrupted; run the same command again to go on",
              file=sys.stderr)
        return 143 if isinstance(exc, Terminated) else 130
    except Exception as exc:
        # The study file failing under the tuning (locked past the wait by
        # another program, its disk full): one line, as for a bad file.
        from evolution import tune_storage

        cause = tune_storage.database_error(exc)
        if cause is None:
            raise
        waited = tune_storage.LOCK_WAIT_SECONDS
        print(f"evolution.tune: error: {storage_error(cause, args.out / STUDY_NAME, waited)}",
              file=sys.stderr)
        return 2
    finally:
        signal.signal(signal.SIGTERM, previous)
    if best is None:
        print(f"no trial complete yet: all {args.trials} of --trials are being played by "
              f"other processes sharing {args.out}; run the same command again when "
              f"they end to see the best")
        return 0
    playing = (f" ({best['playing']} more being played by other processes)"
               if best["playing"] else "")
    print(f"best settings (trial #{best['trial']}, score {best['score']:.4f}): "
          + json.dumps(best["params"]) + f"; written to {args.out / BEST_NAME}{playing}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The results of `benchmarks/figures.py`'s long sections, kept small
enough to live in the repository, so the figures can be made a part at a
time on machines that do not keep their files.

    python benchmarks/results_store.py keep       runs/figures -> benchmarks/results
    python benchmarks/results_store.py restore    benchmarks/results -> runs/figures

The tuning and the comparison of methods take many hours on 2 cores
(docs/comparison.md). Their working folders (`runs/figures/tuning`,
`runs/figures/compare`) resume after a stop, but hold checkpoints of
megabytes. What the tables need is much smaller:

- a run that played its budget (`evolution.loop.outputs.run_complete`):
  its config, logbook, best.json and method.jsonl, which the comparison,
  the tuning's table and the plots read; a run still playing is not kept
  (it starts again from nothing elsewhere);
- a tuning's study (study.db) and best.json: the study copied as it stands,
  its trials in play queued to play again (`evolution.tune.requeue_running`),
  as a tuning does with trials a killed process left;
- the comparison's compare.json and compare.png, and the settings files
  beside the tuning's runs.

`keep` writes those under `benchmarks/results` (only files that changed);
`restore` puts back under `runs/figures` every kept file that is missing
there, so `figures.py` reads finished runs and continues the tunings.
`figures.py --only tuning compare` does both around each section.
"""
from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evolution.loop.outputs import BEST_NAME, CONFIG_NAME, LOGBOOK_NAME, run_complete  # noqa: E402
from evolution.tune_storage import STUDY_NAME, open_storage  # noqa: E402

WORK = ROOT / "runs" / "figures"
STORE = ROOT / "benchmarks" / "results"
SECTIONS = ("tuning", "compare")
# What a finished run keeps: what compare.json, the tuning's table and the
# plots of a run read back.
RUN_FILES = (CONFIG_NAME, "config.toml", LOGBOOK_NAME, BEST_NAME, "method.jsonl")
# Files of a section's folders that are results in themselves.
LOOSE_FILES = ("compare.json", "compare.png", BEST_NAME, "*.settings.json")


def keep(work: Path = WORK, store: Path = STORE) -> list[Path]:
    """Copies the results under `work` to `store`; the files written."""
    written: list[Path] = []
    for section in SECTIONS:
        top = work / section
        if not top.is_dir():
            continue
        for config in sorted(top.rglob(CONFIG_NAME)):
            run_dir = config.parent
            if run_complete(run_dir):
                for name in RUN_FILES:
                    written += _copy(run_dir / name, store / run_dir.relative_to(work) / name)
        for pattern in LOOSE_FILES:
            for path in sorted(top.rglob(pattern)):
                if not (path.parent / CONFIG_NAME).exists():
                    written += _copy(path, store / path.relative_to(work))
        for study in sorted(top.rglob(STUDY_NAME)):
            written += _keep_study(study, store / study.relative_to(work))
    return written


def restore(store: Path = STORE, work: Path = WORK) -> list[Path]:
    """Copies every kept file missing under `work` there; the files written."""
    written = []
    for path in sorted(store.rglob("*")):
        target = work / path.relative_to(store)
        if path.is_file() and not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            written.append(target)
    return written


def _copy(source: Path, target: Path) -> list[Path]:
    if not source.is_file():
        return []
    data = source.read_bytes()
    if target.is_file() and target.read_bytes() == data:
        return []
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return [target]


def _keep_study(study: Path, target: Path) -> list[Path]:
    """The study as it stands, read through SQLite's backup (consistent
    while tunings write it), with its trials in play queued again."""
    import optuna

    from evolution.tune import requeue_running

    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / STUDY_NAME
        source = sqlite3.connect(f"file:{study}?mode=ro", uri=True, timeout=30)
        dest = sqlite3.connect(copy)
        try:
            source.backup(dest)
        finally:
            source.close()
            dest.close()
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        storage = open_storage(Path(tmp))
        for summary in optuna.get_all_study_summaries(storage):
            requeue_running(optuna.load_study(study_name=summary.study_name,
                                              storage=storage), Path(tmp))
        storage.engine.dispose()
        if _same_trials(copy, target):
            return []
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(copy, target)
        return [target]


def _same_trials(a: Path, b: Path) -> bool:
    """Whether two study files hold the same trials (states, values and
    settings): a study file's bytes change with every read of it."""
    if not b.is_file():
        return False

    def trials(path: Path):
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return (conn.execute("SELECT trial_id, number, state FROM trials ORDER BY "
                                 "trial_id").fetchall(),
                    conn.execute("SELECT trial_id, value FROM trial_values ORDER BY "
                                 "trial_id").fetchall(),
                    conn.execute("SELECT trial_id, param_name, param_value FROM "
                                 "trial_params ORDER BY trial_id, param_name").fetchall())
        finally:
            conn.close()

    return trials(a) == trials(b)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("action", choices=("keep", "restore"),
                   help="keep: copy what the tables need from --work to --store; restore: "
                        "put back in --work every kept file missing there")
    p.add_argument("--work", type=Path, default=WORK, help="the figures' working folder")
    p.add_argument("--store", type=Path, default=STORE, help="where the results are kept")
    a = p.parse_args(argv)
    done = keep(a.work, a.store) if a.action == "keep" else restore(a.store, a.work)
    for path in done:
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    print(f"{len(done)} files written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

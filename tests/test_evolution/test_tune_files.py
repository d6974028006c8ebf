"""`python -m evolution.tune` refuses an --out that cannot hold its study
(a file, a path under a file, a folder it cannot write, a study.db that is
garbage, another database, or locked by another program) in one line,
exit status 2, with nothing written and nothing changed."""
from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from commands import call, one_line
from evolution import tune as tune_module
from evolution import tune_storage

TASK = ["--stage", "gen:easy:0-3", "--validation-stage", "gen:easy:2000-2005",
        "--population", "16", "--workers", "1"]


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under root, with a file's bytes (None for a folder)."""
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(root.rglob("*"))}


def tune(out: Path):
    return call(tune_module.main, "--method", "openai-es", "--trials", "1", "--frames",
                "20000", "--out", out, "--", *TASK)


def garbage(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    out.mkdir()
    (out / "study.db").write_bytes(bytes((i * 37 + 11) % 256 for i in range(4096)))
    return out


def damaged(tmp_path: Path) -> Path:
    # An SQLite header over garbage: a study.db cut or overwritten part-way.
    out = garbage(tmp_path)
    data = bytearray((out / "study.db").read_bytes())
    data[:16] = tune_storage.SQLITE_HEADER
    (out / "study.db").write_bytes(bytes(data))
    return out


def another_database(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    out.mkdir()
    with sqlite3.connect(out / "study.db") as conn:
        conn.execute("CREATE TABLE accounts (name TEXT)")
    conn.close()
    return out


def a_file(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    out.write_text("results\n")
    return out


def under_a_file(tmp_path: Path) -> Path:
    return a_file(tmp_path) / "tune"


def under_a_folder_refusing_folders(tmp_path: Path) -> Path:
    # sysfs takes no new folder, whoever asks (root included).
    return Path("/sys/speednik-tune-refused")


def a_folder_refusing_files(tmp_path: Path) -> Path:
    return Path("/sys/kernel")


CASES = {
    "garbage": (garbage, "is not an SQLite database"),
    "damaged": (damaged, "is damaged"),
    "another database": (another_database, r"not an Optuna study \(its tables: accounts\)"),
    "a file": (a_file, "is a file; accepted: a folder"),
    "under a file": (under_a_file, "cannot be made"),
    "unwritable, new": (under_a_folder_refusing_folders, "cannot be made"),
    # Refused before trying when the user may not write there, on trying for root.
    "unwritable, existing": (a_folder_refusing_files, r"is not writable|study.db cannot be used"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_an_out_that_cannot_hold_a_study_is_refused_in_one_line(case, tmp_path):
    make, words = CASES[case]
    out = make(tmp_path)
    before = snapshot(tmp_path)
    line = one_line(tune(out))
    assert line.startswith("evolution.tune: error: ") and re.search(words, line), line
    assert snapshot(tmp_path) == before


def test_a_study_another_program_holds_locked_is_waited_for_then_refused(
        tmp_path, monkeypatch):
    import optuna

    out = tmp_path / "locked"
    out.mkdir()
    optuna.create_study(study_name="tune", storage=f"sqlite:///{out / 'study.db'}")
    before = snapshot(tmp_path)
    monkeypatch.setattr(tune_storage, "LOCK_WAIT_SECONDS", 0.5)
    holder = sqlite3.connect(out / "study.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        line = one_line(tune(out))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "study.db is locked by another program (waited" in line, line
    assert snapshot(tmp_path) == before
    # Released, the same study is taken.
    done = tune(out)
    assert done.returncode == 0, done.stderr


def test_a_study_locked_by_another_program_during_a_trial_ends_in_one_line(
        tmp_path, monkeypatch):
    out = tmp_path / "locked-later"
    monkeypatch.setattr(tune_storage, "LOCK_WAIT_SECONDS", 0.5)
    held = []
    score_of = tune_module.score_of

    def locking_then_scoring(logbook, stages):
        # Another program takes the study while the trial is played.
        holder = sqlite3.connect(out / "study.db", isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        held.append(holder)
        return score_of(logbook, stages)

    monkeypatch.setattr(tune_module, "score_of", locking_then_scoring)
    try:
        line = one_line(tune(out))
    finally:
        for holder in held:
            holder.execute("ROLLBACK")
            holder.close()
    assert held and "study.db is locked by another program (waited 0.5 s)" in line, line
    # The trial left unfinished is played again by the next start.
    monkeypatch.setattr(tune_module, "score_of", score_of)
    done = tune(out)
    assert done.returncode == 0, done.stderr
    assert "(#1)" in done.stdout


def test_a_study_file_another_tuning_is_still_making_is_read_once_it_is_made(tmp_path):
    # Two tunings started together on a new --out: one holds the lock while
    # its study's tables are made one by one; the other, checking the file
    # meanwhile, waits for the lock instead of calling it not a study.
    import threading
    import time

    import optuna

    whole = tmp_path / "whole.db"
    optuna.create_study(study_name="tune", storage=f"sqlite:///{whole}")
    out = tmp_path / "out"
    out.mkdir()
    half = sqlite3.connect(out / "study.db")
    half.execute("CREATE TABLE studies (study_id INTEGER PRIMARY KEY)")
    half.commit()
    half.close()
    maker = tune_storage.StudyLock(out)
    maker.__enter__()

    def finish() -> None:
        time.sleep(0.5)
        (out / "study.db").write_bytes(whole.read_bytes())
        maker.__exit__(None, None, None)

    thread = threading.Thread(target=finish)
    thread.start()
    try:
        tune_storage.check_out(out)      # no error: it read the finished file
    finally:
        thread.join()
        maker.close()
    assert not thread.is_alive()

"""Checkpoints hold only data, load exactly, and resume exactly."""
from __future__ import annotations

import json
import pickle
import random
import zipfile

import numpy as np
import pytest

from evolution.loop.checkpoint import (
    CHECKPOINT_NAME,
    LEGACY_NAME,
    Checkpoint,
    CheckpointError,
    load_checkpoint,
    save_checkpoint,
)
from evolution.config import EvolutionConfig
from evolution.loop.evolve import evolve
from evolution.loop.outputs import read_logbook


def without_time(rows):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def config(seed: int, generations: int) -> EvolutionConfig:
    return EvolutionConfig(generations=generations, population=8, max_steps=600,
                           workers=1, seed=seed, checkpoint_every=100)


@pytest.mark.parametrize("seed", range(10))
def test_stopped_and_resumed_runs_end_like_the_straight_one(tmp_path, seed):
    total = 6
    straight = evolve(config(seed, total), tmp_path / "straight")
    best = json.loads((tmp_path / "straight" / "best.json").read_text())
    for stop in (1, 3, 5):
        split = tmp_path / f"split{stop}"
        evolve(config(seed, stop), split)
        resumed = evolve(config(seed, total), split, resume=True)
        assert without_time(resumed.logbook) == without_time(straight.logbook), stop
        assert without_time(read_logbook(split)) == without_time(straight.logbook)
        again = json.loads((split / "best.json").read_text())
        assert again["genome"] == best["genome"] and again["fitness"] == best["fitness"]
        assert [np.asarray(g).tolist() for g, _ in load_checkpoint(split).hall_of_fame] \
            == [np.asarray(g).tolist() for g, _ in load_checkpoint(tmp_path / "straight").hall_of_fame]


def _sample(gauss_next: bool = True) -> Checkpoint:
    rng = random.Random(7)
    if gauss_next:
        rng.gauss(0.0, 1.0)  # leaves the second value of the pair in gauss_next
    state = rng.getstate()
    genomes = [np.array([rng.random() * 1e-300, -0.1, 1e308, 5e-324]) for _ in range(3)]
    return Checkpoint(
        generation=4,
        population=[(g, 0.1 * i + 1e-17) for i, g in enumerate(genomes)],
        hall_of_fame=[(genomes[2], 0.3), (genomes[0], 0.3)],
        logbook=[{"gen": 0, "evals": 3, "max": 0.1 + 0.2}],
        random_state=state,
        summaries={g.tobytes(): (0.5, {"progress": 1 / 3, "results": {}}) for g in genomes},
        config={"seed": 1}, elapsed=1.25)


@pytest.mark.parametrize("gauss_next", [True, False])
def test_everything_round_trips_exactly(tmp_path, gauss_next):
    ckpt = _sample(gauss_next)
    save_checkpoint(tmp_path, ckpt)
    back = load_checkpoint(tmp_path)
    assert back.random_state == ckpt.random_state
    rng = random.Random()
    rng.setstate(back.random_state)
    ref = random.Random()
    ref.setstate(ckpt.random_state)
    assert [rng.gauss(0, 1) for _ in range(5)] == [ref.gauss(0, 1) for _ in range(5)]
    for a, b in ((back.population, ckpt.population), (back.hall_of_fame, ckpt.hall_of_fame)):
        assert [(g.tobytes(), f) for g, f in a] == [(g.tobytes(), f) for g, f in b]
    assert back.summaries == ckpt.summaries
    assert (back.generation, back.logbook, back.config, back.elapsed) == \
        (ckpt.generation, ckpt.logbook, ckpt.config, ckpt.elapsed)


class _Boom:
    def __reduce__(self):
        return (exec, ("open('PWNED', 'w').write('x')",))


def test_a_crafted_checkpoint_cannot_run_code(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = tmp_path / "run"
    run.mkdir()
    # A pickle under the new name, and an object array inside an .npz.
    (run / CHECKPOINT_NAME).write_bytes(pickle.dumps(_Boom()))
    with pytest.raises(CheckpointError, match="unreadable checkpoint"):
        load_checkpoint(run)
    with open(run / CHECKPOINT_NAME, "wb") as f:
        np.savez(f, meta=np.array([_Boom()], dtype=object))
    with pytest.raises(CheckpointError, match="unreadable checkpoint"):
        load_checkpoint(run)
    assert not (tmp_path / "PWNED").exists()


def test_an_old_pickle_checkpoint_is_named_not_loaded(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / LEGACY_NAME).write_bytes(pickle.dumps(_Boom()))
    with pytest.raises(CheckpointError, match="earlier version") as info:
        load_checkpoint(tmp_path)
    assert "\n" not in str(info.value)
    assert not (tmp_path / "PWNED").exists()


def test_torn_and_foreign_archives_are_one_line(tmp_path):
    save_checkpoint(tmp_path, _sample())
    data = (tmp_path / CHECKPOINT_NAME).read_bytes()
    (tmp_path / CHECKPOINT_NAME).write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="unreadable"):
        load_checkpoint(tmp_path)
    with zipfile.ZipFile(tmp_path / CHECKPOINT_NAME, "w") as z:
        z.writestr("hello.txt", "hi")
    with pytest.raises(CheckpointError, match="unreadable"):
        load_checkpoint(tmp_path)
    with open(tmp_path / CHECKPOINT_NAME, "wb") as f:
        arrays = {k: np.zeros(1) for k in ("population", "population_fitness",
                                           "hall_of_fame", "hall_of_fame_fitness",
                                           "summary_genomes", "random_internal")}
        np.savez(f, meta=np.array(json.dumps({"format": "something-else"})), **arrays)
    with pytest.raises(CheckpointError, match="not a checkpoint of this tool"):
        load_checkpoint(tmp_path)


def test_a_ctrl_c_inside_the_checkpoint_write_ends_with_a_whole_checkpoint(tmp_path,
                                                                          monkeypatch):
    # The signal lands after numpy's zip writer opened an entry and before
    # it wrote it: raised there, the KeyboardInterrupt became a ValueError
    # ("can't close the ZIP file while there is an open writing handle")
    # and the run died without its checkpoint. Held, it stops the run once
    # the save point is written, and the run resumes as if never stopped.
    import os
    import signal

    cfg = EvolutionConfig(generations=6, population=8, max_steps=600, workers=1,
                          seed=3, checkpoint_every=1)
    straight = evolve(cfg, tmp_path / "straight")
    real_open = zipfile.ZipFile.open
    opened = []

    def open_then_interrupted(self, name, mode="r", *args, **kwargs):
        handle = real_open(self, name, mode, *args, **kwargs)
        if mode == "w":
            opened.append(name)
            if len(opened) == 12:       # an entry of a save after generation 0
                os.kill(os.getpid(), signal.SIGINT)
        return handle

    monkeypatch.setattr(zipfile.ZipFile, "open", open_then_interrupted)
    stopped = evolve(cfg, tmp_path / "split")
    monkeypatch.setattr(zipfile.ZipFile, "open", real_open)
    assert stopped.interrupted and len(opened) > 12
    ckpt = load_checkpoint(tmp_path / "split")
    assert 0 < ckpt.generation < 6
    resumed = evolve(cfg, tmp_path / "split", resume=True)
    assert without_time(resumed.logbook) == without_time(straight.logbook)

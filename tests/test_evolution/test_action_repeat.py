"""A policy that decides every K frames (--action-repeat): evolved, kept in
best.json and replayed with the same K, on either engine."""
from __future__ import annotations

import dataclasses
import json

import pytest

from commands import one_line, replay
from evolution.config import EvolutionConfig
from evolution.loop.evolve import evolve
from runners.genome_file import GenomeFileError, load_genome_file
from runners.replay import replay_genome

SMALL = dict(population=8, max_steps=500, stall_frames=120, stages=("hillside", "skybridge"),
             observation="terrain", checkpoint_every=1, seed=5, generations=2, workers=1)


def run(tmp_path, name, **changes):
    out = tmp_path / name
    result = evolve(EvolutionConfig(**{**SMALL, **changes}), out)
    return out, [{k: v for k, v in r.items() if k != "seconds"} for r in result.logbook]


def test_the_genome_replays_to_its_fitness_deciding_every_k_frames(tmp_path):
    out, _ = run(tmp_path, "r3", action_repeat=3)
    record = load_genome_file(out)
    assert record.action_repeat == 3
    # The readable simulation, deciding every 3 frames, gives every
    # episode's recorded result (the run played them compiled).
    results = replay_genome(record)
    assert [r.to_dict() for r in results] == [record.results[s] for s in record.stages]
    proc = replay(out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "deciding every 3 frames" in proc.stdout
    # Played deciding every frame, the same genome does something else.
    every_frame = replay_genome(dataclasses.replace(record, action_repeat=1))
    assert [r.to_dict() for r in every_frame] != [r.to_dict() for r in results]


def test_the_repeat_changes_the_run_and_both_engines_agree(tmp_path):
    _, python_run = run(tmp_path, "p", action_repeat=2, engine="python")
    _, compiled_run = run(tmp_path, "c", action_repeat=2, engine="compiled")
    _, every_frame = run(tmp_path, "e", action_repeat=1, engine="compiled")
    assert python_run == compiled_run
    assert compiled_run != every_frame


def test_a_genome_file_of_an_earlier_version_decides_every_frame(tmp_path):
    out, _ = run(tmp_path, "r", action_repeat=2)
    data = json.loads((out / "best.json").read_text())
    del data["action_repeat"]
    path = tmp_path / "earlier.json"
    path.write_text(json.dumps(data))
    assert load_genome_file(path).action_repeat == 1


@pytest.mark.parametrize("value", [0, -2, 1.5, "2", True])
def test_a_bad_repeat_in_a_genome_file_is_named(tmp_path, value):
    out, _ = run(tmp_path, "r", generations=0)
    data = json.loads((out / "best.json").read_text())
    data["action_repeat"] = value
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(GenomeFileError, match="'action_repeat' is .*accepted: a whole number"):
        load_genome_file(path)
    line = one_line(replay(path), 2)
    assert "action_repeat" in line

"""method.jsonl: each generation's numbers of the search method's own
(CMA-ES's sigma, OpenAI-ES's learning statistics, NEAT's species sizes)
are the state the run continued from at that generation; a stopped and
resumed run writes the file a straight one writes, whatever the moment it
stopped; a run directory from before the file existed still resumes; a
damaged file is one line."""
from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest

from commands import evolution_run, one_line
from evolution.config import EvolutionConfig
from evolution.loop.checkpoint import CHECKPOINT_NAME, load_checkpoint
from evolution.loop.evolve import evolve
from evolution.loop.method_file import (
    METHOD_NAME,
    method_record,
    read_method_file,
    write_method_file,
)
from evolution.loop.outputs import RunFileError

SMALL = dict(population=8, max_steps=300, workers=1, seed=5, checkpoint_every=1)


def config(algorithm: str, generations: int, **changes) -> EvolutionConfig:
    return EvolutionConfig(**{**SMALL, "algorithm": algorithm, "generations": generations,
                              **changes})


def stepped(algorithm: str, run_dir: Path, generations: int) -> list:
    """The run one generation at a time (each step a resume), and the
    checkpoint's search state after each generation."""
    states = []
    for gen in range(1, generations + 1):
        evolve(config(algorithm, gen), run_dir, resume=gen > 1)
        ckpt = load_checkpoint(run_dir)
        assert ckpt.generation == gen
        states.append(ckpt.search)
    return states


def test_cmaes_writes_the_sigma_and_condition_it_continues_from(tmp_path):
    run = tmp_path / "cmaes"
    states = stepped("cmaes", run, 4)
    rows = read_method_file(run)
    assert [r["gen"] for r in rows] == [0, 1, 2, 3, 4]
    for gen, search in enumerate(states, 1):
        meta = search["meta"]
        assert rows[gen]["sigma"] == meta["sigma"]
        diag = np.asarray(search["arrays"]["diagD"])   # square roots of C's eigenvalues
        assert rows[gen]["condition"] == pytest.approx((diag.max() / diag.min()) ** 2)
        assert rows[gen]["condition"] == meta["cond"]
    # The step size moves: a constant column would pass the test above.
    assert len({r["sigma"] for r in rows}) == len(rows)


def test_openai_es_writes_its_rate_noise_and_norms(tmp_path):
    run = tmp_path / "es"
    states = stepped("openai-es", run, 3)
    rows = read_method_file(run)
    options = config("openai-es", 1).options
    lr, sigma = options["es_lr"], options["es_sigma"]
    for gen, search in enumerate(states, 1):
        t = search["meta"]["t"]
        assert t == gen + 1
        assert rows[gen]["learning_rate"] == pytest.approx(
            lr * math.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t), rel=1e-15)
        assert rows[gen]["noise_sigma"] == sigma
        assert rows[gen]["mean_norm"] == np.linalg.norm(search["arrays"]["theta"])
        assert rows[gen]["first_moment_norm"] == np.linalg.norm(search["arrays"]["m"])


def test_neat_writes_the_size_of_each_species_it_scored(tmp_path):
    run = tmp_path / "neat"
    # A low threshold splits the population into several species.
    changes = {"population": 12, "options": {"neat_compat_threshold": 1.0}}
    states = []
    for gen in range(1, 4):
        evolve(config("neat", gen, **changes), run, resume=gen > 1)
        states.append(load_checkpoint(run).search)
    rows = read_method_file(run)
    with open(run / "logbook.csv", newline="") as f:
        species = [int(r["species"]) for r in csv.DictReader(f)]
    assert [r["gen"] for r in rows] == [0, 1, 2, 3]
    for gen, row in enumerate(rows):
        sizes = row["species_sizes"]
        assert sum(sizes.values()) == 12
        assert len(sizes) == species[gen]
        assert list(sizes) == sorted(sizes, key=int)
    # Generation g scores the population the checkpoint of g - 1 speciated.
    for gen, search in enumerate(states[:-1], 2):
        kept = {str(s["key"]): len(s["members"]) for s in search["meta"]["species"]}
        assert rows[gen]["species_sizes"] == kept
    assert max(len(r["species_sizes"]) for r in rows) > 1


@pytest.mark.parametrize("algorithm", ["cmaes", "openai-es", "neat"])
def test_a_stopped_and_resumed_run_writes_the_straight_runs_file(tmp_path, algorithm):
    evolve(config(algorithm, 5, checkpoint_every=2), tmp_path / "straight")
    split = tmp_path / "split"
    evolve(config(algorithm, 2, checkpoint_every=2), split)
    evolve(config(algorithm, 5, checkpoint_every=2), split, resume=True)
    straight = (tmp_path / "straight" / METHOD_NAME).read_bytes()
    assert (split / METHOD_NAME).read_bytes() == straight
    assert len(straight.splitlines()) == 6


def test_lines_beyond_the_checkpoint_are_played_again(tmp_path):
    # A run killed after method.jsonl was written past its checkpoint (the
    # file follows the run between save points) resumes from the checkpoint.
    evolve(config("cmaes", 8, checkpoint_every=4), tmp_path / "straight")
    run = tmp_path / "killed"
    evolve(config("cmaes", 4, checkpoint_every=4), run)
    held = (run / CHECKPOINT_NAME).read_bytes()
    evolve(config("cmaes", 6, checkpoint_every=4), run, resume=True)
    assert [r["gen"] for r in read_method_file(run)][-1] == 6
    # Mangle the lines the killed run wrote past its checkpoint: resuming
    # must not keep them.
    rows = read_method_file(run)
    write_method_file(run, [r if r["gen"] <= 4 else {**r, "sigma": -1.0} for r in rows])
    (run / CHECKPOINT_NAME).write_bytes(held)
    evolve(config("cmaes", 8, checkpoint_every=4), run, resume=True)
    assert (run / METHOD_NAME).read_bytes() == \
        (tmp_path / "straight" / METHOD_NAME).read_bytes()


def test_a_run_from_before_the_file_resumes_and_records_from_there(tmp_path):
    evolve(config("cmaes", 5), tmp_path / "straight")
    run = tmp_path / "old"
    evolve(config("cmaes", 3), run)
    (run / METHOD_NAME).unlink()
    evolve(config("cmaes", 5), run, resume=True)
    assert read_method_file(run) == read_method_file(tmp_path / "straight")[4:]


@pytest.mark.parametrize("algorithm", ["ga", "map-elites"])
def test_a_method_with_nothing_of_its_own_writes_no_file(tmp_path, algorithm):
    evolve(config(algorithm, 2), tmp_path / algorithm)
    assert not (tmp_path / algorithm / METHOD_NAME).exists()
    assert read_method_file(tmp_path / algorithm) == []


def test_numbers_that_are_not_finite_are_kept_as_null(tmp_path):
    records = [method_record(0, {"sigma": math.inf, "sizes": {"1": 3}}),
               method_record(2, {"sigma": 0.1 + 0.2, "sizes": {}})]
    write_method_file(tmp_path, records)
    assert read_method_file(tmp_path) == [{"gen": 0, "sigma": None, "sizes": {"1": 3}},
                                          {"gen": 2, "sigma": 0.1 + 0.2, "sizes": {}}]


@pytest.mark.parametrize("text, said", [
    ('{"gen": 0}\nnot json\n', "line 2 is not JSON"),
    ('{"gen": 1}\n{"gen": 1}\n', "line 2: gen is 1"),
    ('[1, 2]\n', "line 1: not a JSON object"),
    ('{"gen": 0, "sigma": "big"}\n', "line 1: sigma is 'big'"),
    ('{"gen": 0, "species_sizes": {"1": [3]}}\n', "line 1: species_sizes is"),
])
def test_a_malformed_file_is_named_with_its_line(tmp_path, text, said):
    (tmp_path / METHOD_NAME).write_text(text)
    with pytest.raises(RunFileError, match=said):
        read_method_file(tmp_path)


def test_resuming_with_a_damaged_file_is_one_line(tmp_path):
    run = tmp_path / "run"
    evolve(config("cmaes", 2), run)
    (run / METHOD_NAME).write_text("{ torn")
    done = evolution_run("--resume", run, "--generations", 3, "--quiet", "--no-plots")
    line = one_line(done)
    assert f"{METHOD_NAME}: line 1 is not JSON" in line and "or remove it" in line
    (run / METHOD_NAME).unlink()
    done = evolution_run("--resume", run, "--generations", 3, "--quiet", "--no-plots")
    assert done.returncode == 0, done.stderr
    assert [r["gen"] for r in read_method_file(run)] == [3]
    assert json.loads((run / "config.json").read_text())["settings"]["generations"] == 3

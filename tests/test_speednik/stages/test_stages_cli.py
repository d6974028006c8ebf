"""`python -m speednik.stages`, and the varied opening of generated stages."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from commands import command
from speednik.stages import generate_profile, generate_stage, list_stages, load_stage
from paths import REPO_ROOT
from speednik.stages.__main__ import main

ROOT = REPO_ROOT
ENTITY_FIELDS = ("rings", "springs", "spikes", "checkpoints", "enemies", "layer_switches",
                 "goal", "start_x", "start_y", "width", "height")


@pytest.mark.parametrize("seed, difficulty", [(7, "hard"), (0, "easy"), (123, "medium")])
def test_a_generated_profile_loads_to_the_identical_stage(tmp_path, seed, difficulty):
    out = tmp_path / "my.toml"
    assert main(["generate", "--difficulty", difficulty, "--seed", str(seed),
                 "--out", str(out)]) == 0
    loaded, generated = load_stage(out), generate_stage(seed, difficulty)
    assert loaded is not generated
    assert np.array_equal(loaded.tiles.masks, generated.tiles.masks)
    assert len(loaded.tiles.cell_grids) == len(generated.tiles.cell_grids)
    for a, b in zip(loaded.tiles.cell_grids, generated.tiles.cell_grids):
        assert np.array_equal(a, b)
    for name in ENTITY_FIELDS:
        assert getattr(loaded, name) == getattr(generated, name), name
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_list_prints_the_builtin_stages(capsys):
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list_stages()


@pytest.mark.parametrize("args, words", [
    (["generate", "--difficulty", "extreme", "--seed", "1", "--out", "x.toml"],
     "invalid choice"),
    (["generate", "--difficulty", "hard", "--seed", "-1", "--out", "x.toml"],
     "--seed must be"),
    (["generate", "--difficulty", "hard", "--seed", "1", "--out", "x.txt"],
     "ending in .toml"),
    (["generate", "--difficulty", "hard", "--seed", "1", "--out", "no/such/dir/x.toml"],
     "no directory"),
    (["shuffle"], "invalid choice"),
])
def test_bad_input_is_one_line(tmp_path, args, words):
    out = command("speednik.stages", *args, cwd=tmp_path)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], out.stderr
    assert list(tmp_path.iterdir()) == []


def test_bad_input_from_a_shell_is_exit_status_2_without_traceback(tmp_path):
    out = subprocess.run([sys.executable, "-m", "speednik.stages", "generate",
                          "--difficulty", "hard", "--seed", "1", "--out", "x.txt"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": str(ROOT)})
    assert out.returncode == 2 and out.stdout == ""
    assert "Traceback" not in out.stderr and out.stderr.count("\n") == 1
    assert "ending in .toml" in out.stderr


def _first_obstacle(seed: int, difficulty: str) -> tuple[str, int]:
    """The kind and x of the first wall or pit."""
    x = 0
    for s in generate_profile(seed, difficulty).segments:
        if s.kind in ("gap", "step"):
            return s.kind, x
        x += s.length
    raise AssertionError("no obstacle")


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_the_opening_varies(difficulty):
    openings = [_first_obstacle(seed, difficulty) for seed in range(40)]
    assert {kind for kind, _ in openings} == {"gap", "step"}
    assert len({x for _, x in openings}) >= 10
    assert max(x for _, x in openings) - min(x for _, x in openings) >= 320


def test_a_seed_beyond_what_a_stage_set_names_is_refused_alike(tmp_path):
    from speednik.stages import StageError, StageSetError, generate_stage, parse_stage_set

    big = 2**31
    out = command("speednik.stages", "generate", "--difficulty", "hard", "--seed", str(big),
                  "--out", "big.toml", cwd=tmp_path)
    assert out.returncode == 2 and "from 0 to 2147483647" in out.stderr
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(StageError, match="from 0 to 2147483647, got 2147483648"):
        generate_stage(big, "hard")
    with pytest.raises(StageSetError, match="too large"):
        parse_stage_set(f"gen:hard:{big}")
    assert generate_stage(big - 1, "easy").width > 0

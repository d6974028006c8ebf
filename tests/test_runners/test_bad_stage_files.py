"""A bad stage profile given to a runners command is bad input: one line
naming the file and what is accepted, exit status 2, found before any
episode is played, the same from every command."""
from __future__ import annotations

from pathlib import Path

import pytest

from runners import baselines, replay

PROFILES = {
    "syntax.toml": "this is = = not toml\n",
    "not_a_profile.toml": "x = 1\n",
}


@pytest.fixture
def bad_stages(tmp_path) -> dict[str, Path]:
    out = {}
    for name, text in PROFILES.items():
        out[name] = tmp_path / name
        out[name].write_text(text)
    out["missing.toml"] = tmp_path / "missing.toml"
    out["directory.toml"] = tmp_path / "directory.toml"
    out["directory.toml"].mkdir()
    return out


def refusal(capsys, command, argv, printed: list | None = None) -> str:
    try:
        status = command(argv)
    except SystemExit as stop:
        status = stop.code
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert status == 2, captured.err
    assert len(lines) == 1 and "Traceback" not in captured.err, captured.err
    if printed is not None:
        printed.append(captured.out)
    return lines[0]


@pytest.mark.parametrize("which", ["syntax.toml", "not_a_profile.toml", "missing.toml",
                                   "directory.toml"])
@pytest.mark.parametrize("command", ["baselines", "replay"])
def test_a_bad_stage_file_is_exit_2_before_any_episode(capsys, bad_stages, which, command):
    path = str(bad_stages[which])
    # A good stage first: it must not be played before the bad one is found.
    argv = ["--agent", "jump-runner", "--stage", "hillside", path, "--max-steps", "50"]
    main = baselines.main if command == "baselines" else replay.main
    printed: list[str] = []
    line = refusal(capsys, main, argv, printed)
    assert f"error: {which}: " in line and "accepted" in line
    assert "episode" not in line and "failed" not in line
    # Nothing was played: no table row, no episode line.
    assert printed == [""]


def test_both_commands_refuse_a_bad_profile_alike(capsys, bad_stages):
    path = str(bad_stages["syntax.toml"])
    argv = ["--agent", "jump-runner", "--stage", path]
    from_baselines = refusal(capsys, baselines.main, argv).split(": error: ", 1)[1]
    from_replay = refusal(capsys, replay.main, argv).split(": error: ", 1)[1]
    assert from_baselines == from_replay


def test_a_good_profile_still_plays(capsys):
    profile = Path(baselines.__file__).parent.parent / "speednik/stages/profiles/hillside.toml"
    assert baselines.main(["--agent", "jump-runner", "--stage", str(profile),
                           "--max-steps", "50"]) == 0
    assert "jump-runner" in capsys.readouterr().out

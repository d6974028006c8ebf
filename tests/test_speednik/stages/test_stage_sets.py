"""Stage sets, generated (`gen:DIFFICULTY:SEEDS`) and hand-made
(`handmade:validation`, `handmade:heldout`): parsing, and the places that
accept them."""
from __future__ import annotations

import numpy as np
import pytest

from commands import command
from runners import EpisodeRunner, RunnerConfig, run_episodes
from speednik.stages import (
    MAX_SET_SIZE,
    StageSetError,
    expand_stages,
    generate_stage,
    load_stage,
    parse_stage_set,
)


@pytest.mark.parametrize("text, difficulty, seeds", [
    ("gen:hard:7", "hard", (7,)),
    ("gen:hard:0-31", "hard", tuple(range(32))),
    ("gen:medium:3,9,12", "medium", (3, 9, 12)),
    ("gen:easy:0-2,10", "easy", (0, 1, 2, 10)),
    ("gen:easy:5-5", "easy", (5,)),
])
def test_each_form_parses(text, difficulty, seeds):
    assert parse_stage_set(text) == (difficulty, seeds)


@pytest.mark.parametrize("text, what", [
    ("gen:impossible:0-3", "unknown difficulty 'impossible'"),
    ("gen:hard:9-3", "the range 9-3 runs backwards"),
    ("gen:hard:", "no seeds"),
    ("gen:hard:a-b", "'a' is not a seed"),
    ("gen:hard:1,x", "'x' is not a seed"),
    ("gen:hard:-3", "'' is not a seed"),
    ("gen:hard:1.5", "'1.5' is not a seed"),
    ("gen:hard", "three parts"),
    ("gen:hard:1,1", "seed 1 is named twice"),
    (f"gen:hard:0-{MAX_SET_SIZE}", f"more than {MAX_SET_SIZE} stages"),
])
def test_bad_sets_name_what_is_accepted(text, what):
    with pytest.raises(StageSetError) as info:
        parse_stage_set(text)
    message = str(info.value)
    assert what in message
    assert "accepted: gen:DIFFICULTY:SEEDS" in message
    assert "\n" not in message


def test_expanding_names_each_stage_once():
    assert expand_stages(["hillside", "gen:hard:2-4", "gen:easy:1"]) == [
        "hillside", "gen:hard:2", "gen:hard:3", "gen:hard:4", "gen:easy:1"]
    with pytest.raises(StageSetError, match="'gen:hard:3' is named twice"):
        expand_stages(["gen:hard:0-3", "gen:hard:3"])


def test_a_one_stage_name_loads_the_generated_stage():
    assert load_stage("gen:hard:7") is generate_stage(7, "hard")
    runner = EpisodeRunner("gen:medium:3")
    assert runner.stage is generate_stage(3, "medium")
    with pytest.raises(StageSetError, match="names 4 stages where one is needed"):
        load_stage("gen:hard:0-3")


def test_run_episodes_takes_generated_names():
    config = RunnerConfig(max_steps=300)
    by_name = run_episodes([("hold-right", "gen:medium:2")], config)
    by_pair = run_episodes([("hold-right", (2, "medium"))], config)
    assert by_name[0].to_dict() == by_pair[0].to_dict()


def test_baselines_on_a_set_print_the_completion_rate():
    out = command("runners.baselines", "--stage", "gen:easy:0-2", "--agent",
                  "hold-right", "--max-steps", "600")
    assert out.returncode == 0, out.stderr
    assert "gen:easy:2" in out.stdout
    assert "hold-right: completed 0 of 3 stages (0.0%)" in out.stdout


def test_replay_on_a_set_prints_a_row_per_stage_and_the_rate():
    out = command("runners.replay", "--agent", "jump-runner", "--stage", "gen:medium:0-2")
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line.startswith("gen:medium:")]
    assert len(rows) == 3
    assert "completed 3 of 3 stages (100.0%)" in out.stdout


def test_replay_pictures_of_a_set_are_one_file_a_stage(tmp_path):
    out = command("plots", "replay", "--agent", "hold-right", "--stage", "gen:easy:0-4",
                  "--max-steps", "300", "--plot", tmp_path / "run.png")
    assert out.returncode == 0, out.stderr
    drawn = sorted(p.name for p in tmp_path.iterdir())
    # Every stage played is drawn, each named after its stage.
    assert drawn == [f"run-gen-easy-{i}.png" for i in range(5)]
    assert "completed 0 of 5 stages" in out.stdout


def _in_process(main, argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def _completion(line: str) -> tuple[int, int]:
    words = line.split("completed ", 1)[1].split()
    return int(words[0]), int(words[2])


def test_replay_takes_several_sets_with_a_rate_for_each_and_for_all(capsys):
    from runners.replay import main

    code, out, err = _in_process(main, ["--agent", "hold-right", "--stage", "gen:easy:1-2",
                                        "gen:medium:1", "hillside", "--max-steps", "400"],
                                 capsys)
    assert code == 0, err
    lines = out.splitlines()
    rows = [line.split()[0] for line in lines if " progress " in line]
    assert rows == ["gen:easy:1", "gen:easy:2", "gen:medium:1", "hillside"]
    by_set = {line.split(": completed")[0]: _completion(line)
              for line in lines if ": completed" in line}
    assert [count for _, count in by_set.values()] == [2, 1, 1]
    assert list(by_set) == ["gen:easy:1-2", "gen:medium:1", "hillside"]
    overall = [line for line in lines if line.startswith("completed ")]
    assert len(overall) == 1 and lines[-1] == overall[0]
    assert _completion(overall[0]) == (sum(d for d, _ in by_set.values()), 4)
    # The option repeated gives the same.
    again = _in_process(main, ["--agent", "hold-right", "--stage", "gen:easy:1-2", "--stage",
                               "gen:medium:1", "--stage", "hillside", "--max-steps", "400"],
                        capsys)
    assert again == (code, out, err)


def test_plots_replay_takes_several_sets(tmp_path, capsys):
    from plots.__main__ import main

    code, out, err = _in_process(main, ["replay", "--agent", "idle", "--stage", "gen:easy:0",
                                        "gen:hard:0-1", "--max-steps", "60",
                                        "--plot", str(tmp_path / "run.png")], capsys)
    assert code == 0, err
    assert "gen:hard:0-1: completed 0 of 2 stages (0.0%)" in out
    assert "completed 0 of 3 stages (0.0%)" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "run-gen-easy-0.png", "run-gen-hard-0.png", "run-gen-hard-1.png"]


def test_plots_replay_draws_one_generated_stage_it_finishes(tmp_path, capsys):
    # One stage named by a set is drawn under the name given, goal or not;
    # a set of several gets one picture per stage, finished or not.
    from plots.__main__ import main

    one = tmp_path / "one.png"
    code, out, err = _in_process(main, ["replay", "--agent", "jump-runner", "--stage",
                                        "gen:easy:0", "--plot", str(one)], capsys)
    assert code == 0, err
    assert "completed 1 of 1 stages (100.0%)" in out and one.is_file()
    several = tmp_path / "several.png"
    code, out, err = _in_process(main, ["replay", "--agent", "jump-runner", "--stage",
                                        "gen:easy:0-1", "--plot", str(several)], capsys)
    assert code == 0, err
    assert "completed 2 of 2 stages (100.0%)" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "one.png", "several-gen-easy-0.png", "several-gen-easy-1.png"]


def test_baselines_take_several_sets_and_agents(capsys):
    from runners.baselines import main

    code, out, err = _in_process(main, ["--stage", "gen:easy:0-1", "gen:medium:0",
                                        "--agent", "idle", "hold-right",
                                        "--max-steps", "300"], capsys)
    assert code == 0, err
    for agent in ("idle", "hold-right"):
        assert f"{agent} on gen:easy:0-1: completed 0 of 2 stages (0.0%)" in out
        assert f"{agent} on gen:medium:0: completed 0 of 1 stages (0.0%)" in out
        assert f"{agent}: completed 0 of 3 stages (0.0%)" in out
    table = [line for line in out.splitlines() if line.startswith("gen:")]
    assert len(table) == 6


@pytest.mark.parametrize("argv", [
    ["runners.replay", "--agent", "idle", "--stage", "gen:nope:1"],
    ["runners.baselines", "--stage", "gen:hard:4-1"],
    ["plots", "stage", "gen:hard:1-2"],
    ["evolution.run", "--stage", "gen:hard:x", "--generations", "0"],
])
def test_bad_sets_on_command_lines_are_one_line(argv):
    out = command(*argv)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "accepted" in lines[0], out.stderr


def test_plots_stage_draws_one_generated_stage(tmp_path):
    out = command("plots", "stage", "gen:hard:3", "--out", tmp_path / "s.png")
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "s.png").stat().st_size > 0


def test_the_generated_stage_tiles_match_the_name():
    a, b = load_stage("gen:easy:11"), generate_stage(11, "easy")
    assert np.array_equal(a.solidity_grid(0), b.solidity_grid(0))


# -- the hand-made sets -----------------------------------------------------------------

def test_the_hand_made_sets_are_the_profiles_of_their_folders():
    from speednik.stages import handmade_extra_stages, handmade_heldout_stages, handmade_stages

    chosen_on, more, kept_apart = (expand_stages([f"handmade:{s}"])
                                   for s in ("validation", "extra", "heldout"))
    assert chosen_on == handmade_stages() and len(chosen_on) == 6
    assert more == handmade_extra_stages() and len(more) == 8
    assert kept_apart == handmade_heldout_stages() and len(kept_apart) == 4
    assert not set(chosen_on) & set(kept_apart) and not set(more) & (set(chosen_on) | set(kept_apart))
    with pytest.raises(StageSetError, match="accepted: handmade:validation, handmade:extra or "
                                            "handmade:heldout"):
        expand_stages(["handmade:all"])
    with pytest.raises(StageSetError, match="names 4 stages where one is needed"):
        load_stage("handmade:heldout")


def test_tables_name_a_hand_made_stage_by_its_file():
    out = command("runners.baselines", "--stage", "handmade:heldout", "hillside", "--agent",
                  "jump-runner")
    assert out.returncode == 0, out.stderr
    rows = [line.split()[0] for line in out.stdout.splitlines()[2:7]]
    assert rows == ["gorge", "ledges", "lifts", "ridge", "hillside"]
    assert "jump-runner on handmade:heldout: completed" in out.stdout


def test_a_run_validates_on_a_hand_made_set_weighed_as_one(tmp_path):
    import json

    from evolution.config import EvolutionConfig
    from evolution.loop.outputs import read_logbook

    config = EvolutionConfig(stages=["gen:easy:0"], validation_stages=[
        "gen:easy:2000-2003", "handmade:heldout"], validation_weight="set")
    assert [len(s) for s in config.validation_sets()] == [4, 4]
    out = tmp_path / "run"
    done = command("evolution.run", "--stage", "gen:easy:0", "--validation-stage",
                   "handmade:heldout", "--generations", "1", "--population", "4",
                   "--max-steps", "200", "--workers", "1", "--quiet", "--no-plots",
                   "--out", out)
    assert done.returncode == 0, done.stderr
    settings = json.loads((out / "config.json").read_text())["settings"]
    assert settings["validation_stages"] == ["handmade:heldout"]
    assert read_logbook(out)[-1]["val_goals"] is not None
    refused = command("evolution.run", "--stage", "gen:easy:0", "--validation-stage",
                      "handmade:nope", "--generations", "1", "--out", tmp_path / "x")
    assert refused.returncode == 2 and "handmade:validation, handmade:extra or handmade:heldout" in \
        refused.stderr.strip().splitlines()[-1]


def test_playable_stages_are_the_sets_expanded_each_built_before_any_play():
    from speednik.stages import StageError, playable_stages

    names = playable_stages(["gen:easy:0-1", "hillside", "handmade:heldout"], workers=1)
    assert names == expand_stages(["gen:easy:0-1", "hillside", "handmade:heldout"])
    assert len(names) == 2 + 1 + 4
    with pytest.raises(StageError, match="nowhere"):
        playable_stages(["hillside", "nowhere"], workers=1)

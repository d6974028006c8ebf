"""`python -m runners.replay`: genome files in, the same episodes out.

The genome files here are written the way evolution writes `best.json`:
a random linear policy whose fitness and per-stage results were measured
with an EpisodeRunner using the file's own max_steps and stall_frames.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from runners import EpisodeRunner
from runners import replay
from runners.linear import LinearPolicy, genome_size
from speednik.observation import get_observation
from paths import REPO_ROOT

REPO = REPO_ROOT
STAGES = ["hillside", "pipeworks"]
MAX_STEPS = 600
STALL = 150


def genome_record(observation: str = "terrain", seed: int = 16,
                  stages: list[str] = STAGES) -> dict:
    """A best.json record for a random genome, measured as evolution does.
    Seed 16 runs: it dies in a pit on hillside and times out on pipeworks."""
    size = get_observation(observation).size
    genome = np.random.default_rng(seed).normal(0.0, 1.0, genome_size(size))
    results = {s: EpisodeRunner(s, observation=observation, max_steps=MAX_STEPS,
                                stall_frames=STALL).run_episode(LinearPolicy(genome, observation))
               for s in stages}
    return {
        "format": "speednik-evolve-genome",
        "genome": [float(x) for x in genome],
        "observation": observation,
        "obs_dim": size,
        "num_actions": 8,
        "stages": stages,
        "max_steps": MAX_STEPS,
        "stall_frames": STALL,
        "fitness": float(np.mean([r.total_reward for r in results.values()])),
        "found_in_generation": 3,
        "seed": seed,
        "results": {s: r.to_dict() for s, r in results.items()},
    }


@pytest.fixture(scope="module")
def record() -> dict:
    return genome_record()


@pytest.fixture
def run_dir(tmp_path, record) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "best.json").write_text(json.dumps(record))
    return run


def write(tmp_path: Path, data, name: str = "genome.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    """main() in process: an uncaught exception fails the test, so a
    traceback can never pass for an error message."""
    try:
        code = replay.main(list(argv))
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def run_pictures(capsys, *argv: str) -> tuple[int, str, str]:
    """`python -m plots replay` in process, as run_main."""
    from plots import __main__ as plots_cli
    try:
        code = plots_cli.main(["replay", *argv])
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


# -- the genome replays as it was evaluated ------------------------------------------

def test_replayed_fitness_equals_the_recorded_fitness(run_dir, record):
    loaded = replay.load_genome_file(run_dir)
    results = replay.replay_genome(loaded)
    assert [r.metrics["stage"] for r in results] == STAGES
    assert abs(replay.mean_reward(results) - record["fitness"]) <= 1e-9
    for r in results:
        recorded = record["results"][r.metrics["stage"]]
        assert r.total_reward == recorded["total_reward"]
        assert r.steps == recorded["steps"] and r.done_reason == recorded["done_reason"]


def test_cli_prints_each_stage_and_both_fitness_values(run_dir, record, capsys):
    code, out, err = run_main(capsys, str(run_dir))
    assert code == 0, err
    m = re.search(r"fitness (\S+) \(mean total reward over 2 stages\); recorded (\S+): matches",
                  out)
    assert m, out
    assert abs(float(m.group(1)) - record["fitness"]) <= 1e-9
    assert abs(float(m.group(2)) - record["fitness"]) <= 1e-9
    endings = {}
    for stage in STAGES:
        r = record["results"][stage]
        line = next(l for l in out.splitlines() if l.startswith(f"{stage}:"))
        endings[stage] = line.split(" after ")[0]
        assert f"after {r['steps']} frames" in line
        assert f"progress {100 * r['metrics']['progress']:.1f}%" in line
        assert f"rings {r['metrics']['rings']}" in line
        assert f"total reward {r['total_reward']:.4f}" in line
    # A death says what killed the player.
    assert endings == {"hillside": "hillside: death (pit)", "pipeworks": "pipeworks: timeout"}
    components = record["results"]["hillside"]["metrics"]["reward_components"]
    assert components
    for name, value in components.items():
        assert f"{name} {value:+.4f}" in out


def test_the_json_file_itself_works_as_well_as_its_directory(run_dir, capsys):
    code, out, _ = run_main(capsys, str(run_dir / "best.json"))
    assert code == 0 and "matches" in out


def test_a_fitness_that_does_not_replay_is_reported(tmp_path, record, capsys):
    path = write(tmp_path, dict(record, fitness=record["fitness"] + 0.5))
    code, out, _ = run_main(capsys, str(path))
    assert code == 1
    assert "DOES NOT MATCH" in out


def test_another_stage_tests_generalisation(run_dir, capsys):
    code, out, err = run_main(capsys, str(run_dir), "--stage", "skybridge")
    assert code == 0, err
    assert "skybridge:" in out and "hillside:" not in out
    assert "recorded" not in out   # no fitness to compare on another stage


def test_several_stages_after_one_option_and_the_genome_after_them(run_dir, capsys):
    code, out, err = run_main(capsys, "--stage", "skybridge", "gen:easy:3", str(run_dir))
    assert code == 0, err
    assert "skybridge" in out and "gen:easy:3" in out
    assert "completed" in out.splitlines()[-1]


def test_a_genome_plays_on_the_compiled_engine_a_batch_at_a_time_as_the_game_does(
        run_dir, capsys, monkeypatch):
    # More stages than a batch: every row is the readable runner's row of
    # the same episode, and no episode is played by the readable runner.
    monkeypatch.setattr(replay, "BATCH", 4)
    names = [f"gen:easy:{k}" for k in range(replay.BATCH + 3)]
    genome = replay.load_genome_file(run_dir)
    readable = [replay.format_row(n, r)
                for n, r in zip(names, replay.replay_genome(genome, names))]

    def readable_runner(*args, **kwargs):
        raise AssertionError("a genome's episode was played by the readable runner")
    monkeypatch.setattr(replay, "replay_episode", readable_runner)
    code, out, err = run_main(capsys, str(run_dir), "--stage", f"gen:easy:0-{len(names) - 1}")
    assert code == 0, err
    rows = [line for line in out.splitlines() if line.startswith("gen:easy:")][:len(names)]
    assert rows == readable


def test_expert_stages_a_run_certified_are_replayed_without_the_planner(
        run_dir, capsys, monkeypatch):
    import concurrent.futures

    import speednik.engine.planner as planner
    from speednik.stages import certification, certified_draws

    seeds = [91201, 91202]
    monkeypatch.setattr(certification, "_CERTIFIED_DRAW", {})
    for seed in seeds:
        certification.certified_expert(seed)
    certified_draws.remember_draws(dict(certification._CERTIFIED_DRAW))   # as a run leaves it
    # A later process: nothing certified in memory, and no planner may run.
    monkeypatch.setattr(certification, "_CERTIFIED_DRAW", {})

    def planning(*args, **kwargs):
        raise AssertionError("the planner ran")
    monkeypatch.setattr(planner, "plan_stage", planning)
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", planning)
    code, out, err = run_main(capsys, str(run_dir), "--stage", "gen:expert:91201,91202")
    assert code == 0, err
    assert "gen:expert:91201" in out and "gen:expert:91202" in out


def test_a_stage_profile_path_is_accepted(run_dir, capsys):
    from speednik.stages import PROFILE_DIR
    code, out, err = run_main(capsys, str(run_dir), "--stage", str(PROFILE_DIR / "skybridge.toml"))
    assert code == 0, err
    assert "skybridge:" in out


def test_max_steps_override_says_the_fitness_is_not_comparable(run_dir, capsys):
    code, out, _ = run_main(capsys, str(run_dir), "--max-steps", "50")
    assert code == 0
    assert "after 50 frames" in out and "not comparable" in out


def test_a_set_row_says_how_each_stage_ended_a_death_by_its_cause():
    from runners.agents import make_baseline
    from runners.result import EpisodeResult
    from speednik.entities import Enemy, Spikes
    from stage_fixtures import FLOOR_Y, flat_stage, pit_stage

    stages = [flat_stage(spikes=[Spikes(400.0, float(FLOOR_Y))]),
              flat_stage(enemies=[Enemy("flyer", 400.0, FLOOR_Y - 20.0, span=16.0)]),
              pit_stage(), flat_stage()]
    results = [replay.replay_episode(make_baseline("hold-right"), stage) for stage in stages]
    # A result written before causes were recorded shows a plain death.
    old = results[0].to_dict()
    del old["metrics"]["death_cause"]
    results.append(EpisodeResult.from_dict(old))
    rows = [replay.format_row(f"stage{k}", r) for k, r in enumerate(results)]
    assert [row.split()[1] for row in rows] == [
        "spikes", "enemy:flyer", "pit", "goal", "death"]
    # The column is wide enough for every cause: the rows stay aligned.
    assert len({row.index("progress") for row in rows}) == 1


def test_a_baseline_agent_replays_by_name(capsys):
    code, out, err = run_main(capsys, "--agent", "jump-runner", "--stage", "hillside")
    assert code == 0, err
    assert out.startswith("agent jump-runner")
    assert re.search(r"^hillside: goal after \d+ frames", out, re.M)


def test_help_explains_both_ways_to_say_what_to_replay(capsys):
    with pytest.raises(SystemExit) as e:
        replay.main(["--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    assert "(RUN_DIR_OR_GENOME_FILE | --agent NAME)" in text
    for option in ("--stage", "--max-steps", "--agent", "jump-runner", "plots replay"):
        assert option in text


def test_plots_replay_help_adds_the_pictures(capsys):
    from plots import __main__ as plots_cli
    with pytest.raises(SystemExit) as e:
        plots_cli.main(["replay", "--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    for option in ("--stage", "--gif", "--plot", "--max-steps", "--agent", "--gif-stride"):
        assert option in text


def test_runners_replay_has_no_picture_options(capsys):
    code, _, err = run_main(capsys, "--agent", "idle", "--plot=x.png")
    assert code == 2 and "unrecognized arguments: --plot" in err


def test_plots_replay_wants_something_to_draw(capsys):
    code, _, err = run_pictures(capsys, "--agent", "idle", "--stage", "hillside")
    assert code == 2 and err.startswith("plots replay: error: nothing to draw")
    assert err.count("\n") == 1


# -- bad input: one line, exit status 2 --------------------------------------------------

def _bad_files(record: dict) -> dict[str, tuple[object, str]]:
    nan_genome = list(record["genome"])
    nan_genome[3] = float("nan")
    return {
        "not-json": ("{not json", "not JSON"),
        "a-list": ("[1, 2, 3]", "not an object"),
        "wrong-format": (dict(record, format="speednik-evolve-run"), "format marker"),
        "missing-keys": ({"format": "speednik-evolve-genome", "genome": [1.0]},
                         "missing key(s) 'observation'"),
        "short-genome": (dict(record, genome=record["genome"][:-1]), "needs 232"),
        "nan": (dict(record, genome=nan_genome), "NaN"),
        "beyond-float32": (dict(record, genome=[1e39] + record["genome"][1:]),
                           "beyond what a float32 holds"),
        "far-beyond-float32": (dict(record, genome=record["genome"][:-1] + [-1e300]),
                               "at index 231"),
        "other-observation": (dict(record, observation="basic", obs_dim=12),
                              "fit the 'terrain' observation"),
        "obs-dim": (dict(record, obs_dim=12), "obs_dim is 12"),
        "unknown-observation": (dict(record, observation="pixels"), "unknown observation"),
        "text-genome": (dict(record, genome="1 2 3"), "not a list of numbers"),
        "bad-max-steps": (dict(record, max_steps=0), "'max_steps' is 0"),
        "no-stages": (dict(record, stages=[]), "'stages' is []"),
        "chosen-not-an-object": (dict(record, chosen="mean"), "'chosen' is a str"),
        "nested-too-deeply": ("[" * 100000 + "]" * 100000, "nested too deeply"),
        "thousands-of-digits": ('{"max_steps": ' + "9" * 5000 + "}", "4300 digits"),
    }


@pytest.mark.parametrize("case", list(_bad_files({"genome": [0.0] * 232})))
def test_malformed_genome_files_give_one_clear_line(tmp_path, record, capsys, case):
    data, expected = _bad_files(record)[case]
    path = write(tmp_path, data, f"{case}.json")
    code, out, err = run_main(capsys, str(path))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1, err
    assert err.startswith(f"replay: error: {path}: ")
    assert expected in err
    assert "; accepted" in err


@pytest.mark.parametrize("argv, expected", [
    (["--agent", "speedy"], "unknown agent 'speedy'; accepted: idle"),
    (["--agent", "idle", "--stage", "moon"], "unknown stage 'moon'"),
    (["--agent", "idle", "--stage", "missing.toml"], "accepted"),
    ([], "one of the arguments"),
    (["--agent", "idle", "some/run"], "not allowed with"),
    (["no/such/run"], "no such file"),
])
def test_bad_arguments_give_one_clear_line(capsys, argv, expected):
    code, out, err = run_main(capsys, *argv)
    assert code == 2
    assert err.startswith("replay: error: ") and err.count("\n") == 1, err
    assert expected in err


def test_the_command_never_shows_a_traceback(tmp_path):
    path = write(tmp_path, {"format": "speednik-evolve-genome", "genome": [float("nan")]})
    env = dict(os.environ, PYTHONPATH=str(REPO))
    for argv in ([str(path)], [str(tmp_path / "nothing")], ["--agent", "nobody"]):
        proc = subprocess.run([sys.executable, "-m", "runners.replay", *argv], env=env,
                              cwd=tmp_path, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2
        assert "Traceback" not in proc.stderr
        assert proc.stderr.startswith("replay: error: ") and proc.stderr.count("\n") == 1


# -- pictures --------------------------------------------------------------------------

def test_plot_and_gif_of_a_replay(run_dir, tmp_path, capsys):
    png, gif = tmp_path / "run.png", tmp_path / "run.gif"
    code, out, err = run_pictures(capsys, str(run_dir), "--stage", "hillside", "--max-steps", "240",
                              "--plot", str(png), "--gif", str(gif))
    assert code == 0, err
    assert f"wrote {png}" in out and f"wrote {gif}" in out
    steps = int(re.search(r"after (\d+) frames", out).group(1))
    im = Image.open(png)
    assert im.format == "PNG" and im.size[0] == 2400
    assert len(np.unique(np.asarray(im.convert("L")))) > 20
    im = Image.open(gif)
    assert im.format == "GIF" and im.size == (640, 448)
    assert abs(im.n_frames - steps / 3) <= 2
    assert len(np.unique(np.asarray(im.convert("L")))) > 3


def test_several_stages_give_a_picture_each(tmp_path, capsys):
    code, out, err = run_pictures(capsys, "--agent", "idle", "--stage", "hillside", "--stage",
                              "skybridge", "--max-steps", "30", "--gif", str(tmp_path / "a.gif"),
                              "--gif-stride", "10")
    assert code == 0, err
    for stage in ("hillside", "skybridge"):
        assert Image.open(tmp_path / f"a-{stage}.gif").n_frames == 4


def test_gif_frames_are_capped(tmp_path, capsys):
    gif = tmp_path / "a.gif"
    code, _, err = run_pictures(capsys, "--agent", "hold-right", "--stage", "hillside",
                            "--max-steps", "300", "--gif", str(gif), "--gif-max-frames", "12",
                            "--gif-scale", "1")
    assert code == 0, err
    im = Image.open(gif)
    assert im.size == (320, 224) and 2 <= im.n_frames <= 12


def test_an_unwritable_picture_is_one_line_and_status_1(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, _, err = run_pictures(capsys, "--agent", "idle", "--stage", "hillside", "--max-steps",
                            "10", "--plot", str(blocker / "map.png"))
    assert code == 1
    assert err.startswith("plots replay: error: cannot write") and err.count("\n") == 1


def test_replay_imports_no_plots():
    """runners sits below plots: replaying must not import plots or
    matplotlib."""
    code = ("import sys; from runners.replay import main; "
            "main(['--agent', 'idle', '--stage', 'hillside', '--max-steps', '5']); "
            "bad = [m for m in ('plots', 'matplotlib') if m in sys.modules]; "
            "sys.exit(f'imported {bad}' if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=str(REPO)),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_a_cell_is_written_as_replay_cell_reads_it():
    from runners.archive_file import format_cell, parse_cell

    for cell in [(3, 7), (0, 0), tuple(np.array([12, 4], dtype=np.int64))]:
        assert parse_cell(format_cell(cell)) == tuple(int(v) for v in cell)
    assert format_cell(np.array([3, 7])) == "3,7"

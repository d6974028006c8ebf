"""A run is a file: `evolution.run --config FILE.toml` takes every setting
of a run, the command line overrides it, every run writes its whole
configuration back as config.toml, which plays the run again bit for bit,
and the presets of configs/ are the README's long commands. A bad file is
one line naming the file and the key, exit 2, nothing written."""
from __future__ import annotations

import json
import math
import shlex
import tomllib
from pathlib import Path

import pytest

from commands import call, evolution_run, one_line
from evolution import compare, tune
from evolution.cli.run_options import build_parser, config_from_args
from evolution.config import EvolutionConfig
from evolution.config_file import (
    CONFIG_TOML_NAME,
    ConfigFileError,
    TABLES,
    config_toml,
    read_config_file,
    toml_text,
)
from evolution.loop.outputs import read_config, read_logbook
from paths import REPO_ROOT, benchmark_module

CONFIGS = REPO_ROOT / "configs"
FAST = ["--max-steps", "200", "--workers", "1", "--quiet", "--no-plots"]


def config_of(*argv) -> EvolutionConfig:
    return config_from_args(build_parser().parse_args([str(a) for a in argv]))


def write(tmp_path: Path, text: str, name: str = "run.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# -- the TOML writer --------------------------------------------------------

def test_the_writer_s_text_reads_back_as_the_same_values():
    data = {"top": "x", "t": {
        "text": 'a "quoted" back\\slash\nnew line\ttab \x01 \x7f é 日本',
        "whole": -12345678901234, "number": 0.1, "tiny": 1e-300, "big": 1.5e300,
        "inf": math.inf, "ninf": -math.inf, "yes": True, "no": False,
        "list": ["a", "b\"c"], "empty": [], "numbers": [1, 2.5],
        "sub": {"key with space": 1, "deeper": {"x": "y"}}}}
    back = tomllib.loads(toml_text(data, comment="a comment\nover two lines"))
    assert back == data


def test_nan_is_written_as_toml_writes_it():
    back = tomllib.loads(toml_text({"t": {"x": math.nan}}))
    assert math.isnan(back["t"]["x"])


def test_every_setting_of_a_run_has_one_table():
    placed = [k for keys in TABLES.values() for k in keys]
    assert len(placed) == len(set(placed))
    fields = set(EvolutionConfig.__dataclass_fields__) - {"options"}
    assert fields == set(placed)


@pytest.mark.parametrize("argv", [
    [],
    ["--stage", "gen:medium:0-15", "hillside", "--stages-per-generation", "4",
     "--always-stage", "hillside", "--stage-draw", "failures", "--validation-stage", "gen:hard:2000-2009",
     "--validation-weight", "set", "--test-stage", "pipeworks", "--stall-frames", "0",
     "--policy", "mlp", "--hidden", "8", "--algorithm", "cmaes", "--init-sigma", "0.15",
     "--max-frames", "1000", "--population", "6", "--scheduler", "local"],
    ["--algorithm", "openai-es", "--es-lr", "0.0123", "--population", "8", "--seed", "-3",
     "--observation", "reach", "--action-repeat", "2"],
    ["--algorithm", "neat", "--population", "5", "--neat-max-stagnation", "7"],
])
def test_config_toml_reads_back_as_the_same_configuration(tmp_path, argv):
    config = config_of(*argv)
    path = write(tmp_path, config_toml(config), CONFIG_TOML_NAME)
    assert EvolutionConfig(**read_config_file(path)) == config
    assert config_of("--config", path) == config


# -- the command line over the file ----------------------------------------

def test_options_typed_override_the_file_wherever_they_stand(tmp_path):
    path = write(tmp_path, '[method]\npopulation = 6\n[run]\nseed = 4\n'
                           '[task]\nstages = ["pipeworks"]\n')
    assert config_of("--config", path).population == 6
    for argv in (["--population", "8", "--config", path],
                 ["--config", path, "--population", "8"]):
        config = config_of(*argv)
        assert (config.population, config.seed, config.stages) == (8, 4, ("pipeworks",))


def test_another_algorithm_typed_leaves_the_file_s_method_settings_out(tmp_path):
    path = write(tmp_path, '[method]\nalgorithm = "cmaes"\ninit_sigma = 0.25\n'
                           'cma_diagonal = 1\n')
    assert config_of("--config", path).options["cma_diagonal"] == 1
    config = config_of("--config", path, "--algorithm", "ga")
    assert config.algorithm == "ga"
    assert config.options["init_sigma"] == 1.0     # the GA's default, not the file's


def test_a_relative_profile_path_is_read_from_the_file_s_folder(tmp_path):
    profile = REPO_ROOT / "speednik" / "stages" / "profiles" / "hillside.toml"
    (tmp_path / "stages").mkdir()
    (tmp_path / "stages" / "mine.toml").write_bytes(profile.read_bytes())
    path = write(tmp_path, '[task]\nstages = ["stages/mine.toml"]\n')
    assert config_of("--config", path).stages == (str(tmp_path / "stages" / "mine.toml"),)


def test_a_settings_file_of_another_method_than_the_config_s_is_refused(tmp_path):
    config = write(tmp_path, '[method]\nalgorithm = "cmaes"\n')
    settings = tmp_path / "best.json"
    settings.write_text(json.dumps({"format": "speednik-evolve-settings",
                                    "method": "openai-es", "settings": {"es_lr": 0.01}}))
    line = one_line(evolution_run("--config", config, "--settings", settings,
                                  "--out", tmp_path / "r", *FAST))
    assert "openai-es" in line and "cmaes" in line and str(config) in line
    assert not (tmp_path / "r").exists()


# -- a bad file --------------------------------------------------------------

BAD = [
    ("[task]\nstagez = [\"hillside\"]\n", "unknown key 'stagez' in [task]"),
    ("[tasks]\nstages = [\"hillside\"]\n", "unknown table 'tasks'"),
    ("population = 6\n", "population belongs in [method]"),
    ("[task]\npopulation = 6\n", "population in [task] belongs in [method]"),
    ("[method]\npopulation = \"six\"\n", "population in [method] must be a whole number"),
    ("[method]\npopulation = 1\n", "population in [method] must be a whole number >= 2"),
    ("[task]\nstages = \"hillside\"\n", "stages in [task] must be a list"),
    ("[task]\nobservation = \"x-ray\"\n", "observation in [task] must be one of"),
    ("[method]\nalgorithm = \"ga\"\nes_lr = 0.1\n", "es_lr in [method] is a setting of"),
    ("[method]\nmut_sigma = -1.0\n", "mut_sigma must be a number from"),
    ("[policy]\nhidden = 8\n", "hidden in [policy] is a setting of another policy family"),
    ("[budget]\nmax_frames = 0\n", "max_frames in [budget] must be a whole number >= 1"),
    ("[run]\nout = \"runs/x\"\n", "unknown key 'out' in [run]"),
    ("[task]\nkeep_candidates = 1\n", "keep_candidates in [task] must be true or false, got 1"),
    ("[task]\nstages = [\"hillside\"]\ntest_stages = [\"hillside\"]\n",
     "'hillside' is both a training and a test stage"),
    ("[task]\nstages = [\"hillside\"\n", "not valid TOML"),
    ("[method]\npopulation = 6\n\n[method]\nelite = 1\n", "(at line 4"),
]


@pytest.mark.parametrize("text, said", BAD)
def test_a_bad_file_is_one_line_naming_it_and_nothing_is_written(tmp_path, text, said):
    path = write(tmp_path, text)
    out = tmp_path / "r"
    line = one_line(evolution_run("--config", path, "--out", out, "--population", "6",
                                  *FAST) if "population" not in text else
                    evolution_run("--config", path, "--out", out, *FAST))
    assert str(path) in line and said in line, line
    assert not out.exists()


def test_a_missing_file_is_one_line(tmp_path):
    line = one_line(evolution_run("--config", tmp_path / "none.toml", "--out",
                                  tmp_path / "r", *FAST))
    assert "none.toml" in line and "cannot be read" in line


# -- a run's config.toml plays it again -------------------------------------

@pytest.fixture(scope="module")
def first_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("config") / "first"
    proc = evolution_run("--generations", "2", "--population", "6", "--algorithm", "cmaes",
                         "--policy", "mlp", "--hidden", "4", "--stage", "hillside",
                         "--validation-stage", "pipeworks", "--test-every", "1",
                         "--seed", "5", "--out", out, *FAST)
    assert proc.returncode == 0, proc.stderr
    return out


def fitness_columns(run_dir: Path) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "seconds"} for row in read_logbook(run_dir)]


def test_a_run_s_config_toml_plays_it_again_bit_for_bit(first_run, tmp_path):
    path = first_run / CONFIG_TOML_NAME
    assert EvolutionConfig(**read_config_file(path)) == read_config(first_run)
    again = tmp_path / "again"
    proc = evolution_run("--config", path, "--out", again, "--quiet", "--no-plots")
    assert proc.returncode == 0, proc.stderr
    assert fitness_columns(again) == fitness_columns(first_run)
    best = [json.loads((d / "best.json").read_text()) for d in (first_run, again)]
    assert best[0]["genome"] == best[1]["genome"]
    assert (again / CONFIG_TOML_NAME).read_text() == path.read_text()


def test_a_resume_accepts_the_run_s_own_config_and_refuses_another(first_run, tmp_path):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(first_run, run)
    other = write(tmp_path, (run / CONFIG_TOML_NAME).read_text().replace(
        "population = 6", "population = 8"), "other.toml")
    line = one_line(evolution_run("--config", other, "--resume", run, *FAST))
    assert "--population 8 (recorded: 6)" in line
    proc = evolution_run("--config", run / CONFIG_TOML_NAME, "--resume", run,
                         "--generations", "3", "--quiet", "--no-plots")
    assert proc.returncode == 0, proc.stderr
    assert read_logbook(run)[-1]["gen"] == 3
    assert "generations = 3" in (run / CONFIG_TOML_NAME).read_text()


# -- presets are the README's long commands ---------------------------------

README_RECIPE = """
--stage gen:medium:0-15 gen:hard:0-15 gen:expert:200-327 gen:skills:0-63
--stages-per-generation 32 --stage-draw failures
--validation-stage gen:medium:2000-2049 gen:hard:2000-2049 gen:expert:10000-10199
--validation-weight set
--test-stage gen:medium:1000-1099 gen:hard:1000-1099 gen:expert:1000-1099 --test-every 25
--observation turnback --action-repeat 2 --training-stall-frames 480
--policy mlp --hidden 16 --algorithm cmaes
--imitation 3 --imitation-stage gen:medium:0-15 gen:hard:0-15 gen:expert:200-327 gen:skills:0-63
--imitation-back-weight 10
--init-sigma 0.15 --cma-validate-mean 1 --population 40 --generations 1200
--max-frames 720000000 --starts 2 --start-frames 200000000 --seed 0
"""
README_COMPARE_TASK = """
--stage gen:medium:0-15 gen:hard:0-15 gen:expert:200-263
--validation-stage gen:medium:2000-2049 gen:hard:2000-2049 gen:expert:10000-10049
--test-stage gen:medium:1000-1099 gen:hard:1000-1099 gen:expert:1000-1099
hillside pipeworks skybridge --test-every 25
--observation pits --population 80 --workers 1
"""
README_TUNE_TASK = """
--stage gen:medium:0-31 gen:hard:0-31
--validation-stage gen:medium:2000-2049 gen:hard:2000-2049
--observation stall --population 80 --workers 2
"""


def test_the_recipe_preset_is_the_readme_s_long_command():
    short = config_of("--config", CONFIGS / "recipe.toml", "--seed", "0")
    assert short == config_of(*shlex.split(README_RECIPE))


def generalization_benchmark():
    return benchmark_module("generalization")


def test_the_benchmark_runs_the_recipe_preset_and_shows_it_as_its_long_command():
    bench = generalization_benchmark()
    assert bench.run_options("recipe") == ["--config", str(CONFIGS / "recipe.toml")]
    assert (config_of("--config", CONFIGS / "recipe.toml", "--seed", "0")
            == config_of(*bench.RECIPE, "--seed", "0"))
    # The file's own method settings are among the options, given once.
    assert bench.RECIPE.count("--init-sigma") == 1 and "--options" not in bench.RECIPE


@pytest.mark.parametrize("preset", sorted(CONFIGS.glob("*.toml")), ids=lambda p: p.name)
def test_every_preset_is_a_whole_run_file(preset, tmp_path):
    """Each file of configs/ is read by `evolution.run --config` alone into
    a valid configuration (no chain of edits to another), which the run
    writes back as a file that gives it again."""
    assert read_config_file(preset)["stages"]
    config = config_of("--config", preset)
    assert config.training_stages()
    again = write(tmp_path, config_toml(config), CONFIG_TOML_NAME)
    assert config_of("--config", again) == config


def test_every_variant_of_the_benchmark_is_a_preset():
    bench = generalization_benchmark()
    assert "recipe" in bench.VARIANTS
    for name, (path, what) in bench.VARIANTS.items():
        assert path.parent == CONFIGS and path.is_file(), name
        config = config_of(*bench.run_options(name), "--seed", "0")
        assert config.validation_stages and config.test_stages and what


def test_the_one_start_preset_is_the_reach_recipe_with_one_start():
    recipe = config_of("--config", CONFIGS / "recipe-reach.toml")
    assert config_of("--config", CONFIGS / "recipe-one-start.toml") == recipe.replace(
        generations=800, max_frames=520_000_000, starts=1, start_frames=None)


def test_the_stand_preset_is_the_reach_recipe_of_one_start_over_stand():
    # The recipe of one start, as it was when the two were compared.
    recipe = config_of("--config", CONFIGS / "recipe-one-start.toml")
    assert config_of("--config", CONFIGS / "recipe-stand.toml") == recipe.replace(
        observation="stand")


def test_the_behind_preset_is_the_reach_recipe_over_behind_with_skill_stages():
    recipe = config_of("--config", CONFIGS / "recipe-reach.toml")
    assert config_of("--config", CONFIGS / "recipe-behind.toml") == recipe.replace(
        observation="behind", stages=(*recipe.stages, "gen:skills:0-63"))


def test_the_runup_preset_is_the_reach_recipe_over_runup():
    recipe = config_of("--config", CONFIGS / "recipe-reach.toml")
    assert config_of("--config", CONFIGS / "recipe-runup.toml") == recipe.replace(
        observation="runup")


def test_the_imitation_preset_is_the_reach_recipe_from_a_fit_on_its_stages_and_skill_stages():
    recipe = config_of("--config", CONFIGS / "recipe-reach.toml")
    assert config_of("--config", CONFIGS / "recipe-imitation.toml") == recipe.replace(
        imitation=3, imitation_stages=(*recipe.stages, "gen:skills:0-63"))


def test_the_imitation_back_preset_weighs_going_back_over_runup_with_skill_stages():
    imitation = config_of("--config", CONFIGS / "recipe-imitation.toml")
    assert config_of("--config", CONFIGS / "recipe-imitation-back.toml") == imitation.replace(
        observation="runup", stages=imitation.imitation_stages, imitation_back_weight=10.0)


def test_the_recipe_is_imitation_back_over_turnback_with_a_longer_training_stall():
    back = config_of("--config", CONFIGS / "recipe-imitation-back.toml")
    assert config_of("--config", CONFIGS / "recipe.toml") == back.replace(
        observation="turnback", training_stall_frames=480)


def test_the_start_shift_preset_is_the_reach_recipe_from_moved_starts():
    recipe = config_of("--config", CONFIGS / "recipe-reach.toml")
    assert config_of("--config", CONFIGS / "recipe-start-shift.toml") == recipe.replace(
        start_shift=12)


def test_start_shift_is_a_task_setting_of_a_file_and_of_the_command_line(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('[task]\nstages = ["gen:easy:0-1"]\nstart_shift = 6\n')
    assert config_of("--config", path).start_shift == 6
    assert config_of("--config", path, "--start-shift", "0").start_shift == 0
    assert "[task]" in config_toml(config_of("--config", path))
    assert "start_shift = 6" in config_toml(config_of("--config", path))
    path.write_text('[task]\nstages = ["gen:easy:0-1"]\nstart_shift = -2\n')
    with pytest.raises(ValueError, match="start_shift.*must be a whole number >= 0, got -2"):
        config_of("--config", path)


def test_the_final_repeat_preset_is_the_reach_recipe_deciding_every_frame_at_the_end():
    recipe = config_of("--config", CONFIGS / "recipe-reach.toml")
    assert config_of("--config", CONFIGS / "recipe-final-repeat.toml") == recipe.replace(
        final_action_repeat=1, final_frames=120_000_000)


def test_the_final_repeat_is_set_by_a_file_and_by_the_command_line(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('[task]\nstages = ["gen:easy:0-1"]\naction_repeat = 2\n'
                    'final_action_repeat = 1\n[budget]\nmax_frames = 1000\n'
                    'final_frames = 300\n')
    config = config_of("--config", path)
    assert (config.final_action_repeat, config.final_frames) == (1, 300)
    assert config_of("--config", path, "--final-frames", "200").final_frames == 200
    assert config_of("--config", path, "--final-action-repeat",
                     "3").final_action_repeat == 3
    written = config_toml(config)
    assert "final_action_repeat = 1" in written.split("[budget]")[0]
    assert "final_frames = 300" in written.split("[budget]")[1]
    path.write_text(path.read_text().replace("final_frames = 300", "final_frames = 2000"))
    with pytest.raises(ValueError, match="final_frames .2000. is the last part of the "
                                         "frame budget"):
        config_of("--config", path)


def test_imitation_is_a_method_setting_of_a_file_and_of_the_command_line(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('[task]\nstages = ["gen:easy:0-1"]\nobservation = "reach"\n'
                    '[policy]\npolicy = "mlp"\n'
                    '[method]\nalgorithm = "cmaes"\nimitation = 2\n')
    assert config_of("--config", path).imitation == 2
    assert config_of("--config", path, "--imitation", "0").imitation == 0
    with_stages = tmp_path / "stages.toml"
    with_stages.write_text(path.read_text() + 'imitation_stages = ["gen:skills:0-3"]\n')
    assert config_of("--config", with_stages).imitation_stages == ("gen:skills:0-3",)
    assert config_of("--config", with_stages, "--imitation-stage",
                     "gen:skills:4").imitation_stages == ("gen:skills:4",)
    weighted = tmp_path / "weighted.toml"
    weighted.write_text(path.read_text() + 'imitation_back_weight = 8\n')
    assert config_of("--config", weighted).imitation_back_weight == 8.0
    assert config_of("--config", weighted, "--imitation-back-weight",
                     "2.5").imitation_back_weight == 2.5
    bad = tmp_path / "bad.toml"
    bad.write_text(path.read_text() + 'imitation_back_weight = "many"\n')
    with pytest.raises(ConfigFileError, match="imitation_back_weight in \\[method\\] must be "
                                              "a number >= 1, got 'many'"):
        read_config_file(bad)


@pytest.mark.parametrize("method", ["ga", "cmaes", "openai-es", "neat"])
def test_the_compare_preset_is_the_readme_s_task(method):
    own = ["--algorithm", method, "--seed", "1", "--max-frames", "150000000"]
    assert (config_of("--config", CONFIGS / "compare-task.toml", *own)
            == config_of(*shlex.split(README_COMPARE_TASK), *own))


@pytest.mark.parametrize("method", ["cmaes", "ppo", "gp"])
def test_the_learners_compare_preset_is_a_whole_task_for_each_method(method):
    own = ["--algorithm", method, "--seed", "1", "--max-frames", "10000000"]
    config = config_of("--config", CONFIGS / "compare-learners-task.toml", *own)
    assert config.algorithm == method and config.stages_per_generation == 8
    assert config.action_repeat == 4 and config.population == 64
    assert len(config.held_out_stages()) == 103


def test_the_tune_preset_is_the_readme_s_task():
    own = ["--algorithm", "openai-es", "--max-frames", "20000000"]
    assert (tune.trial_config("openai-es", ["--config", str(CONFIGS / "tune-task.toml")],
                              {}, 20000000)
            == tune.trial_config("openai-es", shlex.split(README_TUNE_TASK), {}, 20000000))
    assert config_of("--config", CONFIGS / "tune-task.toml", *own).validation_stages


# -- compare and tune take the task as a file --------------------------------

def test_compare_takes_its_task_as_a_file(tmp_path):
    task = write(tmp_path, '[task]\nstages = ["hillside"]\nmax_steps = 120\n'
                           '[method]\npopulation = 6\n[run]\nworkers = 1\n', "task.toml")
    out = tmp_path / "cmp"
    proc = call(compare.main, "--methods", "ga", "--seeds", "0", "--frames", "1500",
                "--out", out, "--task", task, "--no-plots", "--", "--stall-frames", "0")
    assert proc.returncode == 0, proc.stderr
    settings = read_config(out / "ga-seed0")
    assert (settings.stages, settings.max_steps, settings.population,
            settings.stall_frames) == (("hillside",), 120, 6, None)
    saved = json.loads((out / "compare.json").read_text())["task"]
    assert saved[:2] == ["--config", str(task.resolve())]


@pytest.mark.parametrize("text, said", [
    ("[method]\nalgorithm = \"ga\"\n", "algorithm"),
    ("[run]\nseed = 3\n", "seed"),
    ("[budget]\nmax_frames = 100\n", "max_frames"),
])
def test_compare_refuses_a_task_file_holding_what_it_sets(tmp_path, text, said):
    task = write(tmp_path, text, "task.toml")
    line = one_line(call(compare.main, "--methods", "ga", "--seeds", "0", "--frames", "100",
                         "--out", tmp_path / "cmp", "--task", task))
    assert str(task) in line and said in line
    assert not (tmp_path / "cmp").exists()


def test_compare_says_which_file_of_its_task_is_bad(tmp_path):
    task = write(tmp_path, "[task]\nstages = 3\n", "task.toml")
    line = one_line(call(compare.main, "--methods", "ga", "--seeds", "0", "--frames", "100",
                         "--out", tmp_path / "cmp", "--task", task))
    assert str(task) in line and "stages in [task]" in line


def test_tune_takes_its_task_as_a_file_and_refuses_what_it_sets(tmp_path):
    task = write(tmp_path, '[task]\nstages = ["hillside"]\nvalidation_stages = ["pipeworks"]\n'
                           '[method]\npopulation = 6\n', "task.toml")
    config = tune.check_task("openai-es", tune.task_with_file([], task))
    assert (config.stages, config.validation_stages, config.population) == (
        ("hillside",), ("pipeworks",), 6)
    bad = write(tmp_path, '[method]\nalgorithm = "ga"\n', "bad.toml")
    line = one_line(call(tune.main, "--method", "openai-es", "--trials", "1", "--frames",
                         "100", "--out", tmp_path / "t", "--task", bad))
    assert str(bad) in line and "algorithm" in line
    assert not (tmp_path / "t").exists()


# -- the help, grouped ------------------------------------------------------

def test_the_help_groups_the_options_with_each_method_s_under_its_name():
    text = build_parser().format_help()
    for title in ("the task:", "the policy:", "the method:", "the budget:",
                  "where and how it runs:", "its files:", "--algorithm cmaes's own settings:",
                  "--algorithm openai-es's own settings:"):
        assert title in text
    cmaes = text.split("--algorithm cmaes's own settings:")[1].split("own settings:")[0]
    assert "--cma-diagonal" in cmaes and "--es-lr" not in cmaes

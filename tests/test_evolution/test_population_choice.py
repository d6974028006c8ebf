"""benchmarks/population_choice.py: a run's genomes read back, the rules of
choice, and the population's vote."""
from __future__ import annotations

import numpy as np
import pytest

from evolution.config import EvolutionConfig
from evolution.loop.checkpoint import load_checkpoint
from evolution.loop.evolve import evolve
from paths import benchmark_module
from runners.agent import BaseAgent
from runners.genome_file import load_genome_file


@pytest.fixture(scope="module")
def choice():
    return benchmark_module("population_choice")


def small(**changes) -> EvolutionConfig:
    settings = dict(stages=("gen:easy:0-1",), population=6, generations=2, seed=3,
                    max_steps=400, workers=1, checkpoint_every=1, observation="stall",
                    algorithm="cmaes", validation_stages=("gen:easy:2-3",), test_every=1)
    settings.update(changes)
    return EvolutionConfig(**settings)


def test_a_run_s_genomes_are_its_own_its_mean_its_hall_of_fame_and_its_last_population(
        choice, tmp_path):
    evolve(small(), tmp_path / "run")
    config, genomes, repeat = choice.run_genomes(tmp_path / "run")
    ckpt = load_checkpoint(tmp_path / "run")
    assert config.seed == 3 and repeat == config.action_repeat
    names = list(genomes)
    assert names[:2] == ["the run's", "mean"]
    assert sum(n.startswith("population") for n in names) == 6
    assert sum(n.startswith("hall of fame") for n in names) == len(ckpt.hall_of_fame)
    assert np.array_equal(genomes["the run's"],
                          load_genome_file(tmp_path / "run" / "best.json").genome)
    assert np.array_equal(genomes["mean"], ckpt.search["arrays"]["centroid"])
    assert np.array_equal(genomes["population 5"], ckpt.population[5][0])


def test_a_run_that_ended_deciding_every_frame_is_played_and_written_so(choice, tmp_path):
    # The budget's last frames begin after the first generation, so the
    # last population was scored deciding every frame, as best.json plays.
    first = tmp_path / "first"
    evolve(small(action_repeat=2, generations=1, max_frames=10 ** 8), first)
    played = int(load_checkpoint(first).logbook[-1]["frames"])
    run = tmp_path / "run"
    evolve(small(action_repeat=2, max_frames=10 ** 8, final_action_repeat=1,
                 final_frames=10 ** 8 - played), run)
    config, _, repeat = choice.run_genomes(run)
    assert config.action_repeat == 2
    assert repeat == 1 == load_genome_file(run / "best.json").action_repeat
    assert choice.episode_settings(config, repeat).action_repeat == 1
    members = choice.write_members(run, tmp_path / "members")
    assert {load_genome_file(p).action_repeat for p in members} == {1}


def test_a_run_without_validation_is_refused_on_one_line(choice, tmp_path, capsys):
    evolve(small(validation_stages=()), tmp_path / "plain")
    assert choice.main([str(tmp_path / "plain")]) == 1
    err = capsys.readouterr().err
    assert "has no validation stages" in err and err.count("\n") == 1


SETS = {"gen:easy:2-3": ["gen:easy:2", "gen:easy:3"],
        "six": ["a", "b", "c"], "places": ["p"]}


def played(six: list[bool], validation: list[bool]) -> dict[str, list[bool]]:
    return {"gen:easy:2-3": validation, "six": six, "places": [True]}


def test_each_rule_picks_the_best_score_over_its_sets_the_run_s_own_on_a_tie(choice):
    runs = {"the run's": played([True, False, False], [True, True]),
            "hall of fame 0": played([True, True, False], [True, False]),
            "population 0": played([True, True, True], [True, False]),
            "population 1": played([False, False, False], [True, True])}
    rules = choice.rules(small())
    picks = {rule: choice.choose(runs, *rules[rule], SETS, "set") for rule in rules}
    assert picks["the run's"] == "the run's"
    # Validation alone: the run's own and population 1 tie; the earlier wins.
    assert picks["validation"] == "the run's"
    # One more set, the six: population 0 finishes them all.
    assert picks["+ six"] == "population 0"
    # Over the kept genomes only, the population is not looked at.
    assert choice.choose(runs, False, ["gen:easy:2-3", "six"], SETS, "set") == "the run's"


def test_a_rule_weighs_as_the_run_does_by_stage_or_by_set(choice):
    runs = {"the run's": played([False, False, False], [True, True]),
            "population 0": played([True, True, True], [False, False]),
            "population 1": played([True, True, False], [True, False])}
    both = ["gen:easy:2-3", "six"]
    # Each stage alike: 2, 3 and 3 stages; the earlier of the two threes.
    assert choice.choose(runs, True, both, SETS, "stage") == "population 0"
    # Each set alike: shares 0.5, 0.5 and (1/2 + 2/3) / 2.
    assert choice.choose(runs, True, both, SETS, "set") == "population 1"


def test_six_near_takes_the_most_of_the_six_only_among_genomes_nearly_best_on_validation(
        choice):
    sets = {"v": [f"v{i}" for i in range(6)], "six": ["a", "b", "c"]}

    def run(six: int, validation: int) -> dict[str, list[bool]]:
        return {"v": [i < validation for i in range(6)], "six": [i < six for i in range(3)]}

    runs = {"the run's": run(1, 6), "population 0": run(3, 2), "population 1": run(2, 5),
            "population 2": run(2, 5)}
    # Population 0 finishes every stage of the six, but four validation
    # stages fewer than the best: too far below. Of the two within one,
    # the earlier.
    assert choice.choose_near(runs, ["v"], sets, "set", near=1) == "population 1"
    assert choice.choose_near(runs, ["v"], sets, "set", near=4) == "population 0"
    # Nothing within reach finishes more of the six: the best on validation.
    assert choice.choose_near(runs, ["v"], sets, "set", near=0) == "the run's"


class Presses(BaseAgent):
    def __init__(self, action: int) -> None:
        self.action = action
        self.resets = 0

    def get_action(self, obs) -> int:
        return self.action

    def reset(self) -> None:
        self.resets += 1


def test_the_vote_presses_what_most_members_press_and_the_lowest_on_a_tie(choice):
    members = [Presses(a) for a in (3, 5, 5, 1)]
    vote = choice.PopulationVote(members, "stall")
    assert vote.get_action(None) == 5
    vote.reset()
    assert all(m.resets == 1 for m in members)
    assert choice.PopulationVote([Presses(a) for a in (6, 2)], "stall").get_action(None) == 2


def test_the_correlation_is_pearson_s_and_nought_for_a_set_that_never_varies(choice):
    a = np.array([1.0, -2.0, 0.5, 0.5])
    assert choice.correlation(a, a) == pytest.approx(1.0)
    assert choice.correlation(a, -a) == pytest.approx(-1.0)
    b = np.array([0.3, 0.1, -0.2, -0.2])
    assert choice.correlation(a, b) == pytest.approx(np.corrcoef(a, b)[0, 1])
    assert choice.correlation(a, np.zeros(4)) == 0.0


def test_no_workers_is_refused_on_one_line_before_anything_is_played(choice, capsys):
    with pytest.raises(SystemExit) as stop:
        choice.main(["somewhere", "--workers", "0"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--workers must be 1 or more, got 0" in err and err.count("\n") == 1


def test_the_members_are_written_as_genome_files_that_replay_plays(choice, tmp_path, capsys):
    from runners import replay

    evolve(small(), tmp_path / "run")
    assert choice.main([str(tmp_path / "run"), "--members", str(tmp_path / "members")]) == 0
    assert "wrote 6 genome files" in capsys.readouterr().out
    ckpt = load_checkpoint(tmp_path / "run")
    for i in range(6):
        record = load_genome_file(tmp_path / "members" / "run" / f"member-{i}.json")
        assert np.array_equal(record.genome, ckpt.population[i][0])
        assert record.fitness is None and record.generation == ckpt.generation
        assert (record.observation, record.action_repeat) == ("stall", 1)
    assert replay.main([str(tmp_path / "members" / "run" / "member-2.json"),
                        "--stage", "gen:easy:0"]) == 0
    assert "gen:easy:0" in capsys.readouterr().out


def test_with_candidates_the_pool_is_every_genome_validation_played_each_once(choice, tmp_path):
    run = tmp_path / "run"
    evolve(small(keep_candidates=True, generations=3), run)
    config, genomes, repeat, schedule = choice.run_candidates(run)
    names = list(genomes)
    assert names[0] == "the run's" and repeat == config.action_repeat
    files = sorted((run / "candidates").glob("gen-*.json"))
    kept = {p.stem: load_genome_file(p).genome for p in files}
    # Each genome once: the run's own (one of the candidates) first, every
    # other under the name of the first file holding it.
    keys = [g.tobytes() for g in genomes.values()]
    assert len(set(keys)) == len(keys)
    assert set(keys) == {np.asarray(g, dtype=np.float64).tobytes() for g in kept.values()}
    for name in names[1:]:
        stem = name.removeprefix("candidate ")
        assert np.array_equal(genomes[name], kept[stem])
        assert not any(np.array_equal(kept[s], kept[stem]) for s in kept if s < stem)
    # Which each validation played, in order, by those names.
    by_generation = {}
    for p in files:
        by_generation.setdefault(p.stem[:8], []).append(kept[p.stem])
    assert len(schedule) == len(by_generation)
    for played_then, genomes_then in zip(schedule, by_generation.values()):
        assert [genomes[n].tobytes() for n in played_then] == [
            np.asarray(g, dtype=np.float64).tobytes() for g in genomes_then]
    assert "the run's" in {n for names in schedule for n in names}
    # Every one of them is in the pool a rule over the population picks from.
    assert all(choice.in_pool(n) for n in names[1:]) and not choice.in_pool("the run's")


def test_candidates_of_a_run_that_kept_none_are_refused_on_one_line(choice, tmp_path, capsys):
    evolve(small(), tmp_path / "run")
    assert choice.main([str(tmp_path / "run"), "--candidates"]) == 1
    err = capsys.readouterr().err
    assert "no candidates kept" in err and "--keep-candidates" in err
    assert err.count("\n") == 1


def test_the_run_s_rule_is_applied_at_each_validation_with_the_choice_carried_over(choice):
    sets = {"v": [f"v{i}" for i in range(6)], "six": ["a", "b", "c"]}

    def run(six: int, validation: int) -> dict[str, list[bool]]:
        return {"v": [i < validation for i in range(6)], "six": [i < six for i in range(3)]}

    played = {"early": run(3, 4), "late": run(0, 6), "last": run(1, 5)}
    schedule = [["early"], ["late", "last"]]
    # The plain rule keeps the best on validation seen so far.
    assert choice.choose_as_run(played, schedule, ["v"], sets, "set", [], 0) == "late"
    # Preferring the six within two stages of the best: at the second
    # validation "early" (4) is carried over and two below "late" (6).
    assert choice.choose_as_run(played, schedule, ["v"], sets, "set", ["six"], 2) == "early"
    # Within one: "early" drops out, and of "late" and "last", the six.
    assert choice.choose_as_run(played, schedule, ["v"], sets, "set", ["six"], 1) == "last"
    # A genome chosen is compared again at every later validation: here
    # the last validation holds only a worse one, and the choice stays.
    assert choice.choose_as_run(played, [["late"], ["last"]], ["v"], sets, "set",
                                ["six"], 0) == "late"
    # A floor of 4 of the 6 keeps "early" in reach whatever the best is;
    # a floor none meets leaves the near rule to decide.
    assert choice.choose_as_run(played, schedule, ["v"], sets, "set", ["six"], 0,
                                (4 / 6,)) == "early"
    assert choice.choose_as_run(played, schedule, ["v"], sets, "set", ["six"], 1,
                                (1.0,)) == "late"
    assert choice.choose_as_run(played, schedule, ["v"], sets, "set", ["six"], 1,
                                (5 / 6,)) == "last"

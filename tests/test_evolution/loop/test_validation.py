"""Validation stages choose the genome a run gives, and nothing else: the
search evolves the same with or without them, resumes exactly with them,
and best.json holds the candidate with the best validation results."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from evolution.config import ConfigError, EvolutionConfig
from evolution.loop.evolve import evolve
from evolution.loop.outputs import read_logbook
from runners import RunnerConfig, run_episodes

VALIDATION = ("gen:easy:200-203",)


def config(**changes) -> EvolutionConfig:
    settings = dict(stages=("gen:easy:0-3",), stages_per_generation=2, population=10,
                    generations=6, seed=5, max_steps=900, workers=1, test_every=2,
                    checkpoint_every=2, observation="terrain",
                    test_stages=("gen:easy:300-301",))
    settings.update(changes)
    return EvolutionConfig(**settings)


def rows(run_dir, drop=("seconds",)):
    with open(run_dir / "logbook.csv", newline="") as f:
        return [{k: v for k, v in r.items() if k not in drop} for r in csv.DictReader(f)]


def test_validation_changes_only_the_genome_the_run_gives(tmp_path):
    plain = evolve(config(), tmp_path / "plain")
    checked = evolve(config(validation_stages=VALIDATION), tmp_path / "checked")
    # The training columns are the same; the held-out test plays the
    # genome the run gives, and best is its fitness, so they may differ.
    held = ("test_goals", "test_progress", "best")
    assert rows(tmp_path / "checked", drop=("seconds", "val_goals", "val_progress", *held)) \
        == rows(tmp_path / "plain", drop=("seconds", *held))
    # A run without validation writes no validation columns at all.
    assert "val_goals" not in rows(tmp_path / "plain")[0]
    logged = rows(tmp_path / "checked")
    assert [r["val_goals"] != "" for r in logged] == [g % 2 == 0 for g in range(7)]
    assert plain.logbook[-1]["max"] == checked.logbook[-1]["max"]
    # Read back, the validation columns are numbers, None where not validated.
    read = read_logbook(tmp_path / "checked")
    assert [r["val_goals"] for r in read] == [
        int(r["val_goals"]) if r["val_goals"] else None for r in logged]
    assert [r["val_progress"] for r in read] == [
        float(r["val_progress"]) if r["val_progress"] else None for r in logged]
    assert "val_goals" not in read_logbook(tmp_path / "plain")[0]
    # Only a validated run says which candidate its genome was.
    assert "chosen" not in json.loads((tmp_path / "plain" / "best.json").read_text())


def validation_key(genome) -> tuple[int, float]:
    """(stages completed, mean reward) on the validation stages."""
    from speednik.stages import expand_stages

    results = run_episodes([(("linear", ("terrain", np.asarray(genome))), s)
                            for s in expand_stages(VALIDATION)],
                           RunnerConfig(observation="terrain", max_steps=900))
    return (sum(r.metrics["goal_reached"] for r in results),
            float(np.mean([r.total_reward for r in results])))


def test_best_json_holds_the_candidate_best_on_validation(tmp_path):
    from evolution.loop.checkpoint import load_checkpoint

    out = evolve(config(validation_stages=VALIDATION, generations=4), tmp_path / "run")
    best = json.loads((tmp_path / "run" / "best.json").read_text())
    chosen = validation_key(best["genome"])
    assert chosen[0] == out.logbook[-1]["val_goals"]
    # No genome of the last hall of fame does better there, and the
    # training best is not simply taken.
    hof = [g for g, _ in load_checkpoint(tmp_path / "run").hall_of_fame]
    assert all(validation_key(g) <= chosen for g in hof)
    assert best["held_out"] is not None   # the held-out test played it


def test_a_validated_run_resumes_exactly(tmp_path):
    evolve(config(validation_stages=VALIDATION), tmp_path / "a")
    evolve(config(validation_stages=VALIDATION, generations=2), tmp_path / "b")
    evolve(config(validation_stages=VALIDATION), tmp_path / "b", resume=True)
    assert rows(tmp_path / "a") == rows(tmp_path / "b")
    a = json.loads((tmp_path / "a" / "best.json").read_text())
    b = json.loads((tmp_path / "b" / "best.json").read_text())
    assert a["genome"] == b["genome"] and a["held_out"] == b["held_out"]
    assert a["chosen"] == b["chosen"]


@pytest.mark.parametrize("algorithm, options", [
    ("ga", {}), ("cmaes", {"init_sigma": 0.5, "cma_validate_mean": 1})])
def test_best_json_says_which_candidate_was_chosen_and_when(tmp_path, monkeypatch, capsys,
                                                           algorithm, options):
    # Every validation's candidates, recorded with the origin each was
    # offered with: in the generation best.json names, its genome was
    # offered as the candidate it names, and at every later validation it
    # was offered first (the genome chosen so far) with that origin.
    from evolution.loop import validation as validation_module
    from runners.genome_file import load_genome_file

    offered = []
    choose = validation_module.Validation._candidates

    def recording(self, run, gen):
        out = choose(self, run, gen)
        offered.append((gen, [(np.asarray(c[0], dtype=np.float64), c[3]) for c in out]))
        return out

    monkeypatch.setattr(validation_module.Validation, "_candidates", recording)
    evolve(config(validation_stages=VALIDATION, algorithm=algorithm, options=options,
                  generations=6), tmp_path / "run")
    best = json.loads((tmp_path / "run" / "best.json").read_text())
    genome = np.asarray(best["genome"])
    chosen = best["chosen"]
    assert chosen["candidate"] in (validation_module.HALL_OF_FAME,
                                   validation_module.STRATEGY_CANDIDATE)
    at = {gen: cands for gen, cands in offered}
    assert any(np.array_equal(g, genome) and origin == chosen
               for g, origin in at[chosen["generation"]])
    later = [cands for gen, cands in offered if gen > chosen["generation"]]
    assert all(np.array_equal(cands[0][0], genome) and cands[0][1] == chosen for cands in later)
    assert load_genome_file(tmp_path / "run" / "best.json").chosen == best["chosen"]
    # The replay says it.
    from runners import replay

    assert replay.main([str(tmp_path / "run" / "best.json"), "--stage", "gen:easy:0"]) == 0
    assert (f"chosen on validation stages in generation {chosen['generation']} "
            f"({chosen['candidate']})") in capsys.readouterr().out


def test_validation_stages_share_none_with_the_others():
    with pytest.raises(ConfigError, match="both a training and a validation stage"):
        config(validation_stages=("gen:easy:3",))
    with pytest.raises(ConfigError, match="both a validation and a test stage"):
        config(validation_stages=("gen:easy:300",))


def test_cma_validate_mean_offers_the_search_mean_and_changes_nothing_else(tmp_path,
                                                                          monkeypatch):
    """With --cma-validate-mean 1, CMA-ES's mean is played on the validation
    stages beside the hall of fame; the search, its fitness columns and its
    checkpoint are those of the same run validating without it."""
    from evolution.loop import validation as validation_module
    from evolution.loop.checkpoint import load_checkpoint

    def cmaes(mean: int) -> dict:
        return dict(algorithm="cmaes", generations=4,
                    options={"init_sigma": 0.5, "cma_validate_mean": mean})

    offered = []
    choose = validation_module.Validation._candidates

    def recording(self, run, gen):
        out = choose(self, run, gen)
        offered.append((gen, [np.asarray(c[0], dtype=np.float64) for c in out]))
        return out

    monkeypatch.setattr(validation_module.Validation, "_candidates", recording)
    evolve(config(validation_stages=VALIDATION, **cmaes(1)), tmp_path / "run")
    mean = load_checkpoint(tmp_path / "run").search["arrays"]["centroid"]
    last_gen, last = offered[-1]
    assert last_gen == 4
    assert any(np.array_equal(c, mean) for c in last)
    # Every candidate of the last validation, the mean among them, does no
    # better there than the genome best.json holds.
    chosen = validation_key(json.loads((tmp_path / "run" / "best.json").read_text())["genome"])
    assert all(validation_key(c) <= chosen for c in last)

    offered.clear()
    evolve(config(validation_stages=VALIDATION, **cmaes(0)), tmp_path / "without")
    assert not any(np.array_equal(c, mean) for c in offered[-1][1])
    # best is the fitness of the genome validation chose, which may be the mean.
    held = ("val_goals", "val_progress", "test_goals", "test_progress", "best")
    assert rows(tmp_path / "run", drop=("seconds", *held)) \
        == rows(tmp_path / "without", drop=("seconds", *held))
    assert np.array_equal(load_checkpoint(tmp_path / "without").search["arrays"]["centroid"],
                          mean)


def test_weighting_by_set_counts_a_small_set_as_much_as_a_large_one():
    from evolution.loop.validation import completion_score

    sets = [[f"m{i}" for i in range(50)], [f"e{i}" for i in range(200)]]

    def completed(medium: int, expert: int) -> dict[str, bool]:
        return {**{f"m{i}": i < medium for i in range(50)},
                **{f"e{i}": i < expert for i in range(200)}}

    # 47 + 193 = 240 stages against 50 + 187 = 237: by stage the first
    # wins; by set (0.94 + 0.965 against 1.0 + 0.935, halved) the second.
    lopsided, even = completed(47, 193), completed(50, 187)
    assert completion_score(lopsided, sets, "stage") == 240.0
    assert completion_score(even, sets, "stage") == 237.0
    assert completion_score(lopsided, sets, "set") < completion_score(even, sets, "set")
    assert completion_score(even, sets, "set") == pytest.approx((1.0 + 187 / 200) / 2)


def set_key(genome, sets) -> tuple[float, float]:
    """(completion averaged over the sets, mean reward) on `sets`."""
    from speednik.stages import expand_stages

    names = [expand_stages([s]) for s in sets]
    results = run_episodes([(("linear", ("terrain", np.asarray(genome))), s)
                            for group in names for s in group],
                           RunnerConfig(observation="terrain", max_steps=900))
    done = [r.metrics["goal_reached"] for r in results]
    fractions, at = [], 0
    for group in names:
        fractions.append(sum(done[at:at + len(group)]) / len(group))
        at += len(group)
    return (sum(fractions) / len(fractions), float(np.mean([r.total_reward for r in results])))


def test_a_run_weighting_validation_by_set_chooses_by_set_and_evolves_the_same(tmp_path,
                                                                             monkeypatch):
    from evolution.loop import validation
    from evolution.loop.checkpoint import load_checkpoint

    sets = ("gen:easy:200-201", "gen:medium:200-205")
    by_stage = evolve(config(validation_stages=sets, generations=4), tmp_path / "stage")
    asked = []
    score = validation.completion_score

    def recorded(completed, groups, weight):
        asked.append((weight, [len(g) for g in groups]))
        return score(completed, groups, weight)

    monkeypatch.setattr(validation, "completion_score", recorded)
    by_set = evolve(config(validation_stages=sets, generations=4, validation_weight="set"),
                    tmp_path / "set")
    assert asked and set(map(str, asked)) == {str(("set", [2, 6]))}
    training = ("seconds", "val_goals", "val_progress", "test_goals", "test_progress")
    assert rows(tmp_path / "set", drop=training) == rows(tmp_path / "stage", drop=training)
    assert by_set.logbook[-1]["max"] == by_stage.logbook[-1]["max"]
    best = json.loads((tmp_path / "set" / "best.json").read_text())
    chosen = set_key(best["genome"], sets)
    hof = [g for g, _ in load_checkpoint(tmp_path / "set").hall_of_fame]
    assert all(set_key(g, sets) <= chosen for g in hof)
    assert json.loads((tmp_path / "set" / "config.json").read_text())["settings"][
        "validation_weight"] == "set"


@pytest.mark.parametrize("changes, named", [
    ({"validation_weight": "sets", "validation_stages": VALIDATION}, "unknown validation_weight"),
    ({"validation_weight": "set"}, "needs validation_stages")])
def test_a_validation_weight_it_cannot_use_is_refused(changes, named):
    with pytest.raises(ConfigError, match=named):
        config(**changes)


@pytest.mark.parametrize("changes, named", [
    ({"keep_candidates": True}, "keep_candidates keeps the genomes validation plays, so it "
                                "needs validation_stages"),
    ({"keep_candidates": "yes", "validation_stages": VALIDATION},
     "keep_candidates must be true or false, got 'yes'")])
def test_keeping_candidates_it_cannot_keep_is_refused(changes, named):
    with pytest.raises(ConfigError, match=named):
        config(**changes)


def test_kept_candidates_are_the_genomes_validation_chose_among_with_what_they_validated(
        tmp_path, capsys):
    from runners.genome_file import load_genome_file

    kept = evolve(config(validation_stages=VALIDATION, keep_candidates=True, generations=4,
                         algorithm="cmaes", options={"cma_validate_mean": 1}),
                  tmp_path / "kept")
    plain = evolve(config(validation_stages=VALIDATION, algorithm="cmaes", generations=4,
                          options={"cma_validate_mean": 1}), tmp_path / "plain")
    assert not (tmp_path / "plain" / "candidates").exists()
    # Keeping them writes files and changes nothing the run does.
    assert rows(tmp_path / "kept") == rows(tmp_path / "plain")
    assert kept.logbook[-1]["max"] == plain.logbook[-1]["max"]
    files = sorted((tmp_path / "kept" / "candidates").glob("*.json"))
    records = {p.stem: load_genome_file(p) for p in files}
    # Every validated generation (0, 2, 4) wrote its hall of fame and
    # CMA-ES's mean, named by the generation and the candidate.
    assert {name[:8] for name in records} == {"gen-0000", "gen-0002", "gen-0004"}
    assert "gen-0004-strategy-candidate-0" in records and "gen-0004-hall-of-fame-0" in records
    from speednik.stages import expand_stages

    stages = expand_stages(list(VALIDATION))
    for name, record in records.items():
        validated = record.chosen
        assert validated["generation"] == int(name[4:8])
        assert name[9:].startswith(validated["candidate"].replace(" ", "-"))
        assert list(validated["validation_completed"]) == stages
        assert validated["validation_goals"] == sum(validated["validation_completed"].values())
        assert validated["validation_goals"] == validation_key(record.genome)[0]
        assert record.observation == "terrain" and record.action_repeat == 1
    # The genome the run gives is the candidate it was chosen as.
    best = load_genome_file(tmp_path / "kept" / "best.json")
    origin = best.chosen
    name = (f"gen-{origin['generation']:04d}-"
            f"{origin['candidate'].replace(' ', '-')}")
    same = [n for n, r in records.items() if n.startswith(name)
            and np.array_equal(r.genome, best.genome)]
    assert len(same) == 1
    assert records[same[0]].chosen["validation_goals"] == max(
        r.chosen["validation_goals"] for n, r in records.items()
        if r.chosen["generation"] == origin["generation"])
    # Replay says what a candidate file is, apart from the genome chosen.
    from runners import replay

    capsys.readouterr()
    one = next(n for n in sorted(records) if n.startswith("gen-0002"))
    assert replay.main([str(tmp_path / "kept" / "candidates" / f"{one}.json"),
                        "--stage", "gen:easy:0"]) == 0
    said = capsys.readouterr().out
    validated = records[one].chosen
    assert (f"a validation candidate of generation 2 ({validated['candidate']}), completing "
            f"{validated['validation_goals']} of 4 validation stages") in said
    assert "chosen on validation stages" not in said


PREFERRED = ("gen:easy:200-203", "gen:easy:204-206")


@pytest.mark.parametrize("changes, named", [
    ({"validation_prefer": ("gen:easy:204-206",), "validation_stages": VALIDATION},
     "validation_prefer: 'gen:easy:204-206' is not one of validation_stages; accepted: "
     "names given in validation_stages \\(gen:easy:200-203\\)"),
    ({"validation_prefer": VALIDATION, "validation_stages": VALIDATION},
     "validation_prefer names every validation set"),
    ({"validation_near": 2, "validation_stages": VALIDATION}, "needs validation_prefer"),
    ({"validation_near": -1, "validation_stages": PREFERRED,
      "validation_prefer": PREFERRED[1:]}, "validation_near must be a whole number"),
    ({"validation_screen": 2, "validation_stages": VALIDATION}, "validation_screen picks "
     "population members by the sets validation_prefer names, so it needs validation_prefer"),
    ({"validation_screen": -1, "validation_stages": PREFERRED,
      "validation_prefer": PREFERRED[1:]}, "validation_screen must be a whole number"),
    ({"validation_floor": (0.9,), "validation_stages": VALIDATION},
     "validation_floor bars the candidates validation_prefer chooses among, so it needs "
     "validation_prefer"),
    ({"validation_floor": (0.9, 0.9), "validation_stages": PREFERRED,
      "validation_prefer": PREFERRED[1:]}, "validation_floor gives 2 share\\(s\\) for 1 "
     "validation set\\(s\\) not preferred; accepted: one share for each of "
     "gen:easy:200-203, in that order"),
    ({"validation_floor": (1.5,), "validation_stages": PREFERRED,
      "validation_prefer": PREFERRED[1:]}, "validation_floor must be shares from 0 to 1")])
def test_a_preference_it_cannot_use_is_refused(changes, named):
    with pytest.raises(ConfigError, match=named):
        config(**changes)


def test_the_preferred_sets_choose_only_among_candidates_nearly_best_on_the_others():
    from evolution.loop.validation import Validation

    chooser = Validation(config(validation_stages=PREFERRED, validation_prefer=PREFERRED[1:],
                                validation_near=1), evaluator=None)
    assert chooser.other_names == {f"gen:easy:{i}" for i in range(200, 204)}
    assert chooser.preferred_names == {"gen:easy:204", "gen:easy:205", "gen:easy:206"}
    # (rank on the others, stages completed in all), the preferred completed,
    # the others completed.
    ranked = [((1.0, 5.0), 4, {}), ((0.75, 9.0), 6, {}), ((0.5, 9.0), 5, {}),
              ((0.75, 1.0), 6, {})]
    preferred, others = [0, 3, 3, 3], [4, 3, 2, 3]
    # Within one stage of the best (4): the first two and the last; of
    # those, the most of the preferred (3, twice), then the better rank.
    assert chooser._choose(ranked, preferred, others) == 1
    chooser.config = chooser.config.replace(validation_near=2)
    # The third is in reach now, but ranks below the second.
    assert chooser._choose(ranked, preferred, others) == 1
    chooser.config = chooser.config.replace(validation_near=0)
    assert chooser._choose(ranked, preferred, others) == 0
    # Without a preference, the best rank, the earlier on a tie.
    plain = Validation(config(validation_stages=PREFERRED), evaluator=None)
    assert plain._choose(ranked, preferred, others) == 0
    assert plain._choose(ranked[1:], preferred[1:], others[1:]) == 0


def test_validation_chooses_by_the_preferred_sets_and_ranks_the_starts_without_them():
    from types import SimpleNamespace

    from evolution.loop.validation import Validation

    stages = [f"gen:easy:{i}" for i in range(200, 207)]
    # What each candidate completes of 200-203 (the others) and 204-206.
    plays = {0: "1111" + "000", 1: "1110" + "111", 2: "1100" + "111"}

    def evaluator(genomes, asked):
        assert asked == stages
        return [(float(g[0]), {"progress": 0.5, "results": {
            name: {"metrics": {"goal_reached": plays[int(g[0])][k] == "1"}}
            for k, name in enumerate(stages)}}) for g in genomes]

    def chooser(**changes) -> Validation:
        v = Validation(config(validation_stages=PREFERRED, **changes), evaluator)
        v._candidates = lambda run, gen: [(np.array([float(i)]), 0.0, {}, {"candidate": "c",
                                                                         "generation": gen})
                                          for i in range(3)]
        return v

    run = SimpleNamespace(tested=lambda gen: True)
    picks = {}
    for near in (None, 0, 1, 2):
        v = chooser() if near is None else chooser(validation_prefer=PREFERRED[1:],
                                                   validation_near=near)
        column = v.columns(run, 4)
        picks[near] = int(v.chosen[0][0])
        # val_goals counts every validation stage the chosen genome completed.
        assert column["val_goals"] == plays[picks[near]].count("1")
        # The starts are ranked on the sets not preferred alone.
        assert [rank[0][0] for rank in v.ranks(4)] == (
            [4, 6, 5] if near is None else [4, 3, 2])
    # Every stage alike: candidate 1 (6 of 7). Preferring 204-206: the best
    # of the others within `near` stages of 4: 0 alone, then 1, then 1 (2
    # is in reach but ranks below 1 on the others).
    assert picks == {None: 1, 0: 0, 1: 1, 2: 1}


def test_a_run_with_preferred_sets_evolves_the_same(tmp_path):
    common = dict(validation_stages=PREFERRED, generations=4)
    plain = evolve(config(**common), tmp_path / "plain")
    prefer = evolve(config(**common, validation_prefer=PREFERRED[1:], validation_near=2),
                    tmp_path / "prefer")
    training = ("seconds", "val_goals", "val_progress", "test_goals", "test_progress", "best")
    assert rows(tmp_path / "prefer", drop=training) == rows(tmp_path / "plain", drop=training)
    assert prefer.logbook[-1]["max"] == plain.logbook[-1]["max"]


def test_the_screen_adds_the_members_completing_most_of_the_preferred_sets():
    from types import SimpleNamespace

    from evolution.loop.validation import POPULATION_MEMBER, Validation

    preferred = [f"gen:easy:{i}" for i in range(204, 207)]
    # Member k completes the first `done[k]` preferred stages; its training
    # fitness is `fit[k]`.
    done, fit = [1, 3, 0, 3, 2], [5.0, 1.0, 9.0, 2.0, 8.0]
    members = []
    for k in range(5):
        member = [float(k)]
        member = SimpleNamespace(genome=member, fitness=SimpleNamespace(values=(fit[k],)))
        members.append(member)
    asked = []

    def evaluator(genomes, stages):
        asked.append(list(stages))
        return [(0.0, {"progress": 0.0, "results": {
            name: {"metrics": {"goal_reached": j < done[int(g.genome[0])]}}
            for j, name in enumerate(stages)}}) for g in genomes]

    def screened(count):
        v = Validation(config(validation_stages=PREFERRED, validation_prefer=PREFERRED[1:],
                              validation_screen=count), evaluator)
        run = SimpleNamespace(done=object(), population=members)
        return [int(m.genome[0]) for m in v._screened(run)]

    # The preferred stages alone are played; the most completed first (3:
    # members 1 and 3, the fitter first), then 2 (member 4), then 1.
    assert screened(3) == [3, 1, 4]
    assert asked[-1] == preferred
    assert screened(1) == [3]
    # A member completing none of them is never added.
    assert screened(5) == [3, 1, 4, 0]
    assert POPULATION_MEMBER == "population member"


def test_a_run_with_a_screen_keeps_population_members_and_evolves_the_same(tmp_path):
    from runners.genome_file import load_genome_file as load_genome

    common = dict(validation_stages=PREFERRED, validation_prefer=PREFERRED[1:],
                  generations=3, test_every=1, max_steps=4000)
    plain = evolve(config(**common), tmp_path / "plain")
    screen = evolve(config(**common, validation_screen=10, keep_candidates=True),
                    tmp_path / "screen")
    training = ("seconds", "val_goals", "val_progress", "test_goals", "test_progress", "best")
    assert rows(tmp_path / "screen", drop=training) == rows(tmp_path / "plain", drop=training)
    assert screen.logbook[-1]["max"] == plain.logbook[-1]["max"]
    kept = [load_genome(p) for p in sorted((tmp_path / "screen" / "candidates").glob("*.json"))]
    members = [k for k in kept if k.chosen["candidate"] == "population member"]
    assert members, "easy stages are finished by some member of every population"
    # Each member kept completes a preferred stage (the screen's condition).
    preferred = {f"gen:easy:{i}" for i in range(204, 207)}
    for k in members:
        assert any(done for name, done in k.chosen["validation_completed"].items()
                   if name in preferred)


def test_a_floor_is_a_fixed_bar_and_the_near_rule_decides_when_none_meets_it():
    from evolution.loop.validation import Validation

    chooser = Validation(config(validation_stages=PREFERRED, validation_prefer=PREFERRED[1:],
                                validation_floor=(0.75,), validation_near=0), evaluator=None)
    # The others' set has 4 stages: a floor of 0.75 asks for 3 of them.
    done = lambda k: {f"gen:easy:{200 + j}": j < k for j in range(4)}
    assert [chooser._meets_floor(done(k)) for k in range(5)] == [False] * 3 + [True] * 2
    ranked = [((1.0, 5.0), 4, {}), ((0.75, 9.0), 6, {}), ((0.5, 9.0), 5, {})]
    preferred, others = [0, 2, 3], [4, 3, 2]
    # Near 0 alone would keep only the first; the floor lets the second
    # in, and it completes more of the preferred set.
    assert chooser._choose(ranked, preferred, others, [True, True, False]) == 1
    # None meets the floor: the near rule (0 below the best) decides.
    assert chooser._choose(ranked, preferred, others, [False] * 3) == 0
    assert chooser._choose(ranked, preferred, others) == 0


def test_a_floor_reads_from_a_run_file(tmp_path):
    from evolution.config_file import read_config_file as load_config_file

    path = tmp_path / "run.toml"
    path.write_text('[task]\nvalidation_stages = ["gen:easy:200-203", "gen:easy:204-206"]\n'
                    'validation_prefer = ["gen:easy:204-206"]\nvalidation_floor = [0.75]\n')
    assert load_config_file(path)["validation_floor"] == [0.75]
    path.write_text('[task]\nvalidation_floor = [0.75, "high"]\n')
    with pytest.raises(Exception, match="validation_floor.*must be a list of shares from 0 to 1"):
        load_config_file(path)

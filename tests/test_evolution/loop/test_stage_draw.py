"""Drawing a generation's training stages by the population's failures:
the stages failed more are drawn more, the draw remembers across a
resume, and a run drawing so is reproducible."""
from __future__ import annotations

import csv
from collections import Counter

import numpy as np
import pytest

from evolution.config import EvolutionConfig
from evolution.loop.checkpoint import load_checkpoint
from evolution.loop.evolve import evolve
from evolution.loop.stage_draw import StageDraw, uniform_draw


def config(**changes) -> EvolutionConfig:
    settings = dict(stages=("gen:easy:0-7",), stages_per_generation=3, population=8,
                    generations=4, seed=3, max_steps=1500, workers=1, checkpoint_every=1,
                    observation="stall", algorithm="cmaes", stage_draw="failures")
    settings.update(changes)
    return EvolutionConfig(**settings)


def summaries(outcomes: dict[str, list[bool]]) -> list[dict]:
    """One summary per genome, as the evaluator gives them: outcomes maps
    a stage to whether each genome reached its goal."""
    count = len(next(iter(outcomes.values())))
    return [{"results": {stage: {"metrics": {"goal_reached": goals[i]}}
                         for stage, goals in outcomes.items()}} for i in range(count)]


def rows(run_dir):
    with open(run_dir / "logbook.csv", newline="") as f:
        return [{k: v for k, v in r.items() if k != "seconds"} for r in csv.DictReader(f)]


def test_a_generation_remembers_the_share_of_genomes_that_failed_each_stage():
    draw = StageDraw(config())
    drawn = draw.stages(1)
    assert draw.stages(1) == drawn and len(set(drawn)) == 3
    draw.learn(1, summaries({drawn[0]: [False, False, False, True],
                             drawn[1]: [True] * 4, drawn[2]: [False] * 4}))
    shares = dict(zip(draw.names, draw.failed))
    assert shares[drawn[0]] == 0.75 and shares[drawn[1]] == 0.0 and shares[drawn[2]] == 1.0
    # Stages not played yet count as failed by all.
    assert all(v == 1.0 for k, v in shares.items() if k not in drawn)


def test_stages_failed_more_are_drawn_more():
    draw = StageDraw(config(stages=("gen:easy:0-11",)))
    finished = draw.names[:6]
    draw.failed[:6] = 0.0
    counts = Counter(s for g in range(600) for s in draw.stages(g))
    finished_rate = sum(counts[s] for s in finished) / 6
    failed_rate = sum(counts[s] for s in draw.names[6:]) / 6
    # In proportion to 1 + FAILURE_FLOOR against FAILURE_FLOOR (three
    # times), less for drawing without replacement: over twice as often.
    assert failed_rate > 2 * finished_rate
    assert finished_rate > 0   # finished stages still come up


def test_the_uniform_draw_learns_nothing():
    draw = StageDraw(config(stage_draw="uniform"))
    assert [draw.stages(g) for g in range(5)] == \
        [uniform_draw(draw.config, g) for g in range(5)]
    draw.learn(2, summaries({s: [True] for s in draw.stages(2)}))
    assert (draw.failed == 1.0).all() and draw.state() is None


def test_a_run_drawing_by_failures_is_reproducible_and_resumes_exactly(tmp_path):
    straight = evolve(config(), tmp_path / "straight")
    again = evolve(config(), tmp_path / "again")
    assert rows(tmp_path / "straight") == rows(tmp_path / "again")
    evolve(config(generations=2), tmp_path / "split")
    evolve(config(), tmp_path / "split", resume=True)
    assert rows(tmp_path / "split") == rows(tmp_path / "straight")
    assert straight.best_summary == again.best_summary
    # The checkpoint holds what the draw learnt: some stages were finished
    # by some genomes, so the shares are not the first ones any more.
    failed = load_checkpoint(tmp_path / "straight").reporters["arrays"]["stage_draw_failed"]
    assert failed.shape == (8,) and failed.min() < 1.0
    np.testing.assert_array_equal(
        load_checkpoint(tmp_path / "split").reporters["arrays"]["stage_draw_failed"], failed)
    # And the draw changed the run: the uniform one scores other stages.
    uniform = evolve(config(stage_draw="uniform"), tmp_path / "uniform")
    assert [r["mean"] for r in rows(tmp_path / "uniform")] != \
        [r["mean"] for r in rows(tmp_path / "straight")]
    assert uniform.generations == straight.generations == 4


def test_what_the_draw_learnt_comes_back_from_its_state():
    learnt = StageDraw(config(stages=("gen:easy:0-11",)))
    learnt.stages(7)
    learnt.failed[:6] = 0.0
    restored = StageDraw(learnt.config)
    restored.restore(learnt.state())
    np.testing.assert_array_equal(restored.failed, learnt.failed)
    assert restored.stages(7) == learnt.stages(7)
    later = [learnt.stages(g) for g in range(8, 40)]
    assert [restored.stages(g) for g in range(8, 40)] == later
    # What it learnt changes what it draws.
    assert [StageDraw(learnt.config).stages(g) for g in range(8, 40)] != later


def test_a_checkpoint_of_other_stages_is_refused():
    draw = StageDraw(config())
    draw.stages(0)
    state = draw.state()
    other = StageDraw(config(stages=("gen:easy:0-9",)))
    with pytest.raises(ValueError, match="knows 8 training stages, the run has 10"):
        other.restore(state)
    np.testing.assert_array_equal(other.failed, np.ones(10))


def test_the_shares_script_reads_each_set_s_weight_in_the_draw_from_a_run(tmp_path, capsys):
    from paths import benchmark_module

    shares = benchmark_module("stage_draw_shares")
    run = config(stages=("gen:easy:0-3", "gen:hard:0-3"))
    evolve(run, tmp_path / "run")
    failed = load_checkpoint(tmp_path / "run").reporters["arrays"]["stage_draw_failed"]
    _, rows = shares.draw_shares(tmp_path / "run")
    assert [(name, count) for name, count, _, _ in rows] == [("gen:easy:0-3", 4),
                                                            ("gen:hard:0-3", 4)]
    assert [failing for _, _, failing, _ in rows] == [failed[:4].mean(), failed[4:].mean()]
    drawn = [d for _, _, _, d in rows]
    assert sum(drawn) == pytest.approx(3)
    # Each set is drawn by the floor plus its stages' shares, as the draw weighs them.
    weights = failed + 0.5
    assert drawn[1] == pytest.approx(3 * weights[4:].sum() / weights.sum())
    assert shares.main([str(tmp_path / "run")]) == 0
    assert "gen:hard:0-3" in capsys.readouterr().out
    evolve(config(stage_draw="uniform"), tmp_path / "uniform")
    assert shares.main([str(tmp_path / "uniform")]) == 1
    assert "does not draw its stages by failures" in capsys.readouterr().err


def test_always_stages_are_in_every_draw_and_count_among_the_stages_scored():
    for way in ("failures", "uniform"):
        run = config(stages=("gen:easy:0-7", "gen:hard:0-1"), stages_per_generation=5,
                     always_stages=("gen:hard:0-1",), stage_draw=way)
        draw = StageDraw(run)
        always = run.always_stage_names()
        assert always == ["gen:hard:0", "gen:hard:1"] == draw.names[8:]
        draws = [draw.stages(g) for g in range(60)]
        assert all(len(d) == 5 == len(set(d)) and set(always) <= set(d) for d in draws)
        # The other three are drawn from the eight others, not always the same.
        assert len({s for d in draws for s in d} - set(always)) == 8
    # Drawing by failures, what the always stages' genomes failed does not
    # move the others' draw: they are not drawn, only kept.
    draw = StageDraw(config(stages=("gen:easy:0-7", "gen:hard:0-1"), stages_per_generation=5,
                            always_stages=("gen:hard:0-1",)))
    before = [draw.stages(g) for g in range(10, 20)]
    draw.failed[8:] = 0.0
    draw.drawn = None
    assert [draw.stages(g) for g in range(10, 20)] == before
    expected = draw.expected_draws()
    assert list(expected[8:]) == [1.0, 1.0] and expected.sum() == pytest.approx(5)


def test_without_always_stages_the_draws_are_those_of_before():
    # One way to draw: with none kept, it is the plain draw of K among all.
    run = config(stages=("gen:easy:0-11",), stages_per_generation=4)
    draw = StageDraw(run)
    for g in range(5):
        rng = np.random.default_rng([run.seed, g, 0x57A6E5])
        chosen = np.sort(rng.choice(12, size=4, replace=False, p=np.full(12, 1 / 12)))
        assert draw.stages(g) == [draw.names[i] for i in chosen]


def test_a_run_with_always_stages_resumes_exactly_and_keeps_them_in_its_draw(tmp_path):
    run = config(stages=("gen:easy:0-5", "gen:hard:0"), always_stages=("gen:hard:0",))
    evolve(run, tmp_path / "straight")
    evolve(run.replace(generations=2), tmp_path / "split")
    evolve(run, tmp_path / "split", resume=True)
    assert rows(tmp_path / "split") == rows(tmp_path / "straight")
    last = load_checkpoint(tmp_path / "straight").reporters["arrays"]["stage_draw_last"]
    assert 6 in last[1:]   # gen:hard:0, the seventh training stage


@pytest.mark.parametrize("changes, message", [
    (dict(always_stages=("gen:hard:0",)), "'gen:hard:0' is not a training stage"),
    (dict(stages_per_generation=None, stage_draw="uniform", always_stages=("gen:easy:0",)),
     "need stages_per_generation"),
    (dict(stages_per_generation=2, always_stages=("gen:easy:0-1",)),
     r"stages_per_generation \(2\) leaves no stage to draw beside the 2 always_stages; "
     r"accepted: 3 to 8"),
])
def test_always_stages_that_cannot_be_kept_are_refused(changes, message):
    from evolution.config import ConfigError

    with pytest.raises(ConfigError, match=message):
        config(**changes)


def test_start_shifts_are_drawn_anew_each_generation_within_the_bound_and_learnt_by_stage():
    from speednik.stages import split_shift

    draw = StageDraw(config(stages=("gen:easy:0-11",), stages_per_generation=6,
                            start_shift=5))
    plain = StageDraw(config(stages=("gen:easy:0-11",), stages_per_generation=6))
    drawn = [draw.stages(g) for g in range(40)]
    assert draw.stages(7) == drawn[7]
    shifts = [split_shift(s)[1] for d in drawn for s in d]
    assert set(shifts) == set(range(-5, 6))
    # The stages drawn are the draw without shifts, played from moved starts.
    assert [[split_shift(s)[0] for s in d] for d in drawn] == \
        [plain.stages(g) for g in range(40)]
    # What a generation teaches the draw is kept under the stage's own name.
    draw.learn(39, summaries({s: [True, False] for s in drawn[39]}))
    learnt = dict(zip(draw.names, draw.failed))
    assert [learnt[split_shift(s)[0]] for s in drawn[39]] == [0.5] * 6
    # The uniform draw and a draw of every stage are shifted too.
    every = StageDraw(config(stages=("gen:easy:0-3",), stages_per_generation=None,
                             stage_draw="uniform", start_shift=3))
    assert [split_shift(s)[0] for s in every.stages(2)] == every.names
    assert every.stages(2) != every.stages(3)


@pytest.mark.parametrize("shift", [-1, 300, 2.5, True])
def test_a_bad_start_shift_is_refused_with_what_is_accepted(shift):
    from evolution.config import ConfigError

    with pytest.raises(ConfigError, match="start_shift must be a whole number of px from 0 to 256"):
        config(start_shift=shift)


def test_a_run_on_moved_starts_is_reproducible_resumes_exactly_and_validates_own_starts(
        tmp_path, monkeypatch):
    from evolution.loop.evaluate import GenomeEvaluator

    played: list[list[str]] = []
    scored = GenomeEvaluator.__call__

    def spy(self, genomes, stages=None, training=False):
        played.append(list(stages or self.config.training_stages()))
        return scored(self, genomes, stages, training)

    monkeypatch.setattr(GenomeEvaluator, "__call__", spy)
    moved = dict(start_shift=8, validation_stages=("gen:easy:20-21",), test_every=2)
    straight = evolve(config(**moved), tmp_path / "straight")
    evolve(config(generations=2, **moved), tmp_path / "split")
    evolve(config(**moved), tmp_path / "split", resume=True)
    assert rows(tmp_path / "split") == rows(tmp_path / "straight")
    assert straight.best_summary == evolve(config(**moved), tmp_path / "again").best_summary
    # The moves change what the search is scored on ...
    evolve(config(validation_stages=("gen:easy:20-21",), test_every=2), tmp_path / "own")
    assert [r["mean"] for r in rows(tmp_path / "own")] != \
        [r["mean"] for r in rows(tmp_path / "straight")]
    # ... and the genome is chosen, and tested, on the stages' own starts.
    assert ["gen:easy:20", "gen:easy:21"] in played
    assert all("@start" not in s for stages in played if "gen:easy:20" in stages
               for s in stages)
    assert sum("@start" in s for stages in played for s in stages) > 20

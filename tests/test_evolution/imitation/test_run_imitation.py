"""A run that imitates the planner first: its search starts at the fit,
the fit is kept in the run directory, and the run resumes exactly."""
from __future__ import annotations

import numpy as np
import pytest

from evolution.config import ConfigError, EvolutionConfig
from evolution.imitation import rounds
from evolution.imitation.rounds import ImitationError, imitate
from evolution.imitation.start import IMITATION_NAME
from evolution.loop.checkpoint import load_checkpoint
from evolution.loop.evolve import evolve
from evolution.loop.starts import new_strategy
from evolution.strategies.registry import get_strategy
from runners.genome_file import load_genome_file
from speednik.actions import (
    ACTION_LEFT,
    ACTION_LEFT_JUMP,
    ACTION_NOOP,
    ACTION_RIGHT,
    NUM_ACTIONS,
)
from stage_fixtures import write_flat_profile


def config(**changes) -> EvolutionConfig:
    settings = dict(stages=("gen:easy:3-4",), observation="reach", policy="mlp", hidden=4,
                    action_repeat=2, algorithm="cmaes", population=6, generations=2,
                    seed=5, workers=1, checkpoint_every=1, imitation=1)
    settings.update(changes)
    return EvolutionConfig(**settings)


def strip(log):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in log]


def test_imitation_is_deterministic_and_reports_each_round():
    seen = []
    a = imitate(config(), 2, report=seen.append)
    assert [r.number for r in seen] == [1, 2]
    assert seen[0].goals == 2 and seen[0].stages == 2     # the planner finishes both
    assert seen[1].examples > seen[0].examples           # round 2 adds its labels
    assert np.array_equal(a, imitate(config(workers=2), 2))
    assert not np.array_equal(imitate(config(), 1), imitate(config(seed=6), 1))


@pytest.mark.parametrize("fits", [(ACTION_RIGHT, ACTION_NOOP), (ACTION_NOOP, ACTION_RIGHT)])
def test_the_fit_kept_is_the_rounds_that_finishes_the_most_stages(tmp_path, monkeypatch,
                                                                 fits):
    """Holding right finishes a flat stage and standing does not: whichever
    round fits the first, its fit is the one returned."""
    profile = write_flat_profile(tmp_path)
    cfg = config(imitation_stages=(profile,))
    size = cfg.genome_size()
    holding = []
    for action in fits:
        genome = np.zeros(size)
        genome[size - NUM_ACTIONS + action] = 1.0
        holding.append(genome)
    calls = iter(holding)
    monkeypatch.setattr(rounds, "fit_policy", lambda *args, **kwargs: next(calls).copy())
    seen = []
    kept = imitate(cfg, 2, report=seen.append)
    right = fits.index(ACTION_RIGHT)
    assert np.array_equal(kept, holding[right])
    assert [r.fit_goals for r in seen] == [int(a == ACTION_RIGHT) for a in fits]
    assert [r.best for r in seen] == [1, right + 1]
    assert seen[1].line().endswith(
        "the fit finishes 0 (round 1's fit stays the best), in "
        f"{seen[1].seconds:.0f} s" if right == 0 else
        f"the fit finishes 1 (the best so far), in {seen[1].seconds:.0f} s")


@pytest.mark.parametrize("algorithm", ["cmaes", "openai-es"])
def test_a_search_with_a_mean_starts_at_the_genome_it_is_given(algorithm):
    # Small first steps, so that a generation's mean stays by its centre.
    step = {"cmaes": {"init_sigma": 0.02}, "openai-es": {"es_sigma": 0.02}}[algorithm]
    cfg = config(algorithm=algorithm, options=step)
    size = cfg.genome_size()
    start = np.linspace(-1.0, 1.0, size)
    search = new_strategy(get_strategy(algorithm).load(), cfg, size, start)
    population = np.array(search.initial())
    # Its samples spread around the start, not around zero.
    assert np.abs(population.mean(axis=0) - start).max() < 0.1
    plain = np.array(new_strategy(get_strategy(algorithm).load(), cfg, size, None).initial())
    assert np.abs(plain.mean(axis=0)).max() < 0.1


def test_a_run_keeps_the_fit_and_its_search_starts_there(tmp_path):
    lines = []
    evolve(config(generations=0, options={"init_sigma": 0.02}), tmp_path / "run",
           notes=lines.append)
    assert [line.split(":")[0] for line in lines] == ["imitation round 1"]
    record = load_genome_file(tmp_path / "run" / IMITATION_NAME)
    assert record.fitness is None and record.action_repeat == 2
    assert np.array_equal(record.genome, imitate(config(), 1))
    # One CMA-ES update later the mean is by the fit, far from zero.
    mean = load_checkpoint(tmp_path / "run").search["arrays"]["centroid"]
    assert np.linalg.norm(mean - record.genome) < 0.2 * np.linalg.norm(record.genome)


def test_stopped_and_resumed_it_is_the_run_uninterrupted_and_fits_once(tmp_path,
                                                                       monkeypatch):
    straight = evolve(config(generations=4), tmp_path / "a")
    evolve(config(generations=2), tmp_path / "b")

    def never(*args, **kwargs):
        raise AssertionError("a resumed run fitted again")
    monkeypatch.setattr(rounds, "imitate", never)
    resumed = evolve(config(generations=4), tmp_path / "b", resume=True)
    assert strip(resumed.logbook) == strip(straight.logbook)


def test_settings_imitation_cannot_serve_are_refused():
    with pytest.raises(ConfigError, match="--algorithm ga has none"):
        config(algorithm="ga")
    with pytest.raises(ConfigError, match="not --policy rnn"):
        config(policy="rnn")
    with pytest.raises(ConfigError, match="imitation must be a whole number >= 0"):
        config(imitation=-1)
    with pytest.raises(ConfigError, match="--imitation-stage names the stages imitated, so "
                                          "it needs --imitation ROUNDS >= 1"):
        config(imitation=0, imitation_stages=("gen:easy:5",))
    with pytest.raises(ConfigError, match="'gen:easy:7' is both an imitation and a "
                                          "validation stage"):
        config(imitation_stages=("gen:easy:5-7",), validation_stages=("gen:easy:7",))
    with pytest.raises(ConfigError, match="'gen:easy:5' is both an imitation and a test"):
        config(imitation_stages=("gen:easy:5",), test_stages=("gen:easy:5",))


def test_imitation_stages_are_the_ones_fitted_on_when_given():
    seen = []
    own = imitate(config(imitation_stages=("gen:easy:5", "gen:medium:5")), 1,
                  report=seen.append)
    assert seen[0].stages == 2 and seen[0].goals == 2
    assert not np.array_equal(own, imitate(config(), 1))
    # The training stages are imitated when none are given.
    assert np.array_equal(imitate(config(imitation_stages=("gen:easy:3-4",)), 1),
                          imitate(config(), 1))


def test_stages_the_planner_cannot_finish_leave_nothing_to_imitate():
    with pytest.raises(ImitationError, match="finished none of the 2 stages imitated"):
        imitate(config(max_steps=60), 1)


def test_back_weights_count_left_presses_more_and_keep_the_mean_at_one():
    actions = np.array([ACTION_RIGHT, ACTION_LEFT, ACTION_NOOP, ACTION_LEFT_JUMP])
    w = rounds.back_weights(actions, 10)
    assert w.mean() == pytest.approx(1.0)
    assert w[1] == w[3] == pytest.approx(10 * w[0]) and w[0] == w[2]
    assert rounds.back_weights(actions, 1) is None


@pytest.mark.parametrize("weight", [1.0, 7.5])
def test_the_fit_is_given_the_back_weights_of_its_examples(monkeypatch, weight):
    seen = []
    fit = rounds.fit_policy

    def recording(genome, x, y, hidden, rng, weights=None):
        seen.append((y.copy(), weights))
        return fit(genome, x, y, hidden, rng, weights=weights)

    monkeypatch.setattr(rounds, "fit_policy", recording)
    reported = []
    imitate(config(imitation_back_weight=weight), 1, report=reported.append)
    (actions, weights), = seen
    left = int(np.isin(actions, (ACTION_LEFT, ACTION_LEFT_JUMP)).sum())
    assert reported[0].back == left
    assert f"{len(actions)} examples, {left} of them pressing left (" in reported[0].line()
    if weight == 1:
        assert weights is None
    else:
        assert np.array_equal(weights, rounds.back_weights(actions, weight))


def test_a_back_weight_is_refused_out_of_range_or_without_imitation():
    with pytest.raises(ConfigError, match="imitation_back_weight must be a number from 1 "
                                          "to 100 .*got 0.5"):
        config(imitation_back_weight=0.5)
    with pytest.raises(ConfigError, match="imitation_back_weight must be a number"):
        config(imitation_back_weight="3")
    with pytest.raises(ConfigError, match="--imitation-back-weight weighs the examples "
                                          "imitated, so it needs --imitation ROUNDS >= 1"):
        config(imitation=0, imitation_back_weight=4)

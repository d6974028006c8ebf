"""The cross-entropy fit of a policy's action scores (numpy, Adam)."""
from __future__ import annotations

import numpy as np
import pytest

from evolution.imitation.fit import accuracy, fit_policy, initial_genome, scores
from runners.linear import LinearPolicy
from runners.mlp import MLPPolicy, mlp_genome_size
from speednik.actions import NUM_ACTIONS
from speednik.observation import get_observation


def _examples(n: int = 3000, dim: int = 6, seed: int = 1):
    """Observations whose action is a rule a policy can learn: the index
    of the largest of the first four values, or 5 when all are negative."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, dim))
    y = np.where(x[:, :4].max(axis=1) < 0, 5, x[:, :4].argmax(axis=1))
    return x, y


@pytest.mark.parametrize("hidden", [None, 16])
def test_a_fit_learns_a_rule_it_could_not_before(hidden):
    x, y = _examples()
    rng = np.random.default_rng(0)
    start = initial_genome(x.shape[1], hidden, rng)
    fitted = fit_policy(start, x, y, hidden, rng, epochs=300)
    assert accuracy(start, x, y, hidden) < 0.4
    assert accuracy(fitted, x, y, hidden) > 0.9
    held_x, held_y = _examples(seed=2)
    assert accuracy(fitted, held_x, held_y, hidden) > 0.85


def test_the_genome_is_laid_out_as_the_policies_read_it():
    """The fit's highest scores are the actions the policy agents choose
    with the fitted genome: the layout (W1 rows, b1, W2 rows, b2; W rows,
    b) is theirs."""
    dim = get_observation("basic").size
    rng = np.random.default_rng(3)
    x = rng.normal(size=(300, dim))
    y = rng.integers(0, NUM_ACTIONS, 300)
    mlp = fit_policy(initial_genome(dim, 5, rng), x, y, 5, rng, epochs=5)
    assert mlp.size == mlp_genome_size(dim, 5)
    agent = MLPPolicy(mlp, 5, "basic")
    assert [agent.get_action(row) for row in x] == list(scores(mlp, x, 5).argmax(axis=1))
    linear = fit_policy(initial_genome(dim, None, rng), x, y, None, rng, epochs=5)
    agent = LinearPolicy(linear, "basic")
    assert [agent.get_action(row) for row in x] == list(
        scores(linear, x, None).argmax(axis=1))


def test_the_same_draws_give_the_same_fit_and_the_input_is_not_changed():
    x, y = _examples(n=500)
    start = initial_genome(6, 4, np.random.default_rng(5))
    kept = start.copy()
    a = fit_policy(start, x, y, 4, np.random.default_rng(9), epochs=3)
    b = fit_policy(start, x, y, 4, np.random.default_rng(9), epochs=3)
    assert np.array_equal(a, b)
    assert np.array_equal(start, kept)
    c = fit_policy(start, x, y, 4, np.random.default_rng(10), epochs=3)
    assert not np.array_equal(a, c)


def test_no_examples_is_refused():
    with pytest.raises(ValueError, match="at least one"):
        fit_policy(np.zeros(56), np.zeros((0, 6)), np.zeros(0, np.int64), None,
                   np.random.default_rng(0))


def test_weights_decide_between_examples_that_contradict_each_other():
    """Where the same observations are labelled right nine times in ten
    and left once, the fit presses right; counted twenty times, the left
    examples win."""
    rng = np.random.default_rng(4)
    x = np.tile(rng.normal(size=(1, 5)), (2000, 1)) + rng.normal(0.0, 0.01, (2000, 5))
    y = np.where(rng.random(2000) < 0.1, 1, 2)
    start = initial_genome(5, 4, np.random.default_rng(0))
    plain = fit_policy(start, x, y, 4, np.random.default_rng(1), epochs=200)
    weights = np.where(y == 1, 20.0, 1.0)
    weighted = fit_policy(start, x, y, 4, np.random.default_rng(1), epochs=200,
                          weights=weights / weights.mean())
    assert (scores(plain, x, 4).argmax(axis=1) == 2).all()
    assert (scores(weighted, x, 4).argmax(axis=1) == 1).all()
    even = fit_policy(start, x, y, 4, np.random.default_rng(1), epochs=200,
                      weights=np.ones(len(y)))
    assert np.allclose(even, plain, rtol=0, atol=1e-9)


def test_weights_must_be_one_per_example_and_positive():
    x, y = _examples(n=20)
    start = initial_genome(6, None, np.random.default_rng(0))
    with pytest.raises(ValueError, match="one weight > 0 per example; got 19 weights for "
                                         "20 examples"):
        fit_policy(start, x, y, None, np.random.default_rng(0), weights=np.ones(19))
    with pytest.raises(ValueError, match="one weight > 0 per example"):
        fit_policy(start, x, y, None, np.random.default_rng(0),
                   weights=np.r_[0.0, np.ones(19)])

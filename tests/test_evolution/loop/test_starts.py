"""Several starts of one search: each from its own seed for a share of the
frames, the best on validation goes on, and a run stopped anywhere
resumes exactly."""
from __future__ import annotations

import json

import numpy as np
import pytest

from evolution.config import ConfigError, EvolutionConfig
from evolution.loop.checkpoint import load_checkpoint
from evolution.loop.evolve import evolve
from evolution.strategies.registry import STRATEGIES
from sweeps import sweep


def config(**changes) -> EvolutionConfig:
    settings = dict(stages=("gen:easy:0-3",), stages_per_generation=2,
                    validation_stages=("gen:easy:50-53",), test_stages=("gen:easy:90",),
                    population=8, generations=200, seed=2, max_steps=400, workers=1,
                    checkpoint_every=2, test_every=4, algorithm="cmaes",
                    max_frames=60_000, starts=3, start_frames=12_000)
    settings.update(changes)
    return EvolutionConfig(**settings)


def strip(log):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in log]


def test_each_start_plays_its_frames_then_the_best_goes_on(tmp_path):
    cfg = config()
    out = evolve(cfg, tmp_path / "run")
    log = out.logbook
    starts = [r["start"] for r in log]
    # The starts play in order, each once, then one of them goes on.
    firsts = [starts.index(k) for k in range(3)]
    assert firsts == sorted(firsts) and firsts[0] == 0
    frames = [r["frames"] for r in log]
    ends = []
    for k in range(3):
        began = frames[firsts[k] - 1] if firsts[k] else 0
        # Each start stops at the first generation past its frames, and
        # that generation is validated.
        end = next(i for i in range(firsts[k], len(log))
                   if frames[i] - began >= cfg.start_frames)
        assert set(starts[firsts[k]:end + 1]) == {k}
        assert log[end]["val_goals"] is not None
        ends.append(end)
    assert [e + 1 for e in ends[:2]] == firsts[1:]
    # Each start's end says what its own best genome validated; the run's
    # choice is the best of all so far.
    ended = [i for i, r in enumerate(log) if r["start_val_goals"] is not None]
    assert ended == ends
    # The first start's best is all the run has chosen from when it ends.
    assert log[ends[0]]["start_val_goals"] == log[ends[0]]["val_goals"]
    # After the race, a single start plays to the budget.
    winner = starts[-1]
    assert set(starts[ends[2] + 1:]) == {winner}
    assert len(starts) > ends[2] + 1
    assert frames[-1] >= cfg.max_frames > frames[-2]
    # Each start searches from CMA-ES's first step size again: in this
    # task the step size shrinks generation by generation, and grows back
    # at each new start.
    lines = (tmp_path / "run" / "method.jsonl").read_text().splitlines()
    sigmas = [json.loads(line)["sigma"] for line in lines]
    for k in (1, 2):
        assert sigmas[firsts[k]] > sigmas[firsts[k] - 1]
        assert abs(sigmas[firsts[k]] - sigmas[0]) < 0.01
    # The genome the run gives is tagged with the start that found it.
    best = json.loads((tmp_path / "run" / "best.json").read_text())
    assert best["chosen"]["start"] in (0, 1, 2)


def test_the_winner_is_the_start_that_validated_best(tmp_path, monkeypatch):
    from evolution.loop import starts as starts_module

    seen = {}
    real_after = starts_module.Starts.after

    def after(self, run):
        if self.ends(run.evaluations.frames):
            seen[self.start] = list(self.score)
        return real_after(self, run)

    monkeypatch.setattr(starts_module.Starts, "after", after)
    out = evolve(config(), tmp_path / "run")
    best = max(seen, key=lambda k: (seen[k], -k))
    assert out.logbook[-1]["start"] == best
    # With this seed an earlier start wins, so the run goes back to it.
    assert best != 2
    # The winner goes on from where it stopped: CMA-ES's step size in its
    # next generation follows its own last one, not a fresh start's.
    lines = (tmp_path / "run" / "method.jsonl").read_text().splitlines()
    sigmas = [json.loads(line)["sigma"] for line in lines]
    starts = [r["start"] for r in out.logbook]
    ends = [i for i in range(len(starts) - 1) if starts[i + 1] != starts[i]]
    resumed_at = ends[-1] + 1
    last_of_best = max(i for i in range(resumed_at) if starts[i] == best)
    assert sigmas[resumed_at] < sigmas[last_of_best] < sigmas[0]


def test_the_first_start_is_the_run_without_starts(tmp_path):
    with_starts = evolve(config(), tmp_path / "a").logbook
    n = [r["start"] for r in with_starts].index(1)
    alone = evolve(config(starts=1, start_frames=None), tmp_path / "b").logbook
    keep = ("gen", "evals", "min", "mean", "max", "frames")
    assert [{k: r[k] for k in keep} for r in with_starts[:n]] == \
        [{k: r[k] for k in keep} for r in alone[:n]]


# Stopped at a generation the run validates anyway (a run's last one is
# always validated; here every other one is): at the end of the first
# start, within the second, at the end of the third (where the best, an
# earlier one, takes over), and after.
@pytest.mark.parametrize("stop", [2, 4, 8, 10])
def test_stopped_anywhere_it_resumes_exactly(tmp_path, stop):
    straight = evolve(config(test_every=2), tmp_path / "straight")
    assert straight.logbook[-1]["start"] != 2 and straight.generations > 10
    evolve(config(test_every=2, generations=stop), tmp_path / "stopped")
    ckpt = load_checkpoint(tmp_path / "stopped")
    assert ckpt.generation == stop
    resumed = evolve(config(test_every=2), tmp_path / "stopped", resume=True)
    assert strip(resumed.logbook) == strip(straight.logbook)
    a = json.loads((tmp_path / "straight" / "best.json").read_text())
    b = json.loads((tmp_path / "stopped" / "best.json").read_text())
    assert a["genome"] == b["genome"] and a["chosen"] == b["chosen"]


# The GA keeps no state of its own (its population and hall of fame are
# the run's), so it proves the starts keep those; the others keep theirs.
@pytest.mark.parametrize("algorithm", sweep(["ga", *sorted(set(STRATEGIES) - {"ga"})]))
def test_every_method_has_starts_and_resumes_exactly(tmp_path, algorithm):
    def cfg(**changes):
        own = dict(algorithm=algorithm, max_frames=40_000, start_frames=10_000, starts=2)
        if STRATEGIES[algorithm].learner:
            own.update(population=4)
        return config(**{**own, **changes})

    straight = evolve(cfg(), tmp_path / "a")
    starts = [r["start"] for r in straight.logbook]
    assert starts[0] == 0 and 1 in starts
    # Stopped where the first start ends (a generation validated anyway).
    stop = starts.index(1) - 1
    evolve(cfg(generations=stop), tmp_path / "b")
    resumed = evolve(cfg(), tmp_path / "b", resume=True)
    assert strip(resumed.logbook) == strip(straight.logbook)


def test_start_seeds_differ_and_the_first_is_the_runs():
    cfg = config()
    assert cfg.start_seed(0) == cfg.seed
    seeds = {cfg.start_seed(k) for k in range(5)}
    assert len(seeds) == 5
    assert cfg.for_start(2).seed == cfg.start_seed(2)
    assert config(seed=3).start_seed(1) != cfg.start_seed(1)


@pytest.mark.parametrize("changes, words", [
    (dict(start_frames=None), "needs start_frames"),
    (dict(max_frames=None), "needs max_frames"),
    (dict(validation_stages=()), "needs validation_stages"),
    (dict(max_frames=36_000), "max_frames (36000) leaves nothing"),
    (dict(starts=0), "starts must be a whole number >= 1"),
    (dict(starts=1), "start_frames is what each of several starts plays"),
    (dict(start_frames=0), "start_frames must be a whole number >= 1"),
])
def test_bad_starts_are_named(changes, words):
    with pytest.raises(ConfigError) as err:
        config(**changes)
    assert words in str(err.value)


def test_a_run_without_starts_has_no_start_column(tmp_path):
    out = evolve(config(starts=1, start_frames=None, max_frames=8_000), tmp_path / "r")
    assert all("start" not in r for r in out.logbook)
    assert "start" not in json.loads((tmp_path / "r" / "best.json").read_text())["chosen"]
    assert np.isfinite(out.best_fitness)

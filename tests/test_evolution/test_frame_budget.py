"""Frames played: counted in the logbook, and a budget that stops a run,
so search methods can be compared on equal terms."""
from __future__ import annotations

import json

from evolution.config import EvolutionConfig
from evolution.loop.evolve import evolve


def config(**changes) -> EvolutionConfig:
    settings = dict(stages=("hillside", "gen:easy:2"), population=8, generations=50,
                    seed=1, max_steps=600, workers=1, checkpoint_every=3,
                    test_stages=("gen:easy:90",), test_every=100)
    settings.update(changes)
    return EvolutionConfig(**settings)


def test_frames_are_the_steps_of_every_episode_scored(tmp_path):
    out = evolve(config(generations=3), tmp_path / "run")
    # Generation 0 scores every genome; each later one the genomes not
    # already known (evals), all on the two stages.
    assert out.logbook[0]["frames"] > 0
    steps = [out.logbook[0]["frames"]] + [
        b["frames"] - a["frames"] for a, b in zip(out.logbook, out.logbook[1:])]
    for row, played in zip(out.logbook, steps):
        assert (played == 0) == (row["evals"] == 0)
        assert played <= row["evals"] * 2 * 600
    assert [r["frames"] for r in out.logbook] == sorted(r["frames"] for r in out.logbook)


def test_a_frame_budget_stops_the_run_and_resumes(tmp_path):
    budget = 30_000
    out = evolve(config(max_frames=budget, test_every=2), tmp_path / "a")
    frames = [r["frames"] for r in out.logbook]
    assert frames[-1] >= budget and frames[-2] < budget and out.generations < 50
    # The last generation is tested, as the last of any run is.
    assert out.logbook[-1]["test_goals"] is not None
    best = json.loads((tmp_path / "a" / "best.json").read_text())
    assert best["held_out"] is not None
    # Stopped early (on a tested generation) and resumed with the budget,
    # the run ends the same.
    evolve(config(max_frames=budget, test_every=2, generations=2), tmp_path / "b")
    resumed = evolve(config(max_frames=budget, test_every=2), tmp_path / "b", resume=True)
    strip = lambda log: [{k: v for k, v in r.items() if k != "seconds"} for r in log]
    assert strip(resumed.logbook) == strip(out.logbook)

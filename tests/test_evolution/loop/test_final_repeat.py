"""The last frames of a budget at another action repeat
(`evolution.loop.final_repeat`): where the switch falls, what is played
at which repeat, that best.json replays its fitness, and that a run
stopped anywhere around the switch resumes exactly."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from evolution.config import ConfigError, EvolutionConfig
from evolution.loop.checkpoint import load_checkpoint
from evolution.loop.evaluate import GenomeEvaluator
from evolution.loop.evolve import evolve
from evolution.strategies.cmaes import CMAES
from runners import replay

BUDGET = 10 ** 8


def config(**changes) -> EvolutionConfig:
    settings = dict(stages=("gen:easy:0-7",), stages_per_generation=3, population=8,
                    generations=6, seed=3, max_steps=1500, workers=1, checkpoint_every=1,
                    observation="stall", algorithm="cmaes", stage_draw="failures",
                    action_repeat=2, max_frames=BUDGET,
                    validation_stages=("gen:easy:20-21",), test_stages=("gen:easy:30-31",),
                    test_every=2)
    settings.update(changes)
    return EvolutionConfig(**settings)


def rows(run_dir):
    with open(run_dir / "logbook.csv", newline="") as f:
        return [{k: v for k, v in r.items() if k != "seconds"} for r in csv.DictReader(f)]


def stop_in_ask(monkeypatch, nth: int):
    """CMA-ES's `ask` raises KeyboardInterrupt (a Ctrl-C) on its `nth`
    call from now on; the real one is returned."""
    real_ask = CMAES.ask
    asked = []

    def ask(self, *args, **kwargs):
        asked.append(1)
        if len(asked) == nth:
            raise KeyboardInterrupt
        return real_ask(self, *args, **kwargs)

    monkeypatch.setattr(CMAES, "ask", ask)
    return real_ask


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """The run without a final repeat, and the final settings that switch
    at the top of its generation 3."""
    run_dir = tmp_path_factory.mktemp("plain")
    evolve(config(), run_dir)
    before = rows(run_dir)
    final = dict(final_action_repeat=1, final_frames=BUDGET - int(before[2]["frames"]))
    return before, final


def test_the_threshold_is_the_budget_less_the_final_frames():
    c = config(final_action_repeat=1, final_frames=300)
    assert c.action_repeat_after(0) == 2
    assert c.action_repeat_after(BUDGET - 301) == 2
    assert c.action_repeat_after(BUDGET - 300) == 1
    assert c.action_repeat_after(BUDGET) == 1
    assert config().action_repeat_after(BUDGET) == 2


def test_the_run_switches_once_its_frames_reach_the_final_part_and_then_plays_only_there(
        plain, tmp_path, monkeypatch):
    before, final = plain
    played: list[tuple[int, tuple[str, ...]]] = []
    genomes_played: list[set[bytes]] = []
    scored = GenomeEvaluator.__call__

    def spy(self, genomes, stages=None, training=False):
        played.append((self.action_repeat, tuple(stages or ())))
        genomes_played.append({np.asarray(g, dtype=np.float64).tobytes() for g in genomes})
        return scored(self, genomes, stages, training)

    monkeypatch.setattr(GenomeEvaluator, "__call__", spy)
    evolve(config(**final), tmp_path / "final")
    after = rows(tmp_path / "final")
    assert [r["action_repeat"] for r in after] == ["2", "2", "2", "1", "1", "1", "1"]
    # The same run up to the switch; another one from it.
    assert [r["mean"] for r in after[:3]] == [r["mean"] for r in before[:3]]
    assert all(a["mean"] != b["mean"] for a, b in zip(after[3:], before[3:]))
    # The switch scores the population and hall of fame again: those
    # frames count, so the switch generation plays more than the plain one.
    assert (int(after[3]["frames"]) - int(after[2]["frames"])
            > int(before[3]["frames"]) - int(before[2]["frames"]))
    # Validation and the held-out test play at each phase's repeat.
    validated = [repeat for repeat, stages in played if stages == ("gen:easy:20", "gen:easy:21")]
    tested = [repeat for repeat, stages in played if stages == ("gen:easy:30", "gen:easy:31")]
    assert validated[0] == 2 and validated[-1] == 1 and tested[0] == 2 and tested[-1] == 1
    first_at_1 = next(i for i, (repeat, _) in enumerate(played) if repeat == 1)
    assert all(repeat == 1 for repeat, _ in played[first_at_1:])
    # The first episodes at the new repeat play again every genome the run
    # held when generation 2 ended: its population and hall of fame.
    evolve(config(**dict(final, generations=2)), tmp_path / "until_2")
    held = load_checkpoint(tmp_path / "until_2")
    assert genomes_played[first_at_1] == {
        np.asarray(g, dtype=np.float64).tobytes()
        for g, _ in held.population + held.hall_of_fame}


def test_best_json_plays_at_the_final_repeat_and_replays_its_recorded_fitness(
        plain, tmp_path, capsys):
    _, final = plain
    evolve(config(**final), tmp_path / "final")
    best = json.loads((tmp_path / "final" / "best.json").read_text())
    assert best["action_repeat"] == 1
    assert best["chosen"] is not None and best["held_out"] is not None
    capsys.readouterr()
    assert replay.main([str(tmp_path / "final")]) == 0
    assert ": matches" in capsys.readouterr().out


def test_without_validation_the_hall_of_fame_is_scored_again_and_replays(tmp_path, capsys):
    # The GA gives its hall of fame's first, and on all its stages (no
    # draw) a genome scored once is never played again: kept from before
    # the switch, it is played again at the new repeat there.
    ga = dict(algorithm="ga", stages=("gen:easy:0-2",), stages_per_generation=None,
              stage_draw="uniform", validation_stages=(), test_stages=(), generations=4)
    evolve(config(**ga), tmp_path / "plain")
    threshold = int(rows(tmp_path / "plain")[2]["frames"])
    final = dict(ga, final_action_repeat=1, final_frames=BUDGET - threshold)
    for generations in (3, 4):
        run_dir = tmp_path / f"final{generations}"
        evolve(config(**dict(final, generations=generations)), run_dir)
        assert rows(run_dir)[-1]["action_repeat"] == "1"
        capsys.readouterr()
        assert replay.main([str(run_dir)]) == 0
        assert ": matches" in capsys.readouterr().out


def test_every_score_a_checkpoint_holds_after_the_switch_replays_at_the_final_repeat(
        plain, tmp_path, monkeypatch):
    # The genome validation chose in generation 2 is still the chosen one
    # in the checkpoint of generation 3, the first at the new repeat: the
    # stop comes in generation 4's ask.
    final = plain[1]
    stop_in_ask(monkeypatch, 4)
    assert evolve(config(**final), tmp_path / "run").generations == 3
    ckpt = load_checkpoint(tmp_path / "run")
    held = [(g, f, ckpt.summaries[g.tobytes()][1])
            for g, f in ckpt.hall_of_fame + ckpt.population]
    chosen = ckpt.reporters["meta"]["validation"]
    assert chosen["origin"]["generation"] == 2
    held.append((ckpt.reporters["arrays"]["validation_genome"], chosen["fitness"],
                 chosen["summary"]))
    evaluator = GenomeEvaluator(config(**final))
    evaluator.use_action_repeat(1)
    for genome, fitness, summary in held:
        assert evaluator([genome], list(summary["results"]))[0][0] == fitness
    # The hall of fame is in the order of its new scores.
    kept = [f for _, f in ckpt.hall_of_fame]
    assert kept == sorted(kept, reverse=True)


@pytest.mark.parametrize("stop_after", [2, 3, 4])
def test_a_run_stopped_around_the_switch_resumes_exactly(plain, tmp_path, stop_after):
    # Validated and tested every generation, as a run's last one is.
    final = dict(plain[1], test_every=1)
    evolve(config(**final), tmp_path / "straight")
    evolve(config(**dict(final, generations=stop_after)), tmp_path / "split")
    evolve(config(**final), tmp_path / "split", resume=True)
    assert rows(tmp_path / "split") == rows(tmp_path / "straight")
    assert (json.loads((tmp_path / "split" / "best.json").read_text())
            == json.loads((tmp_path / "straight" / "best.json").read_text()))


def test_a_ctrl_c_in_the_switch_generation_resumes_as_if_never_stopped(
        plain, tmp_path, monkeypatch):
    _, final = plain
    evolve(config(**final), tmp_path / "straight")
    # Generation 3's ask comes after the switch has scored everything
    # again: the stop lands between the switch and the generation's end.
    real_ask = stop_in_ask(monkeypatch, 3)
    stopped = evolve(config(**final), tmp_path / "split")
    assert stopped.interrupted and stopped.generations == 2
    monkeypatch.setattr(CMAES, "ask", real_ask)
    evolve(config(**final), tmp_path / "split", resume=True)
    assert rows(tmp_path / "split") == rows(tmp_path / "straight")
    assert (json.loads((tmp_path / "split" / "best.json").read_text())
            == json.loads((tmp_path / "straight" / "best.json").read_text()))


@pytest.mark.parametrize("changes, message", [
    (dict(final_action_repeat=1), "go together"),
    (dict(final_frames=100), "go together"),
    (dict(final_action_repeat=0, final_frames=100), "final_action_repeat must be a whole"),
    (dict(final_action_repeat=1, final_frames=True), "final_frames must be a whole"),
    (dict(final_action_repeat=2, final_frames=100), "change nothing"),
    (dict(final_action_repeat=1, final_frames=100, max_frames=None), "needs max_frames"),
    (dict(final_action_repeat=1, final_frames=BUDGET), "needs max_frames above it"),
    (dict(final_action_repeat=1, final_frames=BUDGET // 2, starts=2,
          start_frames=BUDGET // 3), "while the 2 starts still play"),
    (dict(final_action_repeat=1, final_frames=100, algorithm="ppo", policy="mlp"),
     "learns from episodes of its own"),
])
def test_a_final_repeat_that_cannot_be_played_is_refused_with_what_is_accepted(changes,
                                                                              message):
    with pytest.raises(ConfigError, match=message) as caught:
        config(**changes)
    assert "accepted" in str(caught.value) or "must be" in str(caught.value)


def test_a_resumed_run_given_a_larger_budget_plays_on_at_the_repeat_its_new_last_part_sets(
        plain, tmp_path, capsys):
    # A larger --max-frames moves the last part later: the generations
    # before it are at the first repeat again, everything held scored anew.
    _, final = plain
    evolve(config(**final), tmp_path / "run")
    evolve(config(**dict(final, generations=8, max_frames=BUDGET + 10 ** 6)),
           tmp_path / "run", resume=True)
    assert [r["action_repeat"] for r in rows(tmp_path / "run")] == [
        "2", "2", "2", "1", "1", "1", "1", "2", "2"]
    best = json.loads((tmp_path / "run" / "best.json").read_text())
    assert best["action_repeat"] == 2
    capsys.readouterr()
    assert replay.main([str(tmp_path / "run")]) == 0
    assert ": matches" in capsys.readouterr().out

"""Expert stages and the planner that certifies them: the planner finishes
the built-in stages and the expert stages the generator emits (played
again on the readable simulation), expert stages are drawn apart from the
other difficulties, one rule does not finish them, and `gen:expert:SEEDS`
is accepted wherever a stage set is. The planner plays the first built-in
and expert stage by default, the rest with the broad tests."""
from __future__ import annotations

import random

import gymnasium
import pytest

import speednik.env  # noqa: F401  (registers the ids)
from commands import command
from sweeps import first_and_rest, sweep
from runners import EpisodeRunner
from runners.agents import PlannerAgent, make_baseline
from speednik.engine.planner import plan_stage
from speednik.engine.lowering import start_arrays, state_arrays
from speednik.simulation import create_sim
from speednik.stages import (
    DIFFICULTIES,
    generate_profile,
    generate_stage,
    list_stages,
    load_stage,
)
from speednik.stages.builder import build_stage
from speednik.stages.certification import certified_expert, expert_profile
from speednik.stages.expert import draw_expert_data
from speednik.stages.generator import PIECE_WEIGHTS
from speednik.stages.profile import MAX_SLOPE, StageError, profile_from_dict

EXPERT_SAMPLE = range(24)


def test_expert_comes_after_hard():
    assert DIFFICULTIES[-2:] == ("hard", "expert")
    assert set(PIECE_WEIGHTS) == {"easy", "medium", "hard"}


@pytest.mark.parametrize("name", sweep(list_stages()))
def test_the_planner_finishes_each_built_in_stage(name):
    result = EpisodeRunner(name).run_episode(PlannerAgent())
    assert result.done_reason == "goal", (name, result.metrics["progress"])


@pytest.mark.parametrize("seeds", first_and_rest(EXPERT_SAMPLE))
def test_the_planner_finishes_every_emitted_expert_stage_on_the_readable_sim(seeds):
    # The plan is searched on the compiled engine and played here on the
    # readable simulation: certification holds for the game itself.
    for seed in seeds:
        result = EpisodeRunner(generate_stage(seed, "expert")).run_episode(PlannerAgent())
        assert result.done_reason == "goal", (seed, result.done_reason,
                                              result.metrics["progress"])


def test_an_emitted_stage_is_the_first_certified_draw_of_its_seed():
    for seed in range(8):
        profile, stage = certified_expert(seed)
        assert generate_profile(seed, "expert") == profile
        draw = int(profile.stage.description.split("(draw ")[1].split(")")[0])
        for earlier in range(draw):
            earlier_stage = build_stage(profile_from_dict(draw_expert_data(seed, earlier)))
            assert not plan_stage(earlier_stage).found
        assert plan_stage(stage).found


def test_a_draw_the_planner_does_not_finish_is_never_emitted(monkeypatch):
    import speednik.engine.planner as planner
    from speednik.stages import certification

    # Nothing remembered from earlier certifications in this process.
    monkeypatch.setattr(certification, "_CERTIFIED_DRAW", {})
    real = planner.plan_stage
    refused = []

    def refuse_first_draw(stage, **kw):
        if "(draw 0)" in stage.meta["profile"].stage.description:
            refused.append(stage)
            return planner.Plan(False, (), 0.0)
        return real(stage, **kw)

    monkeypatch.setattr(planner, "plan_stage", refuse_first_draw)
    profile, _ = certified_expert(9)
    assert refused and "(draw 1)" in profile.stage.description
    monkeypatch.setattr(planner, "plan_stage", lambda stage, **kw: planner.Plan(False, (), 0.0))
    monkeypatch.setattr(certification, "_CERTIFIED_DRAW", {})
    with pytest.raises(StageError, match="no certified expert stage for seed 9"):
        certified_expert(9)


@pytest.mark.parametrize("name", ["hillside", "gen:expert:1"])
def test_the_planner_starts_where_create_sim_does(name):
    stage = load_stage(name)
    f, s, gone = start_arrays(stage)
    want_f, want_s = state_arrays(create_sim(stage))
    assert f.tolist() == want_f.tolist() and s.tolist() == want_s.tolist()
    assert len(gone) == len(stage.rings) + len(stage.enemies) + len(stage.checkpoints)
    assert not gone.any()


def test_the_planner_gives_up_when_the_goal_is_out_of_reach():
    plan = plan_stage(load_stage("hillside"), max_frames=120)
    assert not plan.found and plan.actions == () and plan.furthest > 100


def test_expert_draws_never_touch_the_other_difficulties_stream():
    before = random.getstate()
    generate_profile(3, "expert")
    assert random.getstate() == before
    assert generate_profile(3, "hard") == generate_profile(3, "hard")


def test_expert_stages_use_the_whole_vocabulary():
    kinds, springs, depths, clearances = set(), set(), [], []
    # A loop needs low ground, which walls and cliffs seldom leave: about
    # one expert stage in twelve has one.
    for seed in range(40):
        profile = generate_profile(seed, "expert")
        kinds |= {s.kind for s in profile.segments} | {e.kind for e in profile.entities}
        springs |= {(e.direction, e.strength) for e in profile.entities if e.kind == "spring"}
        depths += [s.depth for s in profile.segments if s.kind == "halfpipe"]
        clearances += [s.clearance for s in profile.segments if s.kind == "tunnel"]
    assert {"halfpipe", "loop", "bridge", "tunnel", "gap", "ramp", "step",
            "platform", "spikes", "enemy"} <= kinds
    assert {("up", "red"), ("up", "yellow"), ("right", "yellow")} <= springs
    assert max(depths) >= 160 and min(clearances) <= 64


def test_some_steep_climbs_end_at_a_pit_close_past_the_crest():
    # Hand-made stages put a pit within a jump's lead of a steep crest,
    # where a jump from the slope flies back onto it; expert stages must
    # ask for that too, not only leave 176 px or more to run out the climb.
    runouts = []
    for seed in range(40):
        segments = expert_profile(seed).segments
        for climb, crest, pit in zip(segments, segments[1:], segments[2:]):
            if (climb.kind == "ramp" and climb.rise >= 0.7 * MAX_SLOPE * climb.length
                    and crest.kind == "flat" and pit.kind == "gap"):
                runouts.append(crest.length)
    assert min(runouts) < 176 and max(runouts) >= 176, runouts


def test_one_rule_does_not_finish_expert_stages():
    stages = [generate_stage(seed, "expert") for seed in range(16)]
    for agent, most in (("hold-right", 0), ("jump-runner", 8), ("spindash", 8)):
        finished = sum(EpisodeRunner(s).run_episode(make_baseline(agent)).done_reason == "goal"
                       for s in stages)
        assert finished <= most, (agent, finished)


def test_gen_expert_is_accepted_by_the_commands_and_the_env(tmp_path):
    out = command("runners.baselines", "--stage", "gen:expert:0-1", "--agent", "planner")
    assert out.returncode == 0 and "completed 2 of 2 stages (100.0%)" in out.stdout
    out = command("runners.replay", "--agent", "planner", "--stage", "gen:expert:2")
    assert out.returncode == 0 and "goal" in out.stdout
    path = tmp_path / "x.toml"
    out = command("speednik.stages", "generate", "--difficulty", "expert", "--seed", "4",
                  "--out", path)
    assert out.returncode == 0 and 'difficulty = "expert"' in path.read_text()
    out = command("evolution.run", "--stage", "gen:expert:0-1", "--generations", "1",
                  "--population", "4", "--max-steps", "200", "--workers", "1", "--quiet",
                  "--no-plots", "--out", tmp_path / "run")
    assert out.returncode == 0, out.stderr
    env = gymnasium.make("speednik/Generated-v0", difficulty="expert", start_level=5,
                         num_levels=1)
    info = env.reset(seed=0)[1]
    assert info["level_seed"] == 5
    assert env.unwrapped.stage is generate_stage(5, "expert")


def test_chained_pits_leave_room_to_land_and_take_off():
    # A flat stretch between two pits is one jump's landing and the next
    # one's run-up: never a pillar that asks for a take-off timed to the frame.
    from speednik.stages.expert import CHAIN_GAP

    between = []
    for seed in EXPERT_SAMPLE:
        segments = generate_profile(seed, "expert").segments
        for i, seg in enumerate(segments):
            if seg.kind != "gap":
                continue
            j, flat = i + 1, 0
            while j < len(segments) and segments[j].kind == "flat":
                flat += segments[j].length
                j += 1
            if j < len(segments) and segments[j].kind == "gap":
                between.append(flat)
    assert between and min(between) >= CHAIN_GAP[0] >= 96


def test_steep_climbs_reach_pipeworks_and_some_are_topped_by_spikes_or_a_walker():
    from speednik.stages.expert import EXPERT, expert_builder_class

    pipeworks = [s for s in load_stage("pipeworks").meta["profile"].segments
                 if s.kind == "ramp" and s.rise > 0]
    tallest = max(pipeworks, key=lambda s: s.rise)
    rises, slopes, spiked, walked = [], [], 0, 0
    for seed in range(200):
        b = expert_builder_class()(random.Random(seed), EXPERT)
        b.level = 800
        if not b.piece("steep_climb"):
            continue
        ramp = next(s for s in b.segments if s["kind"] == "ramp")
        rises.append(ramp["rise"])
        slopes.append(ramp["rise"] / ramp["length"])
        spiked += any(e["kind"] == "spikes" for e in b.entities)
        walked += any(e["kind"] == "walker" for e in b.entities)
    assert max(rises) >= tallest.rise and max(slopes) >= tallest.rise / tallest.length
    assert 0 < spiked < len(rises) and 0 < walked < len(rises)
    assert spiked + walked < len(rises)


def test_a_walker_on_a_steep_crest_can_stand_as_near_as_hand_made_stages_put_one():
    # cascade and aqueduct guard their crests with a walker 48 px past it;
    # a generator that kept walkers 64 px or more away never showed one.
    from speednik.stages.expert import EXPERT, expert_builder_class

    past = []
    for seed in range(200):
        b = expert_builder_class()(random.Random(seed), EXPERT)
        b.level = 800
        if not b.piece("steep_climb"):
            continue
        walkers = [e for e in b.entities if e["kind"] == "walker"]
        if walkers:
            crest, x = None, 0
            for seg in b.segments:
                x += seg.get("length", 0)
                if seg["kind"] == "ramp" and seg["rise"] > 0:
                    crest = x
            past.append(walkers[0]["x"] - crest)
    assert min(past) <= 48 and max(past) >= 128 and min(past) >= 16, past


def test_some_loops_follow_a_slope_down_and_a_short_run():
    # canyon's loop comes 256 px after the foot of a slope down; flat
    # run-ups of 512 px or more never asked a policy to keep the slope's speed.
    from speednik.stages.expert import EXPERT, expert_builder_class
    from speednik.stages.generator import LEVEL_BOTTOM

    runs = []
    for seed in range(40):
        segments = expert_profile(seed).segments
        for down, run, loop in zip(segments, segments[1:], segments[2:]):
            if down.kind == "ramp" and down.rise < 0 and run.kind == "flat" and loop.kind == "loop":
                runs.append(run.length)
    assert runs and max(runs) <= 320, runs
    b = expert_builder_class()(random.Random(0), EXPERT)
    b.level = LEVEL_BOTTOM
    assert not b.piece("downhill_loop") and not b.segments


def test_some_deep_half_pipes_have_a_bottom_as_short_as_hand_made_ones():
    # Hand-made pipes put 0-64 px of flat between their quarter circles;
    # a generator that kept 64 px or more never asked for the quick climb
    # out of aqueduct's cistern or summit's bowl. Emitted stages are
    # certified, so the planner gets past each of these.
    bottoms = []
    for seed in range(40):
        bottoms += [s.length - 2 * s.depth for s in expert_profile(seed).segments
                    if s.kind == "halfpipe" and s.depth >= 160]
    assert len(bottoms) >= 6 and min(bottoms) <= 32 and max(bottoms) >= 192, bottoms


def test_a_steep_climb_drawn_high_up_goes_down_to_its_foot_first():
    """Walls and cliffs keep the ground high; a climb drawn there still
    fits, after a way down, instead of being left out of the stage."""
    from speednik.stages.expert import EXPERT, expert_builder_class
    from speednik.stages.generator import LEVEL_TOP

    for seed in range(50):
        b = expert_builder_class()(random.Random(seed), EXPERT)
        b.level = LEVEL_TOP + 16
        assert b.piece("steep_climb")
        ramps = [s for s in b.segments if s["kind"] == "ramp"]
        down, up = ramps[0], ramps[1]
        assert down["rise"] < 0 < up["rise"]
        assert LEVEL_TOP + 16 - down["rise"] - up["rise"] >= LEVEL_TOP


def _counting_planner(monkeypatch):
    import speednik.engine.planner as planner

    calls, real = [], planner.plan_stage

    def counted(stage, *args, **kwargs):
        calls.append(stage)
        return real(stage, *args, **kwargs)

    monkeypatch.setattr(planner, "plan_stage", counted)
    return calls


def test_stages_certified_in_other_processes_are_those_certified_here(monkeypatch):
    from speednik.stages import certification

    seeds = [91001, 91002, 91003]
    monkeypatch.setattr(certification, "_CERTIFIED_DRAW", {})
    here = [certification.certified_expert(seed)[0] for seed in seeds]
    draws = dict(certification._CERTIFIED_DRAW)
    monkeypatch.setattr(certification, "_CERTIFIED_DRAW", {})
    certification.certify_in_parallel(seeds, workers=2)
    assert certification._CERTIFIED_DRAW == draws
    calls = _counting_planner(monkeypatch)
    assert [certification.certified_expert(seed)[0] for seed in seeds] == here
    assert calls == []      # the draws found elsewhere are built, not searched again


def test_a_run_certifies_its_expert_stages_in_its_worker_processes(monkeypatch):
    from evolution.cli.run_stages import build_stages
    from speednik.stages import certification

    for workers, seeds in ((1, [91011, 91012]), (2, [91021, 91022])):
        monkeypatch.setattr(certification, "_CERTIFIED_DRAW", {})
        calls = _counting_planner(monkeypatch)
        kept = build_stages([f"gen:expert:{s}" for s in seeds] + ["gen:hard:3"],
                            quiet=True, workers=workers)
        try:
            assert sorted(certification._CERTIFIED_DRAW) == seeds
            # Planned in this process with one worker, in the workers with two.
            assert len(calls) >= len(seeds) if workers == 1 else calls == []
        finally:
            kept.release()


def test_a_seed_with_no_certified_draw_is_reported_by_its_build(monkeypatch):
    from evolution.cli.run_stages import build_stages
    from evolution.config import ConfigError
    from speednik.stages import certification

    monkeypatch.setattr(certification, "_CERTIFIED_DRAW", {})
    monkeypatch.setattr(certification, "MAX_DRAWS", 0)
    with pytest.raises(ConfigError, match=r"gen:expert:91031.*no certified expert stage"):
        build_stages(["gen:expert:91031", "gen:expert:91032"], quiet=True, workers=2)
    assert certification._CERTIFIED_DRAW == {}

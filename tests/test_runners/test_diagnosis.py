"""`runners.diagnosis`: why an episode ended in a death, checked against
the game itself.

Each report is checked by playing the episode again here and, from the
decision it names, holding the plans it names: the ones it says land
must come down alive, and the others must not. The agents are the
baselines: `hold-right` runs off the edge of a pit, and `jump-runner`
jumps over an expert stage's pit without ever braking.
"""
from __future__ import annotations

import pytest

from runners import EpisodeRunner
from runners import replay
from runners.agents import make_baseline
from runners.diagnosis import (
    AIR_PLANS,
    GROUND_PLANS,
    LANDED_FRAMES,
    LOOK_FRAMES,
    describe,
    diagnose_death,
    kind,
    plan_lands,
    summary_lines,
)
from speednik.actions import (
    ACTION_HAS_JUMP,
    ACTION_LEFT,
    ACTION_NOOP,
    ACTION_RIGHT,
    ACTION_RIGHT_JUMP,
    action_to_input,
)
from speednik.simulation import create_sim, sim_step

from speednik.entities import Spikes
from stage_fixtures import FLOOR_Y, brush_stage, flat_stage, pit_stage

# hold-right leaves the ground at the edge of a pit, without jumping.
RUNS_OFF = ("hold-right", pit_stage(400, 560))
# hold-right runs into spikes: it dies on the ground, with no flight.
ON_THE_GROUND = ("hold-right", flat_stage(spikes=(Spikes(400.0, float(FLOOR_Y)),)))

# jump-runner jumps at the pit, flies too far, and never holds left.
NEVER_BRAKES = ("jump-runner", "gen:expert:1001")


def states_at_decisions(agent_name: str, stage: str) -> dict[int, object]:
    """The episode's state at each decision, by frame, and its actions."""
    runner = EpisodeRunner(stage)
    agent = make_baseline(agent_name)
    states: dict[int, object] = {}

    class Watch:
        observe_sim = getattr(agent, "observe_sim", False)

        def reset(self):
            agent.reset()

        def get_action(self, obs):
            action = agent.get_action(obs)
            states[runner.sim.frame] = (runner.sim.copy(), action)
            return action

    runner.run_episode(Watch())
    return states


def lands(state, first: int, then: int) -> bool:
    """Playing `first` one frame, then `then`: alive and standing on the
    ground LANDED_FRAMES frames in a row after leaving it (or from the
    air, after coming down), within LOOK_FRAMES."""
    s = state.copy()
    held = s.jump_held
    was_in_air = not s.player.physics.on_ground
    ground = []
    for k in range(LOOK_FRAMES):
        inp, held = action_to_input(first if k == 0 else then, held)
        sim_step(s, inp)
        if s.player_dead:
            return False
        if not s.player.physics.on_ground:
            was_in_air = True
            ground = []
        elif was_in_air:
            ground.append(s.frame)
            if len(ground) == LANDED_FRAMES:
                return True
    return False


@pytest.fixture(scope="module")
def never_brakes():
    name, stage = NEVER_BRAKES
    return diagnose_death(make_baseline(name), stage)


@pytest.fixture(scope="module")
def runs_off():
    name, stage = RUNS_OFF
    return diagnose_death(make_baseline(name), stage)


def test_the_result_is_the_episode_a_plain_replay_plays(never_brakes):
    result, _ = never_brakes
    name, stage = NEVER_BRAKES
    plain = EpisodeRunner(stage, record=True).run_episode(make_baseline(name))
    assert result.to_dict() == plain.to_dict()
    assert result.done_reason == "death"


def test_the_death_and_the_take_off_are_where_the_game_puts_them(never_brakes):
    result, report = never_brakes
    states = states_at_decisions(*NEVER_BRAKES)
    take_off, action = states[report.take_off_frame]
    assert take_off.player.physics.on_ground
    assert report.jumped == (ACTION_HAS_JUMP[action] and not take_off.jump_held)
    assert report.jumped
    # From the frame after the take-off to the death the player never
    # stands on the ground.
    traj = result.trajectory
    after = [g for f, g in zip(traj.frame, traj.on_ground) if f > report.take_off_frame + 1]
    assert after and not any(all(after[i:i + LANDED_FRAMES])
                             for i in range(len(after) - LANDED_FRAMES + 1))
    assert report.decisions == len([f for f in states if f > report.take_off_frame])
    assert report.cause == "pit"
    assert report.frame == max(states) + 1


def test_a_touch_of_the_ground_on_the_way_down_is_not_a_landing():
    result, report = diagnose_death(make_baseline("hold-right"), brush_stage())
    traj = result.trajectory
    touched = [f for f, g, x in zip(traj.frame, traj.on_ground, traj.x) if g and x > 500]
    assert 0 < len(touched) < LANDED_FRAMES
    # The take-off is the edge of the pit, not the pillar.
    assert report.cause == "pit" and 400 <= report.take_off_x < 420
    assert report.take_off_frame < touched[0]
    assert report.decisions == report.frame - 1 - report.take_off_frame
    states = states_at_decisions("hold-right", brush_stage())
    edge, _ = states[report.take_off_frame]
    assert not plan_lands(edge, ACTION_RIGHT, ACTION_RIGHT, 1)


def test_the_last_chance_plans_land_and_the_others_do_not(never_brakes):
    _, report = never_brakes
    chance = report.last_chance
    assert chance is not None and chance.plans == ("left",)
    states = states_at_decisions(*NEVER_BRAKES)
    state, action = states[chance.frame]
    for name, (first, then) in AIR_PLANS.items():
        assert lands(state, first, then) == (name in chance.plans), name
    assert action != ACTION_LEFT
    # After the last chance no plan lands any more.
    for frame in sorted(f for f in states if f > chance.frame)[:10]:
        later, _ = states[frame]
        assert not any(lands(later, *plan) for plan in AIR_PLANS.values()), frame
    assert 0 < report.landing_decisions <= report.decisions


def test_running_off_an_edge_points_to_the_jump_that_would_have_landed(runs_off):
    result, report = runs_off
    assert result.done_reason == "death" and not report.jumped
    assert report.last_chance is None and report.landing_decisions == 0
    chance = report.ground_chance
    assert chance is not None and "jump" in chance.plans
    states = states_at_decisions(*RUNS_OFF)
    state, _ = states[chance.frame]
    assert state.player.physics.on_ground
    first, then = GROUND_PLANS["jump"]
    assert lands(state, first, then)
    assert kind(report) == "no plan landed after the take-off; an earlier jump did"


def test_a_report_reads_as_one_line(never_brakes, runs_off):
    for _, report in (never_brakes, runs_off):
        text = describe(report)
        assert "\n" not in text
        assert text.startswith(f"pit at x={report.x:.0f}")
    assert "the agent pressed right" in describe(never_brakes[1])
    assert "left the ground at" in describe(runs_off[1])
    assert "without jumping" in describe(runs_off[1])


def test_a_death_on_the_ground_has_no_flight_to_look_into():
    result, report = diagnose_death(make_baseline(ON_THE_GROUND[0]), ON_THE_GROUND[1])
    assert result.done_reason == "death" and report.cause == "spikes"
    assert report.take_off_frame is None and report.decisions == 0
    assert report.last_chance is None and report.ground_chance is None
    assert describe(report).endswith("on the ground, with no flight before it")
    assert kind(report) == "on the ground"


def test_episodes_that_do_not_end_in_a_death_have_no_report():
    result, report = diagnose_death(make_baseline("jump-runner"), "hillside")
    assert result.done_reason == "goal" and report is None
    result, report = diagnose_death(make_baseline("idle"), pit_stage(400, 560),
                                    stall_frames=60)
    assert result.done_reason == "stalled" and report is None


def test_the_summary_counts_each_kind(never_brakes, runs_off):
    reports = [never_brakes[1], runs_off[1], never_brakes[1]]
    lines = summary_lines(reports)
    assert lines[0] == "why the 3 deaths:"
    assert lines[1].split(None, 1) == ["2", kind(never_brakes[1])]
    assert lines[2].split(None, 1) == ["1", kind(runs_off[1])]


def test_replay_why_explains_each_death_and_sums_them_up(capsys):
    status = replay.main(["--agent", "jump-runner", "--stage", "gen:expert:1000-1002",
                          "--why"])
    out = capsys.readouterr().out
    assert status == 0
    deaths = [line for line in out.splitlines()
              if line.startswith("gen:") and line.split()[1:2] == ["pit"]]
    whys = [line for line in out.splitlines() if line.startswith("  why: ")]
    assert len(whys) == len(deaths) >= 1
    assert f"why the {len(deaths)} death" in out


def test_replay_without_why_says_nothing_more(capsys):
    replay.main(["--agent", "jump-runner", "--stage", "gen:expert:1001"])
    out = capsys.readouterr().out
    assert "why:" not in out and "why the" not in out


def test_a_plan_lands_only_by_coming_down_alive():
    start = create_sim(pit_stage(400, 560))
    assert start.player.physics.on_ground
    # Standing still never leaves the ground: that is not a landing.
    assert not plan_lands(start, ACTION_NOOP, ACTION_NOOP, 1)
    # A jump from the start comes down on the flat it left.
    assert plan_lands(start, ACTION_RIGHT_JUMP, ACTION_RIGHT_JUMP, 1)
    # Playing a plan leaves the state as it was.
    assert start.frame == 0 and start.player.physics.on_ground

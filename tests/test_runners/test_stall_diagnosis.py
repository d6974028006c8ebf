"""`runners.stall_diagnosis`: why an episode ended in a stall, checked
against the game itself.

hold-right stalls against a wall a jump clears, and at the foot of a
climb too steep to run up from a standstill, which a spindash climbs.
Each report's way on is played again here from the state it names, with
the planner's own plan on the readable game: it must get past the
farthest x in the frames the report says, going back and charging a
spindash only as it says.
"""
from __future__ import annotations

import pytest

from commands import replay
from runners import EpisodeRunner
from runners.agents import make_baseline
from runners.stall_diagnosis import (
    BACK,
    PAST,
    describe_stall,
    diagnose_stall,
    stall_kind,
    stall_summary_lines,
)
from speednik.actions import action_to_input
from speednik.engine import CompiledSim
from speednik.engine.planner import plan_from
from speednik.player import PlayerState
from speednik.simulation import sim_step
from speednik.terrain import SOLID
from stage_fixtures import FLOOR_Y, build_stage, floor_grid, pit_stage, ramp_stage, wall_stage

# A wall 48 px tall: a jump clears it.
WALL = wall_stage(wall_height=48)
# 160 px up over 96 px: running from a standstill slides back down.
CLIMB = ramp_stage(ramp_x0=320, ramp_len=96, rise=160)


def well_stage():
    """A well 80 px wide and 200 px deep, twice as deep as a jump is high:
    running right, the player drops in and cannot get out."""
    grid = floor_grid(height=FLOOR_Y + 264)
    grid[:, 400:480] = 0
    grid[FLOOR_Y + 200:, 400:480] = SOLID
    return build_stage(grid, name="well")


@pytest.fixture(scope="module")
def at_the_wall():
    return diagnose_stall(make_baseline("hold-right"), WALL)


@pytest.fixture(scope="module")
def at_the_climb():
    return diagnose_stall(make_baseline("hold-right"), CLIMB)


def state_at(stage, frame: int):
    """hold-right's state on `stage` at `frame`, played again."""
    runner = EpisodeRunner(stage)
    agent = make_baseline("hold-right")
    seen = {}

    class Watch:
        def reset(self):
            agent.reset()

        def get_action(self, obs):
            seen.setdefault(runner.sim.frame, runner.sim.copy())
            return agent.get_action(obs)

    runner.run_episode(Watch())
    return seen[frame]


def played_way_on(stage, report):
    """(frames to get past, lowest x, charged a spindash) of the planner's
    plan from the report's state, played on the readable game."""
    way = report.way_on
    state = state_at(stage, way.frame)
    compiled = CompiledSim(state)
    plan = plan_from(compiled.compiled, compiled.f, compiled.s, compiled.gone,
                     held=bool(state.jump_held), max_frames=3600 - state.frame,
                     stall_frames=report.frames)
    assert plan.found
    sim, held = state.copy(), state.jump_held
    lowest, spindash = sim.player.physics.x, False
    for n, action in enumerate(plan.actions, 1):
        inp, held = action_to_input(action, held)
        sim_step(sim, inp)
        lowest = min(lowest, sim.player.physics.x)
        spindash |= sim.player.state == PlayerState.SPINDASH
        if sim.player.physics.x > report.farthest + PAST:
            return n, lowest, spindash
    raise AssertionError("the plan never got past the farthest x")


def test_the_stall_is_where_the_game_holds_the_player(at_the_wall):
    result, report = at_the_wall
    assert result.done_reason == "stalled"
    traj = result.trajectory
    last = [k for k, f in enumerate(traj.frame) if f > report.frame - report.frames]
    assert report.frames == 300 and report.frame == traj.frame[-1]
    assert report.farthest == max(traj.x) < 256
    assert (report.lowest_x, report.highest_x) == (min(traj.x[k] for k in last),
                                                   max(traj.x[k] for k in last))
    assert report.pressed == (("right", len(last)),)


def test_a_wall_a_jump_clears_is_passed_by_pressing_on(at_the_wall):
    _, report = at_the_wall
    way = report.way_on
    frames, lowest, spindash = played_way_on(WALL, report)
    assert way.frames == frames and not way.spindash and not spindash
    assert way.back == way.x - lowest < BACK
    assert stall_kind(report) == "the way on presses on"


def test_a_climb_too_steep_to_run_is_passed_by_a_spindash(at_the_climb):
    result, report = at_the_climb
    assert result.done_reason == "stalled"
    way = report.way_on
    frames, lowest, spindash = played_way_on(CLIMB, report)
    assert way.frames == frames and way.spindash and spindash
    assert way.back == way.x - lowest
    assert stall_kind(report).startswith("the way on") and "charges a spindash" in \
        stall_kind(report)


def test_a_report_reads_as_one_line(at_the_wall, at_the_climb):
    wall, climb = describe_stall(at_the_wall[1]), describe_stall(at_the_climb[1])
    for line in (wall, climb):
        assert "\n" not in line and line.startswith("stalled at x=")
    assert "pressing right 300 frames" in wall and "the planner gets past it" in wall
    assert "charges a spindash" in climb and "charges a spindash" not in wall


def test_a_stall_with_no_way_on_says_so():
    result, report = diagnose_stall(make_baseline("hold-right"), well_stage())
    assert result.done_reason == "stalled" and report.way_on is None
    assert 400 <= report.lowest_x <= report.highest_x <= 480
    assert describe_stall(report).endswith("the planner finds no way on from there")
    assert stall_kind(report) == "no way on found"


def test_other_ends_have_no_report():
    result, report = diagnose_stall(make_baseline("hold-right"), pit_stage())
    assert result.done_reason == "death" and report is None


def test_the_summary_counts_each_kind(at_the_wall, at_the_climb):
    lines = stall_summary_lines([at_the_wall[1], at_the_wall[1], at_the_climb[1]])
    assert lines[0] == "why the 3 stalls:"
    assert lines[1] == "     2  the way on presses on"
    assert lines[2].startswith("     1  the way on") and "spindash" in lines[2]


def test_replay_why_explains_each_stall_and_sums_them_up():
    # hold-right stalls on three of the six: at walls and at a climb.
    out = replay("--agent", "hold-right", "--stage", "handmade:validation", "--why")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    rows = [k for k, line in enumerate(lines)
            if line.split()[1:2] == ["stalled"] and not line.startswith(" ")]
    assert [lines[k].split()[0] for k in rows] == ["cascade", "foundry", "quarry"]
    assert all(lines[k + 1].startswith("  why: stalled at x=") for k in rows)
    summary = lines.index("why the 3 stalls:")
    assert sum(int(line.split()[0]) for line in lines[summary + 1:]) == 3

"""The baseline agents, their registry, and the `runners.baselines` command."""
from __future__ import annotations

import subprocess
import sys

import pytest

from runners import BASELINES, EpisodeRunner, make_baseline
from runners.agents import (
    HoldRightAgent,
    IdleAgent,
    JumpRunnerAgent,
    PlannerAgent,
    SpindashAgent,
)
from runners.specs import build_agent
from runners.baselines import main
from speednik.actions import ACTION_LEFT_JUMP, ACTION_RIGHT_JUMP
from speednik.entities import Enemy, Spikes, Spring
from speednik.stages import generate_stage, list_stages
from speednik.terrain import SOLID
from stage_fixtures import FLOOR_Y, build_stage, floor_grid
from sweeps import first_and_rest, sweep

WIDTH = 1600
JUMPS = (ACTION_RIGHT_JUMP, ACTION_LEFT_JUMP)


def run(agent_name: str, stage, max_steps: int = 1500, **kw):
    runner = EpisodeRunner(stage, max_steps=max_steps, record=True, **kw)
    return runner.run_episode(make_baseline(agent_name))


def events(result) -> list[str]:
    return [e for frame in result.trajectory.events for e in frame]


def open_stage(**kw):
    return build_stage(floor_grid(width=WIDTH), **kw)


def pit_stage(x0: int = 600, width: int = 128):
    g = floor_grid(width=WIDTH)
    g[:, x0:x0 + width] = 0
    return build_stage(g)


def steps_stage(*steps: tuple[int, int]):
    """Steps up: each (x, height) raises the floor by `height` from x on."""
    g = floor_grid(width=WIDTH)
    top = FLOOR_Y
    for x, h in steps:
        top -= h
        g[top:FLOOR_Y, x:] = SOLID
    return build_stage(g)


# -- registry ------------------------------------------------------------------------------

def test_registry_names_and_classes():
    assert list(BASELINES) == ["idle", "hold-right", "jump-runner", "spindash", "planner"]
    expected = [IdleAgent, HoldRightAgent, JumpRunnerAgent, SpindashAgent, PlannerAgent]
    for name, cls in zip(BASELINES, expected):
        a, b = make_baseline(name), make_baseline(name)
        assert type(a) is cls and a is not b
    assert type(build_agent("spindash")) is SpindashAgent
    assert type(build_agent(("baseline", "idle"))) is IdleAgent


@pytest.mark.parametrize("bad", ["runner", "", "Idle", None, 3])
def test_unknown_baseline_lists_the_names(bad):
    with pytest.raises(ValueError) as info:
        make_baseline(bad)
    for name in BASELINES:
        assert repr(name) in str(info.value)


# -- the simple ones -----------------------------------------------------------------------

def test_idle_goes_nowhere():
    res = run("idle", open_stage(), max_steps=400)
    assert res.done_reason == "stalled" and res.metrics["progress"] == 0.0
    assert set(res.trajectory.action) == {0}


def test_hold_right_runs_but_falls_and_stops():
    assert run("hold-right", open_stage()).done_reason == "goal"
    assert run("hold-right", pit_stage()).done_reason == "death"
    assert run("hold-right", steps_stage((500, 48))).done_reason == "stalled"


# -- the jump-runner ----------------------------------------------------------------------

def test_jump_runner_clears_a_pit():
    res = run("jump-runner", pit_stage(width=160))
    assert res.done_reason == "goal" and events(res).count("jump") == 1


def test_jump_runner_climbs_steps_and_jumps_again():
    # Two steps close together: it must let go of jump in between.
    res = run("jump-runner", steps_stage((500, 48), (760, 48)))
    assert res.done_reason == "goal" and events(res).count("jump") >= 2
    actions = res.trajectory.action
    first = actions.index(ACTION_RIGHT_JUMP)
    later = actions.index(ACTION_RIGHT_JUMP, actions.index(2, first))
    assert later > first


def test_jump_runner_holds_jump_for_full_height():
    # A short hop (jump let go at once) rises ~36 px: an 80 px step needs
    # the button held while rising.
    res = run("jump-runner", steps_stage((600, 80)))
    assert res.done_reason == "goal"
    t = res.trajectory
    i = t.events.index(("jump",))
    while t.y_vel[i] < 0.0:
        assert t.action[i] == ACTION_RIGHT_JUMP
        i += 1


def test_jump_runner_is_not_fooled_by_a_slope():
    from stage_fixtures import ramp_stage
    res = run("jump-runner", ramp_stage(ramp_x0=400, ramp_len=256, rise=48))
    assert res.done_reason == "goal" and "jump" not in events(res)


def test_jump_runner_jumps_enemies_and_spikes():
    walker = open_stage(enemies=[Enemy("walker", 600.0, FLOOR_Y - 12.0, span=64.0)])
    spikes = open_stage(spikes=[Spikes(600.0, float(FLOOR_Y), width=48.0)])
    for stage in (walker, spikes):
        # With no rings any touch is fatal: hold-right dies, the runner does not.
        assert run("hold-right", stage).done_reason == "death"
        res = run("jump-runner", stage)
        assert res.done_reason == "goal" and "damage" not in events(res)


def test_jump_runner_runs_at_a_spring_to_pass_a_tall_wall():
    g = floor_grid(width=WIDTH)
    g[FLOOR_Y - 150:FLOOR_Y, 480:] = SOLID
    stage = build_stage(g, start_x=400.0, springs=[Spring(250.0, FLOOR_Y - 8.0)])
    res = run("jump-runner", stage, stall_frames=None)
    assert res.done_reason == "goal" and "spring" in events(res)
    assert min(res.trajectory.x) < 250.0 - 100.0


def test_reset_forgets_the_previous_episode():
    agent = make_baseline("jump-runner")
    runner = EpisodeRunner(steps_stage((500, 48)), max_steps=600)
    runner.run_episode(agent)
    again = runner.run_episode(agent)
    fresh = runner.run_episode(make_baseline("jump-runner"))
    assert again.to_dict() == fresh.to_dict()


# -- the spindash agent --------------------------------------------------------------------

def test_spindash_charges_and_outruns_the_jump_runner():
    stage = open_stage()
    dash = run("spindash", stage)
    jump = run("jump-runner", stage)
    t = dash.trajectory
    assert "spindash" in t.state
    assert max(t.ground_speed) > 10.0          # above the running top speed of 6
    assert dash.done_reason == jump.done_reason == "goal"
    assert dash.steps < jump.steps


def test_spindash_still_jumps_obstacles():
    res = run("spindash", steps_stage((600, 48)))
    assert res.done_reason == "goal" and "jump" in events(res)


# -- the built-in and generated stages can be completed ----------------------------------

@pytest.mark.parametrize("stage", sweep(list_stages()))
def test_builtin_stages_are_completable_and_need_skill(stage):
    for name in ("jump-runner", "spindash"):
        res = EpisodeRunner(stage).run_episode(make_baseline(name))
        assert res.done_reason == "goal", f"{name} on {stage}: {res}"
        assert res.metrics["deaths"] == 0
    for name in ("idle", "hold-right"):
        res = EpisodeRunner(stage).run_episode(make_baseline(name))
        assert res.done_reason != "goal" and res.metrics["progress"] < 0.5


@pytest.mark.parametrize("seeds", first_and_rest(range(2)))
@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_generated_stages_are_completable(difficulty, seeds):
    for seed in seeds:
        stage = generate_stage(seed, difficulty)
        res = EpisodeRunner(stage, max_steps=6000).run_episode(make_baseline("jump-runner"))
        assert res.done_reason == "goal", f"seed {seed} {difficulty}: {res}"


# -- the command -----------------------------------------------------------------------------

def test_cli_table(capsys):
    assert main(["--stage", "hillside", "--agent", "idle", "--agent", "hold-right",
                 "--max-steps", "200"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["stage", "agent", "progress", "rings", "frames", "done",
                                "reward"]
    assert len(lines) == 4
    assert lines[2].split()[:3] == ["hillside", "idle", "0.0%"]
    assert lines[2].split()[4:6] == ["200", "stalled"] or lines[2].split()[5] == "timeout"


def test_cli_markdown(capsys):
    assert main(["--stage", "pipeworks", "--agent", "jump-runner", "--markdown"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "| stage | agent | progress | rings | frames | done | reward |"
    assert lines[1].startswith("| --- | --- | ---: |")
    cells = [c.strip() for c in lines[2].strip("|").split("|")]
    assert cells[:3] == ["pipeworks", "jump-runner", "100.0%"] and cells[5] == "goal"


@pytest.mark.parametrize("args, accepted", [
    (["--stage", "moon"], "hillside, pipeworks, skybridge"),
    (["--agent", "cheater"], "idle, hold-right, jump-runner, spindash"),
    (["--max-steps", "0"], "--max-steps"),
])
def test_cli_bad_names(capsys, args, accepted):
    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and accepted in err


def test_cli_as_a_module_exits_2_without_traceback():
    proc = subprocess.run([sys.executable, "-m", "runners.baselines", "--agent", "nope"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert "jump-runner" in proc.stderr


def test_cli_workers_give_the_same_table(capsys):
    args = ["--agent", "hold-right", "--agent", "jump-runner", "--max-steps", "300"]
    assert main(args) == 0
    serial = capsys.readouterr().out
    assert main(args + ["--workers", "2"]) == 0
    assert capsys.readouterr().out == serial
    assert len(serial.splitlines()) == 2 + 2 * len(list_stages())

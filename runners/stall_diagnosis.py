"""Why an episode ended in a stall: where the player was held up, what
the agent pressed there, and a way on that the planner finds from there.

    result, report = diagnose_stall(make_baseline("hold-right"),
                                    "speednik/stages/handmade/cascade.toml")
    describe_stall(report)
    # 'stalled at x=843 (the farthest x=897) for 300 frames, between x=789
    #  and 895 at up to 2.0 px a frame, pressing right 300 frames; from
    #  frame 308 (x=791) the planner gets past it in 180 frames: it charges
    #  a spindash, tops 6.7 px a frame'

An episode stalls when the player gets no further for the runner's
`stall_frames` frames. The report looks at those last frames: the range
of x the player moved over, its top speed, and the agent's actions there.
Then the planner (`speednik.engine.planner`, a beam search over the
compiled game with everything in it) searches from the state at the
first decision of those frames (or the earliest of the `KEPT_DECISIONS`
decisions kept, when those frames hold more), with the frames the
episode had left,
for a way to the goal that does not stall by the same rule. When it
finds one, the report says what that way does up to where it first gets
past the farthest x: whether it goes back first, charges a spindash, how
fast it goes, what the agent would have had to do.
When it finds none from there, it searches from the earliest decision
kept (`KEPT_DECISIONS` before the end), where the stall may have been
decided. What kind of way on it is (`stall_kind`: going back first,
charging a spindash) is what `runners.replay --why` counts.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runners.diagnosis import count_lines, play_keeping_decisions
from runners.episode import DEFAULT_STALL_FRAMES
from runners.result import EpisodeResult
from speednik.actions import ACTION_NAMES, action_to_input
from speednik.constants import DEFAULT_MAX_STEPS
from speednik.player import PlayerState
from speednik.simulation import SimState, sim_step

# The plan's actions are shown up to where it first gets this far past
# the farthest x the episode reached: past the place that held it up.
PAST = 32
# Actions shown of the agent's own, most pressed first.
PRESSED_SHOWN = 3
# A way on that goes this far left of where it starts goes back first (a
# run-up, a spring behind): less is a step back a plan takes in passing.
BACK = 64


@dataclass(frozen=True)
class WayOn:
    """A plan the planner found from a decision of the episode, up to
    where it first gets past the farthest x: where it starts, its frames,
    how far back it goes first (px left of where it starts), whether it
    charges a spindash, and its top speed across (px a frame). Those are
    facts of the plan as played, not of its actions: a beam search's plan
    holds actions that change nothing (a tap of left in mid-air)."""

    frame: int
    x: float
    frames: int
    back: float
    spindash: bool
    top_speed: float


@dataclass(frozen=True)
class StallReport:
    """What became of an episode that ended in a stall.

    - `x`, `farthest`, `frame`: where the player was at the end, the
      farthest x it had reached, and the last frame;
    - `frames`: the frames it got no further (the runner's stall_frames);
    - `lowest_x`, `highest_x`, `top_speed`: the x it moved over in them
      and its fastest speed across (px a frame);
    - `pressed`: the agent's actions in them, as (action name, frames),
      most first;
    - `way_on`: the planner's way on (None: it found none, from the stall
      or from the earliest decision kept)."""

    x: float
    farthest: float
    frame: int
    frames: int
    lowest_x: float
    highest_x: float
    top_speed: float
    pressed: tuple[tuple[str, int], ...]
    way_on: WayOn | None


def way_on(state: SimState, farthest: float, frames_left: int,
           stall_frames: int) -> WayOn | None:
    """The planner's way on from `state` (None when it finds no way to the
    goal within `frames_left` frames that gets further every
    `stall_frames`), cut where it first gets PAST px past `farthest`."""
    from speednik.engine import CompiledSim
    from speednik.engine.planner import plan_from

    if frames_left < 1:
        return None
    compiled = CompiledSim(state)
    plan = plan_from(compiled.compiled, compiled.f, compiled.s, compiled.gone,
                     held=bool(state.jump_held), max_frames=frames_left,
                     stall_frames=stall_frames)
    if not plan.found:
        return None
    sim = state.copy()
    held = sim.jump_held
    start = lowest = sim.player.physics.x
    spindash, top, frames = False, 0.0, 0
    for action in plan.actions:
        inp, held = action_to_input(action, held)
        sim_step(sim, inp)
        frames += 1
        p = sim.player.physics
        lowest = min(lowest, p.x)
        top = max(top, abs(p.x_vel))
        spindash = spindash or sim.player.state == PlayerState.SPINDASH
        if p.x > farthest + PAST or sim.goal_reached:
            break
    return WayOn(state.frame, start, frames, start - lowest, spindash, top)


def diagnose_stall(agent: Any, stage: Any, *, observation: str = "basic",
                   max_steps: int = DEFAULT_MAX_STEPS,
                   stall_frames: int | None = DEFAULT_STALL_FRAMES,
                   action_repeat: int = 1) -> tuple[EpisodeResult, StallReport | None]:
    """Play `agent` on `stage` with these runner settings; the result
    (its frames recorded), and for a stall its report (None for any other
    end)."""
    result, runner, recorder = play_keeping_decisions(
        agent, stage, observation=observation, max_steps=max_steps,
        stall_frames=stall_frames, action_repeat=action_repeat)
    if result.done_reason != "stalled" or stall_frames is None:
        return result, None
    end = runner.sim
    traj = result.trajectory
    start = end.frame - stall_frames
    window = [k for k, f in enumerate(traj.frame) if f > start]
    xs = [traj.x[k] for k in window]
    counts: dict[str, int] = {}
    for k in window:
        name = ACTION_NAMES[traj.action[k]]
        counts[name] = counts.get(name, 0) + 1
    pressed = tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
    # The way on is searched from the first decision of the stall, or when
    # the stall is longer than the decisions kept, from the earliest kept.
    kept = [state for state, _ in recorder.kept]
    in_stall = [state for state in kept if state.frame >= start]
    found = None
    for state in {id(s): s for s in in_stall[:1] + kept[:1]}.values():
        found = way_on(state, end.max_x_reached, max_steps - state.frame, stall_frames)
        if found is not None:
            break
    return result, StallReport(
        x=end.player.physics.x, farthest=end.max_x_reached, frame=end.frame,
        frames=stall_frames, lowest_x=min(xs), highest_x=max(xs),
        top_speed=max(abs(traj.x_vel[k]) for k in window), pressed=pressed, way_on=found)


def _features(way: WayOn) -> list[str]:
    found = []
    if way.back >= BACK:
        found.append("goes back first")
    if way.spindash:
        found.append("charges a spindash")
    return found


def stall_kind(report: StallReport) -> str:
    """What a stall's report comes to, for counting: what the way on asks
    that pressing on does not, or that the planner found none."""
    if report.way_on is None:
        return "no way on found"
    features = _features(report.way_on)
    return "the way on " + (" and ".join(features) if features else "presses on")


def describe_stall(report: StallReport) -> str:
    """The report in one line."""
    pressed = ", ".join(f"{name} {n}" for name, n in report.pressed[:PRESSED_SHOWN])
    pressed += " frames" if report.pressed else "nothing"
    text = (f"stalled at x={report.x:.0f} (the farthest x={report.farthest:.0f}) for "
            f"{report.frames} frames, between x={report.lowest_x:.0f} and "
            f"{report.highest_x:.0f} at up to {report.top_speed:.1f} px a frame, pressing "
            f"{pressed}; ")
    way = report.way_on
    if way is None:
        return text + "the planner finds no way on from there"
    back = f"goes back {way.back:.0f} px first, " if way.back >= BACK else ""
    spindash = "charges a spindash, " if way.spindash else ""
    return (text + f"from frame {way.frame} (x={way.x:.0f}) the planner gets past it in "
            f"{way.frames} frames: it {back}{spindash}tops {way.top_speed:.1f} px a frame")


def stall_summary_lines(reports: list[StallReport]) -> list[str]:
    """How many stalls came to each `stall_kind`, most first."""
    return count_lines("stalls", [stall_kind(report) for report in reports])

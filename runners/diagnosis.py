"""Why an episode ended in a death: where the player left the ground, and
the last moment at which a plain way of playing on would still have come
down alive, with what the agent pressed there.

    result, report = diagnose_death(make_baseline("jump-runner"), "gen:expert:1001")
    describe(report)
    # 'pit at x=2335 (frame 491); left the ground at x=1992 (frame 395) by a
    #  jump; in the air a plan landed at 25 of 95 decisions, the last at
    #  frame 420 (x=2129): left; the agent pressed right_jump'

A plan is one action held from a decision on, as the agent could have
chosen it: in the air "right+jump" (jump kept held), "right", "left";
on the ground before taking off "jump" (right+jump held until it lands)
and "hop" (right+jump for one decision, then right). A plan lands when
the player comes down and stands on the ground alive for `LANDED_FRAMES`
frames within `LOOK_FRAMES`; the flight looked into is the one after the
player last stood so (a death on the ground has none). Plans
are played on copies of the episode's own states by the game itself
(`sim_step`: springs, enemies and spikes included), through the episode
runner's jump edge detection, so "a plan landed" is a fact of the game,
whatever the agent could see.

The diagnosis replays the episode on the readable engine, keeping a copy
of the state at each of its last `KEPT_DECISIONS` decisions, so it costs a
few episodes' time: `runners.replay --why` asks for it only for the
episodes that ended in a death.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from runners.episode import DEFAULT_STALL_FRAMES, EpisodeRunner
from runners.result import EpisodeResult
from speednik.actions import (
    ACTION_HAS_JUMP,
    ACTION_LEFT,
    ACTION_NAMES,
    ACTION_RIGHT,
    ACTION_RIGHT_JUMP,
    action_to_input,
)
from speednik.constants import DEFAULT_MAX_STEPS
from speednik.simulation import SimState, sim_step

# A plan that has not come down after this many frames (4 s) has not landed.
LOOK_FRAMES = 240
# Coming down is standing on the ground this many frames in a row: a
# frame on the lip of a ledge the player then runs off is not a landing.
LANDED_FRAMES = 4
# Decisions kept before the death: enough for the longest flight a red
# spring gives (about 150 frames) and the run-up before it.
KEPT_DECISIONS = 240
# How many decisions on the ground before the take-off are searched for a
# jump that would have landed, when no plan lands after it.
GROUND_SEARCH = 60

# Each plan: the action of its first decision, then the action held after.
AIR_PLANS = {"right+jump": (ACTION_RIGHT_JUMP, ACTION_RIGHT_JUMP),
             "right": (ACTION_RIGHT, ACTION_RIGHT),
             "left": (ACTION_LEFT, ACTION_LEFT)}
GROUND_PLANS = {"jump": (ACTION_RIGHT_JUMP, ACTION_RIGHT_JUMP),
                "hop": (ACTION_RIGHT_JUMP, ACTION_RIGHT)}


@dataclass(frozen=True)
class Chance:
    """A decision at which some plan landed: when and where, which plans,
    and the action the agent chose there."""

    frame: int
    x: float
    plans: tuple[str, ...]
    action: str


@dataclass(frozen=True)
class DeathReport:
    """What became of an episode that ended in a death.

    - `cause`, `x`, `frame`: the death (a `speednik.events.CAUSES` name);
    - `take_off_frame`, `take_off_x`: the last decision before the player
      last stood on the ground (None: it died there, or as it left it), and
      `jumped`: whether the agent pressed jump there;
    - `decisions`: the decisions from the take-off to the death, and
      `landing_decisions`: how many of them had a plan that landed;
    - `last_chance`: the last of those (None: none had one);
    - `ground_chance`: when none had one, the last decision on the ground
      before the take-off from which a jump landed (None: none within
      `GROUND_SEARCH` decisions)."""

    cause: str
    x: float
    frame: int
    take_off_frame: int | None
    take_off_x: float | None
    jumped: bool
    decisions: int
    landing_decisions: int
    last_chance: Chance | None
    ground_chance: Chance | None


def plan_lands(sim: SimState, first: int, then: int, repeat: int) -> bool:
    """Whether the player, playing `first` for one decision (`repeat`
    frames) and `then` after it, comes down and stands on the ground alive
    for `LANDED_FRAMES` frames in a row within `LOOK_FRAMES` (from the
    ground, after leaving it); `sim` is left as it was."""
    s = sim.copy()
    held = s.jump_held
    airborne = not s.player.physics.on_ground
    standing = 0
    for k in range(LOOK_FRAMES):
        inp, held = action_to_input(first if k < repeat else then, held)
        sim_step(s, inp)
        if s.player_dead:
            return False
        if s.goal_reached:
            return True
        if s.player.physics.on_ground:
            standing += 1
            if airborne and standing >= LANDED_FRAMES:
                return True
        else:
            airborne = True
            standing = 0
    return False


def landing_plans(sim: SimState, plans: dict[str, tuple[int, int]], repeat: int) -> tuple[str, ...]:
    return tuple(name for name, (first, then) in plans.items()
                 if plan_lands(sim, first, then, repeat))


def last_standing_frame(on_ground: list[bool], frames: list[int]) -> int | None:
    """The frame at which the player last stood on the ground (the end of
    its last run of `LANDED_FRAMES` frames or more on it), from an
    episode's per-frame record; None if it never stood."""
    last = None
    run = 0
    for frame, grounded in zip(frames, on_ground):
        run = run + 1 if grounded else 0
        if run >= LANDED_FRAMES:
            last = frame
    return last


class DecisionRecorder:
    """Wraps an agent: the same actions, and a copy of the state at each
    of the last `KEPT_DECISIONS` decisions (frame, state, action)."""

    def __init__(self, agent: Any, runner: EpisodeRunner) -> None:
        self.agent = agent
        self.runner = runner
        # The runner reads what the agent observes from these two names.
        for name in ("observation", "observe_sim"):
            if hasattr(agent, name):
                setattr(self, name, getattr(agent, name))
        self.kept: deque[tuple[SimState, int]] = deque(maxlen=KEPT_DECISIONS)

    def reset(self) -> None:
        self.agent.reset()
        self.kept.clear()

    def get_action(self, obs: Any) -> int:
        action = self.agent.get_action(obs)
        self.kept.append((self.runner.sim.copy(), int(action)))
        return action


def play_keeping_decisions(agent: Any, stage: Any, *, observation: str = "basic",
                           max_steps: int = DEFAULT_MAX_STEPS,
                           stall_frames: int | None = DEFAULT_STALL_FRAMES,
                           action_repeat: int = 1
                           ) -> tuple[EpisodeResult, EpisodeRunner, DecisionRecorder]:
    """Play `agent` on `stage` with these runner settings, its frames
    recorded: the result, the runner (its `sim` the last state) and the
    recorder holding the last decisions' states."""
    runner = EpisodeRunner(stage, observation=observation, max_steps=max_steps,
                           stall_frames=stall_frames, action_repeat=action_repeat,
                           record=True)
    recorder = DecisionRecorder(agent, runner)
    return runner.run_episode(recorder), runner, recorder


def diagnose_death(agent: Any, stage: Any, *, observation: str = "basic",
                   max_steps: int = DEFAULT_MAX_STEPS,
                   stall_frames: int | None = DEFAULT_STALL_FRAMES,
                   action_repeat: int = 1) -> tuple[EpisodeResult, DeathReport | None]:
    """Play `agent` on `stage` with these runner settings; the result
    (its frames recorded), and for a death its report (None for any other
    end)."""
    result, runner, recorder = play_keeping_decisions(
        agent, stage, observation=observation, max_steps=max_steps,
        stall_frames=stall_frames, action_repeat=action_repeat)
    end = runner.sim
    if result.done_reason != "death":
        return result, None
    traj = result.trajectory
    stood = last_standing_frame(traj.on_ground, traj.frame)
    kept = list(recorder.kept)
    # The decisions after the player last stood: the flight that ended in
    # the death (none: it died on the ground, or as it left it).
    window = [k for k, (s, _) in enumerate(kept) if stood is None or s.frame > stood]
    before = [k for k, (s, _) in enumerate(kept) if stood is not None and s.frame <= stood]
    take = before[-1] if before else None
    if not window or take is None:
        return result, DeathReport(
            cause=end.death_cause, x=end.player.physics.x, frame=end.frame,
            take_off_frame=None, take_off_x=None, jumped=False, decisions=0,
            landing_decisions=0, last_chance=None, ground_chance=None)
    landing = []
    for k in window:
        s, action = kept[k]
        plans = landing_plans(s, AIR_PLANS, action_repeat)
        if plans:
            landing.append(Chance(s.frame, s.player.physics.x, plans, ACTION_NAMES[action]))
    ground_chance = None
    if not landing:
        for k in range(take, max(-1, take - GROUND_SEARCH), -1):
            s, action = kept[k]
            if not s.player.physics.on_ground:
                break
            plans = landing_plans(s, GROUND_PLANS, action_repeat)
            if plans:
                ground_chance = Chance(s.frame, s.player.physics.x, plans,
                                       ACTION_NAMES[action])
                break
    take_state, take_action = kept[take]
    report = DeathReport(
        cause=end.death_cause, x=end.player.physics.x, frame=end.frame,
        take_off_frame=take_state.frame, take_off_x=take_state.player.physics.x,
        jumped=ACTION_HAS_JUMP[take_action] and not take_state.jump_held,
        decisions=len(window), landing_decisions=len(landing),
        last_chance=landing[-1] if landing else None, ground_chance=ground_chance)
    return result, report


def describe(report: DeathReport) -> str:
    """The report in one line."""
    text = f"{report.cause} at x={report.x:.0f} (frame {report.frame}); "
    if report.take_off_frame is None:
        return text + "on the ground, with no flight before it"
    text += (f"left the ground at x={report.take_off_x:.0f} (frame "
             f"{report.take_off_frame}) {'by a jump' if report.jumped else 'without jumping'}; ")
    last = report.last_chance
    if last is not None:
        return text + (f"in the air a plan landed at {report.landing_decisions} of "
                       f"{report.decisions} decisions, the last at frame {last.frame} "
                       f"(x={last.x:.0f}): {', '.join(last.plans)}; the agent pressed "
                       f"{last.action}")
    text += "in the air no plan landed"
    chance = report.ground_chance
    if chance is not None:
        return text + (f"; a jump from frame {chance.frame} (x={chance.x:.0f}) landed "
                       f"({', '.join(chance.plans)}); the agent pressed {chance.action}")
    return text + f", nor a jump in the {GROUND_SEARCH} decisions before the take-off"


def kind(report: DeathReport) -> str:
    """What a death's report comes to, for counting: the plans that landed
    at its last chance, or that none did."""
    if report.take_off_frame is None:
        return "on the ground"
    if report.last_chance is not None:
        return f"in the air, the last plan to land: {', '.join(report.last_chance.plans)}"
    if report.ground_chance is not None:
        return "no plan landed after the take-off; an earlier jump did"
    return "no plan landed"


def count_lines(ends: str, kinds: list[str]) -> list[str]:
    """"why the N ENDS:" (one end: its singular), then how many came to
    each of `kinds`, most first."""
    counts: dict[str, int] = {}
    for what in kinds:
        counts[what] = counts.get(what, 0) + 1
    lines = [f"why the {len(kinds)} {ends if len(kinds) != 1 else ends[:-1]}:"]
    for what, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        lines.append(f"  {n:4d}  {what}")
    return lines


def summary_lines(reports: list[DeathReport]) -> list[str]:
    """How many deaths came to each `kind`, most first."""
    return count_lines("deaths", [kind(report) for report in reports])

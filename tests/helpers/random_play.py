"""Random play stepped on both engines at once, for tests that compare an
observation frame by frame: from the start of a stage, or from players
thrown into the air at random."""
from __future__ import annotations

from collections.abc import Iterator

from speednik.engine import CompiledSim
from speednik.physics import InputState
from speednik.player import PlayerState
from speednik.simulation import SimState, create_sim, sim_step
from stage_fixtures import place

# (left, right, jump) a random player presses, mostly running right so
# that it meets pits and spikes.
BUTTONS = ((False, True, False), (False, True, True), (True, False, False),
           (False, False, True), (True, False, True))
WEIGHTS = (0.4, 0.3, 0.15, 0.1, 0.05)


def settled(stage) -> SimState:
    """A simulation of `stage` one idle frame in: the player stands on the
    ground at the start."""
    sim = create_sim(stage)
    sim_step(sim, InputState())
    return sim


def throw_at_random(stage, rng) -> SimState:
    """A settled simulation whose player is placed in the air at random:
    anywhere along the stage, high or low, fast up (as a red spring
    throws it) or down, jumping or rolling or neither."""
    sim = settled(stage)
    place(sim, float(rng.uniform(300, stage.width - 600)), float(rng.uniform(100, 650)),
          on_ground=False, x_vel=float(rng.uniform(-3, 8)), y_vel=float(rng.uniform(-16, 4)),
          jumping=bool(rng.random() < 0.5), is_rolling=bool(rng.random() < 0.5),
          facing_right=True)
    sim.player.state = PlayerState.AIRBORNE
    return sim


def play_both_engines(sim: SimState, rng, *, frames: int, hold: int,
                      until_landed: bool = False) -> Iterator[tuple[int, CompiledSim]]:
    """Steps `sim` and a compiled copy of it with the same random buttons,
    each held `hold` frames, for up to `frames` frames: yields (frame,
    the compiled copy) before each frame is played, when both hold the
    same state. Ends when the player dies or reaches the goal, and with
    `until_landed` when it comes down on the ground."""
    compiled = CompiledSim(sim)
    held = False
    for frame in range(frames):
        if frame % hold == 0:
            left, right, jump = BUTTONS[rng.choice(len(BUTTONS), p=WEIGHTS)]
        yield frame, compiled
        inp = InputState(left=left, right=right, jump_pressed=jump and not held, jump_held=jump)
        held = jump
        sim_step(sim, inp)
        compiled.step(inp)
        if sim.player_dead or sim.goal_reached or (until_landed and sim.player.physics.on_ground):
            return


def compare_in_random_play(sim: SimState, name: str, readable, *, every: int, seed: int,
                           frames: int = 1500) -> int:
    """Random buttons held `every` frames on both engines, observation
    `name` compared (compiled against `readable(sim)`) at each decision;
    gives the decisions compared."""
    return compare_each_in_random_play(sim, ((name, readable),), every=every, seed=seed,
                                       frames=frames)


def compare_each_in_random_play(sim: SimState, observations, *, every: int, seed: int,
                                frames: int = 1500) -> int:
    """compare_in_random_play for each (name, readable) of `observations`
    in turn at every decision, on one compiled sim: each reading must be
    its own whatever was observed before it. Gives the decisions compared."""
    import numpy as np

    rng = np.random.default_rng(seed)
    compared = 0
    for frame, compiled in play_both_engines(sim, rng, frames=frames, hold=every):
        if frame % every == 0:
            for name, readable in observations:
                np.testing.assert_array_equal(compiled.observe(name), readable(sim),
                                              err_msg=f"{name}, frame {frame}")
            compared += 1
    return compared

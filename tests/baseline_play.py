"""A baseline agent playing a stage in the readable simulation, frame by
frame: what observation tests read their values along."""
from __future__ import annotations

from collections.abc import Iterator

from runners.agents import make_baseline
from speednik.actions import action_to_input
from speednik.physics import InputState
from speednik.simulation import SimState, create_sim, sim_step


def baseline_frames(stage, agent: str = "jump-runner",
                    frames: int = 3600) -> Iterator[tuple[SimState, InputState]]:
    """(the simulation after the frame, the frame's input) for each frame
    the agent plays, until the player dies, reaches the goal or `frames`
    are played. The simulation is the same object throughout."""
    sim = create_sim(stage)
    player = make_baseline(agent)
    player.reset()
    held = False
    for _ in range(frames):
        inp, held = action_to_input(player.get_action(sim), held)
        sim_step(sim, inp)
        yield sim, inp
        if sim.player_dead or sim.goal_reached:
            return

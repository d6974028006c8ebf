"""A baseline agent playing a stage in the readable simulation, frame by
frame: what observation tests read their values along; and a hand-set
linear jumper played as whole episodes on both engines."""
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


def right_jumper(observation: str, jump_weights: dict[str, float]):
    """A linear genome over `observation`: run right (bias 1), or run
    right and jump (bias 0.5 plus `jump_weights`, by value name)."""
    import numpy as np

    from runners.linear import genome_size
    from speednik.actions import ACTION_RIGHT, ACTION_RIGHT_JUMP, NUM_ACTIONS
    from speednik.observation import get_observation

    names = list(get_observation(observation).feature_names)
    size = len(names)
    genome = np.zeros(genome_size(size))
    weights = genome[:NUM_ACTIONS * size].reshape(NUM_ACTIONS, size)
    bias = genome[NUM_ACTIONS * size:]
    bias[ACTION_RIGHT] = 1.0
    bias[ACTION_RIGHT_JUMP] = 0.5
    for name, weight in jump_weights.items():
        weights[ACTION_RIGHT_JUMP, names.index(name)] = weight
    return genome


def episodes_on_both_engines(observation: str, genome, seeds=(10000, 10001, 10002),
                             action_repeat: int = 1):
    """The linear `genome` over `observation` played on expert stages
    `seeds`, 1500 frames at most, deciding every `action_repeat` frames:
    (readable results, compiled results)."""
    from runners import RunnerConfig, run_episodes

    items = [(("linear", (observation, genome)), f"gen:expert:{seed}") for seed in seeds]
    config = RunnerConfig(max_steps=1500, action_repeat=action_repeat)
    return run_episodes(items, config), run_episodes(items, config, engine="compiled")


def tails_within_bounds(observation: str, tail: int, seeds=(202, 203)) -> set[tuple]:
    """Plays the jump-runner on expert stages `seeds`, asserting every
    value of `observation` within its Gymnasium bounds each frame; gives
    the distinct last `tail` values seen."""
    import numpy as np

    from speednik.observation import get_observation
    from speednik.stages import generate_stage

    enc = get_observation(observation)
    low = np.array([v.low for v in enc.values], np.float32)
    high = np.array([np.inf if v.high is None else v.high for v in enc.values], np.float32)
    seen = set()
    for seed in seeds:
        for sim, _ in baseline_frames(generate_stage(seed, "expert")):
            obs = enc(sim)
            assert np.all(obs >= low) and np.all(obs <= high)
            seen.add(tuple(obs[-tail:].tolist()))
    return seen


def play_plan(sim: SimState, plan: tuple[bool, bool, bool]) -> str:
    """What the real simulation does with a plan (left, right, jump held;
    jump pressed on the first frame when on the ground), for up to 200
    frames: 'landed' (the simulation left where it came down), 'fell' or
    'flying'."""
    left, right, jump = plan
    first = sim.player.physics.on_ground
    for frame in range(200):
        sim_step(sim, InputState(left=left, right=right, jump_held=jump,
                                 jump_pressed=first and frame == 0))
        if sim.player_dead:
            return "fell"
        if frame > 0 and sim.player.physics.on_ground:
            return "landed"
    return "flying"

"""`SpeednikEnv`: the game as a Gymnasium environment.

    import gymnasium, speednik.env
    env = gymnasium.make("speednik/Hillside-v0")
    obs, info = env.reset()
    obs, reward, terminated, truncated, info = env.step(2)   # hold right

`SpeednikEnv` plays one stage; its docstring documents the environment
(description, spaces, rewards, starting state, episode end, arguments,
version history). `GeneratedEnv` (`speednik/Generated-v0`) plays
generated stages, following Procgen's convention: `difficulty`,
`start_level` and `num_levels` name the stage seeds start_level ..
start_level + num_levels - 1, and every reset plays one of them drawn with
the environment's own random generator (so `reset(seed=...)` is
reproducible); `num_levels=0` means any seed.

    env = gymnasium.make("speednik/Generated-v0", difficulty="hard",
                         start_level=0, num_levels=32)

Importing this module registers the ids of `ENV_IDS` with Gymnasium;
`gymnasium.make("speednik.env:speednik/Hillside-v0")` imports it first.
`gymnasium.make_vec(id, num_envs=n)` gives the compiled batch of
`speednik.vector_env` for each of them.
"""
from __future__ import annotations

import os
from typing import Any, Mapping, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import logger, spaces

from speednik.actions import NUM_ACTIONS, action_to_input
from speednik.checks import positive_int
from speednik.constants import DEFAULT_MAX_STEPS
from speednik.observation import TIME_NORM, Value, get_observation, list_observations
from speednik.reward import CompositeReward, make_reward, default_reward
from speednik.simulation import SimState, create_sim, sim_step
from speednik.stages import DIFFICULTIES, Stage, generate_stage, load_stage
from speednik.tokens import TokenEncoder

TOKENS = "tokens"

# Gymnasium ids of the built-in stages.
ENV_IDS: dict[str, str] = {
    "speednik/Hillside-v0": "hillside",
    "speednik/Pipeworks-v0": "pipeworks",
    "speednik/Skybridge-v0": "skybridge",
}
GENERATED_ID = "speednik/Generated-v0"
# Seeds of generated stages are below this (num_levels=0 draws from all).
MAX_LEVEL_SEED = 2**31


def observation_space_for(values: tuple[Value, ...], max_steps: int) -> spaces.Box:
    """The float32 Box of an observation's values (their bounds are
    declared with them in `speednik.observation`) over episodes of
    `max_steps`: the game clock's bound is the episode's length."""
    low = np.array([v.low for v in values], dtype=np.float32)
    high = np.array([max_steps / TIME_NORM if v.high is None else v.high for v in values],
                    dtype=np.float32)
    return spaces.Box(low, high, dtype=np.float32)


class SpeednikEnv(gymnasium.Env):
    """One stage of Speednik, a Sonic-2-style platformer, as a Gymnasium environment.

    ## Description

    The player runs, rolls, jumps and spindashes left to right through a
    stage of slopes, loops, springs, pipes, enemies, spikes and pits
    towards a goal post. Every frame the agent picks one of eight button
    combinations; `sim_step` (`speednik.simulation`) plays the frame, the
    same function the evolution runners call, so a policy scores here what
    it scores there. The built-in stages are registered as
    `speednik/Hillside-v0`, `speednik/Pipeworks-v0` and
    `speednik/Skybridge-v0`; `speednik/Generated-v0` (`GeneratedEnv`)
    plays generated ones.

    ## Action Space

    `Discrete(8)`, the ids of `speednik.actions`:

    | id | name       | buttons     |
    |----|------------|-------------|
    | 0  | noop       | none        |
    | 1  | left       | left        |
    | 2  | right      | right       |
    | 3  | jump       | jump        |
    | 4  | left_jump  | left + jump |
    | 5  | right_jump | right + jump|
    | 6  | down       | down        |
    | 7  | down_jump  | down + jump |

    A jump action holds the jump button; the jump is pressed on the first
    step an action with jump follows one without (`action_to_input`).

    ## Observation Space

    A float32 Box of the named observation of `speednik.observation`, each
    value bounded by what it means (the bounds are declared with the
    values, so Gymnasium's `check_env` finds finite limits; the game clock
    `time`, frame / 3600, is bounded by max_steps / 3600):

    | observation | shape |
    |-------------|-------|
    | basic       | (12,) |
    | terrain     | (28,) |
    | hazards     | (38,) |
    | stall       | (39,) |
    | lookahead   | (49,) |
    | pits        | (55,) |
    | landing     | (60,) |
    | room        | (62,) |
    | footing     | (60,) |
    | local       | (55,) |
    | onward      | (55,) |
    | stride      | (55,) |
    | reach       | (55,) |
    | stand       | (55,) |
    | behind      | (61,) |
    | runup       | (56,) |
    | turnback    | (62,) |

    The 12 values of "basic" are x, y, x_vel, y_vel, on_ground,
    ground_speed, is_rolling, facing_right, angle, max_x, goal_dx and time.
    "tokens" is a uint8 Box of shape (200, 3) with bounds 0 and 255, the
    MettaGrid-style tokens of `speednik.tokens`.

    ## Rewards

    `speednik.reward`, by default its standard table (`DEFAULT_WEIGHTS`),
    summed every frame:

    | component | per frame                                              | weight |
    |-----------|--------------------------------------------------------|--------|
    | progress  | (new max_x - previous max_x) / level_width             | 10     |
    | speed     | abs(x_vel) / MAX_X_SPEED                               | 0.01   |
    | goal      | 10 + 5 * max(0, 1 - step / max_steps), goal frame only | 1      |
    | death     | -1 on the frame the player dies                        | 5      |
    | ring      | +1 per ring collected                                  | 0.1    |
    | time      | -1 every frame                                         | 0.001  |

    `reward` takes a mapping of component weights instead (components left
    out are not counted), or a `CompositeReward`, which the environment
    then owns: do not share one between environments.

    ## Starting State

    The player stands at the stage's start, at rest, with no rings; the
    stage is built once per environment and every reset starts from a copy
    of its pristine initial state. The game has no randomness: for one
    stage every episode starts the same, `seed` changes nothing but is
    accepted as Gymnasium requires, and `options` are ignored.
    `GeneratedEnv` draws the stage of each episode with its own generator.

    ## Episode End

    Terminated when the player reaches the goal or dies; truncated after
    `max_steps` steps (default 3600, one minute of game time at 60 frames
    a second). Both can be true on the same step. A step after the episode
    ended warns once, as Gymnasium's own environments do: reset() first.

    The info of every step: frame, x, y, max_x, rings (collected this
    episode), deaths, goal_reached; `GeneratedEnv`'s reset adds
    level_seed.

    ## Arguments

    `SpeednikEnv(stage, observation, max_steps, render_mode, reward)`:

    - `stage`: a built-in name (default "hillside"), a `.toml` profile path
      or a `Stage`;
    - `observation`: a name of `observation_names()` (default "basic");
    - `max_steps`: steps before truncation (default 3600);
    - `render_mode`: None or "rgb_array" (`render()` gives the frame as an
      RGB array);
    - `reward`: None (the standard table), a mapping of component weights
      or a `CompositeReward`.

    `GeneratedEnv(difficulty, start_level, num_levels, observation,
    max_steps, render_mode, reward)`: difficulty one of
    `speednik.stages.DIFFICULTIES` (default "medium"), stage seeds
    start_level .. start_level + num_levels - 1 (`num_levels=0`: any seed).

    ## Version History

    - v0: the first version.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 60}

    def __init__(self, stage: str | os.PathLike[str] | Stage = "hillside",
                 observation: str = "basic", max_steps: int = DEFAULT_MAX_STEPS,
                 render_mode: str | None = None,
                 reward: CompositeReward | Mapping[str, float] | None = None) -> None:
        max_steps = positive_int(max_steps, "max_steps")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"unknown render_mode {render_mode!r}: accepted are None, "
                f"{', '.join(map(repr, self.metadata['render_modes']))}")
        self.max_steps = max_steps
        self.render_mode = render_mode

        if isinstance(stage, (str, os.PathLike)):
            stage = load_stage(stage)
        elif not isinstance(stage, Stage):
            raise TypeError(
                f"stage must be a stage name, a profile path or a Stage, not "
                f"{type(stage).__name__}")
        self.stage = stage
        self._initial = create_sim(stage)
        self.level_seed: int | None = None

        self.observation_name = observation
        self.tokens: TokenEncoder | None = None
        if observation == TOKENS:
            self.tokens = TokenEncoder(max_steps=self.max_steps)
            self._encode = self.tokens.encode
            self.observation_space = spaces.Box(0, 255, self.tokens.shape, np.uint8)
        else:
            if observation not in list_observations():
                raise ValueError(
                    f"unknown observation {observation!r}: accepted names are "
                    f"{', '.join(map(repr, observation_names()))}")
            encoder = get_observation(observation)
            self._encode = encoder.fn
            self.observation_space = observation_space_for(encoder.values, self.max_steps)
        self.action_space = spaces.Discrete(NUM_ACTIONS)

        if reward is None:
            reward = default_reward(self.max_steps)
        elif isinstance(reward, Mapping):
            reward = make_reward(reward, self.max_steps)
        elif not isinstance(reward, CompositeReward):
            raise TypeError(
                "reward must be None, a CompositeReward or a mapping of component "
                f"weights, not {type(reward).__name__}")
        self.reward_fn = reward
        self._reward_step = reward.step

        self.sim: SimState | None = None
        self._jump_held = False
        self._steps = 0
        self._ended = False
        self._warned = False

    # -- the Gymnasium API --------------------------------------------------------

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.sim = sim = self._initial.copy()
        self._jump_held = False
        self._steps = 0
        self._ended = self._warned = False
        self.reward_fn.reset(sim)
        if self.tokens is not None:
            self.tokens.reset()
        return self._encode(sim), self._info(sim)

    def step(self, action: int) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        sim = self.sim
        if sim is None:
            raise RuntimeError("call reset() before step()")
        if self._ended and not self._warned:
            self._warned = True
            logger.warn(
                "You are calling 'step()' even though this environment has already "
                "returned terminated = True or truncated = True. You should always "
                "call 'reset()' once you receive 'terminated = True' or "
                "'truncated = True' -- any further steps are undefined behavior.")
        inp, self._jump_held = action_to_input(action, self._jump_held)
        events = sim_step(sim, inp)
        reward = self._reward_step(sim, events)
        self._steps = steps = self._steps + 1
        if self.tokens is not None:
            self.tokens.record(action, reward)
        p = sim.player.physics
        terminated = sim.goal_reached or sim.player_dead
        truncated = steps >= self.max_steps
        self._ended = terminated or truncated
        # The info dict is spelled out rather than built by _info: this is
        # the hot path, and a call costs as much as the dict.
        return (
            self._encode(sim), reward, terminated, truncated,
            {"frame": sim.frame, "x": p.x, "y": p.y, "max_x": sim.max_x_reached,
             "rings": sim.rings_collected, "deaths": sim.deaths,
             "goal_reached": sim.goal_reached},
        )

    def render(self) -> np.ndarray | None:
        if self.render_mode != "rgb_array":
            return None
        from speednik.render import render_frame
        sim = self.sim if self.sim is not None else self._initial
        return render_frame(sim)

    def close(self) -> None:
        pass

    # -- state ----------------------------------------------------------------------

    @property
    def steps(self) -> int:
        """Steps taken since the last reset."""
        return self._steps

    @staticmethod
    def _info(sim: SimState) -> dict[str, Any]:
        p = sim.player.physics
        return {"frame": sim.frame, "x": p.x, "y": p.y, "max_x": sim.max_x_reached,
                "rings": sim.rings_collected, "deaths": sim.deaths,
                "goal_reached": sim.goal_reached}


def check_levels(difficulty: str, start_level: int, num_levels: int) -> None:
    """Refuse a Procgen-style choice of generated stages that names no
    difficulty or no valid seeds, saying what is accepted."""
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"unknown difficulty {difficulty!r}: accepted are "
                         f"{', '.join(map(repr, DIFFICULTIES))}")
    for name, value in (("start_level", start_level), ("num_levels", num_levels)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"{name} must be a whole number >= 0, got {value!r}")
    if start_level + num_levels > MAX_LEVEL_SEED:
        raise ValueError(f"start_level + num_levels must be at most "
                         f"{MAX_LEVEL_SEED}, got {start_level + num_levels}")


class GeneratedEnv(SpeednikEnv):
    """Generated stages, one drawn per reset; see the module docstring."""

    def __init__(self, difficulty: str = "medium", start_level: int = 0,
                 num_levels: int = 0, observation: str = "basic",
                 max_steps: int = DEFAULT_MAX_STEPS, render_mode: str | None = None,
                 reward: CompositeReward | Mapping[str, float] | None = None) -> None:
        check_levels(difficulty, start_level, num_levels)
        self.difficulty = difficulty
        self.start_level = int(start_level)
        self.num_levels = int(num_levels)
        super().__init__(generate_stage(self.start_level, difficulty), observation,
                         max_steps, render_mode, reward)

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        gymnasium.Env.reset(self, seed=seed)
        if self.num_levels == 0:
            level = int(self.np_random.integers(0, MAX_LEVEL_SEED))
        else:
            level = self.start_level + int(self.np_random.integers(0, self.num_levels))
        if level != self.level_seed:
            self.stage = generate_stage(level, self.difficulty)
            self._initial = create_sim(self.stage)
            self.level_seed = level
        obs, info = super().reset()
        info["level_seed"] = level
        return obs, info


def observation_names() -> tuple[str, ...]:
    """Every `observation` the environment accepts."""
    return list_observations() + (TOKENS,)


def register_envs() -> None:
    """Register the built-in stages with Gymnasium (once; repeats are no-ops)."""
    from gymnasium.envs.registration import register, registry
    for env_id, stage in ENV_IDS.items():
        if env_id not in registry:
            register(id=env_id, entry_point="speednik.env:SpeednikEnv",
                     vector_entry_point="speednik.vector_env:make_vector_env",
                     kwargs={"stage": stage})
    if GENERATED_ID not in registry:
        register(id=GENERATED_ID, entry_point="speednik.env:GeneratedEnv",
                 vector_entry_point="speednik.vector_env:GeneratedVectorEnv")


# Importing this module is enough to make the ids available.
register_envs()

"""`SpeednikVectorEnv`: many episodes of the game stepped together by the
compiled engine, one call for all of them per decision, as a Gymnasium
`VectorEnv` that any reinforcement-learning library can drive.

    import gymnasium, speednik.env
    envs = gymnasium.make_vec("speednik/Generated-v0", num_envs=64,
                              difficulty="hard", start_level=0, num_levels=32)
    obs, info = envs.reset(seed=0)
    obs, rewards, terminated, truncated, info = envs.step(envs.action_space.sample())

`gymnasium.make_vec` gives this environment for every id of
`speednik.env` (`speednik/Hillside-v0` and the other built-in stages,
`speednik/Generated-v0`), as EnvPool and Procgen give theirs;
`vectorization_mode="sync"` still gives Gymnasium's `SyncVectorEnv` of
`SpeednikEnv`s. Each sub-environment plays exactly the episodes of the
single environment, `SpeednikEnv` or `GeneratedEnv`, that
`SyncVectorEnv` would hold with the same arguments and seeds:
observations, rewards, terminated and truncated are equal (`==` on
floats), and so are the infos.

## Action Space

`MultiDiscrete([8] * num_envs)`: one action of `speednik.actions` for
each sub-environment (`single_action_space` is `Discrete(8)`). Jump is
pressed on the first frame an action with jump follows one without, as
`action_to_input` does it. With `action_repeat=k` an action is held for
k frames.

## Observation Space

A float32 Box of shape `(num_envs, size)`: the named observation of the
compiled engine (`speednik.engine.observation.OBSERVATION_KINDS`:
"basic", 12 values, "terrain", 28, ... see `speednik.observation`), with
the single environment's bounds (`single_observation_space`). The
"tokens" observation has no compiled twin and is not offered.

## Rewards

`speednik.reward`, by default its standard table (`DEFAULT_WEIGHTS`:
progress, speed, goal, death, ring, time), or a mapping of component
weights as `make_reward` takes it, computed by the compiled engine
(`speednik.engine.reward`). With `action_repeat=k` a step's reward is
the sum of its frames' rewards, added in frame order.

## Episode End

Terminated when the player reaches the goal or dies; truncated after
`max_steps` frames (default 3600) and, when `stall_frames` is given,
after that many frames without a new best x (evolution's "stalled"
end; by default there is none, as in the single environment). Both can
be true on the same step. With `action_repeat=k` an episode ends on the
frame it ends on, within a decision.

Autoreset (https://farama.org/Vector-Autoreset-Mode) follows
`autoreset_mode`, by default `AutoresetMode.NEXT_STEP`: the step after
a sub-environment's episode ended resets it, ignores its action and
returns its first observation with reward 0 and terminated and
truncated False. `SAME_STEP` resets it within the step that ended the
episode and returns the first observation of the next one, the last
one in `info["final_obs"]` and the ending step's info in
`info["final_info"]`. `DISABLED` never resets: call
`reset(options={"reset_mask": ended})`.

Each reset of a sub-environment draws the stage of its episode with the
sub-environment's own generator, Procgen style: `reset(seed=s)` seeds
sub-environment i with s + i (a list gives one seed each), as
`SyncVectorEnv` does; resets after that, automatic or not, go on
drawing from it. The same seed gives the same episodes.

## Arguments

`SpeednikVectorEnv(num_envs, stages, observation, max_steps, reward,
action_repeat, stall_frames, autoreset_mode, threads)`:

- `num_envs`: how many sub-environments (>= 1);
- `stages`: a stage named as everywhere (a built-in name, a `.toml`
  profile path, a generated set `gen:DIFFICULTY:SEEDS`, a hand-made set
  `handmade:validation`, `handmade:extra` or `handmade:heldout`) or a `Stage`, or
  a sequence of these; each episode plays one of them, drawn uniformly;
- `observation`: one of `OBSERVATION_KINDS` (default "basic");
- `max_steps`: frames before truncation (default 3600);
- `reward`: None (the standard table) or a mapping of component weights;
- `action_repeat`: frames each action is held for (default 1);
- `stall_frames`: None (default) or frames without a new best x before
  truncation, as evolution's episodes end (`--stall-frames`, 300 there);
- `autoreset_mode`: an `AutoresetMode` or its value ("NextStep",
  "SameStep", "Disabled");
- `threads`: how many threads step slices of the batch at once (default
  1); the numbers do not depend on it.

`GeneratedVectorEnv(num_envs, difficulty, start_level, num_levels, ...)`
draws generated stages as `GeneratedEnv` does: seeds start_level ..
start_level + num_levels - 1 (`num_levels=0`: any seed), reporting the
drawn seed as `info["level_seed"]` on each reset. A stage list of more
than one stage reports its index in `stage_names` as
`info["stage_index"]`.

The info of every step holds the single environment's: frame, x, y,
max_x, rings, deaths, goal_reached, each an array over the
sub-environments with its `_key` mask.

The first use of an observation compiles the kernel for it
(`speednik.engine.vector.stepper`) and caches it beside the engine's
sources, as the rest of the engine is; later processes load it.
"""
from __future__ import annotations

import os
from typing import Any, Mapping, Sequence

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from speednik.actions import NUM_ACTIONS
from speednik.checks import positive_int
from speednik.constants import DEFAULT_MAX_STEPS
from speednik.engine.layout import EVENT_WIDTH, MAX_EVENTS, NUM_F, NUM_S
from speednik.engine.lowering import compiled_stage, start_arrays
from speednik.engine.observation import (
    OBS_SIZES,
    OBS_WIDEST,
    OBSERVATION_KINDS,
    flight_scratch,
)
from speednik.engine.reward import R_SUMS, reward_arrays
from speednik.engine.stage_list import put_stage, stage_list
from speednik.engine.vector import (
    ACTIONS_OK,
    AUTORESET_DISABLED,
    AUTORESET_NEXT_STEP,
    AUTORESET_SAME_STEP,
    C_NEXT,
    C_SLOT,
    INFO_FLOAT_KEYS,
    INFO_INT_KEYS,
    K_MAX_STEPS,
    K_MODE,
    K_REPEAT,
    K_STALL,
    NUM_C,
    NUM_K,
    stepper,
)
from speednik.env import MAX_LEVEL_SEED, check_levels, observation_space_for
from speednik.observation import get_observation
from speednik.reward import DEFAULT_WEIGHTS, make_reward
from speednik.stages import Stage, expand_stages, generate_stage, load_stage

AUTORESET_CODES = {
    AutoresetMode.NEXT_STEP: AUTORESET_NEXT_STEP,
    AutoresetMode.SAME_STEP: AUTORESET_SAME_STEP,
    AutoresetMode.DISABLED: AUTORESET_DISABLED,
}
# A stall limit no episode reaches: no stall end.
NEVER = 2**62
# Stages whose lowered arrays and start a generated environment keeps
# at once beyond those its sub-environments play.
KEPT_STARTS = 256


def autoreset_mode_of(mode: AutoresetMode | str) -> AutoresetMode:
    """`mode` as an `AutoresetMode` (the enum or its value)."""
    if isinstance(mode, AutoresetMode):
        return mode
    for known in AutoresetMode:
        if mode == known.value:
            return known
    raise ValueError(f"unknown autoreset_mode {mode!r}: accepted are "
                     f"{', '.join(repr(m.value) for m in AutoresetMode)} "
                     "or an AutoresetMode")


def _weights(reward: Mapping[str, float] | None, max_steps: int) -> tuple:
    if reward is None:
        return tuple(DEFAULT_WEIGHTS.items())
    if not isinstance(reward, Mapping):
        raise TypeError("reward must be None or a mapping of component weights "
                        f"(names of speednik.reward's components), not "
                        f"{type(reward).__name__}")
    make_reward(reward, max_steps)   # its checks, its messages
    return tuple((name, float(w)) for name, w in reward.items())


class SpeednikVectorEnv(VectorEnv):
    """Sub-environments playing stages drawn from a list; see the module
    docstring."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1,
                 stages: str | os.PathLike[str] | Stage | Sequence = "hillside",
                 observation: str = "basic", max_steps: int = DEFAULT_MAX_STEPS,
                 reward: Mapping[str, float] | None = None, action_repeat: int = 1,
                 stall_frames: int | None = None,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                 threads: int = 1) -> None:
        self._stages = self._stage_list(stages)
        self.stage_names = tuple(s.name for s in self._stages)
        self._setup(num_envs, observation, max_steps, reward, action_repeat, stall_frames,
                    autoreset_mode, threads, self._stages[0])

    @staticmethod
    def _stage_list(stages) -> list[Stage]:
        if isinstance(stages, (str, os.PathLike, Stage)):
            stages = [stages]
        elif not isinstance(stages, Sequence):
            raise TypeError("stages must be a stage name, a profile path, a Stage or a "
                            f"sequence of them, not {type(stages).__name__}")
        if len(stages) == 0:
            raise ValueError("stages is empty: accepted are one or more stages")
        out: list[Stage] = []
        for s in stages:
            if isinstance(s, Stage):
                out.append(s)
            elif isinstance(s, (str, os.PathLike)):
                out.extend(load_stage(name) for name in expand_stages([os.fspath(s)]))
            else:
                raise TypeError("each stage must be a stage name, a profile path or a "
                                f"Stage, not {type(s).__name__}")
        return out

    # -- set-up ---------------------------------------------------------------------

    def _setup(self, num_envs, observation, max_steps, reward, action_repeat,
               stall_frames, autoreset_mode, threads, first: Stage) -> None:
        n = self.num_envs = positive_int(num_envs, "num_envs")
        self.threads = min(positive_int(threads, "threads"), n)
        self.max_steps = positive_int(max_steps, "max_steps")
        self.action_repeat = positive_int(action_repeat, "action_repeat")
        self.stall_frames = (None if stall_frames is None
                             else positive_int(stall_frames, "stall_frames"))
        if observation not in OBSERVATION_KINDS:
            raise ValueError(
                f"unknown observation {observation!r} for the vector environment: "
                f"accepted names are {', '.join(map(repr, OBSERVATION_KINDS))}")
        mode = autoreset_mode_of(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": mode}
        self.autoreset_mode = mode
        self.observation_name = observation
        pairs = _weights(reward, self.max_steps)
        self.reward_weights = dict(pairs)
        self._ids, self._weights, self._constant = reward_arrays(pairs)

        kind = OBSERVATION_KINDS.index(observation)
        size = OBS_SIZES[kind]
        self.single_observation_space = observation_space_for(
            get_observation(observation).values, self.max_steps)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)

        self._step_envs = stepper(kind)
        self._config = np.zeros(NUM_K, np.int64)
        self._config[K_MODE] = AUTORESET_CODES[mode]
        self._config[K_MAX_STEPS] = self.max_steps
        self._config[K_STALL] = NEVER if self.stall_frames is None else self.stall_frames
        self._config[K_REPEAT] = self.action_repeat

        self._starts: dict[Any, tuple] = {}
        # Two stage slots per sub-environment: the one it plays and the one
        # drawn for its next episode.
        lowered, f0, s0, width = self._start_of(None, first)
        self._lowered = stage_list([lowered] * (2 * n))
        self._start_f = np.tile(f0, (2 * n, 1))
        self._start_s = np.tile(s0, (2 * n, 1))
        self._ctrl = np.zeros((n, NUM_C), np.int64)
        self._ctrl[:, C_SLOT] = 2 * np.arange(n)
        self._ctrl[:, C_NEXT] = 2 * np.arange(n) + 1
        self._f = np.zeros((n, NUM_F), np.float64)
        self._s = np.zeros((n, NUM_S), np.int64)
        self._gone = np.zeros((n, max(width, 1)), np.uint8)
        # An episode's flight_scratch, a row per sub-environment.
        self._flights = tuple(
            np.zeros((n,) + a.shape, a.dtype)
            for a in flight_scratch(np.zeros(NUM_F), np.zeros(NUM_S, np.int64)))
        self._rstate = np.zeros((n, R_SUMS + len(self._ids)), np.float64)
        self._scratch = np.zeros((n, OBS_WIDEST), np.float32)
        self._events = np.zeros((n, MAX_EVENTS, EVENT_WIDTH), np.float64)
        self._obs = np.zeros((n, size), np.float32)
        self._rewards = np.zeros(n, np.float64)
        self._terminated = np.zeros(n, np.bool_)
        self._truncated = np.zeros(n, np.bool_)
        self._started = np.zeros(n, np.bool_)
        # A row per sub-environment, as every array the kernel is given,
        # so that a slice of the batch is of the same types as the whole.
        self._info_f = np.zeros((n, len(INFO_FLOAT_KEYS)), np.float64)
        self._info_i = np.zeros((n, len(INFO_INT_KEYS)), np.int64)
        self._final_obs = np.zeros((n, size), np.float32)
        self._final_info_f = np.zeros_like(self._info_f)
        self._final_info_i = np.zeros_like(self._info_i)
        self._no_reset = np.zeros(n, np.bool_)
        self._no_actions = np.zeros(n, np.int64)

        self._rngs: list[np.random.Generator | None] = [None] * n
        self._keys: list[Any] = [None] * n        # what each episode plays
        self._next_keys: list[Any] = [None] * n   # what each next episode plays
        self._was_reset = False
        self.closed = False
        self._pool = None
        self._chunks: list[list] | None = None

    # -- what the sub-environments play -------------------------------------------

    def _draw(self, rng: np.random.Generator) -> Any:
        """The key of a drawn stage: its index in the list."""
        return int(rng.integers(0, len(self._stages))) if len(self._stages) > 1 else 0

    def _stage(self, key: Any) -> Stage:
        return self._stages[key]

    def _reset_info(self) -> tuple[str, type] | None:
        """(name, dtype) of the info that says what a reset drew, or None."""
        return ("stage_index", np.int64) if len(self._stages) > 1 else None

    def _start_of(self, key: Any, stage: Stage) -> tuple:
        """The lowered stage, its start state and its gone width."""
        cache = self._starts
        found = cache.get(key) if key is not None else None
        if found is None:
            f0, s0, gone = start_arrays(stage)
            found = (compiled_stage(stage), f0, s0, len(gone))
            if key is not None:
                if len(cache) >= KEPT_STARTS + len(self._stages):
                    cache.clear()
                cache[key] = found
        return found

    def _draw_next(self, i: int) -> None:
        """Draw sub-environment i's next stage into its free slot."""
        key = self._draw(self._rngs[i])
        lowered, f0, s0, width = self._start_of(key, self._stage(key))
        slot = 2 * i + (1 - (int(self._ctrl[i, C_SLOT]) - 2 * i))
        put_stage(self._lowered, slot, lowered)
        self._start_f[slot] = f0
        self._start_s[slot] = s0
        if width > self._gone.shape[1]:
            wider = np.zeros((self.num_envs, width), np.uint8)
            wider[:, :self._gone.shape[1]] = self._gone
            self._gone = wider
            self._chunks = None
        self._ctrl[i, C_NEXT] = slot
        self._next_keys[i] = key

    # -- the Gymnasium API --------------------------------------------------------

    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        n = self.num_envs
        if seed is None:
            seeds: list = [None] * n
        elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            super().reset(seed=int(seed))
            seeds = [int(seed) + i for i in range(n)]
        else:
            seeds = list(seed)
            if len(seeds) != n:
                raise ValueError(f"a list of seeds needs one per sub-environment, "
                                 f"{n}, got {len(seeds)}")
        mask = np.ones(n, np.bool_)
        if options is not None and "reset_mask" in options:
            mask = options["reset_mask"]
            if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ \
                    or mask.shape != (n,):
                raise ValueError(f"options['reset_mask'] must be a numpy bool array of "
                                 f"shape ({n},), got {mask!r}")
            if not mask.any():
                raise ValueError("options['reset_mask'] must have at least one True value")
            if not self._was_reset and not mask.all():
                raise ValueError("the first reset() resets every sub-environment: "
                                 "no reset_mask, or one all True")
        for i in np.flatnonzero(mask):
            if seeds[i] is not None or self._rngs[i] is None:
                self._rngs[i] = seeding.np_random(seeds[i])[0]
                self._draw_next(i)
        self._call(False, self._no_actions, mask)
        self._was_reset = True
        return self._obs.copy(), self._info(mask)

    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                     dict[str, Any]]:
        if not self._was_reset:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be {self.num_envs} integers from 0 to {NUM_ACTIONS - 1} "
                f"(one per sub-environment), got {actions.dtype} of shape {actions.shape}")
        self._call(True, np.ascontiguousarray(actions, np.int64), self._no_reset)
        infos = self._info(None)
        if self.autoreset_mode is AutoresetMode.SAME_STEP:
            ended = self._started
            if ended.any():
                final_obs = np.full(self.num_envs, None, dtype=object)
                for i in np.flatnonzero(ended):
                    final_obs[i] = self._final_obs[i].copy()
                infos["final_obs"] = final_obs
                infos["_final_obs"] = ended.copy()
                infos["final_info"] = self._info_of(self._final_info_f,
                                                    self._final_info_i, ended)
                infos["_final_info"] = ended.copy()
        return (self._obs.copy(), self._rewards.copy(), self._terminated.copy(),
                self._truncated.copy(), infos)

    def _arrays(self, a: int, b: int) -> list:
        """The kernel's arguments for sub-environments a to b - 1, with
        None where the call's own go (stepping, actions, reset_mask)."""
        return [self._lowered, self._start_f, self._start_s, self._ctrl[a:b], self._f[a:b],
                self._s[a:b], self._gone[a:b], tuple(x[a:b] for x in self._flights),
                self._rstate[a:b], self._scratch[a:b], self._events[a:b], self._ids,
                self._weights, self._constant, self._config, None, None, None,
                self._obs[a:b], self._rewards[a:b], self._terminated[a:b],
                self._truncated[a:b], self._started[a:b], self._info_f[a:b],
                self._info_i[a:b], self._final_obs[a:b], self._final_info_f[a:b],
                self._final_info_i[a:b]]

    def _call(self, stepping: bool, actions: np.ndarray, mask: np.ndarray) -> None:
        if self.threads == 1:
            bad = self._step_envs(self._lowered, self._start_f, self._start_s, self._ctrl,
                                  self._f, self._s, self._gone, self._flights,
                                  self._rstate, self._scratch, self._events, self._ids,
                                  self._weights, self._constant, self._config, stepping,
                                  actions, mask,
                                  self._obs, self._rewards, self._terminated,
                                  self._truncated, self._started, self._info_f,
                                  self._info_i, self._final_obs, self._final_info_f,
                                  self._final_info_i)
        else:
            # Every action checked before any is played, as one call does.
            bad = ACTIONS_OK
            if stepping and (actions.min() < 0 or actions.max() >= NUM_ACTIONS):
                bad = int(np.flatnonzero((actions < 0) | (actions >= NUM_ACTIONS))[0])
            else:
                self._call_threads(stepping, actions, mask)
        if bad != ACTIONS_OK:
            raise ValueError(f"action {int(actions[bad])} of sub-environment {bad} is out "
                             f"of range: accepted are 0 to {NUM_ACTIONS - 1}")
        started = self._started
        if started.any():
            for i in np.flatnonzero(started):
                self._keys[i] = self._next_keys[i]
                self._draw_next(i)

    def _call_threads(self, stepping: bool, actions: np.ndarray, mask: np.ndarray) -> None:
        """The kernel on `threads` slices of the batch at once (it runs
        without the GIL); the same numbers as one call."""
        if self._chunks is None:
            from concurrent.futures import ThreadPoolExecutor

            edges = np.linspace(0, self.num_envs, self.threads + 1).astype(int)
            self._chunks = [(a, b, self._arrays(a, b)) for a, b in zip(edges, edges[1:])]
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.threads - 1,
                                                thread_name_prefix="speednik-vector")
        calls = []
        for a, b, args in self._chunks:
            args[15], args[16], args[17] = stepping, actions[a:b], mask[a:b]
            calls.append(args)
        waiting = [self._pool.submit(self._step_envs, *args) for args in calls[1:]]
        self._step_envs(*calls[0])
        for future in waiting:
            future.result()

    def _info(self, rows: np.ndarray | None) -> dict[str, Any]:
        """The infos of the sub-environments in `rows` (None: all), with
        what each one that started an episode drew."""
        infos = self._info_of(self._info_f, self._info_i, rows)
        drawn = self._reset_info()
        started = self._started
        if drawn is not None and started.any():
            name, dtype = drawn
            values = np.zeros(self.num_envs, dtype)
            for i in np.flatnonzero(started):
                values[i] = self._keys[i]
            infos[name] = values
            infos["_" + name] = started.copy()
        return infos

    def _info_of(self, info_f: np.ndarray, info_i: np.ndarray,
                 rows: np.ndarray | None) -> dict[str, Any]:
        infos: dict[str, Any] = {}
        every = rows is None or rows.all()
        mask = np.ones(self.num_envs, np.bool_) if every else rows
        # One copy each, a key to a row: each key's values lie together.
        for table, keys in ((info_f.T.copy(), INFO_FLOAT_KEYS),
                            (info_i.T.copy(), INFO_INT_KEYS)):
            for values, key in zip(table, keys):
                infos[key] = values.copy() if every else np.where(rows, values, 0)
                infos["_" + key] = mask.copy()
        infos["goal_reached"] = infos["goal_reached"].astype(np.bool_)
        return infos

    def close_extras(self, **kwargs: Any) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        self._chunks = None

    # -- state ----------------------------------------------------------------------

    @property
    def steps(self) -> np.ndarray:
        """Frames each sub-environment has played since its reset."""
        from speednik.engine.vector import C_STEPS
        return self._ctrl[:, C_STEPS].copy()

    @property
    def episode_stages(self) -> tuple[Stage, ...]:
        """The stage each sub-environment's episode plays."""
        return tuple(self._stage(k) for k in self._keys)

    # The arrays that, with the generators and the stages drawn, are
    # everything the sub-environments are between two steps.
    _STATE_ARRAYS = ("_ctrl", "_f", "_s", "_gone", "_rstate", "_scratch", "_events", "_obs",
                     "_rewards", "_terminated", "_truncated", "_started", "_info_f",
                     "_info_i", "_final_obs", "_final_info_f", "_final_info_i")

    def get_state(self) -> dict[str, Any]:
        """Everything the sub-environments are between two steps, episodes
        in flight included, as data: `{"arrays": name -> ndarray, "meta":
        JSON-ready dict}`. `set_state` on an environment made with the same
        arguments continues exactly as this one would."""
        # Not the flights' scratch: it only remembers flights already played
        # (each a function of the player's state) so as not to play them
        # again, and an environment goes on alike with it empty.
        arrays = {name[1:]: getattr(self, name).copy() for name in self._STATE_ARRAYS}
        meta = {"num_envs": self.num_envs, "was_reset": self._was_reset,
                "keys": [None if k is None else int(k) for k in self._keys],
                "next_keys": [None if k is None else int(k) for k in self._next_keys],
                "generators": [None if r is None else _generator_state(r)
                               for r in self._rngs]}
        return {"arrays": arrays, "meta": meta}

    def set_state(self, state: Mapping[str, Any]) -> None:
        """Continue from what `get_state` gave; ValueError naming what does
        not fit this environment."""
        try:
            arrays, meta = state["arrays"], state["meta"]
            n = int(meta["num_envs"])
            keys, next_keys, generators = meta["keys"], meta["next_keys"], meta["generators"]
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a vector environment's state ({exc})") from None
        if n != self.num_envs or not (len(keys) == len(next_keys) == len(generators) == n):
            raise ValueError(f"the state holds {n} sub-environments, this environment "
                             f"{self.num_envs}")
        for name in (name[1:] for name in self._STATE_ARRAYS):
            ours = self._gone if name == "gone" else getattr(self, "_" + name)
            theirs = np.asarray(arrays.get(name))
            fits = theirs.dtype == ours.dtype and (
                theirs.shape[0] == n if name == "gone" else theirs.shape == ours.shape)
            if not fits:
                raise ValueError(f"the state's {name} is not a {ours.dtype} array of shape "
                                 f"{ours.shape}")
        for name in self._STATE_ARRAYS:
            setattr(self, name, np.array(arrays[name[1:]]))
        # Nothing played is remembered (a state may hold what an engine
        # of another layout remembered: it is not read).
        self._flights = tuple(np.zeros_like(a) for a in self._flights)
        self._was_reset = bool(meta["was_reset"])
        self._keys = list(keys)
        self._next_keys = list(next_keys)
        self._rngs = [None if g is None else _generator_from(g) for g in generators]
        # Each sub-environment's two stage slots: the one it plays and the
        # one drawn for its next episode.
        from speednik.engine.vector import C_NEXT, C_SLOT
        for i in range(n):
            for column, key in ((C_SLOT, self._keys[i]), (C_NEXT, self._next_keys[i])):
                if key is None:
                    continue
                lowered, f0, s0, _ = self._start_of(key, self._stage(key))
                slot = int(self._ctrl[i, column])
                put_stage(self._lowered, slot, lowered)
                self._start_f[slot] = f0
                self._start_s[slot] = s0
        self._chunks = None


class GeneratedVectorEnv(SpeednikVectorEnv):
    """Generated stages, one drawn per reset of each sub-environment, as
    `GeneratedEnv` draws them; see the module docstring."""

    def __init__(self, num_envs: int = 1, difficulty: str = "medium", start_level: int = 0,
                 num_levels: int = 0, observation: str = "basic",
                 max_steps: int = DEFAULT_MAX_STEPS,
                 reward: Mapping[str, float] | None = None, action_repeat: int = 1,
                 stall_frames: int | None = None,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                 threads: int = 1) -> None:
        check_levels(difficulty, start_level, num_levels)
        self.difficulty = difficulty
        self.start_level = int(start_level)
        self.num_levels = int(num_levels)
        self._stages = []
        self.stage_names = ()
        self._setup(num_envs, observation, max_steps, reward, action_repeat, stall_frames,
                    autoreset_mode, threads, generate_stage(self.start_level, difficulty))

    def _draw(self, rng: np.random.Generator) -> int:
        """A level seed, as GeneratedEnv.reset draws it."""
        if self.num_levels == 0:
            return int(rng.integers(0, MAX_LEVEL_SEED))
        return self.start_level + int(rng.integers(0, self.num_levels))

    def _stage(self, key: int) -> Stage:
        return generate_stage(key, self.difficulty)

    def _reset_info(self) -> tuple[str, type] | None:
        return ("level_seed", np.int64)


def _generator_state(rng: np.random.Generator) -> dict:
    """A generator's state as JSON data (its big integers exact)."""
    bits = rng.bit_generator.state
    return {"bit_generator": bits["bit_generator"],
            "state": {k: int(v) for k, v in bits["state"].items()},
            "has_uint32": int(bits["has_uint32"]), "uinteger": int(bits["uinteger"])}


def _generator_from(state: Mapping[str, Any]) -> np.random.Generator:
    rng = seeding.np_random(0)[0]
    rng.bit_generator.state = {**state, "state": dict(state["state"])}
    return rng


def make_vector_env(num_envs: int = 1, stage: str | os.PathLike[str] | Stage = "hillside",
                    **kwargs: Any) -> SpeednikVectorEnv:
    """The vector entry point of the single-stage ids (`speednik.env.ENV_IDS`),
    whose registered keyword is `stage`."""
    stages = kwargs.pop("stages", stage)
    return SpeednikVectorEnv(num_envs, stages, **kwargs)

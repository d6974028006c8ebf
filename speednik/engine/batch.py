"""`run_policy_batch`: many policy episodes, on many stages, in one call
to compiled code spread over threads."""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Sequence

import numba
import numpy as np

from speednik.constants import DEFAULT_MAX_STEPS
from speednik.engine.episode import (
    NUM_FLOAT_RESULTS,
    NUM_INT_RESULTS,
    R_DEATH_CAUSE,
    R_DEATHS,
    R_DONE,
    R_FINAL_X,
    R_FINAL_Y,
    R_FRAMES,
    R_GOAL,
    R_MAX_X,
    R_RINGS,
    R_SIM_FRAME,
    R_TOTAL,
    batch_runner,
)
from speednik.engine.layout import DONE_NAMES, NUM_F, NUM_S
from speednik.engine.lowering import compiled_stage, death_cause_name, state_arrays
from speednik.engine.observation import OBS_SIZES, OBSERVATION_KINDS
from speednik.engine.policy import POLICY_KINDS, linear_size, mlp_size, rnn_size
from speednik.engine.reward import reward_arrays
from speednik.engine.stage_list import stage_list
from speednik.actions import NUM_ACTIONS
from speednik import gp_program, neat_genome
from speednik.neat_genome import encoded_size
from speednik.reward import DEFAULT_WEIGHTS
from speednik.signals import signals_held


@dataclass(frozen=True)
class BatchResults:
    """Per episode, in the order given: what an `EpisodeResult` holds
    apart from the trajectory. `death_cause` is what killed the player
    (a `speednik.events.CAUSES` name), None where it lived.
    `reward_components` maps each component of the composition to its
    per-episode sums."""

    total_reward: np.ndarray
    steps: np.ndarray
    done_reason: tuple[str, ...]
    max_x: np.ndarray
    final_x: np.ndarray
    final_y: np.ndarray
    rings: np.ndarray
    goal_reached: np.ndarray
    sim_frame: np.ndarray
    deaths: np.ndarray
    death_cause: tuple[str | None, ...]
    reward_components: dict[str, np.ndarray]

    def __len__(self) -> int:
        return len(self.steps)


# Numba's default threading layer (workqueue) is not safe to enter from two
# threads at once (a Dask worker with several threads would): batches take
# turns.
_PARALLEL_REGION = threading.Lock()


def max_threads() -> int:
    """The most threads the engine can use in this process."""
    return int(numba.config.NUMBA_NUM_THREADS)


def initial_state(stage) -> tuple[np.ndarray, np.ndarray]:
    """The (f, s) state arrays of a new game on `stage` (read-only), made
    once per stage and kept: a new game takes about a millisecond to set
    up, and a run's batches start thousands on the same few hundred
    stages."""
    return stage.derive("initial_state", _new_game_state)


def _new_game_state(stage) -> tuple[np.ndarray, np.ndarray]:
    from speednik.simulation import create_sim

    f, s = state_arrays(create_sim(stage))
    f.setflags(write=False)
    s.setflags(write=False)
    return f, s


def _stage_data(stages: Sequence) -> tuple:
    initial_f = np.zeros((len(stages), NUM_F), np.float64)
    initial_s = np.zeros((len(stages), NUM_S), np.int64)
    for k, stage in enumerate(stages):
        initial_f[k], initial_s[k] = initial_state(stage)
    return stage_list(map(compiled_stage, stages)), initial_f, initial_s


def run_policy_batch(stages: Sequence, episode_stage, episode_params, params, *,
                     policy: str = "linear", hidden: int | None = None,
                     observation: str = "basic",
                     reward: Sequence[tuple[str, float]] | None = None,
                     max_steps: int = DEFAULT_MAX_STEPS,
                     stall_frames: int | None = None, action_repeat: int = 1,
                     threads: int | None = None) -> BatchResults:
    """Episode e plays `stages[episode_stage[e]]` with policy parameters
    `params[episode_params[e]]`.

    - `stages`: built `Stage`s;
    - `params`: (n, size) float64, one row per genome;
    - `policy`: "linear", or "mlp" or "rnn" with `hidden` units, or "neat": each
      row a network (`speednik.neat_genome`), or "gp": each row a program
      (`speednik.gp_program`); rows of different lengths padded at the
      end to the longest;
    - `reward`: (name, weight) pairs in composition order (None: the
      default reward);
    - `stall_frames`: None never stalls;
    - `threads`: how many threads share the batch (None: all there are).

    Checks what it is given before any compiled code runs.
    """
    if policy not in POLICY_KINDS:
        raise ValueError(f"unknown policy {policy!r}: accepted are "
                         f"{', '.join(map(repr, POLICY_KINDS))}")
    if observation not in OBSERVATION_KINDS:
        raise ValueError(f"unknown observation {observation!r}: accepted names are "
                         f"{', '.join(map(repr, OBSERVATION_KINDS))}")
    obs_kind = OBSERVATION_KINDS.index(observation)
    obs_size = OBS_SIZES[obs_kind]
    params = np.ascontiguousarray(params, dtype=np.float64)
    if policy in ("mlp", "rnn"):
        if isinstance(hidden, bool) or not isinstance(hidden, (int, np.integer)) \
                or hidden < 1:
            raise ValueError(f"an {policy} policy needs hidden, a whole number >= 1, "
                             f"got {hidden!r}")
        size = (mlp_size if policy == "mlp" else rnn_size)(obs_size, int(hidden))
    elif policy in GENOME_MODULES:
        size = None
    else:
        size = linear_size(obs_size)
    if params.ndim != 2 or (size is not None and params.shape[1] != size):
        rows = f"{policy} genomes" if size is None else f"{size} numbers"
        raise ValueError(
            f"a {policy} policy over the {observation!r} observation needs "
            f"parameter rows of {rows}, got shape {params.shape}")
    if not np.all(np.isfinite(params)):
        raise ValueError("the parameters hold NaN or infinite weights")
    if size is None:
        _check_rows(params, policy, obs_size, observation)
    episode_stage = np.ascontiguousarray(episode_stage, dtype=np.int64)
    episode_params = np.ascontiguousarray(episode_params, dtype=np.int64)
    if episode_stage.shape != episode_params.shape or episode_stage.ndim != 1:
        raise ValueError("episode_stage and episode_params must be 1-d and equally long")
    if len(episode_stage) and (episode_stage.min() < 0
                               or episode_stage.max() >= len(stages)):
        raise ValueError(f"episode_stage indexes {len(stages)} stage(s)")
    if len(episode_params) and (episode_params.min() < 0
                                or episode_params.max() >= len(params)):
        raise ValueError(f"episode_params indexes {len(params)} parameter row(s)")
    for name, value in (("max_steps", max_steps), ("action_repeat", action_repeat)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if stall_frames is not None and (isinstance(stall_frames, bool)
                                     or not isinstance(stall_frames, (int, np.integer))
                                     or stall_frames < 1):
        raise ValueError(f"stall_frames must be a positive integer or None, got {stall_frames!r}")
    pairs = tuple(DEFAULT_WEIGHTS.items()) if reward is None else tuple(reward)
    ids, weights, constant = reward_arrays(pairs)
    for name, w in pairs:
        if not math.isfinite(w):
            raise ValueError(f"reward weight of {name!r} must be finite, got {w}")

    n = len(episode_stage)
    out_f = np.zeros((n, NUM_FLOAT_RESULTS), np.float64)
    out_i = np.zeros((n, NUM_INT_RESULTS), np.int64)
    out_sums = np.zeros((n, len(ids)), np.float64)
    if n:
        # Numba's typed list and cached code load in here too: all of it
        # runs with signals held.
        with signals_held():
            lowered, initial_f, initial_s = _stage_data(stages)
            stall = max_steps + 1 if stall_frames is None else int(stall_frames)
            want = (max_threads() if threads is None
                    else max(1, min(int(threads), max_threads())))
            with _PARALLEL_REGION:
                previous = numba.get_num_threads()
                numba.set_num_threads(want)
                # Episodes differ in length: hand them out one by one, not
                # in equal slices, so no thread waits on another's long tail.
                chunk = numba.set_parallel_chunksize(1)
                try:
                    batch_runner(obs_kind)(
                        lowered, initial_f, initial_s, episode_stage, episode_params,
                        params, POLICY_KINDS.index(policy), obs_size, ids, weights,
                        constant, int(max_steps), stall, int(action_repeat), out_f, out_i,
                        out_sums)
                finally:
                    numba.set_parallel_chunksize(chunk)
                    numba.set_num_threads(previous)

    steps = out_i[:, R_FRAMES].copy()
    components = {}
    for k, (name, w) in enumerate(pairs):
        if name == "time":
            # A constant term is summed as steps times its value, as
            # CompositeReward.totals does.
            components[name] = steps * -float(w)
        else:
            components[name] = out_sums[:, k].copy()
    return BatchResults(
        total_reward=out_f[:, R_TOTAL].copy(), steps=steps,
        done_reason=tuple(DONE_NAMES[d] for d in out_i[:, R_DONE]),
        max_x=out_f[:, R_MAX_X].copy(), final_x=out_f[:, R_FINAL_X].copy(),
        final_y=out_f[:, R_FINAL_Y].copy(), rings=out_i[:, R_RINGS].copy(),
        goal_reached=out_i[:, R_GOAL].astype(bool), sim_frame=out_i[:, R_SIM_FRAME].copy(),
        deaths=out_i[:, R_DEATHS].copy(),
        death_cause=tuple(death_cause_name(int(c)) or None for c in out_i[:, R_DEATH_CAUSE]),
        reward_components=components)


# The policies whose rows say their own shape, and the module that
# checks one: (what a row is, module).
GENOME_MODULES = {"neat": ("neat network", neat_genome), "gp": ("gp program", gp_program)}


def _check_rows(params: np.ndarray, policy: str, obs_size: int, observation: str) -> None:
    """Every row a whole network (or program), so compiled code never
    reads outside one."""
    noun, module = GENOME_MODULES[policy]
    for i, row in enumerate(params):
        size = module.stated_size(row)
        found = (f"its header {row[:module.HEADER].tolist()} gives {size} numbers, more "
                 f"than the row's {len(row)}" if size is not None and size > len(row)
                 else module.problem(row if size is None else row[:size], obs_size))
        if found is not None:
            raise ValueError(f"parameter row {i} is not a {noun} over the "
                             f"{observation!r} observation: {found}")


def warm_up(observations: Sequence[str] | None = None,
            policies: Sequence[str] | None = None, *, vector: bool = False) -> bool:
    """Compile (or load from the cache) what a batch of these
    observations and policy families runs (None: every one), on a tiny
    stage, so the first real batch pays nothing; with `vector`, also the
    kernel of the vector environment (`speednik.vector_env`) for those
    observations. Each observation is compiled on its own: a run that
    uses one compiles one. Whether anything had to be compiled (not found
    in the cache)."""
    from speednik.stages import load_stage

    stage = load_stage("hillside")
    compiled = False
    names = OBSERVATION_KINDS if observations is None else observations
    for observation in names:
        kind = OBSERVATION_KINDS.index(observation)
        for policy in POLICY_KINDS if policies is None else policies:
            genome = _smallest_genome(policy, OBS_SIZES[kind])
            runner = batch_runner(kind)
            misses = _cache_misses(runner)
            run_policy_batch([stage], [0], [0], genome[None, :], policy=policy,
                             hidden=2 if policy in ("mlp", "rnn") else None,
                             observation=observation, max_steps=2, threads=1)
            compiled |= _cache_misses(runner) > misses
        if vector:
            from speednik.engine.vector import stepper
            from speednik.vector_env import SpeednikVectorEnv

            misses = _cache_misses(stepper(kind))
            env = SpeednikVectorEnv(1, stage, observation=observation, max_steps=2)
            env.reset(seed=0)
            env.step(np.zeros(1, np.int64))
            compiled |= _cache_misses(stepper(kind)) > misses
    return compiled


def _cache_misses(dispatcher) -> int:
    """How many times this process has compiled the dispatcher's code
    because the cache did not hold it."""
    return sum(dispatcher.stats.cache_misses.values())


def _smallest_genome(policy: str, n: int) -> np.ndarray:
    """A genome of family `policy` over n inputs (all zeros, or the
    smallest whole network or program)."""
    if policy == "linear":
        return np.zeros(linear_size(n))
    if policy == "mlp":
        return np.zeros(mlp_size(n, 2))
    if policy == "rnn":
        return np.zeros(rnn_size(n, 2))
    if policy == "neat":
        network = np.zeros(encoded_size(0, NUM_ACTIONS, 0))
        network[:2] = n, NUM_ACTIONS
        return network
    if policy == "gp":
        return gp_program.encode(n, [(gp_program.OP_ACTION, 0)])
    raise ValueError(f"unknown policy {policy!r}: accepted are "
                     f"{', '.join(map(repr, POLICY_KINDS))}")

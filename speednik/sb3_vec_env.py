"""The compiled vector environment as Stable-Baselines3 takes one: a thin
`VecEnv` over `speednik.vector_env.SpeednikVectorEnv`.

    from speednik.vector_env import SpeednikVectorEnv
    from speednik.sb3_vec_env import SB3VecEnv
    envs = SB3VecEnv(SpeednikVectorEnv(64, "gen:medium:0-159", observation="reach",
                                       autoreset_mode="SameStep"), seed=0)
    model = stable_baselines3.PPO("MlpPolicy", envs)

SB3 resets a sub-environment within the step that ends its episode and
returns the next episode's first observation, the last one in
`infos[i]["terminal_observation"]` and `infos[i]["TimeLimit.truncated"]`
when the episode was cut short rather than ended (so PPO bootstraps its
value): Gymnasium's `SAME_STEP` autoreset, which the wrapped environment
must use. `done` is terminated or truncated. An ended episode's return
and length are in `infos[i]["episode"]` (`{"r", "l"}`, as SB3's Monitor
writes them), so SB3's rollout statistics work.

The first `reset()` seeds sub-environment i with `seed + i`; later
resets go on drawing from their generators. `get_state`/`set_state`
carry everything, episodes in flight included, as data.

Needs the `rl` extra (Stable-Baselines3).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from speednik.vector_env import SpeednikVectorEnv


class SB3VecEnv(VecEnv):
    """`env`'s sub-environments as SB3's vectorized environment; see the
    module docstring."""

    def __init__(self, env: SpeednikVectorEnv, seed: int = 0) -> None:
        if env.autoreset_mode is not AutoresetMode.SAME_STEP:
            raise ValueError(f"SB3VecEnv needs an environment made with autoreset_mode "
                             f"'SameStep' (SB3 resets within the ending step), got "
                             f"{env.autoreset_mode.value!r}")
        self.env = env      # before SB3's set-up, which asks it for its render mode
        super().__init__(env.num_envs, env.single_observation_space,
                         env.single_action_space)
        self.seed_value = int(seed)
        self._actions: np.ndarray | None = None
        self._seeded = False
        # Each sub-environment's episode so far: its return and length.
        self._returns = np.zeros(env.num_envs, np.float64)
        self._lengths = np.zeros(env.num_envs, np.int64)

    def reset(self) -> np.ndarray:
        obs, _ = self.env.reset(seed=None if self._seeded else self.seed_value)
        self._seeded = True
        self._returns[:] = 0.0
        self._lengths[:] = 0
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        obs, rewards, terminated, truncated, info = self.env.step(self._actions)
        self._returns += rewards
        self._lengths += 1
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final_obs = info["final_obs"]
            for i in np.flatnonzero(dones):
                infos[i] = {"terminal_observation": final_obs[i],
                            "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                            "episode": {"r": float(self._returns[i]),
                                        "l": int(self._lengths[i])}}
            self._returns[dones] = 0.0
            self._lengths[dones] = 0
        return obs, rewards, dones, infos

    def close(self) -> None:
        self.env.close()

    # -- state -----------------------------------------------------------------------

    def get_state(self) -> dict[str, Any]:
        """The wrapped environment's state with this adapter's running
        episode returns, as `{"arrays", "meta"}` data."""
        state = self.env.get_state()
        arrays = dict(state["arrays"], episode_returns=self._returns.copy(),
                      episode_lengths=self._lengths.copy())
        return {"arrays": arrays, "meta": dict(state["meta"], seeded=self._seeded)}

    def set_state(self, state: dict[str, Any]) -> None:
        self.env.set_state(state)
        returns = np.asarray(state["arrays"]["episode_returns"], np.float64)
        lengths = np.asarray(state["arrays"]["episode_lengths"], np.int64)
        if returns.shape != (self.num_envs,) or lengths.shape != (self.num_envs,):
            raise ValueError(f"the state's episode returns are not {self.num_envs} numbers")
        self._returns, self._lengths = returns.copy(), lengths.copy()
        self._seeded = bool(state["meta"]["seeded"])

    # -- what SB3 asks of any VecEnv -------------------------------------------------

    def _count(self, indices) -> int:
        return len(list(self._get_indices(indices)))

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self.env, attr_name)] * self._count(indices)

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None,
                   **method_kwargs) -> list[Any]:
        method = getattr(self.env, method_name)
        return [method(*method_args, **method_kwargs)] * self._count(indices)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * self._count(indices)

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs

"""Proximal Policy Optimization (Schulman et al. 2017) by Stable-Baselines3,
as a method of the run: a learner, where the other methods search.

A generation is one PPO update: `--population` episodes played at once
by the compiled engine (`speednik.vector_env`, through the thin SB3
adapter `speednik.sb3_vec_env`), `ppo_steps` decisions each, every
episode on a training stage drawn for it (Procgen style) with the run's
observation, action repeat, frame limit and stall end; then SB3's own
update of the policy on what they played. Those frames count in the
run's budget (`Strategy.played_frames`). The generation's one individual
is the policy after the update, played deterministically on the
generation's stages like any genome, so the logbook, the hall of fame,
validation and the held-out test treat it as they treat every method's.

The actor is the project's `mlp` policy, not a network of SB3's own:
one hidden layer of `--hidden` units squashed by the engine's
`soft_tanh`, then one logit per action, so the genome of a policy is its
layers' weights in `runners.mlp`'s order and the engine plays it as it
plays any MLP genome (the argmax of the logits; SB3's deterministic
action is the same). The actor runs in float64, as the engine does. The
critic is SB3's, beside it, with hidden layers of its own: it is never
played, so it runs in float32 with torch's tanh, which makes an update
about twice as fast (`benchmarks/bench_ppo.py`).

Everything that continues the training exactly is data: the network's
weights, Adam's moments, torch's and numpy's random states (SB3 draws
actions from torch's and shuffles minibatches with numpy's global
generator: the strategy puts its own states in place for each update and
takes them back after), the episodes in flight (the vector environment's
state) and SB3's counters. torch runs on one thread, so the numbers do
not depend on the machine's cores or `--workers`.
"""
from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np

from evolution.individual import make_individual
from evolution.search_state import SEARCH_PREFIX, CheckpointError, finite_state
from evolution.strategies.base import SearchSettings, Strategy

# SB3's numbers after each update that method.jsonl keeps, by the names it
# logs them under, and the names they are written as.
SB3_NUMBERS = {"train/entropy_loss": "entropy_loss", "train/policy_gradient_loss":
               "policy_gradient_loss", "train/value_loss": "value_loss",
               "train/approx_kl": "approx_kl", "train/clip_fraction": "clip_fraction",
               "train/explained_variance": "explained_variance",
               "train/learning_rate": "learning_rate", "train/loss": "loss"}
# A minibatch that does not divide an update's decisions leaves a shorter
# last one, which SB3 trains on as any other after warning of it.
warnings.filterwarnings("ignore", message="You have specified a mini-batch size",
                        category=UserWarning)
# The critic's hidden layers: SB3's default for PPO's MlpPolicy.
CRITIC_LAYERS = (64, 64)


def _torch():
    import torch

    return torch


def actor_genome(policy) -> np.ndarray:
    """The actor of an `MLPActorCritic` as an `mlp` genome: the hidden
    layer's weights row by row and its biases, then the logits' weights
    row by row and biases (`runners.mlp.mlp_layers`)."""
    hidden = policy.mlp_extractor.policy_net[0]
    logits = policy.action_net
    parts = [hidden.weight, hidden.bias, logits.weight, logits.bias]
    return np.concatenate([p.detach().cpu().numpy().astype(np.float64).ravel()
                           for p in parts])


def _policy_class():
    """SB3's actor-critic with the project's MLP as the actor (built on
    first use: torch is imported only by a run that trains)."""
    torch = _torch()
    from stable_baselines3.common.policies import ActorCriticPolicy
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    from runners.mlp import TANH_CLIP

    class SoftTanh(torch.nn.Module):
        """The engine's `soft_tanh`: Lambert's continued fraction for tanh,
        cut after seven terms, + * / in the engine's order, clipped."""

        def forward(self, x):
            inside = torch.clamp(x, -TANH_CLIP, TANH_CLIP)
            x2 = inside * inside
            num = inside * (135135.0 + x2 * (17325.0 + x2 * (378.0 + x2)))
            den = 135135.0 + x2 * (62370.0 + x2 * (3150.0 + x2 * 28.0))
            t = torch.clamp(num / den, -1.0, 1.0)
            t = torch.where(x >= TANH_CLIP, torch.ones_like(t), t)
            return torch.where(x <= -TANH_CLIP, -torch.ones_like(t), t)

    class Float64Observation(BaseFeaturesExtractor):
        """The observation as a float64 row. SB3 makes a Box observation
        float32; the game's are float32 already, so widening it loses
        nothing."""

        def __init__(self, observation_space) -> None:
            super().__init__(observation_space, int(np.prod(observation_space.shape)))

        def forward(self, obs):
            return torch.flatten(obs, start_dim=1).to(torch.float64)

    class MLPActorCritic(ActorCriticPolicy):
        """Actor: observation -> `hidden` soft_tanh units -> one logit per
        action, the project's `mlp` policy, in float64; critic: SB3's MLP
        beside it, in float32."""

        def __init__(self, *args, hidden: int, **kwargs) -> None:
            kwargs.update(net_arch={"pi": [hidden], "vf": list(CRITIC_LAYERS)},
                          activation_fn=SoftTanh,
                          features_extractor_class=Float64Observation)
            super().__init__(*args, **kwargs)
            # In place: the optimizer made above keeps the same parameters.
            self.to(torch.float64)
            # The critic is never played by the engine, so it needs neither
            # soft_tanh nor float64: torch's tanh is one fused operation where
            # soft_tanh is twenty, and float32 halves its matrix products,
            # most of an update. (Tanh holds no parameter: the optimizer's
            # are the same.)
            critic = self.mlp_extractor.value_net
            for i, layer in enumerate(critic):
                if isinstance(layer, SoftTanh):
                    critic[i] = torch.nn.Tanh()
            critic.to(torch.float32)
            self.value_net.to(torch.float32)
            critic.register_forward_pre_hook(
                lambda module, args: (args[0].to(torch.float32),))

    return MLPActorCritic


def _ppo_class():
    from stable_baselines3 import PPO as SB3PPO

    class TimedPPO(SB3PPO):
        """SB3's PPO, timing its updates (for the benchmark's split)."""

        update_seconds = 0.0

        def train(self) -> None:
            start = time.perf_counter()
            super().train()
            self.update_seconds += time.perf_counter() - start

    return TimedPPO


class PPO(Strategy):
    """One PPO update per generation; see the module docstring."""

    def __init__(self, config: SearchSettings, size: int) -> None:
        super().__init__(config, size)
        torch = _torch()
        torch.set_num_threads(1)
        from speednik.sb3_vec_env import SB3VecEnv
        from speednik.vector_env import SpeednikVectorEnv

        o = config.options
        self.steps = int(o["ppo_steps"])
        envs = SpeednikVectorEnv(
            config.population, config.training_stages(), observation=config.observation,
            max_steps=config.max_steps, action_repeat=config.action_repeat,
            stall_frames=config.training_stall(), autoreset_mode="SameStep",
            threads=max(1, min(int(config.workers), config.population)))
        self.env = SB3VecEnv(envs, seed=config.seed)
        # Its own random states, seeded from the run's seed (see the module
        # docstring): made here, put in place only while SB3 runs.
        # A minibatch is at most an update's decisions.
        batch = min(int(o["ppo_minibatch"]), self.steps * config.population)
        outside_torch, outside_np = torch.get_rng_state(), np.random.get_state()
        try:
            torch.manual_seed(config.seed)
            np.random.seed(config.seed & 0xFFFFFFFF)
            self.model = _ppo_class()(
                _policy_class(), self.env, learning_rate=float(o["ppo_lr"]),
                n_steps=self.steps, batch_size=batch,
                n_epochs=int(o["ppo_epochs"]), gamma=float(o["ppo_gamma"]),
                gae_lambda=float(o["ppo_gae_lambda"]), clip_range=float(o["ppo_clip"]),
                ent_coef=float(o["ppo_ent_coef"]), vf_coef=float(o["ppo_vf_coef"]),
                max_grad_norm=float(o["ppo_max_grad_norm"]),
                policy_kwargs={"hidden": int(config.hidden)}, device="cpu", verbose=0)
            self.torch_state = torch.get_rng_state()
            self.np_state = np.random.get_state()
        finally:
            torch.set_rng_state(outside_torch)
            np.random.set_state(outside_np)
        from stable_baselines3.common.logger import Logger

        # SB3's numbers stay in memory: the run writes them (method.jsonl).
        self.model.set_logger(Logger(folder=None, output_formats=[]))
        self.frames_unreported = 0
        self.last_numbers: dict[str, float] = {}

    # -- the method ------------------------------------------------------------------

    def actor(self) -> np.ndarray:
        return actor_genome(self.model.policy)

    def initial(self) -> list:
        return [make_individual(self.actor())]

    def ask(self, population: list, hall_of_fame) -> list:
        self.update()
        return [make_individual(self.actor())]

    def update(self) -> None:
        """One rollout of `ppo_steps` decisions in every episode, then
        SB3's update on it."""
        torch = _torch()
        # Again at every update: Numba's OpenMP threading layer shares
        # torch's OpenMP library, and a parallel batch of the compiled engine
        # (the generation's play, validation) sets OpenMP's thread count for
        # this thread when it restores its own, torch's with it. On two
        # threads, two runs sharing two cores played a tenth as fast.
        torch.set_num_threads(1)
        outside_torch, outside_np = torch.get_rng_state(), np.random.get_state()
        before = self.model.num_timesteps
        try:
            torch.set_rng_state(self.torch_state)
            np.random.set_state(self.np_state)
            self.model.learn(self.steps * self.env.num_envs, reset_num_timesteps=False,
                             log_interval=None)
            self.torch_state = torch.get_rng_state()
            self.np_state = np.random.get_state()
        finally:
            torch.set_rng_state(outside_torch)
            np.random.set_state(outside_np)
        decisions = self.model.num_timesteps - before
        self.frames_unreported += decisions * int(self.config.action_repeat)
        logged = self.model.logger.name_to_value
        self.last_numbers = {name: float(logged[key]) for key, name in SB3_NUMBERS.items()
                             if key in logged}

    def played_frames(self) -> int:
        frames, self.frames_unreported = self.frames_unreported, 0
        return frames

    def numbers(self) -> dict[str, float]:
        """SB3's numbers of the last update (entropy loss, value loss,
        approximate KL, clip fraction, explained variance, learning rate,
        ...) and the decisions trained on so far."""
        out = dict(self.last_numbers)
        out["timesteps"] = float(self.model.num_timesteps)
        return out

    # -- the checkpoint --------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        model = self.model
        arrays: dict[str, np.ndarray] = {}
        for name, tensor in model.policy.state_dict().items():
            arrays["weights." + name] = tensor.detach().cpu().numpy().copy()
        optimizer = model.policy.optimizer.state_dict()
        for index, slots in optimizer["state"].items():
            for slot, value in slots.items():
                arrays[f"adam.{index}.{slot}"] = np.array(value.detach().cpu().numpy(),
                                                          dtype=np.float64)
        arrays["torch_random"] = self.torch_state.numpy().copy()
        kind, keys, pos, has_gauss, cached = self.np_state
        arrays["numpy_random"] = np.array(keys, dtype=np.int64)
        env = self.env.get_state()
        arrays.update({"env." + k: v for k, v in env["arrays"].items()})
        started = model._last_obs is not None
        if started:
            arrays["last_obs"] = np.array(model._last_obs)
            arrays["last_episode_starts"] = np.array(model._last_episode_starts)
        meta = {"env": env["meta"], "timesteps": int(model.num_timesteps),
                "updates": int(model._n_updates), "started": started,
                "numpy_random": [str(kind), int(pos), int(has_gauss), float(cached)],
                "adam_slots": sorted({f"{i}.{s}" for i, slots in optimizer["state"].items()
                                      for s in slots}),
                "numbers": self.last_numbers}
        return {"arrays": arrays, "meta": meta}

    @classmethod
    def from_state(cls, config: SearchSettings, size: int,
                   state: dict | None) -> PPO:
        if state is None:
            raise CheckpointError("the checkpoint holds no PPO state")
        torch = _torch()
        learner = cls(config, size)
        model = learner.model
        arrays, meta = state["arrays"], state["meta"]
        try:
            weights = model.policy.state_dict()
            for name, tensor in weights.items():
                value = finite_state(SEARCH_PREFIX + "weights." + name,
                                     arrays["weights." + name])
                if value.shape != tuple(tensor.shape):
                    raise CheckpointError(f"the PPO weights {name} have shape "
                                          f"{value.shape}, not {tuple(tensor.shape)}")
                weights[name] = torch.from_numpy(value)
            model.policy.load_state_dict(weights)
            optimizer = model.policy.optimizer.state_dict()
            slots: dict[int, dict] = {}
            for key in meta["adam_slots"]:
                index, _, slot = key.partition(".")
                value = finite_state(SEARCH_PREFIX + "adam." + key, arrays["adam." + key])
                slots.setdefault(int(index), {})[slot] = torch.from_numpy(value)
            optimizer["state"] = slots
            model.policy.optimizer.load_state_dict(optimizer)
            learner.torch_state = torch.from_numpy(
                np.array(arrays["torch_random"], dtype=np.uint8))
            kind, pos, has_gauss, cached = meta["numpy_random"]
            keys = np.array(arrays["numpy_random"], dtype=np.uint32)
            if keys.shape != (624,):
                raise CheckpointError("the PPO numpy random state is not 624 numbers")
            learner.np_state = (str(kind), keys, int(pos), int(has_gauss), float(cached))
            prefix = "env."
            learner.env.set_state({"arrays": {k[len(prefix):]: v for k, v in arrays.items()
                                              if k.startswith(prefix)},
                                   "meta": meta["env"]})
            model.num_timesteps = int(meta["timesteps"])
            model._n_updates = int(meta["updates"])
            if meta["started"]:
                model._last_obs = np.array(arrays["last_obs"], dtype=np.float32)
                model._last_episode_starts = np.array(arrays["last_episode_starts"],
                                                      dtype=bool)
            learner.last_numbers = {str(k): float(v) for k, v in meta["numbers"].items()}
        except CheckpointError:
            raise
        except (KeyError, TypeError, ValueError, RuntimeError) as exc:
            raise CheckpointError(f"the PPO state is incomplete or damaged ({exc})") from None
        return learner

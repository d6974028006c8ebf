"""Which training stages a generation is scored on.

With `stages_per_generation` unset, every generation plays all of them.
Otherwise each generation draws that many, the same for every genome of
it, in one of two ways (`EvolutionConfig.stage_draw`):

- "uniform": every stage alike, a pure function of (seed, generation)
  (`uniform_draw`).
- "failures": a stage is drawn in proportion to `FAILURE_FLOOR` plus the
  share of the population that failed it the last time it was played
  (a stage not yet played counts as failed by all). A skill the search
  still lacks (a kind of pit, a half-pipe) then weighs more than its share
  of the stages, while the stages already finished still come up, so that
  the search does not forget them. The shares are the draw's memory; they
  are kept in the checkpoint with the stages of the last generation, so a
  resumed run draws what it would have drawn.

Stages named in `always_stages` are in every generation's draw, whichever
the way: they count among `stages_per_generation`, and the rest is drawn
from the other training stages. A set the search must not lose sight of
(a few designed stages beside many generated ones) is then scored every
generation, not one generation in several.

With `start_shift` set to S, every stage of a generation's draw is then
played from a start moved by a whole number of pixels from -S to S
(`speednik.stages.start_shift`), drawn anew for each stage and
generation, the same for every genome of it: the search is scored on
where a stage's jumps come down from a neighbourhood of run-ups, not
from one. The draw by failures remembers a stage by its own name,
whatever start it was played from.

Neither consumes the run's random numbers: each draw has a generator of
its own, seeded from (seed, generation).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from evolution.config import EvolutionConfig
from evolution.loop.checkpoint import CheckpointError
from evolution.loop.run_state import Reporter
from speednik.stages import shifted_name, split_shift
# A stage every genome finishes is drawn a third as often as one every
# genome fails (0.5 against 1.5).
FAILURE_FLOOR = 0.5
_SALT = 0x57A6E5
_SHIFT_SALT = 0x5B1F7
_FAILED = "stage_draw_failed"
_LAST = "stage_draw_last"


def _generator(config: EvolutionConfig, generation: int) -> np.random.Generator:
    return np.random.default_rng([config.seed & 0xFFFFFFFF, generation, _SALT])


def shift_starts(config: EvolutionConfig, generation: int, names: list[str]) -> list[str]:
    """`names` (a generation's draw), each played from a start moved by
    up to `start_shift` px, drawn from (seed, generation); as they are
    without a start shift."""
    shift = config.start_shift
    if not shift:
        return names
    rng = np.random.default_rng([config.seed & 0xFFFFFFFF, generation, _SHIFT_SALT])
    moves = rng.integers(-shift, shift, size=len(names), endpoint=True)
    return [shifted_name(name, int(dx)) for name, dx in zip(names, moves)]


def uniform_draw(config: EvolutionConfig, generation: int) -> list[str]:
    """The training stages generation `generation` is scored on with the
    uniform draw: all of them, or `stages_per_generation` of them drawn by
    a pure function of (seed, generation), in training order."""
    stages = config.training_stages()
    k = config.stages_per_generation
    if k is None or k >= len(stages):
        return stages
    always = set(config.always_stage_names())
    others = [i for i, name in enumerate(stages) if name not in always]
    kept = [i for i, name in enumerate(stages) if name in always]
    chosen = _generator(config, generation).choice(len(others), size=k - len(kept),
                                                   replace=False)
    return [stages[i] for i in sorted([*kept, *(others[j] for j in chosen)])]


class StageDraw(Reporter):
    """The stages of each generation, and (drawing by failures) what the
    draw remembers of the generations before: a reporter only for its
    place in the checkpoint."""

    def __init__(self, config: EvolutionConfig) -> None:
        self.config = config
        self.names = config.training_stages()
        self.index = {name: i for i, name in enumerate(self.names)}
        self.weighted = (config.stage_draw == "failures"
                         and config.stages_scored() < len(self.names))
        always = set(config.always_stage_names())
        self.always = np.array([name in always for name in self.names])
        self.failed = np.ones(len(self.names))
        self.drawn: tuple[int, list[str]] | None = None

    def stages(self, generation: int) -> list[str]:
        """Generation `generation`'s stages: drawn once, then the same on
        every call (the strategy's recommendation is scored on them too)."""
        if not self.weighted:
            return shift_starts(self.config, generation, uniform_draw(self.config, generation))
        if self.drawn is None or self.drawn[0] != generation:
            weights = np.where(self.always, 0.0, self.weights())
            drawn = _generator(self.config, generation).choice(
                len(self.names), size=self.config.stages_per_generation - self.always.sum(),
                replace=False, p=weights / weights.sum())
            chosen = np.sort(np.concatenate([np.flatnonzero(self.always), drawn]))
            self.drawn = (generation, [self.names[i] for i in chosen])
        return shift_starts(self.config, generation, list(self.drawn[1]))

    def weights(self) -> np.ndarray:
        """Each training stage's weight in the draw by failures, from what
        the draw has learnt so far (an always stage's is not used: it is
        in every draw)."""
        return self.failed + FAILURE_FLOOR

    def expected_draws(self) -> np.ndarray:
        """How many times a generation draws each training stage, on
        average, by the weights learnt so far: 1 for an always stage, and
        for the others their share of the weights times the stages left
        to draw (a little high for the heaviest, as a draw takes a stage
        once)."""
        weights = np.where(self.always, 0.0, self.weights())
        left = self.config.stages_per_generation - self.always.sum()
        return np.where(self.always, 1.0, left * weights / weights.sum())

    def learn(self, generation: int, summaries: Sequence[dict]) -> None:
        """Remember the share of `summaries` (the generation's genomes)
        that failed each stage of generation `generation`."""
        if not self.weighted:
            return
        for stage in self.stages(generation):
            failed = [not s["results"][stage]["metrics"]["goal_reached"] for s in summaries]
            self.failed[self.index[split_shift(stage)[0]]] = float(np.mean(failed))

    def state(self) -> dict | None:
        if not self.weighted or self.drawn is None:
            return None
        last = np.array([self.drawn[0], *(self.index[s] for s in self.drawn[1])],
                        dtype=np.int64)
        return {"arrays": {_FAILED: self.failed.copy(), _LAST: last}, "meta": {}}

    def restore(self, state: dict | None) -> None:
        if not self.weighted or not state or _FAILED not in state.get("arrays", {}):
            return
        arrays = state["arrays"]
        failed = np.asarray(arrays[_FAILED], dtype=np.float64)
        if failed.shape != self.failed.shape:
            raise CheckpointError(f"the checkpoint's stage draw knows {failed.size} training "
                             f"stages, the run has {self.failed.size}")
        self.failed = failed
        last = [int(v) for v in arrays[_LAST]]
        self.drawn = (last[0], [self.names[i] for i in last[1:]])

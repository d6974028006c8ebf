"""Random but plausible input sequences: buttons held for random spells,
as a person mashing a pad would, from a seeded generator."""
from __future__ import annotations

import random

from speednik.physics import InputState


def random_inputs(seed: int, frames: int) -> list[InputState]:
    rng = random.Random(seed)
    out: list[InputState] = []
    jump_was_held = False
    while len(out) < frames:
        left = rng.random() < 0.25
        right = not left and rng.random() < 0.7
        jump = rng.random() < 0.4
        down = rng.random() < 0.15
        for _ in range(rng.randint(1, 40)):
            out.append(InputState(left=left, right=right,
                                  jump_pressed=jump and not jump_was_held,
                                  jump_held=jump, down_held=down))
            jump_was_held = jump
    return out[:frames]

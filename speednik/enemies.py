"""Enemy motion: a walker patrols the ground, a flyer bobs up and down.

Positions are pure functions of the frame number, so enemies need no
per-frame update and a simulation state copies without them.
"""
from __future__ import annotations

from speednik.entities import Enemy

ENEMY_HALF_WIDTH = 12.0
ENEMY_HALF_HEIGHT = 12.0


def _triangle(frame: int, period: int) -> float:
    """0 -> 1 -> 0 over `period` frames."""
    if period <= 0:
        return 0.0
    phase = (frame % period) / period
    return 2.0 * phase if phase < 0.5 else 2.0 * (1.0 - phase)


def enemy_position(enemy: Enemy, frame: int) -> tuple[float, float]:
    offset = enemy.span * _triangle(frame, enemy.period)
    if enemy.kind == "walker":
        return enemy.x + offset, enemy.y
    return enemy.x, enemy.y - offset


def enemy_reach(enemy: Enemy) -> tuple[float, float, float, float]:
    """The box (x0, y0, x1, y1) an enemy's hit box can ever touch."""
    if enemy.kind == "walker":
        return (enemy.x - ENEMY_HALF_WIDTH, enemy.y - ENEMY_HALF_HEIGHT,
                enemy.x + enemy.span + ENEMY_HALF_WIDTH,
                enemy.y + ENEMY_HALF_HEIGHT)
    return (enemy.x - ENEMY_HALF_WIDTH,
            enemy.y - enemy.span - ENEMY_HALF_HEIGHT,
            enemy.x + ENEMY_HALF_WIDTH, enemy.y + ENEMY_HALF_HEIGHT)

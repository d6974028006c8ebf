"""Speednik: a headless Sonic-2-style platformer.

Importing the package registers the Gymnasium ids `speednik/Hillside-v0`,
`speednik/Pipeworks-v0` and `speednik/Skybridge-v0` for `gymnasium.make`.
"""
from __future__ import annotations

from speednik.env import register_envs

register_envs()

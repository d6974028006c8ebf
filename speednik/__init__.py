"""Speednik: a headless Sonic-2-style platformer.

Importing the package does nothing else: worker processes that only
simulate pay for neither Gymnasium nor the agent-facing layers. The
Gymnasium ids `speednik/Hillside-v0`, `speednik/Pipeworks-v0` and
`speednik/Skybridge-v0` are registered when `speednik.env` is imported
(Gymnasium 1.x loads no plugins of its own accord):

    import gymnasium, speednik.env
    env = gymnasium.make("speednik/Hillside-v0")

or, with nothing imported first, `gymnasium.make("speednik.env:speednik/Hillside-v0")`.
"""

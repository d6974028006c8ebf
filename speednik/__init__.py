"""Speednik: a headless Sonic-2-style platformer.

Importing the package makes the Gymnasium ids `speednik/Hillside-v0`,
`speednik/Pipeworks-v0` and `speednik/Skybridge-v0` available to
`gymnasium.make`. Gymnasium itself is not imported for that: when it is
already loaded the ids are registered at once, otherwise as soon as it
finishes loading. A program that never uses Gymnasium never pays for it.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings


def _register_gymnasium_envs() -> None:
    try:
        env = importlib.import_module("speednik.env")
        register = getattr(env, "register_envs", None)
        # None: speednik.env is itself importing Gymnasium right now; it
        # registers the environments when it has finished loading.
        if register is not None:
            register()
    except Exception as exc:  # a broken game module must not break Gymnasium
        warnings.warn(f"speednik: Gymnasium environments not registered: {exc!r}",
                      RuntimeWarning, stacklevel=2)


class _RegisterWhenGymnasiumLoads(importlib.abc.MetaPathFinder):
    """Import hook that registers the environments right after the
    `gymnasium` package has finished executing."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "gymnasium":
            return None
        # One shot: step aside, then let the normal finders locate it.
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass
        spec = importlib.util.find_spec("gymnasium")
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _register_gymnasium_envs()

        spec.loader.exec_module = exec_module
        return spec


if "gymnasium" in sys.modules:
    _register_gymnasium_envs()
elif not any(isinstance(f, _RegisterWhenGymnasiumLoads) for f in sys.meta_path):
    sys.meta_path.insert(0, _RegisterWhenGymnasiumLoads())

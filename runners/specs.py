"""Agent specs: how an agent is named so that any process can build it.

A spec is a baseline's name (`"jump-runner"`), a `(kind, params)` pair
whose kind is registered here (`("linear", (observation, genome))`, every
policy family of `runners.policies`, or a kind added with
`register_agent_factory`), or an agent instance (for this process only).
Specs whose params are plain data cross to worker processes as they are.
"""
from __future__ import annotations

from typing import Any, Callable

from runners.agent import BaseAgent
from runners.agents import make_baseline
from runners.policies import POLICY_FAMILIES, FamilyAgentFactory

AgentFactory = Callable[[Any], BaseAgent]
AgentSpec = Any   # a baseline name, a (kind, params) pair, or an agent

AGENT_FACTORIES: dict[str, AgentFactory] = {
    "baseline": make_baseline,
    # Every policy family: `(family, (observation, *settings, genome))`.
    **{name: FamilyAgentFactory(name) for name in POLICY_FAMILIES},
}


def register_agent_factory(kind: str, factory: AgentFactory) -> None:
    """Make `(kind, params)` specs build agents with `factory(params)`.

    To work in worker processes started with `spawn`, `factory` must be a
    function importable at module level (it is sent to them by reference).
    Registering the same kind again replaces the factory.
    """
    if not isinstance(kind, str) or not kind:
        raise ValueError(f"an agent kind is a non-empty string, got {kind!r}")
    if not callable(factory):
        raise TypeError(f"the factory for agent kind {kind!r} must be callable")
    AGENT_FACTORIES[kind] = factory


def resolve_agent_spec(spec: AgentSpec) -> tuple[AgentFactory | None, Any]:
    """(factory, params) for a spec; (None, agent) for an agent instance."""
    if isinstance(spec, str):
        make_baseline(spec)       # fails early, with the accepted names
        return make_baseline, spec
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str):
        kind, params = spec
        factory = AGENT_FACTORIES.get(kind)
        if factory is None:
            raise ValueError(
                f"unknown agent kind {kind!r}: accepted kinds are "
                f"{', '.join(repr(k) for k in AGENT_FACTORIES)} (add one with "
                "register_agent_factory)")
        return factory, params
    if callable(getattr(spec, "get_action", None)) and callable(getattr(spec, "reset", None)):
        return None, spec
    raise TypeError(
        "an agent spec is a baseline name, a (kind, params) pair or an agent, "
        f"not {type(spec).__name__}")


def build_agent(spec: AgentSpec) -> BaseAgent:
    """The agent a spec describes."""
    factory, params = resolve_agent_spec(spec)
    return params if factory is None else factory(params)


def _describe_params(params: Any) -> str:
    # Arrays by their shape: printing a genome's numbers costs a millisecond,
    # and a batch labels every item.
    shape = getattr(params, "shape", None)
    if shape is not None:
        return f"{type(params).__name__} of shape {tuple(shape)}"
    if isinstance(params, (tuple, list)):
        return "(" + ", ".join(_describe_params(p) for p in params) + ")"
    return repr(params)


def describe_agent_spec(spec: AgentSpec, limit: int = 60) -> str:
    """A short, readable label of a spec for logs and error messages."""
    if isinstance(spec, str):
        text = spec
    elif isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str):
        text = f"{spec[0]}({_describe_params(spec[1])})"
    else:
        text = type(spec).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."

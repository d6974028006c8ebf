"""The policy and observation registries are what everything asks: the
compiled engine's kinds match them, a policy's genome check is the one the
runners use, and what the engine lacks runs on the readable runner."""
from __future__ import annotations

import numpy as np
import pytest

from runners import RunnerConfig, run_episodes
from runners.agent import BaseAgent
from runners.policies import POLICY_FAMILIES, Policy, PolicyFamily, policy_of_spec
from runners.specs import AGENT_FACTORIES, build_agent
from speednik import gp_program, neat_genome
from speednik.actions import NUM_ACTIONS
from speednik.engine.observation import OBSERVATION_KINDS
from speednik.engine.policy import POLICY_KINDS
from speednik.observation import OBSERVATIONS, ObservationEncoder, extract_observation


def test_compiled_kinds_are_what_the_registries_say_the_engine_has():
    assert {f.compiled_kind for f in POLICY_FAMILIES.values()} - {None} == set(POLICY_KINDS)
    assert {n for n, e in OBSERVATIONS.items() if e.compiled} == set(OBSERVATION_KINDS)


@pytest.mark.parametrize("family", sorted(POLICY_FAMILIES))
def test_every_family_builds_agents_from_its_spec(family):
    policy = Policy(family, "terrain")
    if policy.genome_size() is None:
        # A family whose genomes vary in size: one its structure accepts.
        genome = (gp_program.encode(28, [(gp_program.OP_ACTION, 2)]) if family == "gp" else
                  neat_genome.encode(28, np.linspace(-1, 1, NUM_ACTIONS), [0] * NUM_ACTIONS,
                                     [(a, 28 + a, 0.5) for a in range(NUM_ACTIONS)], 0))
        assert policy.check(genome) is not None
    else:
        genome = np.linspace(-1, 1, policy.genome_size())
    assert family in AGENT_FACTORIES
    agent = build_agent(policy.spec(genome))
    assert isinstance(agent, BaseAgent)
    back, same = policy_of_spec(family, policy.spec(genome)[1])
    assert back == policy and same is genome
    assert Policy.from_json(policy.to_json(), "terrain") == policy


def test_a_policy_names_what_its_genome_lacks():
    with pytest.raises(ValueError, match=r"an mlp policy with 3 hidden units over the "
                                         r"'basic' observation \(12 values\) needs a genome "
                                         r"of 71 numbers"):
        Policy("mlp", "basic", hidden=3).check(np.zeros(70))
    with pytest.raises(ValueError, match="NaN"):
        Policy("linear").check(np.full(104, np.nan))
    with pytest.raises(ValueError, match="unknown policy 'tree'; accepted: linear, mlp"):
        Policy("tree")
    with pytest.raises(ValueError, match="has no setting 'hidden'"):
        Policy("linear", hidden=4)
    with pytest.raises(ValueError, match="hidden must be a whole number from 1"):
        Policy("mlp", hidden=0)


def test_a_readable_only_observation_runs_on_the_readable_runner(monkeypatch):
    # An observation the compiled engine has no twin of: the compiled
    # engine hands its items to the readable runner instead of failing.
    monkeypatch.setitem(OBSERVATIONS, "plain", ObservationEncoder(
        "plain", OBSERVATIONS["basic"].values, extract_observation))
    genome = np.random.default_rng(1).normal(size=104)
    items = [(("linear", ("plain", genome)), "hillside")]
    config = RunnerConfig(observation="plain", max_steps=400)
    compiled = run_episodes(items, config, engine="compiled")
    readable = run_episodes(items, config, engine="python")
    basic = run_episodes([(("linear", ("basic", genome)), "hillside")],
                         RunnerConfig(max_steps=400), engine="compiled")
    assert compiled[0].to_dict() == readable[0].to_dict()
    # Same values as "basic": the same episode, whichever engine ran it.
    assert compiled[0].total_reward == basic[0].total_reward


def test_a_family_without_a_compiled_kind_runs_on_the_readable_runner(monkeypatch):
    linear = POLICY_FAMILIES["linear"]
    monkeypatch.setitem(POLICY_FAMILIES, "slow-linear", PolicyFamily(
        "slow-linear", "the linear policy, readable only", linear.genome_size,
        linear.agent, linear.noun, linear.layout, compiled_kind=None))
    from runners.policies import FamilyAgentFactory
    monkeypatch.setitem(AGENT_FACTORIES, "slow-linear", FamilyAgentFactory("slow-linear"))
    genome = np.random.default_rng(2).normal(size=104)
    config = RunnerConfig(max_steps=300)
    slow = run_episodes([(("slow-linear", ("basic", genome)), "hillside")], config,
                        engine="compiled")
    fast = run_episodes([(("linear", ("basic", genome)), "hillside")], config,
                        engine="compiled")
    assert slow[0].to_dict() == fast[0].to_dict()

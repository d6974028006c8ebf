"""The table of choices in docs/choices.md is what the registries print,
and the command line offers exactly the registered names."""
from __future__ import annotations

from pathlib import Path

from evolution.choices import BEGIN, END, markdown
from evolution.run import build_parser
from evolution.strategies.registry import STRATEGIES
from runners.policies import POLICY_FAMILIES
from paths import REPO_ROOT

CHOICES = REPO_ROOT / "docs" / "choices.md"


def test_the_docs_hold_the_choices_the_registries_print():
    text = CHOICES.read_text()
    assert BEGIN in text and END in text
    held = text[text.index(BEGIN):text.index(END) + len(END)]
    assert held == markdown(), ("run `python -m evolution.choices` and paste its output "
                                "into docs/choices.md")


def test_the_command_line_offers_the_registered_names():
    actions = {a.dest: a for a in build_parser()._actions}
    assert tuple(actions["policy"].choices) == tuple(POLICY_FAMILIES)
    assert tuple(actions["algorithm"].choices) == tuple(STRATEGIES)
    for family in POLICY_FAMILIES.values():
        for setting in family.settings:
            assert setting.name in actions


def test_the_help_describes_the_observations_to_choose_and_names_the_record_s():
    from speednik.observation import OBSERVATIONS

    text = " ".join({a.dest: a for a in build_parser()._actions}["observation"].help.split())
    text = text.split(" (default:")[0]      # what argparse appends
    chosen, record = text.split("kept for the record")
    for encoder in OBSERVATIONS.values():
        if encoder.for_the_record:
            assert f"'{encoder.name}'" in record and f"'{encoder.name}' (" not in text
        else:
            assert f"'{encoder.name}' ({encoder.size} values: {encoder.description})" in chosen

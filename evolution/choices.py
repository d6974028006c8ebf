"""The choices a run offers, printed from the registries that define them:
policy families, observations and search strategies.

`python -m evolution.choices` prints them as the Markdown docs/choices.md
holds between its `choices` markers; a test keeps the two equal, so the
documentation cannot drift from the code.
"""
from __future__ import annotations

from evolution.strategies.registry import STRATEGIES
from runners.policies import POLICY_FAMILIES
from speednik.observation import OBSERVATIONS

BEGIN = "<!-- choices: printed by python -m evolution.choices -->"
END = "<!-- end of choices -->"


def markdown() -> str:
    lines = [BEGIN, "", "| option | value | what it is |", "| --- | --- | --- |"]
    for family in POLICY_FAMILIES.values():
        settings = "".join(f" `--{s.name}` ({s.help}, default {s.default})"
                           for s in family.settings)
        engine = "" if family.compiled_kind else " (readable engine only)"
        lines.append(f"| `--policy` | `{family.name}` | {family.summary}"
                     f"{';' + settings if settings else ''}{engine} |")
    for encoder in OBSERVATIONS.values():
        engine = "" if encoder.compiled else " (readable engine only)"
        record = " (kept for the record)" if encoder.for_the_record else ""
        lines.append(f"| `--observation` | `{encoder.name}` | {encoder.size} values: "
                     f"{encoder.description}{engine}{record} |")
    for entry in STRATEGIES.values():
        settings = ", ".join(f"`{s.flag}` (default {s.default:g})" for s in entry.settings)
        lines.append(f"| `--algorithm` | `{entry.name}` | {entry.summary}"
                     f"{'; ' + settings if settings else ''} |")
    lines += ["", END]
    return "\n".join(lines)


def main() -> None:
    print(markdown())


if __name__ == "__main__":
    main()

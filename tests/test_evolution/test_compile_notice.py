"""The notice a run prints before loading the compiled engine names what
it loads (the run's observation and policy family), says a first use
compiles them once, and then prints the time it measured: "compiled in"
when this process compiled them, "ready in" when they came from the
cache. The README quotes no compile figure of its own."""
from __future__ import annotations

import re

from evolution import run as run_module
from evolution.config import EvolutionConfig
from paths import REPO_ROOT


def test_the_notice_names_what_it_loads_and_prints_the_time_it_measured(capsys):
    config = EvolutionConfig(observation="terrain", policy="linear")
    run_module._prepare_engine(config, quiet=False)
    first = capsys.readouterr().out.strip()
    assert first.startswith("loading the compiled engine for the terrain observation "
                            "and linear policies")
    assert re.search(r"\.\.\. (compiled|ready) in \d+\.\d s", first), first
    # Loaded now, by this process or an earlier one: a second time it is
    # never a compile.
    run_module._prepare_engine(config, quiet=False)
    again = capsys.readouterr().out.strip()
    assert re.search(r"\.\.\. ready in \d+\.\d s$", again), again


def test_the_readme_quotes_no_compile_figure():
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    for sentence in re.split(r"(?<=[.;])\s", text.replace("\n", " ")):
        if "compil" in sentence and re.search(r"\d+ (to|-) \d+ (s|seconds|minutes)\b",
                                              sentence):
            raise AssertionError(f"README quotes a compile time the notice does not: "
                                 f"{sentence!r}")

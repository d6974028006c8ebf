"""Every `python -m ...` command line in the ```sh blocks of README.md and
of docs/*.md is accepted by the command it names: its arguments are read
by that module's own parser (`build_parser()`), nothing is run. A flag
renamed or removed, or a module that is gone, fails here; so does a
`python -m ...` command line quoted inline in their prose. The README's
table of first choices is the recipe preset's, and names every
registered observation, policy family and search method."""
from __future__ import annotations

import contextlib
import importlib
import io
import re
import shlex
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PYTHONS = (".venv/bin/python", "python")
# `python -m plots replay ...` hands everything after `replay` to the
# parser of plots.replay (see plots/__main__.py).
HANDED_ON = {("plots", "replay"): "plots.replay"}


def readme_commands(text: str) -> list[list[str]]:
    """The `python -m` command lines of the ```sh blocks of a Markdown
    text, continuation lines joined, as argv lists (comments dropped).
    A shell variable the block sets to a plain value (`run=runs/x`) is
    replaced by it; one set by a command's output (`x=$(...)`) is left
    out, as when that command prints nothing."""
    commands = []
    # A block may be indented (inside a list item).
    for block in re.findall(r"^[ \t]*```sh\n(.*?)^[ \t]*```", text, flags=re.S | re.M):
        values: dict[str, str | None] = {}
        for line in block.replace("\\\n", " ").splitlines():
            set_to = re.match(r"^\s*(\w+)=(.*)$", line)
            if set_to:
                value = set_to.group(2).strip()
                values[set_to.group(1)] = None if value.startswith("$(") else value
                continue
            words = shlex.split(line, comments=True)
            if words[:1] and words[0] in PYTHONS and words[1:2] == ["-m"]:
                commands.append(expand(words, values))
    return commands


def expand(words: list[str], values: dict[str, str | None]) -> list[str]:
    out = []
    for word in words:
        name = word[1:] if word.startswith("$") else None
        if name in values:
            if values[name] is not None:
                out.append(values[name])
            continue
        out.append(word)
    return out


def parser_of(module: str, argv: list[str]):
    """The parser that reads `argv` of `python -m module`, and what it reads."""
    if (module, argv[0] if argv else None) in HANDED_ON:
        module, argv = HANDED_ON[(module, argv[0])], argv[1:]
    try:
        found = importlib.import_module(module)
        if hasattr(found, "__path__"):          # a package: its __main__
            found = importlib.import_module(f"{module}.__main__")
    except ImportError as exc:
        raise LookupError(f"no module {module} ({exc})") from None
    if hasattr(found, "dask_worker_command"):   # Dask's worker command, pinned
        return ClickParser(found.dask_worker_command()), argv
    if not hasattr(found, "build_parser"):
        raise LookupError(f"{found.__name__} has no build_parser()")
    return found.build_parser(), argv


class ClickParser:
    """A click command's argument parsing, as argparse's `parse_args`
    (exit status 2 on a refusal), without running the command."""

    def __init__(self, command) -> None:
        self.command = command

    def parse_args(self, argv: list[str]):
        import click

        try:
            return self.command.make_context("worker", list(argv))
        except click.ClickException as exc:
            print(exc.format_message(), file=sys.stderr)
            raise SystemExit(2) from None


def refusal(command: list[str]) -> str | None:
    """None when the command's parser accepts its arguments (and, for
    evolution.run, its settings pass their checks), else why not."""
    module, argv = command[2], command[3:]
    try:
        parser, argv = parser_of(module, argv)
    except LookupError as exc:
        return str(exc)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:
            if exc.code:
                return err.getvalue().strip() or f"exit status {exc.code}"
            return None                          # --help
    if module == "evolution.run" and args.resume is None:
        from evolution.config import ConfigError
        from evolution.run import config_from_args

        try:
            config_from_args(args)
        except ConfigError as exc:
            return str(exc)
    return None


COMMANDS = readme_commands(README.read_text(encoding="utf-8"))
# (file, command) of every document: the README's, then docs/*.md's.
DOCUMENTED = [(path.relative_to(ROOT).as_posix(), command)
              for path in (README, *DOCS)
              for command in readme_commands(path.read_text(encoding="utf-8"))]


def test_the_readme_has_commands_to_check():
    modules = {c[2] for c in COMMANDS}
    assert {"evolution.run", "evolution.compare", "evolution.tune", "runners.replay",
            "runners.baselines", "plots", "evolution.cluster.worker"} <= modules, modules


def inline_commands(text: str) -> list[list[str]]:
    """The `python -m ...` code spans of a Markdown text's prose (a span
    may run over a line break), as argv lists."""
    flat = re.sub(r"\s*\n\s*", " ", re.sub(r"^[ \t]*```.*?^[ \t]*```", "", text,
                                             flags=re.S | re.M))
    return [shlex.split(span) for span in
            re.findall(r"`((?:\.venv/bin/)?python -m [^`]+)`", flat)]


def mention(command: list[str]) -> bool:
    """Whether an inline command only names a command (`python -m plots
    archive`, `python -m evolution.choices`) rather than giving a line
    to run."""
    rest = command[3:]
    if command[2] in ("plots", "speednik.stages") and rest:
        rest = rest[1:]                          # the subcommand
    return not rest


INLINE = [(path.relative_to(ROOT).as_posix(), command)
          for path in (README, *DOCS)
          for command in inline_commands(path.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("command", [c for _, c in INLINE],
                         ids=[f"{name}: {' '.join(c[2:])}" for name, c in INLINE])
def test_an_inline_command_is_accepted(command):
    if mention(command):
        importlib.import_module(command[2])     # the command named exists
    else:
        assert refusal(command) is None, f"{shlex.join(command)}: {refusal(command)}"


def test_inline_commands_are_found_and_checked():
    text = ("Run `python -m runners.replay RUN_DIR\n  --stage gen:hard:0-31` or see\n"
            "`python -m plots archive`.\n\n```sh\npython -m not.here\n```\n")
    found = inline_commands(text)
    assert found == [["python", "-m", "runners.replay", "RUN_DIR", "--stage", "gen:hard:0-31"],
                     ["python", "-m", "plots", "archive"]]
    assert not mention(found[0]) and mention(found[1])
    assert "--stagez" in refusal(["python", "-m", "runners.replay", "RUN", "--stagez", "x"])
    assert len(INLINE) > 20


def test_the_docs_have_commands_to_check():
    files = {name for name, _ in DOCUMENTED if name.startswith("docs/")}
    assert {"docs/running.md", "docs/replay.md", "docs/stages.md",
            "docs/generalisation.md"} <= files, files


@pytest.mark.parametrize("command", [c for _, c in DOCUMENTED],
                         ids=[f"{name}: {' '.join(c[2:])}" for name, c in DOCUMENTED])
def test_a_documented_command_is_accepted(command):
    assert refusal(command) is None, f"{shlex.join(command)}: {refusal(command)}"


# -- the README's first choices ------------------------------------------------

FIRST_BEGIN = "<!-- first choices: configs/recipe.toml -->"
FIRST_END = "<!-- end of first choices -->"


def first_choices() -> dict[str, tuple[str, str]]:
    """The README's table of first choices: option -> (the cell of what to
    choose first, the cell of what else is offered)."""
    text = README.read_text(encoding="utf-8")
    assert FIRST_BEGIN in text and FIRST_END in text
    table = text[text.index(FIRST_BEGIN) + len(FIRST_BEGIN):text.index(FIRST_END)]
    rows = [line for line in table.strip().splitlines() if line.startswith("|")][2:]
    cells = [[c.strip() for c in row.strip("|").split("|")] for row in rows]
    return {option: (first, also) for option, first, also in cells}


def test_the_first_choices_are_the_recipe_preset_s():
    import tomllib

    recipe = tomllib.loads((ROOT / "configs" / "recipe.toml").read_text(encoding="utf-8"))
    preset = {key: value for table in recipe.values() for key, value in table.items()}
    shown = {}
    for first, _ in first_choices().values():
        for flag, value in re.findall(r"`--([a-z-]+) ([^`]+)`", first):
            shown[flag.replace("-", "_")] = value
    assert "observation" in shown and "algorithm" in shown and "policy" in shown
    for key, value in shown.items():
        assert key in preset, f"--{key} is not a setting of configs/recipe.toml"
        assert str(preset[key]) == value, (key, preset[key], value)


def test_the_first_choices_name_registered_choices_and_every_observation():
    """Every name the table shows is registered, the first choice of each
    row among them; every observation is shown once, either as the first
    choice or as an alternative, and so is every search method; the
    observations marked as kept for the record are the registry's."""
    from evolution.strategies.registry import STRATEGIES
    from runners.policies import POLICY_FAMILIES
    from speednik.observation import OBSERVATIONS, list_observations

    choices = first_choices()
    for option, flag, names in (("observation", "observation", list_observations()),
                                ("policy", "policy", tuple(POLICY_FAMILIES)),
                                ("search method", "algorithm", tuple(STRATEGIES))):
        first, also = choices[option]
        chosen = re.findall(rf"`--{flag} ([^`]+)`", first)
        assert len(chosen) == 1 and chosen[0] in names, (option, chosen)
        offered = [n for n in re.findall(r"`([a-z][a-z-]*)`", also) if n in names]
        assert chosen[0] not in offered, option
        assert len(set(offered)) == len(offered), option
        if option in ("observation", "search method"):
            assert sorted(chosen + offered) == sorted(names), (
                f"the README's first choices name the {option}s "
                f"{sorted(chosen + offered)}; registered: {sorted(names)}")
    record = choices["observation"][1].split("kept for the record:")[1]
    assert sorted(re.findall(r"`([a-z]+)`", record)) == sorted(
        e.name for e in OBSERVATIONS.values() if e.for_the_record)

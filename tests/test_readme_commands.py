"""Every `python -m ...` command line in README.md's ```sh blocks is
accepted by the command it names: its arguments are read by that
module's own parser (`build_parser()`), nothing is run. A flag renamed or
removed, or a module that is gone, fails here."""
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


def test_the_readme_has_commands_to_check():
    modules = {c[2] for c in COMMANDS}
    assert {"evolution.run", "runners.replay", "plots"} <= modules, modules


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c[2:]) for c in COMMANDS])
def test_a_readme_command_is_accepted(command):
    assert refusal(command) is None, f"{shlex.join(command)}: {refusal(command)}"


def test_the_check_finds_commands_and_refuses_what_is_wrong():
    text = ("Some prose with `python -m nowhere` inline.\n\n"
            "```sh\n"
            ".venv/bin/python -m evolution.run --generations 3 \\\n"
            "    --stage hillside   # a comment\n"
            "make test\n"
            "python -m plots replay runs/x --gif run.gif --frames 3\n"
            "```\n\n```python\npython -m not.a.shell.block\n```\n"
            "1. In a list:\n\n   ```sh\n   python -m runners.baselines --markdown\n   ```\n")
    found = readme_commands(text)
    assert found == [
        [".venv/bin/python", "-m", "evolution.run", "--generations", "3", "--stage",
         "hillside"],
        ["python", "-m", "plots", "replay", "runs/x", "--gif", "run.gif", "--frames", "3"],
        ["python", "-m", "runners.baselines", "--markdown"],
    ]
    assert refusal(found[0]) is None
    assert "--frames" in refusal(found[1])
    assert "nowhere.cli" in refusal(["python", "-m", "nowhere.cli", "--x"])
    assert "--stagez" in refusal(["python", "-m", "speednik.stages", "list", "--stagez"])
    assert "population" in refusal(["python", "-m", "evolution.run", "--population", "1"])
    assert refusal(["python", "-m", "runners.baselines", "--help"]) is None

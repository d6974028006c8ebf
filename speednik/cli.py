"""What every command of the project shares: argument errors as one line."""
from __future__ import annotations

import argparse

EXIT_USAGE = 2


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are a single line on stderr,
    `<name>: error: <message>`, with exit status 2 and no usage dump.
    `error_name` is the name shown (default: the program name)."""

    def __init__(self, *args, error_name: str | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.error_name = error_name

    def error(self, message: str) -> None:
        self.exit(EXIT_USAGE, f"{self.error_name or self.prog}: error: {message}\n")

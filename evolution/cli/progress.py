"""One line of progress for work that may take a while.

    line = ProgressLine("building stages", total=264)
    for i, item in enumerate(items, 1):
        ...
        line.update(i)
    line.finish()

Nothing is shown while the work is quick (under `after` seconds). After
that, on a terminal the line is rewritten in place (`\\r`) with the count
done and the time taken, `building stages 120/264 (2.4 s)`; elsewhere (a
log file, a pipe) a line is printed at most every `every` seconds. When the
work ends, `finish()` prints the final line, `building stages 264/264
(5.3 s)`, if anything was shown or it took `after` seconds; `abort()` ends
a line left open so an error message starts on its own.
"""
from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

# Quicker work shows nothing.
SHOW_AFTER = 2.0
# How often the line is redrawn on a terminal, and printed elsewhere (s).
TERMINAL_EVERY = 0.1
LOG_EVERY = 5.0


class ProgressLine:
    """Progress of `total` steps of `what`, written to `out` (stdout by
    default). `clock` is read for the time taken (a test's own clock)."""

    def __init__(self, what: str, total: int, out: TextIO | None = None, *,
                 after: float = SHOW_AFTER, every: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.what = what
        self.clock = clock
        self.total = total
        self.out = sys.stdout if out is None else out
        self.after = after
        isatty = getattr(self.out, "isatty", None)
        self.terminal = bool(isatty and isatty())
        self.every = every if every is not None else (
            TERMINAL_EVERY if self.terminal else LOG_EVERY)
        self.start = self.clock()
        self.shown_at: float | None = None
        self.open = False           # a terminal line waits for its end
        self.width = 0

    def text(self, done: int) -> str:
        return f"{self.what} {done}/{self.total} ({self.clock() - self.start:.1f} s)"

    def update(self, done: int) -> None:
        """`done` of the steps are done."""
        now = self.clock()
        if now - self.start < self.after:
            return
        if self.shown_at is not None and now - self.shown_at < self.every:
            return
        self.shown_at = now
        self._write(self.text(done), final=False)

    def finish(self) -> None:
        """All steps are done: the final line, if the work was slow enough
        to show."""
        if self.shown_at is None and self.clock() - self.start < self.after:
            return
        self._write(self.text(self.total), final=True)

    def abort(self) -> None:
        """The work stopped: end a line left open on a terminal."""
        if self.open:
            self.out.write("\n")
            self.out.flush()
            self.open = False

    def _write(self, text: str, final: bool) -> None:
        if self.terminal:
            # Spaces over what is left of a longer earlier line.
            self.out.write("\r" + text.ljust(self.width) + ("\n" if final else ""))
            self.width = len(text)
            self.open = not final
        else:
            self.out.write(text + "\n")
        self.out.flush()

"""How running a batch of episodes fails, whichever engine or pool ran it:
raised by `runners.parallel` and `runners.compiled` alike (and re-exported
by both `runners` and `runners.parallel`)."""
from __future__ import annotations


class EpisodeError(RuntimeError):
    """An episode of a batch failed; `index` and `label` say which."""

    def __init__(self, index: int, label: str, message: str) -> None:
        super().__init__(f"episode {index} ({label}) failed: {message}")
        self.index = index
        self.label = label
        self.message = message

    def __reduce__(self):
        return (type(self), (self.index, self.label, self.message))


class WorkerDiedError(RuntimeError):
    """A worker process ended while running episodes (killed, or crashed
    without a Python exception)."""

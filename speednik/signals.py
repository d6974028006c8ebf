"""`signals_held`: Ctrl-C and SIGTERM put off until a block that must not
be cut in two has finished, then acted on as if they had arrived then."""
from __future__ import annotations

import contextlib
import os
import signal
import threading


@contextlib.contextmanager
def signals_held():
    """Ctrl-C and SIGTERM held while the block runs, then passed to the
    handlers that were in place before it.

    Two kinds of block need it. Compiled code: Numba turns an exception
    raised inside its own Python-level steps (loading cached code through
    a ctypes callback, unboxing a typed list) into another error or
    swallows it. Writing a file: an exception raised inside `zipfile`
    leaves the archive half open, and closing it raises a ValueError in
    place of the KeyboardInterrupt. Each block takes milliseconds to
    seconds; the handler runs as soon as it ends. Outside the main thread,
    where no handler can be set, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    previous = {sig: signal.signal(sig, lambda signum, frame: held.append(signum))
                for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for sig in dict.fromkeys(held):
            handler = previous[sig]
            if callable(handler):
                handler(sig, None)
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), sig)

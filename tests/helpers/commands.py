"""The project's commands called in the test's own process, the way their
`python -m` entry point calls them: argv in, exit status, stdout and
stderr out (as a `subprocess.CompletedProcess`, so a test reads the same
whichever way its command ran).

In-process calls skip an interpreter's start and the compiled engine's
loading (a second or two a command); tests about what only a real
process shows (signals, killed workers, exit statuses) start one."""
from __future__ import annotations

import contextlib
import importlib
import io
import shutil
import signal
import subprocess
import threading
from pathlib import Path
from typing import Callable, Sequence


# A command still running after this long is interrupted as by Ctrl-C (it
# returns 130 and its test fails), where a child process would have been
# killed by its timeout.
HANG_SECONDS = 300


def call(main: Callable[[Sequence[str]], int], *args, cwd: Path | str | None = None,
         ) -> subprocess.CompletedProcess:
    """`main(argv)` with its output captured; an argparse exit (usage error,
    --help) is its status, as in the shell."""
    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        if cwd is not None:
            stack.enter_context(contextlib.chdir(cwd))
        watchdog = threading.Timer(HANG_SECONDS, signal.pthread_kill,
                                   (threading.main_thread().ident, signal.SIGINT))
        watchdog.daemon = True
        watchdog.start()
        stack.callback(watchdog.cancel)
        try:
            status = main(argv)
        except SystemExit as exc:
            status = 0 if exc.code is None else exc.code
    assert isinstance(status, int), f"{main.__module__}.main returned {status!r}"
    return subprocess.CompletedProcess(argv, status, out.getvalue(), err.getvalue())


def command(module: str, *args, cwd: Path | str | None = None) -> subprocess.CompletedProcess:
    """`python -m module ARGS`, in this process."""
    found = importlib.import_module(module)
    if hasattr(found, "__path__"):      # a package runs its __main__
        found = importlib.import_module(f"{module}.__main__")
    return call(found.main, *args, cwd=cwd)


def evolution_run(*args, cwd: Path | str | None = None) -> subprocess.CompletedProcess:
    """`python -m evolution.run ARGS`, in this process."""
    return command("evolution.run", *args, cwd=cwd)


def replay(*args, cwd: Path | str | None = None) -> subprocess.CompletedProcess:
    """`python -m runners.replay ARGS`, in this process."""
    return command("runners.replay", *args, cwd=cwd)


def one_line(proc: subprocess.CompletedProcess, status: int = 2) -> str:
    """The single line a refusal (or a note) prints on stderr, and no traceback."""
    assert proc.returncode == status, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def copy_run(run_dir: Path, to: Path) -> Path:
    """A copy of a run directory shared by several tests, for a test that
    changes what it holds (run directories hold no absolute path of their own)."""
    shutil.copytree(run_dir, to)
    return to


import sys
from pathlib import Path

# The helpers the tests share (hand-made terrain, random play on both
# engines, commands run in this process, paths) are modules of
# tests/helpers/, imported by their own names: `from commands import call`.
sys.path.insert(0, str(Path(__file__).parent / "helpers"))

# Before any test module imports numpy: runs in the test processes use the
# same pinned numeric kernels as runs started from the command line.
import evolution  # noqa: E402,F401

# Tests send Ctrl-C to the commands they start. A test run started with
# SIGINT ignored (a shell's background job, some CI runners) passes that
# on to every child, and Python then installs no KeyboardInterrupt handler
# in them; restored here, children get Ctrl-C as from a terminal.
import signal  # noqa: E402

import pytest  # noqa: E402

signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "broad: the rest of a sweep (every stage, seed, size or setting beyond the "
        "first, long random play) whose first instance runs in `make test`, and "
        "the tests of the observations kept for the record; "
        "`make test-broad` runs these")
    config.addinivalue_line(
        "markers",
        "slow: an end-to-end proof of seconds to minutes (a browser, a Dask "
        "cluster's failures, several processes at once, a learning curve) of a "
        "behaviour whose parts `make test` proves in process; `make test-broad` "
        "runs these with the sweeps")


@pytest.fixture(autouse=True)
def _certified_draws_record(tmp_path_factory, monkeypatch):
    """Tests never read or write the record of certified expert draws that
    runs keep beside the sources: each test starts with none."""
    from speednik.stages import certified_draws

    monkeypatch.setattr(certified_draws, "RECORD_DIR",
                        tmp_path_factory.mktemp("certified-draws"))

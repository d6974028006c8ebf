import sys
from pathlib import Path

# Shared test helpers (hand-made terrain) live beside the tests.
sys.path.insert(0, str(Path(__file__).parent))

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


@pytest.fixture(autouse=True)
def _certified_draws_record(tmp_path_factory, monkeypatch):
    """Tests never read or write the record of certified expert draws that
    runs keep beside the sources: each test starts with none."""
    from speednik.stages import certified_draws

    monkeypatch.setattr(certified_draws, "RECORD_DIR",
                        tmp_path_factory.mktemp("certified-draws"))

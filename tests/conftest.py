import sys
from pathlib import Path

# Shared test helpers (hand-made terrain) live beside the tests.
sys.path.insert(0, str(Path(__file__).parent))

# Before any test module imports numpy: runs in the test processes use the
# same pinned numeric kernels as runs started from the command line.
import evolution  # noqa: E402,F401

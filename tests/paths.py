"""Where the repository and the test helpers are, for test modules in any
folder under tests/."""
from __future__ import annotations

from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent
REPO_ROOT = TESTS_DIR.parent

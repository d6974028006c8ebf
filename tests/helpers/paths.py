"""Where the repository and the tests are, for test modules in any folder
under tests/ and for the helpers beside this module."""
from __future__ import annotations

from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent.parent
REPO_ROOT = TESTS_DIR.parent

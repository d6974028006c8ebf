"""Where the repository and the tests are, for test modules in any folder
under tests/ and for the helpers beside this module."""
from __future__ import annotations

from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent.parent
REPO_ROOT = TESTS_DIR.parent


def benchmark_module(name: str):
    """The script benchmarks/NAME.py imported as a module (benchmarks/ is
    not a package), registered under its name so its dataclasses can look
    their module up."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module

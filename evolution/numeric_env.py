"""The numeric environment a run computes in, pinned so that runs agree
from one x86-64 machine to another, and recorded so that a difference
shows.

CMA-ES, OpenAI-ES and MAP-Elites do their arithmetic in numpy. numpy
picks its vector loops (AVX2, AVX-512, ...) and OpenBLAS its kernels by
the CPU it finds when it is imported, and the AVX-512 loops round
differently from the AVX2 ones: unpinned, the same seed gives one run on
an AVX-512 machine and another on an AVX2 one. Importing `evolution`
before numpy pins both to their AVX2 kernels, which every x86-64 machine
of the last ten years has, so a run gives the same logbook and best
genome on any of them. The game and the GA do not depend on it.

Both libraries read their settings from the environment only when they are
loaded, so the pin is made by setting the environment before numpy is
imported; a process that imported numpy first keeps whatever it has, and
`numeric_environment()` says which kernels are in use either way. Child
processes (a pool, `--scheduler local`'s workers, `evolution.compare`'s
runs) inherit the setting.

`SPEEDNIK_NATIVE_KERNELS=1` leaves the CPU's own kernels in place (faster
on large matrices, but a run then depends on the machine); a setting of
OPENBLAS_CORETYPE or NPY_DISABLE_CPU_FEATURES made by hand is kept.
"""
from __future__ import annotations

import os
import platform
from pathlib import Path
import sys
from typing import Any

OPT_OUT = "SPEEDNIK_NATIVE_KERNELS"
# numpy's dispatch targets above AVX2, by the names of the installed
# version (a name a version does not dispatch to draws a warning), and
# OpenBLAS's kernels for Haswell, the first CPUs with AVX2 and FMA.
NUMPY_ABOVE_AVX2 = "X86_V4 AVX512_ICL AVX512_SPR"                        # numpy 2.4 on
NUMPY_ABOVE_AVX2_BEFORE_2_4 = "AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL"


def _numpy_above_avx2() -> str:
    """Read from the installed version's metadata: importing numpy to ask
    would load it before the pin."""
    from importlib import metadata

    try:
        major, minor = (int(p) for p in metadata.version("numpy").split(".")[:2])
    except (metadata.PackageNotFoundError, ValueError):
        return NUMPY_ABOVE_AVX2
    return NUMPY_ABOVE_AVX2 if (major, minor) >= (2, 4) else NUMPY_ABOVE_AVX2_BEFORE_2_4


PINNED_KERNELS = {
    "NPY_DISABLE_CPU_FEATURES": _numpy_above_avx2(),
    "OPENBLAS_CORETYPE": "Haswell",
}
# What decides the results; the rest of a record only explains them.
DECIDING = ("numpy", "blas", "blas_kernels", "numpy_kernels")


def _has_avx2() -> bool:
    """Whether the CPU runs Haswell kernels: forced onto a CPU without
    AVX2 they would stop the process on an illegal instruction."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = line.split(":", 1)[1].split()
                    return "avx2" in flags and "fma" in flags
    except OSError:
        pass
    return False


def pin_kernels(environ: dict[str, str] | None = None) -> bool:
    """Pins numpy's and OpenBLAS's kernels to AVX2 if numpy is not loaded
    yet, the CPU has AVX2 and nobody opted out; True if the kernels in use
    are (or will be) the pinned ones."""
    env = os.environ if environ is None else environ
    if env.get(OPT_OUT, "") not in ("", "0"):
        return False
    if "numpy" in sys.modules or not _has_avx2():
        return all(env.get(k) == v for k, v in PINNED_KERNELS.items())
    for key, value in PINNED_KERNELS.items():
        env.setdefault(key, value)
    return all(env.get(k) == v for k, v in PINNED_KERNELS.items())


def numeric_environment() -> dict[str, Any]:
    """The versions and kernels this process computes with, as JSON data:
    numpy's version and the vector loops it dispatches to, the BLAS
    library, its version and its kernels."""
    import numpy as np

    record: dict[str, Any] = {"numpy": np.__version__, "cpu": platform.machine()}
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # numpy 1.x
        from numpy.core import _multiarray_umath as umath
    features = getattr(umath, "__cpu_features__", {})
    record["numpy_kernels"] = [
        name for name in list(getattr(umath, "__cpu_baseline__", []))
        + list(getattr(umath, "__cpu_dispatch__", [])) if features.get(name)]
    blas = _blas()
    record["blas"] = f"{blas.get('internal_api', 'unknown')} {blas.get('version', '')}".strip()
    record["blas_kernels"] = blas.get("architecture", "unknown")
    record["pinned"] = all(os.environ.get(k) == v for k, v in PINNED_KERNELS.items())
    return record


def _blas() -> dict[str, Any]:
    """threadpoolctl's description of numpy's BLAS (numpy's own
    `show_runtime` reads it the same way). A process may have loaded
    others (scipy bundles its own OpenBLAS): numpy's wheels keep theirs
    in numpy.libs (numpy/.dylibs on macOS), so that one is preferred."""
    from threadpoolctl import threadpool_info

    found = [lib for lib in threadpool_info() if lib.get("user_api") == "blas"]
    for lib in found:
        parts = Path(lib.get("filepath", "")).parts
        if any(part in ("numpy.libs", ".dylibs", "numpy") for part in parts):
            return lib
    return found[0] if found else {}


def differences(recorded: dict[str, Any] | None, current: dict[str, Any]) -> list[str]:
    """Each deciding part of `current` that differs from `recorded`, as
    "name: recorded -> current"; none for a record without one (a run of
    an earlier version)."""
    if not isinstance(recorded, dict):
        return []
    return [f"{key} {_shown(recorded.get(key))} -> {_shown(current.get(key))}"
            for key in DECIDING if recorded.get(key) != current.get(key)]


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return "+".join(map(str, value)) or "none"
    return str(value)

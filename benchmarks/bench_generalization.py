"""The short setting of `benchmarks/generalization.py` for `make bench`:
the generalisation recipe with a few generations, its held-out completion
per difficulty beside hold-right and jump-runner. The full measurement
(100 held-out stages a difficulty, seeds 0 1 2) is
`python benchmarks/generalization.py`."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generalization import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["--short"]))

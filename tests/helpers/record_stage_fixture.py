"""Record tests/fixtures/stage_digests.json: the fingerprints of the
built-in stages and of generated stages (seeds 0-299 at every difficulty,
0-11 for expert) that tests/test_speednik/stages/test_stage_fixture.py holds the builder to.

Run it only after a deliberate change to what a stage is (the generator,
the profile format, the builder's drawing, the tile tables or the lowered
arrays), and say in the commit why every stage changed. A change meant to
make building faster, or to tidy the code, must leave the fixture as it
is: that is what the test proves.

    PYTHONPATH=. python tests/helpers/record_stage_fixture.py
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from paths import TESTS_DIR  # noqa: E402
from stage_digest import FIXTURE, groups, record_group  # noqa: E402


def main() -> int:
    t0 = time.perf_counter()
    fixture = {}
    for group in groups():
        fixture[group] = record_group(group)
        print(f"{group}: {len(fixture[group]['stages'])} stages "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    path = TESTS_DIR / FIXTURE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(fixture, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

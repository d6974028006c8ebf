"""How a set of episodes ended, in words: what the benchmarks that play
one genome two ways (as it is, and with something changed) print."""
from __future__ import annotations

from collections import Counter

from speednik.stages import stage_label


def ends_summary(ends: list[str]) -> str:
    """'finished N of M; the rest: ...', each other end (an episode's
    `done_reason`) counted, the commonest first."""
    rest = Counter(e for e in ends if e != "goal")
    return (f"finished {ends.count('goal')} of {len(ends)}; the rest: "
            + (", ".join(f"{n} {e}" for e, n in rest.most_common()) or "none"))


def changed_stages(names: list[str], before: list[str], after: list[str]) -> str:
    """Which of `names` only the second way of playing finishes and which
    only the first, from each way's ends in the same order."""
    gained = [stage_label(n) for n, x, y in zip(names, before, after) if x != "goal" == y]
    lost = [stage_label(n) for n, x, y in zip(names, before, after) if x == "goal" != y]
    return f"{', '.join(gained) or 'none'}; only as it is: {', '.join(lost) or 'none'}"

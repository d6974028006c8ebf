"""Certified stages: the first draw of a seed that the planner finishes,
for the kinds of generated stage drawn until one is (`expert`, the skill
stages, `skills`, the place stages, `places`, and the stall stages,
`stalls`), and the draws found,
kept in this process and on disk (`certified_draws`) so that a stage
built again skips the planner.

A draw is kept only when the planner (`speednik.engine.planner`)
finishes it within an episode's frames and without stalling; otherwise
the next draw of that seed is tried. Which draw a seed keeps is a pure
function of the seed and the kind (and, for place stages, of the
hand-made profiles they are drawn from), so `gen:expert:SEEDS`,
`gen:skills:SEEDS` and `gen:places:SEEDS` always name the same stages.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from speednik.stages.expert import EXPERT, draw_expert_data
from speednik.stages.profile import Profile, StageError
from speednik.stages.places import PLACES, draw_places_data
from speednik.stages.skills import SKILLS, draw_skills_data
from speednik.stages.stalls import STALLS, draw_stalls_data

# Draws tried per seed before giving up (measured: the first draw is
# certified for most seeds; see benchmarks/bench_planner.py).
MAX_DRAWS = 32

# The draw each seed keeps, once certified in this process or handed over
# by `certify_in_parallel`: a seed built again skips the planner, which is
# nearly all of an expert stage's build (measured: 170 ms of 180). Skill
# stages (`speednik.stages.skills`) are certified the same way and keep
# their draws apart.
_CERTIFIED_DRAW: dict[int, int] = {}
_CERTIFIED_SKILLS_DRAW: dict[int, int] = {}
_CERTIFIED_PLACES_DRAW: dict[int, int] = {}
_CERTIFIED_STALLS_DRAW: dict[int, int] = {}
# The kinds of generated stage the planner certifies.
CERTIFIED_KINDS = (EXPERT, SKILLS, PLACES, STALLS)
_DRAW_DATA = {EXPERT: draw_expert_data, SKILLS: draw_skills_data, PLACES: draw_places_data,
              STALLS: draw_stalls_data}


def _known_draws(kind: str) -> dict[int, int]:
    # Looked up at each call: tests replace these dicts.
    return {EXPERT: _CERTIFIED_DRAW, SKILLS: _CERTIFIED_SKILLS_DRAW,
            PLACES: _CERTIFIED_PLACES_DRAW, STALLS: _CERTIFIED_STALLS_DRAW}[kind]


def _draw_data(kind: str, seed: int, draw: int) -> dict[str, Any]:
    return _DRAW_DATA[kind](seed, draw)


def _built_draw(seed: int, draw: int, kind: str = EXPERT):
    from speednik.stages.builder import build_stage
    from speednik.stages.profile import profile_from_dict

    profile = profile_from_dict(_draw_data(kind, seed, draw),
                                source=f"generated(seed={seed}, difficulty={kind})")
    return profile, build_stage(profile)


def certified_stage(seed: int, kind: str = EXPERT):
    """(profile, built stage) of the first draw for `seed` of `kind`
    (one of CERTIFIED_KINDS) that the planner finishes; `StageError` if
    none of MAX_DRAWS is."""
    from speednik.engine.planner import plan_stage

    known = _known_draws(kind).get(seed)
    if known is not None:
        return _built_draw(seed, known, kind)
    for draw in range(MAX_DRAWS):
        try:
            profile, stage = _built_draw(seed, draw, kind)
        except StageError:
            continue    # pieces that collide once placed: draw again
        if plan_stage(stage).found:
            _known_draws(kind)[seed] = draw
            return profile, stage
    raise StageError(f"no certified {kind} stage for seed {seed} in {MAX_DRAWS} draws")


def certified_expert(seed: int):
    """(profile, built stage) of the certified expert stage of `seed`."""
    return certified_stage(seed, EXPERT)


def _certify(seed: int, kind: str = EXPERT) -> int | None:
    try:
        certified_stage(seed, kind)
    except StageError:
        return None     # the build in the caller's process names the seed
    return _known_draws(kind)[seed]


def certify_in_parallel(seeds: Iterable[int], workers: int,
                        progress: Callable[[int, int], None] | None = None,
                        remember: bool = True, kind: str = EXPERT) -> None:
    """Find the certified draw of each of `seeds` (stages of `kind`) not
    yet known here, in `workers` processes at once, so that building them
    here skips the planner; `progress(done, total)` after each. A seed
    with no certified draw is left for its build to report. With one
    worker, or one seed to do, nothing runs. With `remember`, the draws an
    earlier process found for these sources are taken from the record on
    disk (`certified_draws`), and those found here are added to it."""
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial

    from speednik.stages.certified_draws import read_draws, remember_draws

    known = _known_draws(kind)
    asked = set(seeds)
    if remember:
        recorded = read_draws(kind)
        known.update({seed: recorded[seed] for seed in asked & recorded.keys()
                      if seed not in known})
    todo = sorted(seed for seed in asked if seed not in known)
    if workers < 2 or len(todo) < 2:
        return
    with ProcessPoolExecutor(min(workers, len(todo))) as pool:
        chunk = max(1, len(todo) // (8 * workers))
        draws = pool.map(partial(_certify, kind=kind), todo, chunksize=chunk)
        for done, (seed, draw) in enumerate(zip(todo, draws), 1):
            if draw is not None:
                known[seed] = draw
            if progress is not None:
                progress(done, len(todo))
    if remember:
        remember_draws({seed: known[seed] for seed in todo if seed in known}, kind)


def expert_profile(seed: int) -> Profile:
    """The profile of the certified expert stage of `seed`."""
    return certified_expert(seed)[0]


def skills_profile(seed: int) -> Profile:
    """The profile of the certified skill stage of `seed`."""
    return certified_stage(seed, SKILLS)[0]

"""The stage profile format: parsing, validation messages, loading, cache."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from speednik.stages import (
    Stage,
    StageError,
    build_stage,
    list_stages,
    load_profile,
    load_stage,
    parse_profile,
    profile_from_dict,
    profile_to_toml,
    read_profile,
)
from speednik.stages.profile import (
    GAP_LIMIT,
    MAX_PIXELS,
    JUMP_APEX,
    JUMP_RANGE,
    SEGMENT_KINDS,
    SPRING_STEP_LIMIT,
    STEP_UP_LIMIT,
)

HEADER = """
[stage]
name = "t"
height = 1024
ground_y = 768
difficulty = "medium"
"""

FLAT = """
[[segment]]
kind = "flat"
length = 1024
"""

GOAL = """
[[entity]]
kind = "goal"
x = 900
"""


def profile_text(*parts: str, header: str = HEADER) -> str:
    return textwrap.dedent(header) + "".join(textwrap.dedent(p) for p in parts)


def parse(*parts: str, header: str = HEADER, source: str = "t.toml"):
    return parse_profile(profile_text(*parts, header=header), source=source)


def build(*parts: str, header: str = HEADER) -> Stage:
    return build_stage(parse(*parts, header=header))


def error_of(*parts: str, header: str = HEADER, built: bool = False) -> str:
    with pytest.raises(StageError) as info:
        if built:
            build(*parts, header=header)
        else:
            parse(*parts, header=header)
    return str(info.value)


# --- valid profiles -------------------------------------------------------------

def test_minimal_profile_parses():
    p = parse(FLAT, GOAL)
    assert p.stage.name == "t"
    assert p.stage.difficulty == "medium"
    assert p.width == 1024
    assert [s.kind for s in p.segments] == ["flat"]
    assert [e.kind for e in p.entities] == ["goal"]


def test_every_segment_kind_parses():
    p = parse("""
        [[segment]]
        kind = "flat"
        length = 256
        [[segment]]
        kind = "ramp"
        length = 256
        rise = 64
        [[segment]]
        kind = "hill"
        length = 512
        amplitude = 48
        waves = 2
        [[segment]]
        kind = "gap"
        length = 96
        rise = -16
        [[segment]]
        kind = "step"
        rise = 32
        [[segment]]
        kind = "halfpipe"
        length = 384
        depth = 96
        [[segment]]
        kind = "loop"
        radius = 64
        [[segment]]
        kind = "bridge"
        length = 256
        [[segment]]
        kind = "tunnel"
        length = 320
        clearance = 64
        [[segment]]
        kind = "flat"
        length = 512
        """, GOAL)
    assert tuple(s.kind for s in p.segments[:-1]) == SEGMENT_KINDS
    # A loop takes its diameter plus 64 px of flat each side.
    assert p.segments[6].span == 2 * 64 + 128
    assert p.width == 256 * 2 + 512 + 96 + 384 + 256 + 256 + 320 + 512


def test_enemy_shorthand_and_defaults():
    p = parse(FLAT, GOAL, """
        [[entity]]
        kind = "walker"
        x = 300
        [[entity]]
        kind = "enemy"
        enemy_kind = "flyer"
        x = 500
        span = 30
        """)
    walker, flyer = p.entities[1], p.entities[2]
    assert (walker.kind, walker.enemy_kind, walker.above, walker.span) == (
        "enemy", "walker", 12, 64)
    assert (flyer.kind, flyer.enemy_kind, flyer.span, flyer.period) == (
        "enemy", "flyer", 30, 120)


def test_difficulty_accepts_numbers():
    header = HEADER.replace('"medium"', "2")
    assert parse(FLAT, GOAL, header=header).stage.difficulty == "hard"


def test_toml_round_trip():
    for name in list_stages():
        p = load_profile(name)
        q = parse_profile(profile_to_toml(p), source=p.source)
        assert (q.stage, q.segments, q.entities) == (p.stage, p.segments, p.entities)


def test_profile_from_dict_is_the_parser():
    text = profile_text(FLAT, GOAL)
    import tomllib
    a = profile_from_dict(tomllib.loads(text), source="x")
    b = parse_profile(text, source="x")
    assert a == b


# --- error messages -----------------------------------------------------------

def test_error_names_file_entry_and_accepted_kinds(tmp_path: Path):
    lines = [FLAT] * 6 + ["""
        [[segment]]
        kind = "lop"
        radius = 64
        """]
    path = tmp_path / "hillside.toml"
    path.write_text(profile_text(*lines, GOAL))
    with pytest.raises(StageError) as info:
        read_profile(path)
    assert str(info.value) == (
        "hillside.toml: segment 7: unknown kind 'lop'; accepted: flat, ramp, "
        "hill, gap, step, halfpipe, loop, bridge, tunnel")


def test_stage_error_is_a_value_error():
    assert issubclass(StageError, ValueError)


def test_toml_syntax_error():
    msg = error_of("[[segment]\nkind = flat")
    assert msg.startswith("t.toml: TOML syntax error")


def test_unknown_entity_kind():
    msg = error_of(FLAT, GOAL, '[[entity]]\nkind = "coin"\nx = 5\n')
    assert msg.startswith("t.toml: entity 2: unknown kind 'coin'; accepted: ring, spring")


def test_missing_kind():
    msg = error_of("[[segment]]\nlength = 5\n", GOAL)
    assert "segment 1: missing key 'kind'" in msg


def test_missing_segment_key():
    msg = error_of('[[segment]]\nkind = "ramp"\nlength = 256\n', GOAL)
    assert msg == "t.toml: segment 1 (ramp): missing key 'rise'"


def test_unknown_segment_key():
    msg = error_of('[[segment]]\nkind = "flat"\nlength = 256\nradius = 3\n', GOAL)
    assert msg == ("t.toml: segment 1 (flat): unknown key 'radius'; accepted: "
                   "kind, length")


def test_unknown_entity_key():
    msg = error_of(FLAT, '[[entity]]\nkind = "goal"\nx = 900\ncolour = "red"\n')
    assert "entity 1 (goal): unknown key 'colour'; accepted: kind, x, above" in msg


def test_missing_stage_key():
    header = "[stage]\nname = 't'\nheight = 1024\n"
    msg = error_of(FLAT, GOAL, header=header)
    assert msg == "t.toml: [stage]: missing key 'ground_y'"


def test_missing_tables():
    with pytest.raises(StageError, match="missing key 'segment'"):
        parse_profile(textwrap.dedent(HEADER) + GOAL, source="t.toml")
    with pytest.raises(StageError, match="needs exactly one goal"):
        parse_profile(textwrap.dedent(HEADER) + FLAT, source="t.toml")


def test_wrong_type():
    msg = error_of('[[segment]]\nkind = "flat"\nlength = "long"\n', GOAL)
    assert msg == "t.toml: segment 1 (flat): 'length' must be an integer, got 'long'"


def test_negative_length():
    msg = error_of('[[segment]]\nkind = "flat"\nlength = -5\n', GOAL)
    assert "segment 1 (flat): length -5 out of range; accepted: >= 16" in msg


def test_loop_radius_out_of_range():
    for radius in (16, 200):
        msg = error_of(FLAT, f'[[segment]]\nkind = "loop"\nradius = {radius}\n', GOAL)
        assert f"segment 2 (loop): radius {radius} out of range; accepted: 32..160" in msg


def test_step_too_tall_for_difficulty():
    tall = STEP_UP_LIMIT["medium"] + 8
    step = f'[[segment]]\nkind = "step"\nrise = {tall}\n'
    msg = error_of(FLAT, step, FLAT, GOAL)
    assert "segment 2 (step)" in msg
    assert "taller than a jump clears at difficulty medium" in msg
    assert f"1..{STEP_UP_LIMIT['medium']}" in msg
    # The same step is fine where the limit is higher.
    parse(FLAT, step, FLAT, GOAL, header=HEADER.replace('"medium"', '"hard"'))


def test_tall_step_needs_a_spring():
    step = '[[segment]]\nkind = "step"\nrise = 150\n'
    with pytest.raises(StageError, match="no up spring strong enough"):
        parse(FLAT, step, FLAT, GOAL)
    spring = '[[entity]]\nkind = "spring"\nx = 900\n'
    parse(FLAT, step, FLAT, GOAL.replace("900", "1500"), spring)
    # Too far before the step, or too weak for it, does not count.
    with pytest.raises(StageError):
        parse(FLAT, step, FLAT, GOAL.replace("900", "1500"),
              spring.replace("900", "500"))
    taller = f'[[segment]]\nkind = "step"\nrise = {SPRING_STEP_LIMIT["yellow"] + 10}\n'
    with pytest.raises(StageError):
        parse(FLAT, taller, FLAT, GOAL.replace("900", "1500"), spring)
    parse(FLAT, taller, FLAT, GOAL.replace("900", "1500"),
          spring + 'strength = "red"\n')


def test_gap_too_wide():
    wide = GAP_LIMIT["medium"] + 8
    msg = error_of(FLAT, f'[[segment]]\nkind = "gap"\nlength = {wide}\n', FLAT, GOAL)
    assert f"segment 2 (gap): length {wide} too wide to jump at difficulty medium" in msg


def test_ramp_and_hill_too_steep():
    msg = error_of('[[segment]]\nkind = "ramp"\nlength = 100\nrise = 100\n', FLAT, GOAL)
    assert "segment 1 (ramp): rise 100 over length 100 is steeper than 40 degrees" in msg
    msg = error_of('[[segment]]\nkind = "hill"\nlength = 100\namplitude = 64\n', FLAT, GOAL)
    assert "segment 1 (hill)" in msg and "steeper than 40 degrees" in msg


def test_halfpipe_too_short():
    msg = error_of('[[segment]]\nkind = "halfpipe"\nlength = 100\ndepth = 96\n', FLAT, GOAL)
    assert "segment 1 (halfpipe): length 100 too short for depth 96" in msg


def test_no_goal_or_two_goals():
    assert error_of(FLAT) == "t.toml: needs exactly one goal entity; found none"
    msg = error_of(FLAT, GOAL, GOAL)
    assert msg == "t.toml: needs exactly one goal entity; found entities 1, 2"


def test_bad_choice_values():
    msg = error_of(FLAT, GOAL, '[[entity]]\nkind = "spring"\nx = 100\ndirection = "down"\n')
    assert "entity 2 (spring): unknown direction 'down'; accepted: up, left, right" in msg
    msg = error_of(FLAT, GOAL, '[[entity]]\nkind = "enemy"\nx = 100\nenemy_kind = "bat"\n')
    assert "entity 2 (enemy): unknown enemy_kind 'bat'; accepted: walker, flyer" in msg
    header = HEADER.replace('"medium"', '"insane"')
    msg = error_of(FLAT, GOAL, header=header)
    assert "unknown difficulty 'insane'; accepted: easy, medium, hard" in msg


def test_ground_too_high():
    msg = error_of('[[segment]]\nkind = "step"\nrise = 40\n', FLAT, GOAL,
                   header=HEADER.replace("768", "180"))
    assert "segment 1 (step): ground at y=140 leaves less than 160 px of headroom" in msg


def test_entity_outside_stage():
    msg = error_of(FLAT, GOAL, '[[entity]]\nkind = "ring"\nx = 5000\n', built=True)
    assert msg == "t.toml: entity 2 (ring): x=5000 outside the stage; accepted: 0..1024"
    msg = error_of(FLAT, GOAL, '[[entity]]\nkind = "ring"\nx = 900\nabove = 900\n',
                   built=True)
    assert "entity 2 (ring): y=-132 outside the stage" in msg


def test_entities_overlapping():
    msg = error_of(FLAT, GOAL, '[[entity]]\nkind = "spring"\nx = 400\n',
                   '[[entity]]\nkind = "spikes"\nx = 410\n', built=True)
    assert msg == ("t.toml: entity 3 (spikes): overlaps entity 2 (spring); "
                   "accepted: objects apart")


def test_entity_inside_terrain():
    step = '[[segment]]\nkind = "step"\nrise = 48\n'
    ring = '[[entity]]\nkind = "ring"\nx = 1000\nabove = -24\n'
    msg = error_of(FLAT, step, FLAT, GOAL, ring, built=True)
    assert "entity 2 (ring): at (1000, 792) it is inside the terrain" in msg


def test_platform_overlapping_terrain():
    platform = '[[entity]]\nkind = "platform"\nx = 400\nabove = 12\n'
    msg = error_of(FLAT, GOAL, platform, built=True)
    assert "entity 2 (platform): overlaps the terrain" in msg


def test_ground_objects_need_ground():
    gap = '[[segment]]\nkind = "gap"\nlength = 128\n'
    spring = '[[entity]]\nkind = "spring"\nx = 1080\n'
    msg = error_of(FLAT, gap, FLAT, GOAL, spring, built=True)
    assert "entity 2 (spring): no ground under x=1066..1094 (over a gap)" in msg
    # Rings may float over a pit.
    build(FLAT, gap, FLAT, GOAL, '[[entity]]\nkind = "ring"\nx = 1080\n')


def test_walker_needs_level_ground():
    ramp = '[[segment]]\nkind = "ramp"\nlength = 256\nrise = 64\n'
    walker = '[[entity]]\nkind = "walker"\nx = 1000\n'
    msg = error_of(FLAT, ramp, FLAT, GOAL, walker, built=True)
    assert "entity 2 (walker): ground under its path" in msg


def test_start_over_a_gap_and_goal_behind_start():
    gap = '[[segment]]\nkind = "gap"\nlength = 128\n'
    msg = error_of(gap, FLAT, GOAL, built=True)
    assert "[stage]: start_x 64 is over a gap" in msg
    msg = error_of(FLAT, GOAL.replace("900", "32"), built=True)
    assert "the goal (x=32) must lie right of start_x 64" in msg


def test_stage_too_wide():
    msg = error_of('[[segment]]\nkind = "flat"\nlength = 70000\n', GOAL)
    assert msg == "t.toml: the stage is 70000 px wide; accepted: at most 65536"


def test_narrow_stage_is_not_an_error():
    stage = build(FLAT, GOAL)
    assert stage.width == 1024


# --- loading and the cache -----------------------------------------------------

def test_list_stages():
    assert list_stages() == ["hillside", "pipeworks", "skybridge"]


def test_builtin_stages_are_cached():
    for name in list_stages():
        stage = load_stage(name)
        assert isinstance(stage, Stage)
        assert stage.name == name
        assert load_stage(name) is stage


def test_builtin_stages_are_wide_enough():
    for name in list_stages():
        stage = load_stage(name)
        assert stage.width >= 4000
        assert stage.tiles.pixel_grid(0).shape[1] >= stage.width


def test_unknown_stage_name():
    with pytest.raises(StageError) as info:
        load_stage("nowhere")
    assert str(info.value) == (
        "unknown stage 'nowhere'; accepted: hillside, pipeworks, skybridge, "
        "a path to a .toml profile, or a generated stage gen:DIFFICULTY:SEED")
    # Callers that treat the stages as a mapping can catch KeyError.
    with pytest.raises(KeyError):
        load_stage("nowhere")
    # A hand-made stage's name, as replay tables print it, points at its file.
    for name, folder in (("quarry", "handmade"), ("ridge", "handmade/heldout")):
        with pytest.raises(StageError, match=f"{name!r} is a hand-made stage, named by "
                                             f"its profile: .*{folder}/{name}.toml$"):
            load_stage(name)


def test_load_stage_from_a_path(tmp_path: Path):
    path = tmp_path / "mine.toml"
    path.write_text(profile_text(FLAT, GOAL))
    stage = load_stage(str(path))
    assert stage.name == "t"
    assert stage.source == str(path)
    assert load_stage(path) is stage


def test_missing_profile_file(tmp_path: Path):
    with pytest.raises(StageError, match="absent.toml: cannot read profile"):
        load_stage(str(tmp_path / "absent.toml"))


def test_physics_limits_are_derived_from_the_jump():
    assert 95 < JUMP_APEX < 98
    assert 350 < JUMP_RANGE < 360
    for easier, harder in (("easy", "medium"), ("medium", "hard")):
        assert STEP_UP_LIMIT[easier] < STEP_UP_LIMIT[harder]
        assert GAP_LIMIT[easier] < GAP_LIMIT[harder]
    assert STEP_UP_LIMIT["hard"] <= 80 < JUMP_APEX
    assert GAP_LIMIT["hard"] <= 200 < JUMP_RANGE


# --- obstacles in a row, size, encoding -------------------------------------------

EASY = HEADER.replace('"medium"', '"easy"')


def _gap(length: int, rise: int = 0) -> str:
    return f'[[segment]]\nkind = "gap"\nlength = {length}\nrise = {rise}\n'


def _step(rise: int) -> str:
    return f'[[segment]]\nkind = "step"\nrise = {rise}\n'


def test_gaps_in_a_row_are_one_pit():
    # Six 100 px gaps, each within the easy limit, make a 600 px pit.
    msg = error_of(FLAT, *[_gap(100)] * 6, FLAT, GOAL, header=EASY)
    assert "segments 2..7 (gap, gap, gap, gap, gap, gap" in msg
    assert "pit 600 px wide" in msg and f"at most {GAP_LIMIT['easy']} px" in msg
    # Ground between them makes them separate pits again.
    short = FLAT.replace("1024", "64")
    parse(FLAT, *[_gap(100) + short] * 6, FLAT, GOAL, header=EASY)


def test_steps_in_a_row_are_one_wall():
    msg = error_of(FLAT, *[_step(48)] * 4, FLAT, GOAL, header=EASY)
    assert "segments 2..5" in msg and "together rise 192" in msg
    # Up and down at once is no taller than its highest point.
    parse(FLAT, _step(40), _step(-40), _step(40), FLAT, GOAL, header=EASY)
    # A gap whose far rim is a step up: the rises add up.
    msg = error_of(FLAT, _gap(64, 32), _step(32), FLAT, GOAL, header=EASY)
    assert "segments 2..3 (gap, step" in msg and "together rise 64" in msg


def test_stacked_steps_may_lean_on_a_spring_but_a_pit_may_not():
    spring = '[[entity]]\nkind = "spring"\nx = 900\n'
    goal = GOAL.replace("900", "1500")
    parse(FLAT, _step(60), _step(60), FLAT, goal, spring)
    with pytest.raises(StageError, match="together rise"):
        parse(FLAT, _gap(64), _step(60), _step(60), FLAT, goal, spring)


def test_a_stage_too_large_to_build_is_refused_before_building():
    header = HEADER.replace("height = 1024", "height = 8192").replace(
        "ground_y = 768", "ground_y = 4096")
    wide = FLAT.replace("1024", "65000")
    msg = error_of(wide, GOAL, header=header)
    assert "65000 x 8192" in msg and "MB to build" in msg
    assert f"{MAX_PIXELS // 2**20} M pixels" in msg


def test_a_profile_that_is_not_utf8_names_the_file(tmp_path):
    path = tmp_path / "latin.toml"
    path.write_bytes(profile_text(FLAT, GOAL).replace('"t"', '"caf\xe9"').encode("latin-1"))
    with pytest.raises(StageError, match=r"^latin\.toml: not UTF-8"):
        load_stage(str(path))


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_generated_and_built_in_stages_pass_the_new_checks(difficulty):
    from speednik.stages.generator import generate_profile
    for seed in range(150):
        generate_profile(seed, difficulty)   # raises StageError on a violation
    for name in list_stages():
        load_stage(name)

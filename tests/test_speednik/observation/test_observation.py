"""The float observations: the 12-value table, the terrain probes and the
registry of encoders."""
from __future__ import annotations

import math
import pickle
import random

import numpy as np
import pytest

from speednik.actions import action_to_input
from speednik.entities import Enemy, Spikes
from speednik.observation import (
    HAZARD_NAMES,
    HAZARD_OBS_DIM,
    OBS_DIM,
    OBS_NAMES,
    OBSERVATIONS,
    STALL_NAMES,
    STALL_NORM,
    STALL_OBS_DIM,
    TERRAIN_NAMES,
    TERRAIN_OBS_DIM,
    ObservationEncoder,
    extract_hazard_observation,
    extract_observation,
    extract_stall_observation,
    extract_terrain_observation,
    get_observation,
    list_observations,
    ray,
)
from speednik.physics import InputState
from speednik.simulation import create_sim, sim_step
from speednik.stages import generate_stage, load_stage
from speednik.terrain import DOWN, LEFT, RIGHT, SOLID, TOP_ONLY, UP
from stage_fixtures import (
    BUILTIN_STAGES,
    FLOOR_Y,
    build_stage,
    flat_stage,
    floor_grid,
    ledge_stage,
    pit_stage,
    place,
    ramp_stage,
    wall_stage,
)
from sweeps import sweep

T = {name: i for i, name in enumerate(TERRAIN_NAMES)}
STAND_Y = FLOOR_Y - 19.0


def settled(stage):
    sim = create_sim(stage)
    sim_step(sim, InputState())
    return sim


def terrain(sim) -> dict[str, float]:
    return dict(zip(TERRAIN_NAMES, extract_terrain_observation(sim).tolist()))


def hazards(sim) -> dict[str, float]:
    return dict(zip(HAZARD_NAMES, extract_hazard_observation(sim).tolist()))


# -- basic --------------------------------------------------------------------

def test_basic_values_follow_the_table():
    sim = settled(flat_stage())
    sim.frame = 900
    sim.max_x_reached = 500.0
    place(sim, 256.0, 160.0, x_vel=4.0, y_vel=-8.0, ground_speed=-2.0, on_ground=True,
          is_rolling=True, facing_right=False, angle=51)
    obs = extract_observation(sim)
    assert obs.shape == (OBS_DIM,) == (12,) and obs.dtype == np.float32
    w, h = sim.level_width, sim.level_height
    expected = [256 / w, 160 / h, 4 / 16, -8 / 16, 1.0, -2 / 16, 1.0, 0.0, 51 / 255,
                500 / w, (sim.goal_x - 256) / w, 900 / 3600]
    np.testing.assert_allclose(obs, np.array(expected, np.float32), rtol=1e-6)
    assert OBS_NAMES[10] == "goal_dx" and len(OBS_NAMES) == 12


def test_basic_flags_are_zero_or_one():
    sim = settled(flat_stage())
    place(sim, 100.0, STAND_Y, on_ground=False, is_rolling=False, facing_right=True)
    obs = extract_observation(sim)
    assert (obs[4], obs[6], obs[7]) == (0.0, 0.0, 1.0)


def test_each_call_returns_a_new_array():
    sim = settled(flat_stage())
    a = extract_observation(sim)
    b = extract_observation(sim)
    assert a is not b and not np.shares_memory(a, b)
    a[:] = 99.0
    assert extract_observation(sim)[0] != 99.0
    t1, t2 = extract_terrain_observation(sim), extract_terrain_observation(sim)
    assert not np.shares_memory(t1, t2)


# -- terrain probes -------------------------------------------------------------

def test_terrain_starts_with_the_basic_values():
    sim = settled(ramp_stage())
    for _ in range(40):
        sim_step(sim, InputState(right=True))
    t = extract_terrain_observation(sim)
    assert t.shape == (TERRAIN_OBS_DIM,) == (28,) and t.dtype == np.float32
    np.testing.assert_array_equal(t[:12], extract_observation(sim))
    assert TERRAIN_NAMES[:12] == OBS_NAMES


def test_open_flat_ground():
    sim = settled(flat_stage())
    t = terrain(sim)
    assert t["look_dir"] == 1.0
    assert t["wall_ahead"] == t["wall_ahead_low"] == 1.0
    assert t["ground_ahead_near"] == t["ground_ahead_mid"] == t["ground_ahead_far"] == 0.0
    assert t["slope_ahead"] == 0.0 and t["gap_ahead"] == 0.0
    assert t["ground_below"] == 0.0 and t["ceiling_above"] == 1.0
    assert t["enemy_near"] == t["enemy_dx"] == t["enemy_dy"] == 0.0
    assert t["hazard_near"] == t["hazard_dx"] == t["hazard_dy"] == 0.0


def test_wall_ahead_distance_and_direction():
    sim = settled(wall_stage(wall_x=256, wall_height=96))
    place(sim, 180.0, STAND_Y, x_vel=0.0, facing_right=True)
    t = terrain(sim)
    assert t["wall_ahead"] == pytest.approx(76 / 128)
    assert t["wall_ahead_low"] == pytest.approx(76 / 128)
    # 96 px ahead is the wall's top, a step 96 px up: clipped at -1.
    assert t["ground_ahead_mid"] == -1.0
    assert t["ground_ahead_near"] == 0.0 and t["ground_ahead_far"] == 0.0
    # Facing away, nothing ahead.
    place(sim, 180.0, STAND_Y, x_vel=0.0, facing_right=False)
    t = terrain(sim)
    assert t["look_dir"] == -1.0 and t["wall_ahead"] == 1.0


def test_a_low_wall_shows_only_on_the_low_ray():
    sim = settled(wall_stage(wall_x=256, wall_height=16))
    place(sim, 200.0, STAND_Y, facing_right=True)
    t = terrain(sim)
    assert t["wall_ahead"] == 1.0
    assert t["wall_ahead_low"] == pytest.approx(56 / 128)


def test_probes_follow_the_motion_over_the_facing():
    sim = settled(wall_stage(wall_x=256))
    place(sim, 200.0, STAND_Y, x_vel=3.0, facing_right=False)
    assert terrain(sim)["look_dir"] == 1.0
    place(sim, 200.0, STAND_Y, x_vel=-3.0, facing_right=True)
    assert terrain(sim)["look_dir"] == -1.0
    # Below one pixel per frame the facing decides.
    place(sim, 200.0, STAND_Y, x_vel=-0.5, facing_right=True)
    assert terrain(sim)["look_dir"] == 1.0


def test_gap_ahead():
    sim = settled(pit_stage(pit_x0=160, pit_x1=320))
    place(sim, 120.0, STAND_Y, facing_right=True)
    t = terrain(sim)
    assert t["ground_ahead_near"] == 0.0          # x = 152: still floor
    assert t["ground_ahead_mid"] == 2.0           # x = 216: the pit
    assert t["ground_ahead_far"] == 2.0           # x = 312: the pit
    assert t["gap_ahead"] == 1.0


def test_gap_far_probe_lands_past_the_pit():
    sim = settled(pit_stage(pit_x0=160, pit_x1=300))
    place(sim, 120.0, STAND_Y, facing_right=True)
    t = terrain(sim)
    assert (t["ground_ahead_near"], t["ground_ahead_mid"], t["ground_ahead_far"]) == (
        0.0, 2.0, 0.0)
    place(sim, 400.0, STAND_Y, facing_right=False)   # looking back at the pit
    t = terrain(sim)
    assert (t["ground_ahead_near"], t["ground_ahead_mid"], t["ground_ahead_far"]) == (
        0.0, 0.0, 2.0)


def test_ramp_height_and_slope_sign():
    stage = ramp_stage(ramp_x0=192, ramp_len=128, rise=64)
    sim = settled(stage)
    place(sim, 100.0, STAND_Y, facing_right=True)
    t = terrain(sim)
    # Far probe at x = 292: the ramp is 50 px high there.
    assert t["ground_ahead_far"] == pytest.approx(-((292 - 192) * 64 // 128) / 64)
    place(sim, 180.0, STAND_Y, facing_right=True)   # near probe at 212, on the ramp
    up = terrain(sim)["slope_ahead"]
    assert up > 0.1
    # On the plateau looking back down the ramp: the same slope, downhill.
    place(sim, 340.0, FLOOR_Y - 64 - 19.0, facing_right=False)
    down = terrain(sim)["slope_ahead"]
    assert down == pytest.approx(-up)
    angle = round(math.degrees(math.atan2(64, 128)) * 256 / 360)
    assert up == pytest.approx(angle / 64, abs=2 / 64)


def test_top_only_ledge_is_ground_but_not_wall():
    sim = settled(ledge_stage(x0=192, x1=320, y=FLOOR_Y - 64))
    place(sim, 150.0, FLOOR_Y - 64 + 6.0, facing_right=True, on_ground=False)
    t = terrain(sim)
    assert t["wall_ahead"] == 1.0 and t["wall_ahead_low"] == 1.0
    place(sim, 100.0, STAND_Y, facing_right=True)
    t = terrain(sim)
    # Mid probe at x = 196 meets the ledge top, 64 px above the floor.
    assert t["ground_ahead_mid"] == pytest.approx(-64 / 64)


def test_ground_below_and_ceiling_above():
    grid = floor_grid()
    grid[100:120, :] = SOLID
    sim = settled(build_stage(grid))
    place(sim, 200.0, STAND_Y - 40.0, on_ground=False)
    t = terrain(sim)
    assert t["ground_below"] == pytest.approx(40 / 128)
    head = int(STAND_Y - 40.0) - 19
    assert t["ceiling_above"] == pytest.approx((head - 119) / 64)


def test_nearest_enemy_and_hazard():
    stage = flat_stage(enemies=[Enemy("walker", 300.0, FLOOR_Y - 12.0, span=0.0),
                                Enemy("walker", 700.0, FLOOR_Y - 12.0, span=0.0)],
                       spikes=[Spikes(120.0, float(FLOOR_Y))])
    sim = settled(stage)
    place(sim, 200.0, STAND_Y, facing_right=True)
    t = terrain(sim)
    dx, dy = 100.0, (FLOOR_Y - 12.0) - STAND_Y
    assert t["enemy_near"] == pytest.approx(1 - math.hypot(dx, dy) / 256, rel=1e-5)
    assert t["enemy_dx"] == pytest.approx(dx / 256)
    assert t["enemy_dy"] == pytest.approx(dy / 256)
    sx, sy = 120.0 - 200.0, (FLOOR_Y - 8.0) - STAND_Y
    assert t["hazard_near"] == pytest.approx(1 - math.hypot(sx, sy) / 256, rel=1e-5)
    assert t["hazard_dx"] == pytest.approx(sx / 256)    # behind: negative
    # Looking left mirrors dx.
    place(sim, 200.0, STAND_Y, facing_right=False)
    t = terrain(sim)
    assert t["enemy_dx"] == pytest.approx(-dx / 256)
    assert t["hazard_dx"] == pytest.approx(-sx / 256)
    # A destroyed enemy is not seen; the next is out of reach.
    sim.enemy_destroyed[0] = 1
    t = terrain(sim)
    assert t["enemy_near"] == t["enemy_dx"] == t["enemy_dy"] == 0.0


def test_moving_enemy_is_seen_where_it_is():
    stage = flat_stage(enemies=[Enemy("flyer", 300.0, 200.0, span=64.0, period=100)])
    sim = settled(stage)
    place(sim, 200.0, STAND_Y, facing_right=True)
    sim.frame = 50   # top of its bob: 64 px up
    t = terrain(sim)
    assert t["enemy_dy"] == pytest.approx((200.0 - 64.0 - STAND_Y) / 256)


# -- hazards ------------------------------------------------------------------

def test_hazards_start_with_the_terrain_values():
    sim = settled(load_stage("hillside"))
    for _ in range(40):
        sim_step(sim, InputState(right=True))
    out = extract_hazard_observation(sim)
    assert out.shape == (HAZARD_OBS_DIM,) and HAZARD_NAMES[:TERRAIN_OBS_DIM] == TERRAIN_NAMES
    np.testing.assert_array_equal(out[:TERRAIN_OBS_DIM], extract_terrain_observation(sim))


def test_the_enemy_and_spikes_ahead_are_seen_past_nearer_ones_behind():
    stage = flat_stage(enemies=[Enemy("walker", 180.0, FLOOR_Y - 12.0, span=0.0),
                                Enemy("walker", 300.0, FLOOR_Y - 12.0, span=0.0)],
                       spikes=[Spikes(190.0, float(FLOOR_Y)), Spikes(400.0, float(FLOOR_Y))])
    sim = settled(stage)
    place(sim, 200.0, STAND_Y, facing_right=True)
    h = hazards(sim)
    # The nearest of all is behind ...
    assert h["enemy_dx"] == pytest.approx(-20.0 / 256)
    assert h["hazard_dx"] == pytest.approx(-10.0 / 256)
    # ... the ones ahead are seen all the same.
    dx, dy = 100.0, (FLOOR_Y - 12.0) - STAND_Y
    assert h["enemy_ahead_near"] == pytest.approx(1 - math.hypot(dx, dy) / 256, rel=1e-5)
    assert (h["enemy_ahead_dx"], h["enemy_ahead_dy"]) == (pytest.approx(dx / 256),
                                                          pytest.approx(dy / 256))
    assert h["spikes_ahead_dx"] == pytest.approx(200.0 / 256)
    assert h["spikes_ahead_dy"] == pytest.approx((FLOOR_Y - 8.0 - STAND_Y) / 256)
    # Standing still enemies do not move.
    assert h["enemy_ahead_vx"] == h["enemy_ahead_vy"] == 0.0
    # Turned round, what was behind is ahead, mirrored.
    place(sim, 200.0, STAND_Y, facing_right=False)
    h = hazards(sim)
    assert h["enemy_ahead_dx"] == pytest.approx(20.0 / 256)
    assert h["spikes_ahead_dx"] == pytest.approx(10.0 / 256)


def test_nothing_ahead_reads_zero():
    stage = flat_stage(enemies=[Enemy("walker", 150.0, FLOOR_Y - 12.0, span=0.0),
                                Enemy("walker", 600.0, FLOOR_Y - 12.0, span=0.0)],
                       spikes=[Spikes(100.0, float(FLOOR_Y))])
    sim = settled(stage)
    place(sim, 200.0, STAND_Y, facing_right=True)
    h = hazards(sim)
    assert h["enemy_near"] > 0 and h["hazard_near"] > 0       # behind, seen by terrain
    assert [h[n] for n in HAZARD_NAMES[30:]] == [0.0] * 8    # 400 px ahead: out of reach


def test_an_enemy_ahead_shows_its_motion_toward_or_away():
    # A walker patrols right over the first half of its period, then back.
    stage = flat_stage(enemies=[Enemy("walker", 300.0, FLOOR_Y - 12.0, span=60.0, period=120)])
    sim = settled(stage)
    place(sim, 200.0, STAND_Y, facing_right=True)
    sim.frame = 10
    going = hazards(sim)["enemy_ahead_vx"]
    assert going == pytest.approx(1.0)                       # 2 * 60 / 120 px a frame, away
    sim.frame = 70
    assert hazards(sim)["enemy_ahead_vx"] == pytest.approx(-1.0)   # coming back
    # A flyer bobs: up (negative y) over the first half.
    stage = flat_stage(enemies=[Enemy("flyer", 300.0, 200.0, span=48.0, period=120)])
    sim = settled(stage)
    place(sim, 200.0, STAND_Y, facing_right=True)
    sim.frame = 10
    h = hazards(sim)
    assert h["enemy_ahead_vy"] == pytest.approx(-0.8) and h["enemy_ahead_vx"] == 0.0


def test_a_fast_enemy_reads_at_most_the_top_speed_in_both_engines():
    from speednik.engine import CompiledSim

    stage = flat_stage(enemies=[Enemy("walker", 250.0, FLOOR_Y - 12.0, span=1000.0, period=4)])
    sim = settled(stage)
    place(sim, 200.0, STAND_Y, facing_right=True)
    sim.frame = 0                 # 500 px a frame to the right
    h = hazards(sim)
    assert h["enemy_ahead_vx"] == 16.0
    np.testing.assert_array_equal(CompiledSim(sim).observe("hazards"),
                                  extract_hazard_observation(sim))


def test_rings_held_and_invulnerability():
    sim = settled(flat_stage())
    h = hazards(sim)
    assert (h["rings_held"], h["invulnerable"]) == (0.0, 0.0)
    sim.player.rings = 3
    sim.player.invulnerable = 60
    h = hazards(sim)
    assert (h["rings_held"], h["invulnerable"]) == (1.0, 0.5)


def test_a_hit_with_rings_shows_invulnerability_and_no_rings():
    stage = flat_stage(enemies=[Enemy("walker", 260.0, FLOOR_Y - 12.0, span=0.0)])
    sim = settled(stage)
    place(sim, 200.0, STAND_Y, facing_right=True)
    sim.player.rings = 5
    # Knocked back by the hit, then invulnerable from the landing on.
    for _ in range(200):
        sim_step(sim, InputState(right=True))
        if sim.player.invulnerable:
            break
    h = hazards(sim)
    assert not sim.player_dead
    assert h["rings_held"] == 0.0 and h["invulnerable"] == 1.0
    sim_step(sim, InputState())
    assert hazards(sim)["invulnerable"] == pytest.approx(119 / 120)


# The rays skip empty tiles; they must agree with a cast at every pixel
# (what the game's sensors see) and, on tile-aligned blocks, with a plain
# pixel scan.

def _scan(grid, x, y, dx, dy, reach, solid_values):
    for d in range(reach + 1):
        px, py = x + dx * d, y + dy * d
        if 0 <= py < grid.shape[0] and 0 <= px < grid.shape[1] and grid[py, px] in solid_values:
            return d
    return reach + 1


def _cast_march(cast, x, y, dx, dy, reach):
    """First surface along a direction found by casting from every pixel."""
    for d in range(reach + 1):
        hit = cast(x + dx * d, y + dy * d)
        dist = hit[0]
        if dist != 32:
            total = d + dist
            return max(total, 0) if total <= reach else reach + 1
    return reach + 1


def _grid(aligned: bool, seed: int):
    rng = random.Random(seed)
    grid = floor_grid(width=1024, height=320)
    grid[208:256, 304:352] = SOLID                     # a block
    grid[128:144, 496:640] = TOP_ONLY                  # a ledge
    grid[32:64, 0:1024] = SOLID                        # a ceiling
    for x in range(704, 1024):                         # a ramp up to a plateau
        grid[256 - min(48, (x - 704) // 4):256, x] = SOLID
    for _ in range(14):                                # scattered blocks
        x, y = rng.randrange(0, 1000), rng.randrange(70, 240)
        if aligned:
            x, y = x & ~15, y & ~15
            w, h = 16 * rng.randrange(1, 3), 16 * rng.randrange(1, 3)
        else:
            w, h = rng.randrange(4, 40), rng.randrange(4, 30)
        grid[y:y + h, x:x + w] = SOLID
    return grid


def _empty_points(grid, n, seed):
    rng = random.Random(seed)
    while n:
        x, y = rng.randrange(0, grid.shape[1]), rng.randrange(0, grid.shape[0])
        if not grid[y, x]:
            n -= 1
            yield x, y, rng.choice([16, 64, 128, 200])


def test_rays_match_casts_from_every_pixel():
    grid = _grid(aligned=False, seed=3)
    tiles = build_stage(grid).tiles
    for x, y, reach in _empty_points(grid, 150, 7):
        assert ray(tiles, RIGHT, x, y, 0, reach)[0] == _cast_march(
            lambda a, b: tiles.cast_right(a, b, 0), x, y, 1, 0, reach)
        assert ray(tiles, LEFT, x, y, 0, reach)[0] == _cast_march(
            lambda a, b: tiles.cast_left(a, b, 0), x, y, -1, 0, reach)
        assert ray(tiles, UP, x, y, 0, reach)[0] == _cast_march(
            lambda a, b: tiles.cast_up(a, b, 0), x, y, 0, -1, reach)
        assert ray(tiles, DOWN, x, y, 0, reach)[0] == _cast_march(
            lambda a, b: tiles.cast_down(a, b, 0, True), x, y, 0, 1, reach)


def test_rays_match_a_pixel_scan_on_tile_aligned_terrain():
    grid = _grid(aligned=True, seed=5)
    tiles = build_stage(grid).tiles
    for x, y, reach in _empty_points(grid, 300, 11):
        assert ray(tiles, RIGHT, x, y, 0, reach)[0] == _scan(grid, x, y, 1, 0, reach, (SOLID,))
        assert ray(tiles, LEFT, x, y, 0, reach)[0] == _scan(grid, x, y, -1, 0, reach, (SOLID,))
        assert ray(tiles, UP, x, y, 0, reach)[0] == _scan(grid, x, y, 0, -1, reach, (SOLID,))
        d, _ = ray(tiles, DOWN, x, y, 0, reach)
        assert d == _scan(grid, x, y, 0, 1, reach, (SOLID, TOP_ONLY))


def test_rays_outside_the_stage():
    tiles = flat_stage().tiles
    assert ray(tiles, RIGHT, 2000, 100, 0, 64) == (65, 0)
    assert ray(tiles, LEFT, -50, 300, 0, 64) == (65, 0)
    assert ray(tiles, DOWN, 100, -500, 0, 64) == (65, 0)
    assert ray(tiles, DOWN, 100, -40, 0, 400)[0] == FLOOR_Y + 40
    assert ray(tiles, UP, 100, 5000, 0, 64) == (65, 0)


# -- the stall clock -------------------------------------------------------------

def stall_clock(sim) -> float:
    return float(extract_stall_observation(sim)[STALL_NAMES.index("stalled_for")])


def test_stall_starts_with_the_hazard_values():
    sim = settled(flat_stage(enemies=[Enemy("walker", 260.0, FLOOR_Y - 12.0, span=20.0)]))
    place(sim, 200.0, STAND_Y, x_vel=2.0, facing_right=True)
    out = extract_stall_observation(sim)
    assert STALL_NAMES[:HAZARD_OBS_DIM] == HAZARD_NAMES and STALL_NAMES[-1] == "stalled_for"
    np.testing.assert_array_equal(out[:HAZARD_OBS_DIM], extract_hazard_observation(sim))


@pytest.mark.parametrize("engine", ["readable", "compiled"])
def test_the_stall_clock_fills_against_a_wall_and_empties_on_progress(engine):
    """Pushing against a step it cannot climb, the player gets no further:
    the clock counts those frames up to 1; the first frame past the best
    x empties it."""
    from speednik.engine import CompiledSim

    sim = settled(wall_stage(wall_x=256, wall_height=48))
    place(sim, 200.0, STAND_Y, facing_right=True)
    if engine == "compiled":
        sim = CompiledSim(sim)
        step, clock = sim.step, (lambda: float(sim.observe("stall")[-1]))
    else:
        step, clock = (lambda inp: sim_step(sim, inp)), (lambda: stall_clock(sim))
    right = InputState(right=True)
    seen = []
    for _ in range(2 * STALL_NORM):
        step(right)
        seen.append(clock())
    # Running to the wall gains ground every frame; at the wall the player
    # jitters, creeping a fraction of a pixel further now and then, until
    # it can get no further at all.
    assert seen[:30] == [0.0] * 30
    last_gain = max(i for i, v in enumerate(seen) if v == 0.0)
    assert last_gain < STALL_NORM - 30
    after = seen[last_gain:]
    assert after == pytest.approx([min(k / STALL_NORM, 1.0) for k in range(len(after))],
                                  abs=1e-6)
    assert seen[-1] == 1.0
    # A jump clears the wall: the clock drops to 0 on the first new best x.
    held = False
    for _ in range(120):
        inp, held = action_to_input(5, held)      # right + jump
        step(inp)
        if clock() == 0.0:
            break
    assert clock() == 0.0


def test_the_stall_clock_counts_going_back_and_standing_still():
    sim = settled(flat_stage())
    place(sim, 300.0, STAND_Y, facing_right=True)
    sim.max_x_reached = 300.0
    sim.frames_without_gain = 0
    for _ in range(30):
        sim_step(sim, InputState(left=True))
    assert stall_clock(sim) == pytest.approx(30 / STALL_NORM)
    for _ in range(30):
        sim_step(sim, InputState())
    assert stall_clock(sim) == pytest.approx(60 / STALL_NORM)


# -- registry -------------------------------------------------------------------

def test_registry_names_and_sizes():
    assert list_observations() == ("basic", "terrain", "hazards", "stall", "lookahead", "pits",
                                   "landing", "room", "footing", "local", "onward", "stride", "reach",
                                   "stand", "behind", "runup", "turnback")
    basic, ter = get_observation("basic"), get_observation("terrain")
    haz, stall = get_observation("hazards"), get_observation("stall")
    assert (basic.name, basic.size) == ("basic", OBS_DIM)
    assert (ter.name, ter.size) == ("terrain", TERRAIN_OBS_DIM)
    assert (haz.name, haz.size) == ("hazards", HAZARD_OBS_DIM) == ("hazards", 38)
    assert (stall.name, stall.size) == ("stall", STALL_OBS_DIM) == ("stall", 39)
    assert OBSERVATIONS["basic"] is basic
    assert get_observation(basic) is basic
    look = get_observation("lookahead")
    assert look.size == 49 and look.feature_names[:39] == STALL_NAMES
    pits = get_observation("pits")
    assert pits.size == 55 and pits.feature_names[:49] == look.feature_names
    landing = get_observation("landing")
    assert landing.size == 60 and landing.feature_names[:55] == pits.feature_names
    room = get_observation("room")
    assert room.size == 62 and room.feature_names[:60] == landing.feature_names
    footing = get_observation("footing")
    assert footing.size == 60 and footing.feature_names[:55] == pits.feature_names
    local = get_observation("local")
    assert local.size == 55 and set(local.feature_names) < set(footing.feature_names)
    onward = get_observation("onward")
    assert onward.size == 55 and onward.feature_names[:50] == local.feature_names[:50]
    stride = get_observation("stride")
    assert stride.size == 55 and stride.feature_names == onward.feature_names
    for enc in (basic, ter, haz, stall, look, pits, landing, room, footing, local, onward,
                stride):
        assert len(enc.feature_names) == enc.size


@pytest.mark.parametrize("bad", ["tokens", "Basic", "", None, 3])
def test_unknown_observation_lists_the_accepted_names(bad):
    with pytest.raises(ValueError) as err:
        get_observation(bad)
    assert "'basic'" in str(err.value) and "'terrain'" in str(err.value)


@pytest.mark.parametrize("name", ["basic", "terrain", "hazards", "stall", "lookahead", "pits",
                                  "landing"])
def test_encoders_are_callable_and_picklable(name):
    enc = get_observation(name)
    sim = settled(flat_stage())
    out = enc(sim)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32 and out.shape == (enc.size,)
    clone = pickle.loads(pickle.dumps(enc))
    assert clone is enc
    np.testing.assert_array_equal(clone(sim), out)
    assert isinstance(clone, ObservationEncoder)


# -- on the built-in stages -----------------------------------------------------

@pytest.mark.parametrize("name", sweep(BUILTIN_STAGES + ("generated",)))
def test_observations_stay_finite_on_builtin_stages(name):
    stage = generate_stage(11, "hard") if name == "generated" else load_stage(name)
    sim = create_sim(stage)
    rng = random.Random(name)
    held = False
    actions = [2] * 300 + [rng.randrange(8) for _ in range(300)]
    for a in actions:
        inp, held = action_to_input(a, held)
        sim_step(sim, inp)
        for enc in OBSERVATIONS.values():
            out = enc(sim)
            assert out.shape == (enc.size,) and np.isfinite(out).all()
        if sim.player_dead or sim.goal_reached:
            break


def test_a_value_is_reached_by_its_name_in_one_definition():
    from speednik.engine import observation as compiled
    from speednik.observation import STALL_VALUES, index_of

    assert index_of(STALL_VALUES, "stalled_for") == compiled.STALLED_FOR == STALL_OBS_DIM - 1
    assert index_of(STALL_VALUES, "look_dir") == compiled.LOOK_DIR == OBS_DIM
    with pytest.raises(KeyError, match="no value 'speed' in x, y"):
        index_of(STALL_VALUES, "speed")
    # The engine's table of observations is the registry's.
    assert compiled.OBSERVATION_KINDS == tuple(
        n for n, e in OBSERVATIONS.items() if e.compiled)
    assert compiled.OBS_SIZES == tuple(
        e.size for e in OBSERVATIONS.values() if e.compiled)
    for encoder in OBSERVATIONS.values():
        assert encoder.feature_names == tuple(v.name for v in encoder.values)
        assert all(v.high is None or v.low < v.high for v in encoder.values)


def _lookahead_at(stage, x: float, y: float, **physics) -> dict:
    from speednik.observation import LOOKAHEAD_NAMES, extract_lookahead_observation

    sim = create_sim(stage)
    p = sim.player.physics
    p.x, p.y = x, y
    for k, v in physics.items():
        setattr(p, k, v)
    return dict(zip(LOOKAHEAD_NAMES, extract_lookahead_observation(sim).tolist()))


def test_lookahead_sees_skybridge_s_red_spring_and_the_cliff_it_climbs():
    sky = load_stage("skybridge")
    # The red spring at x 3760, 260 px ahead, and the 240 px cliff at 3920.
    far = _lookahead_at(sky, 3500, 668)
    assert far["spring_ahead_power"] == 1.0 and far["spring_ahead_up"] == 1.0
    assert far["spring_ahead_forward"] == 0.0
    assert far["spring_ahead_dx"] == pytest.approx(260 / 320, abs=1e-6)
    assert far["spring_ahead_near"] == pytest.approx(1 - 260 / 320, abs=1e-3)
    assert far["wall_ahead_height"] == 0.0
    near = _lookahead_at(sky, 3850, 668)
    assert near["spring_ahead_near"] == 0.0             # behind the player now
    assert near["wall_ahead_height"] * 256 == pytest.approx(240, abs=2)
    # The yellow spring's wall at 1712 is 144 px tall.
    assert _lookahead_at(sky, 1650, 684)["wall_ahead_height"] * 256 == pytest.approx(144, abs=2)
    yellow = _lookahead_at(sky, 1300, 684)
    assert yellow["spring_ahead_power"] == pytest.approx(10 / 16)
    # Looking back (moving left): nothing ahead.
    back = _lookahead_at(sky, 3850, 668, x_vel=-4.0)
    assert back["spring_ahead_dx"] > 0 and back["wall_ahead_height"] == 0.0


def test_lookahead_spindash_charge_and_bounds_on_every_stage():
    from speednik.observation import LOOKAHEAD_VALUES, extract_lookahead_observation

    sim = create_sim(load_stage("hillside"))
    for _ in range(5):
        sim_step(sim, InputState())
    charges = []
    for frame in range(12):
        press = frame % 2 == 0
        sim_step(sim, InputState(down_held=True, jump_pressed=press, jump_held=press))
        charges.append(extract_lookahead_observation(sim)[-1])
    assert max(charges) > 0 and all(0.0 <= c <= 1.0 for c in charges)
    low = np.array([v.low for v in LOOKAHEAD_VALUES])
    high = np.array([v.high if v.high is not None else np.inf for v in LOOKAHEAD_VALUES])
    for stage in BUILTIN_STAGES:
        sim = create_sim(load_stage(stage))
        for frame in range(1500):
            sim_step(sim, InputState(right=True, jump_pressed=frame % 40 == 0,
                                     jump_held=frame % 40 < 10))
            obs = extract_lookahead_observation(sim)
            assert np.all(obs >= low) and np.all(obs <= high), (stage, frame)
            if sim.player_dead or sim.goal_reached:
                break


# -- pits -------------------------------------------------------------------------

def _chained_pits_stage():
    """Pit 160-240, a pillar 32 px higher than the floor 240-288, pit
    288-400, floor again."""
    grid = floor_grid()
    grid[FLOOR_Y - 32:FLOOR_Y, 240:288] = SOLID
    grid[:, 160:240] = 0
    grid[:, 288:400] = 0
    return build_stage(grid, name="chain")


def _pits_at(stage, x: float, y: float, **physics) -> dict:
    from speednik.engine import CompiledSim
    from speednik.observation import PITS_NAMES, extract_pits_observation

    sim = settled(stage)
    place(sim, x, y, **physics)
    readable = extract_pits_observation(sim)
    np.testing.assert_array_equal(CompiledSim(sim).observe("pits"), readable)
    return dict(zip(PITS_NAMES[-6:-2], readable[-6:-2].tolist()))


def test_pits_see_where_a_pit_starts_how_wide_it_is_and_its_landing():
    stage = _chained_pits_stage()
    # Columns every 16 px from x 120: the pit from the column at 168, the
    # pillar from 248 (32 px up), the second pit from 296.
    seen = _pits_at(stage, 120.0, STAND_Y, facing_right=True)
    assert seen["pit_ahead_dx"] == pytest.approx(48 / 384)
    assert seen["pit_width"] == pytest.approx(80 / 384)
    assert seen["pit_landing"] == pytest.approx(-32 / 64)
    assert seen["landing_length"] == pytest.approx(48 / 384)
    # In the air over the first pit: it starts here, the pillar 48 px on.
    over = _pits_at(stage, 200.0, STAND_Y - 40, facing_right=True, on_ground=False, x_vel=4.0)
    assert over["pit_ahead_dx"] == 0.0 and over["pit_width"] == pytest.approx(48 / 384)
    # Looking back from past both pits: the second pit, then the pillar.
    back = _pits_at(stage, 440.0, STAND_Y, facing_right=False)
    assert back["pit_ahead_dx"] == pytest.approx(48 / 384)
    assert back["pit_width"] == pytest.approx(112 / 384)
    assert back["landing_length"] == pytest.approx(48 / 384)


def test_pits_read_none_on_flat_ground_and_an_unseen_landing_as_zero():
    assert _pits_at(flat_stage(), 120.0, STAND_Y, facing_right=True) == {
        "pit_ahead_dx": 1.0, "pit_width": 0.0, "pit_landing": 0.0, "landing_length": 0.0}
    wide = _pits_at(pit_stage(pit_x0=160, pit_x1=900), 120.0, STAND_Y, facing_right=True)
    assert wide["pit_ahead_dx"] == pytest.approx(48 / 384)
    assert wide["pit_width"] == pytest.approx((384 - 48) / 384)
    assert wide["pit_landing"] == 0.0 and wide["landing_length"] == 0.0


def test_pits_see_whether_jump_is_held_in_both_engines():
    from speednik.engine import CompiledSim
    from speednik.observation import PITS_NAMES, extract_pits_observation

    held_at, ready_at = PITS_NAMES.index("jump_held"), PITS_NAMES.index("jump_ready")
    sim = settled(flat_stage())
    compiled = CompiledSim(sim)
    seen = []
    # Standing, then a jump held through the air and after landing, then let go.
    for frame in range(80):
        held = 1 <= frame < 70
        inp = InputState(jump_pressed=frame == 1, jump_held=held)
        sim_step(sim, inp)
        compiled.step(inp)
        obs = extract_pits_observation(sim)
        np.testing.assert_array_equal(compiled.observe("pits"), obs)
        seen.append((obs[held_at], obs[ready_at], sim.player.physics.on_ground))
    assert seen[0] == (0.0, 1.0, True)
    assert seen[5] == (1.0, 0.0, False)            # in the air, held
    assert seen[69] == (1.0, 0.0, True)            # landed with jump still held
    assert seen[75] == (0.0, 1.0, True)            # let go: ready again


def test_lookahead_ceiling_ahead_tells_a_tunnel_from_a_wall():
    # 64 px ahead of the head lies inside a wall: no ceiling to stay low under.
    at_wall = _lookahead_at(wall_stage(wall_x=256, wall_height=96), 200.0, STAND_Y)
    assert at_wall["ceiling_ahead"] == 1.0 and at_wall["wall_ahead"] < 1.0
    # A roof 24 px above head height over the floor 64 px ahead: a tunnel.
    grid = floor_grid()
    head = int(STAND_Y) - 19
    grid[head - 40:head - 24, 240:400] = SOLID
    tunnel = _lookahead_at(build_stage(grid, name="roof"), 200.0, STAND_Y)
    assert tunnel["ceiling_ahead"] == pytest.approx(24 / 64, abs=1 / 64)
    assert tunnel["wall_ahead"] == 1.0

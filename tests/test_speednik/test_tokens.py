"""Token observations: layout, ordering, packing, dropping and decoding."""
from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

from speednik.actions import action_to_input
from speednik.entities import Checkpoint, Enemy, Ring, Spikes, Spring
from speednik.physics import InputState
from speednik.player import PlayerState
from speednik.simulation import create_sim, sim_step
from speednik.stages import load_stage
from speednik.terrain import SOLID
from speednik.tokens import (
    CELL_FEATURES,
    EMPTY,
    FEATURE_IDS,
    FEATURES,
    GLOBAL_FEATURES,
    NUM_FEATURES,
    NUM_TOKENS,
    WINDOW,
    TokenEncoder,
    cell_order,
    decode_tokens,
    feature,
    pack_coordinate,
    unpack_coordinate,
)
from stage_fixtures import (
    BUILTIN_STAGES,
    FLOOR_Y,
    build_stage,
    flat_stage,
    floor_grid,
    ledge_stage,
    place,
    ramp_stage,
)

CENTRE = 5 << 4 | 5
STAND_Y = FLOOR_Y - 19.0


def settled(stage):
    sim = create_sim(stage)
    sim_step(sim, InputState())
    return sim


def live(tokens):
    return tokens[tokens[:, 0] != EMPTY]


def cell_value(tokens, name, row, col):
    fid = FEATURE_IDS[name]
    hits = [t for t in live(tokens) if t[0] == (row << 4 | col) and t[1] == fid]
    assert len(hits) <= 1
    return int(hits[0][2]) if hits else 0


def global_value(tokens, name):
    return cell_value(tokens, name, 5, 5)


# -- catalogue and packing ------------------------------------------------------

def test_catalogue_ids_are_stable():
    assert [f.id for f in FEATURES] == list(range(NUM_FEATURES))
    assert len(set(FEATURE_IDS)) == NUM_FEATURES
    # Ids are part of the observation format: changing one breaks saved policies.
    expected = {"agent:on_ground": 0, "agent:x_vel": 3, "agent:rings": 6,
                "episode_completion_pct": 10, "last_action": 11, "last_reward": 12,
                "terrain:solid": 13, "terrain:top_only": 14, "terrain:angle": 15,
                "ring": 16, "spring": 17, "enemy": 18, "spikes": 19, "checkpoint": 20,
                "goal": 21}
    assert {k: FEATURE_IDS[k] for k in expected} == expected
    assert GLOBAL_FEATURES == tuple(range(13)) and CELL_FEATURES == tuple(range(13, 22))
    assert feature("ring") is feature(16) is FEATURES[16]
    assert feature("last_reward").decode(128 + 37) == pytest.approx(0.37)
    assert feature("agent:x_vel").decode(128 - 24) == pytest.approx(-3.0)
    with pytest.raises(ValueError, match="known features"):
        feature("nope")
    with pytest.raises(ValueError):
        feature(NUM_FEATURES)


def test_coordinate_packing():
    assert pack_coordinate(3, 7) == 0x37
    assert unpack_coordinate(0x37) == (3, 7)
    for r in range(15):
        for c in range(15):
            assert unpack_coordinate(pack_coordinate(r, c)) == (r, c)
    assert unpack_coordinate(EMPTY) is None
    for bad in [(15, 0), (0, 15), (-1, 2)]:
        with pytest.raises(ValueError):
            pack_coordinate(*bad)


def test_cell_order_is_by_manhattan_distance_then_row_then_col():
    order = cell_order(11)
    assert len(order) == 121 and tuple(order[0]) == (5, 5)
    keys = [(abs(r - 5) + abs(c - 5), r, c) for r, c in order]
    assert keys == sorted(keys)
    assert tuple(order[1]) == (4, 5) and tuple(order[-1]) == (10, 10)


# -- layout -------------------------------------------------------------------------

def test_shape_dtype_and_global_block():
    enc = TokenEncoder()
    assert enc.shape == (NUM_TOKENS, 3) == (200, 3)
    tokens = enc(settled(flat_stage()))
    assert tokens.shape == (200, 3) and tokens.dtype == np.uint8
    assert (tokens[:13, 0] == CENTRE).all()
    assert tokens[:13, 1].tolist() == list(GLOBAL_FEATURES)


def test_player_and_global_values():
    stage = flat_stage()
    sim = settled(stage)
    enc = TokenEncoder(max_steps=1000)
    place(sim, 100.0 + 7, STAND_Y, x_vel=2.5, y_vel=-3.0, on_ground=True, is_rolling=True,
          facing_right=False, angle=200)
    sim.player.rings = 300
    sim.player.state = PlayerState.ROLLING
    sim.frame = 250
    enc.record(5, -0.05)
    t = enc(sim)
    assert global_value(t, "agent:on_ground") == 1
    assert global_value(t, "agent:rolling") == 1
    assert global_value(t, "agent:facing_right") == 0
    assert global_value(t, "agent:x_vel") == 128 + 20
    assert global_value(t, "agent:y_vel") == 128 - 24
    assert global_value(t, "agent:angle") == 200
    assert global_value(t, "agent:rings") == 255        # clipped
    assert global_value(t, "agent:state") == int(PlayerState.ROLLING)
    assert global_value(t, "agent:offset_x") == 107 % 16
    assert global_value(t, "agent:offset_y") == int(STAND_Y) % 16
    assert global_value(t, "episode_completion_pct") == 25
    assert global_value(t, "last_action") == 5
    assert global_value(t, "last_reward") == 128 - 5
    # A zero flag is still written: the global block has a fixed layout.
    place(sim, 107.0, STAND_Y, on_ground=False)
    assert global_value(enc(sim), "agent:on_ground") == 0
    assert (enc(sim)[:13, 1] == np.arange(13)).all()


@pytest.mark.parametrize("reward, byte", [(0.0, 128), (-0.001, 128), (0.02, 130),
                                          (-0.5, 78), (1.27, 255), (12.0, 255),
                                          (-5.0, 0), (-1.28, 0)])
def test_last_reward_is_scaled_by_100_around_128(reward, byte):
    enc = TokenEncoder()
    enc.record(2, reward)
    assert global_value(enc(settled(flat_stage())), "last_reward") == byte


def test_velocity_bytes_clip():
    sim = settled(flat_stage())
    place(sim, 100.0, STAND_Y, x_vel=20.0, y_vel=-20.0)
    t = TokenEncoder()(sim)
    assert global_value(t, "agent:x_vel") == 255 and global_value(t, "agent:y_vel") == 0


def test_reset_forgets_the_last_step():
    enc = TokenEncoder(num_tokens=20)
    enc.record(7, 0.5)
    enc(settled(flat_stage()))
    assert enc.tokens_dropped > 0
    enc.reset()
    t = enc(settled(flat_stage()))
    assert global_value(t, "last_action") == 0 and global_value(t, "last_reward") == 128
    assert enc.tokens_dropped == enc.last_dropped


# -- cells --------------------------------------------------------------------------

def test_terrain_cells_on_flat_ground():
    sim = settled(flat_stage())
    place(sim, 200.0, STAND_Y)        # tile (14, 12); the floor starts at tile row 16
    planes = TokenEncoder().dense(sim)
    solid = planes[FEATURE_IDS["terrain:solid"]]
    assert (solid[:7] == 0).all()      # rows 9..15 are sky
    assert (solid[7:] == 255).all()    # rows 16..19 are full
    assert (planes[FEATURE_IDS["terrain:top_only"]] == 0).all()
    assert (planes[FEATURE_IDS["terrain:angle"]] == 0).all()


def test_partial_tiles_top_only_and_slopes():
    grid = floor_grid()
    grid[FLOOR_Y - 8:FLOOR_Y, 208:224] = SOLID          # a half tile
    sim = settled(build_stage(grid))
    place(sim, 200.0, STAND_Y)
    planes = TokenEncoder().dense(sim)
    assert planes[FEATURE_IDS["terrain:solid"], 6, 6] == 8 * 16 * 255 // 256

    sim = settled(ledge_stage(x0=192, x1=320, y=FLOOR_Y - 64))
    place(sim, 200.0, STAND_Y)
    planes = TokenEncoder().dense(sim)
    # The ledge fills tile row 12 from x = 192: window row 3, cols 5..10.
    top = planes[FEATURE_IDS["terrain:top_only"]]
    assert (top[3, 5:] == 255).all() and top[3, :5].sum() == 0 and top.sum() == 6 * 255

    sim = settled(ramp_stage(ramp_x0=192, ramp_len=128, rise=64))
    place(sim, 200.0, STAND_Y)
    angle = TokenEncoder().dense(sim)[FEATURE_IDS["terrain:angle"]]
    assert (angle[6, 5:] > 0).any() and (angle[6, 5:] < 64).all()
    assert angle[:, :5].sum() == 0


def test_objects_in_cells():
    stage = flat_stage(
        rings=[Ring(216.0, 200.0), Ring(220.0, 204.0), Ring(120.0, 150.0), Ring(900.0, 200.0)],
        springs=[Spring(264.0, 248.0, "left", "red")],
        spikes=[Spikes(152.0, float(FLOOR_Y), width=32.0)],
        enemies=[Enemy("flyer", 280.0, 160.0, span=0.0), Enemy("walker", 152.0, 244.0, span=0.0)],
        checkpoints=[Checkpoint(232.0, 232.0)],
        goal_x=248.0)
    sim = settled(stage)
    place(sim, 200.0, STAND_Y)
    sim.frame = 10
    enc = TokenEncoder()
    t = enc(sim)
    # Window origin: tile (14 - 5, 12 - 5) = (9, 7), i.e. pixel (112, 144).
    assert cell_value(t, "ring", (200 - 144) // 16, (216 - 112) // 16) == 2
    assert cell_value(t, "ring", (150 - 144) // 16, (120 - 112) // 16) == 1
    assert cell_value(t, "spring", (248 - 144) // 16, (264 - 112) // 16) == 1 + 1 + 3
    assert cell_value(t, "enemy", (160 - 144) // 16, (280 - 112) // 16) == 2
    assert cell_value(t, "enemy", (244 - 144) // 16, (152 - 112) // 16) == 1
    for col in ((136 - 112) // 16, (160 - 112) // 16):
        assert cell_value(t, "spikes", (240 - 144) // 16, col) == 1
    assert cell_value(t, "checkpoint", (232 - 144) // 16, (232 - 112) // 16) == 1
    assert cell_value(t, "goal", (FLOOR_Y - 144) // 16, (248 - 112) // 16) == 1
    # State changes show up.
    sim.ring_taken[0] = 1
    sim.enemy_destroyed[0] = 1
    sim.checkpoint_hit[0] = 1
    t = enc(sim)
    assert cell_value(t, "ring", (200 - 144) // 16, (216 - 112) // 16) == 1
    assert cell_value(t, "enemy", (160 - 144) // 16, (280 - 112) // 16) == 0
    assert cell_value(t, "checkpoint", (232 - 144) // 16, (232 - 112) // 16) == 2
    assert cell_value(t, "ring", 0, 0) == 1 and cell_value(t, "ring", 10, 10) == 0


def test_terrain_of_the_players_layer():
    g0 = floor_grid()
    g1 = floor_grid()
    g1[160:176, 160:176] = SOLID          # only on layer 1
    stage = build_stage(g0, layer1=g1)
    sim = settled(stage)
    place(sim, 200.0, STAND_Y, layer=0)
    assert cell_value(TokenEncoder()(sim), "terrain:solid", 1, 3) == 0
    place(sim, 200.0, STAND_Y, layer=1)
    assert cell_value(TokenEncoder()(sim), "terrain:solid", 1, 3) == 255


def test_player_far_outside_the_stage():
    sim = settled(flat_stage())
    for y in (-3000.0, -60.0, 5000.0):
        place(sim, 200.0, y)
        t = TokenEncoder()(sim)
        assert (t[:13, 0] == CENTRE).all()
    place(sim, 200.0, -60.0)   # the window reaches into the stage's top rows
    assert decode_tokens(TokenEncoder()(sim)).shape == (NUM_FEATURES, 11, 11)


# -- ordering, dropping, decoding ---------------------------------------------------

def busy_sim():
    rng = random.Random(1)
    rings = [Ring(rng.uniform(100, 300), rng.uniform(140, 250)) for _ in range(40)]
    stage = ramp_stage(rings=rings, enemies=[Enemy("walker", 150.0, 244.0)],
                       spikes=[Spikes(260.0, float(FLOOR_Y))])
    sim = settled(stage)
    place(sim, 200.0, STAND_Y)
    return sim


def test_tokens_are_ordered_by_distance():
    t = TokenEncoder(num_tokens=1000)(busy_sim())
    cells = live(t)[13:]
    assert len(cells) > 40
    keys = []
    for loc, fid, value in cells:
        r, c = unpack_coordinate(loc)
        keys.append((abs(r - 5) + abs(c - 5), r, c, fid))
        assert value > 0
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)   # one token per (cell, feature)
    # Unused slots are empty rows.
    assert (t[len(live(t)):] == EMPTY).all()


def test_dropping_keeps_the_nearest_and_counts_the_rest():
    sim = busy_sim()
    full = TokenEncoder(num_tokens=1000)(sim)
    n = len(live(full))
    for limit in (5, 13, 30, n - 1, n, n + 5):
        enc = TokenEncoder(num_tokens=limit)
        t = enc(sim)
        kept = min(limit, n)
        np.testing.assert_array_equal(t[:kept], full[:kept])
        assert enc.last_dropped == n - kept
        assert (t[kept:] == EMPTY).all()
    enc = TokenEncoder(num_tokens=30)
    enc(sim)
    enc(sim)
    assert enc.tokens_dropped == 2 * (n - 30)


def test_decode_round_trip():
    sim = busy_sim()
    enc = TokenEncoder(num_tokens=1000)
    t = enc(sim)
    planes = decode_tokens(t)
    assert planes.shape == (NUM_FEATURES, WINDOW, WINDOW) and planes.dtype == np.uint8
    np.testing.assert_array_equal(planes, enc.dense(sim))
    norm = decode_tokens(t, normalize=True)
    assert norm.dtype == np.float32
    for loc, fid, value in live(t):
        r, c = unpack_coordinate(loc)
        f = FEATURES[fid]
        assert norm[fid, r, c] == pytest.approx((value - f.offset) / f.normalization)
    assert norm[FEATURE_IDS["agent:x_vel"], 0, 0] == 0.0
    # Dropped tokens decode as absent.
    small = TokenEncoder(num_tokens=40)(sim)
    part = decode_tokens(small)
    assert ((part == planes) | (part == 0)).all() and (part != planes).any()


def test_decode_rejects_bad_input():
    with pytest.raises(ValueError):
        decode_tokens(np.zeros((5, 2), np.uint8))
    bad = np.full((3, 3), EMPTY, np.uint8)
    bad[0] = (pack_coordinate(12, 0), 0, 1)
    with pytest.raises(ValueError):
        decode_tokens(bad)   # row 12 is outside an 11-wide window


def test_other_window_sizes():
    sim = busy_sim()
    for w in (3, 7, 15):
        enc = TokenEncoder(num_tokens=600, window=w)
        t = enc(sim)
        centre = (w // 2) << 4 | (w // 2)
        assert (t[:13, 0] == centre).all()
        np.testing.assert_array_equal(decode_tokens(t, window=w), enc.dense(sim))
    for bad in (4, 17, 0):
        with pytest.raises(ValueError):
            TokenEncoder(window=bad)
    with pytest.raises(ValueError):
        TokenEncoder(num_tokens=0)


def test_encoder_pickles_with_its_state():
    enc = TokenEncoder(num_tokens=50, max_steps=500)
    enc.record(4, 0.25)
    enc(busy_sim())
    clone = pickle.loads(pickle.dumps(enc))
    assert (clone.num_tokens, clone.window, clone.max_steps) == (50, 11, 500)
    assert (clone.last_action, clone.last_reward, clone.tokens_dropped) == (
        4, 0.25, enc.tokens_dropped)
    np.testing.assert_array_equal(clone(busy_sim()), enc(busy_sim()))


def test_each_call_returns_a_new_array():
    enc = TokenEncoder()
    sim = busy_sim()
    a, b = enc(sim), enc(sim)
    assert not np.shares_memory(a, b)


@pytest.mark.parametrize("name", BUILTIN_STAGES)
def test_tokens_on_builtin_stages(name):
    sim = create_sim(load_stage(name))
    enc = TokenEncoder()
    held = False
    rng = random.Random(name)
    for i in range(400):
        a = 2 if i < 200 else rng.randrange(8)
        inp, held = action_to_input(a, held)
        sim_step(sim, inp)
        t = enc(sim)
        body = live(t)
        rows, cols = body[:, 0] >> 4, body[:, 0] & 15
        assert (rows < 11).all() and (cols < 11).all() and (body[:, 1] < NUM_FEATURES).all()
        assert len(body) + enc.last_dropped >= 13
        if sim.player_dead or sim.goal_reached:
            break
    # A ground-level window on a built stage has terrain in it.
    assert FEATURE_IDS["terrain:solid"] in live(enc(create_sim(load_stage(name))))[:, 1]

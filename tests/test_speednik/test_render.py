"""Frames drawn into numpy arrays."""
from __future__ import annotations

import numpy as np
import pytest

from speednik import render
from speednik.entities import Checkpoint, Enemy, Ring, Spikes, Spring
from speednik.physics import InputState
from speednik.player import PlayerState
from speednik.render import SHOES, camera, render_frame, stage_image
from speednik.simulation import create_sim, sim_step
from speednik.stages import load_stage
from speednik.terrain import SOLID
from terrain_builders import flat_stage as open_flat_stage
from stage_fixtures import (
    BUILTIN_STAGES,
    FLOOR_Y,
    build_stage,
    flat_stage,
    floor_grid,
    ledge_stage,
    place,
)

STAND_Y = FLOOR_Y - 19.0


def settled(stage):
    sim = create_sim(stage)
    sim_step(sim, InputState())
    return sim


def colour_at(img, x, y):
    return tuple(int(v) for v in img[int(y), int(x)])


def screen(sim, x, y, w=320, h=224):
    cx, cy = camera(sim, w, h)
    return x - cx, y - cy


def test_shape_dtype_sizes_and_scale():
    sim = settled(flat_stage(width=2048))
    img = render_frame(sim)
    assert img.shape == (224, 320, 3) and img.dtype == np.uint8
    assert render_frame(sim, 160, 100).shape == (100, 160, 3)
    big = render_frame(sim, scale=3)
    assert big.shape == (672, 960, 3)
    np.testing.assert_array_equal(big[::3, ::3], img)
    np.testing.assert_array_equal(render_frame(sim), img)   # deterministic


@pytest.mark.parametrize("bad", [dict(width=0), dict(height=-1), dict(scale=0),
                                 dict(scale=1.5), dict(width=True)])
def test_bad_sizes(bad):
    with pytest.raises(ValueError):
        render_frame(settled(flat_stage()), **bad)


def test_camera_follows_the_player_and_stays_in_the_stage():
    sim = settled(flat_stage(width=2048))
    stage = sim.stage
    place(sim, 64.0, STAND_Y)
    assert camera(sim) == (0, stage.height - 224)
    place(sim, 1000.0, STAND_Y)
    cx, _ = camera(sim)
    assert cx == 1000 - 160
    place(sim, 2040.0, 10.0)
    assert camera(sim) == (2048 - 320, 0)


def test_terrain_and_sky_colours():
    sim = settled(flat_stage(width=2048))
    place(sim, 1000.0, STAND_Y)
    img = render_frame(sim)
    x, y = screen(sim, 900.0, FLOOR_Y + 20.0)
    assert colour_at(img, x, y) in (render.EARTH, render.EARTH_DARK)
    x, y = screen(sim, 900.0, FLOOR_Y + 1.0)
    assert colour_at(img, x, y) == render.GRASS
    x, y = screen(sim, 900.0, FLOOR_Y - 60.0)
    assert colour_at(img, x, y) == render.SKY


def test_top_only_and_other_layer_terrain():
    sim = settled(ledge_stage(x0=192, x1=320, y=FLOOR_Y - 64))
    img = render_frame(sim)
    x, y = screen(sim, 250.0, FLOOR_Y - 56.0)
    assert colour_at(img, x, y) == render.LEDGE
    g0 = floor_grid()
    g1 = floor_grid()
    g1[100:140, 200:260] = SOLID
    sim = settled(build_stage(g0, layer1=g1))
    x, y = screen(sim, 230.0, 130.0)
    assert colour_at(render_frame(sim), x, y) in (render.GHOST, render.GHOST_DARK)
    sim.player.physics.layer = 1
    assert colour_at(render_frame(sim), x, y) in (render.EARTH, render.EARTH_DARK)


def test_player_colours_by_state():
    sim = settled(flat_stage(width=2048))
    place(sim, 1000.0, STAND_Y)
    x, y = screen(sim, 1000.0, STAND_Y)
    assert colour_at(render_frame(sim), x, y - 10) == render.PLAYER
    sim.player.state = PlayerState.HURT
    assert colour_at(render_frame(sim), x, y - 10) == render.PLAYER_HURT
    sim.player.state = PlayerState.DEAD
    assert colour_at(render_frame(sim), x, y - 10) == render.PLAYER_DEAD
    sim.player.state = PlayerState.ROLLING
    place(sim, 1000.0, STAND_Y, is_rolling=True)
    img = render_frame(sim)
    assert colour_at(img, x, y - 10) == render.PLAYER
    # A ball is round: the corner of the standing body is sky now.
    assert colour_at(img, x - 8, y - 17) == render.SKY


def test_facing_moves_the_eye():
    sim = settled(flat_stage(width=2048))
    place(sim, 1000.0, STAND_Y, facing_right=True)
    right = render_frame(sim)
    place(sim, 1000.0, STAND_Y, facing_right=False)
    left = render_frame(sim)
    assert not np.array_equal(right, left)


def test_objects_are_drawn():
    stage = flat_stage(
        width=2048,
        rings=[Ring(940.0, 200.0)],
        springs=[Spring(1060.0, 248.0)],
        spikes=[Spikes(1120.0, float(FLOOR_Y))],
        enemies=[Enemy("walker", 900.0, 244.0, span=0.0),
                 Enemy("flyer", 1100.0, 150.0, span=0.0)],
        checkpoints=[Checkpoint(960.0, 220.0)],
        goal_x=1040.0)
    sim = settled(stage)
    place(sim, 1000.0, STAND_Y)
    img = render_frame(sim)
    at = lambda x, y: colour_at(img, *screen(sim, x, y))  # noqa: E731
    assert at(940.0 + 4.5, 200.0) == render.RING
    assert at(1060.0, 248.0 - 2) == render.SPRING_YELLOW
    assert at(1120.0, FLOOR_Y - 2.0) in (render.SPIKE, render.SPIKE_DARK)
    assert at(900.0, 244.0 + 8) == render.WALKER
    assert at(1100.0, 150.0 + 8) == render.FLYER
    assert at(960.0, 220.0) == render.POLE
    assert at(960.0, 220.0 - 28) == render.CHECK_OFF
    assert at(1040.0, FLOOR_Y - 74.0) == render.GOAL_MARK
    # Taken, destroyed and reached objects change.
    sim.ring_taken[0] = 1
    sim.enemy_destroyed[0] = 1
    sim.checkpoint_hit[0] = 1
    img = render_frame(sim)
    assert at(940.0 + 4.5, 200.0) == render.SKY
    assert at(900.0, 244.0 + 8) == render.SKY
    assert at(960.0, 220.0 - 28) == render.CHECK_ON


def test_small_stage_is_centred_on_void():
    grid = floor_grid(width=160, height=320)
    sim = settled(build_stage(grid, goal_x=150.0, start_x=40.0))
    img = render_frame(sim)
    assert colour_at(img, 5, 100) == render.VOID
    assert colour_at(img, 314, 100) == render.VOID
    assert colour_at(img, 160, 100) != render.VOID


def test_terrain_classes_are_cached_per_stage():
    stage = flat_stage()
    assert render.stage_terrain_classes(stage) is stage.terrain_classes
    assert render.stage_terrain_classes(stage) is stage.terrain_classes
    assert render.stage_terrain_classes(flat_stage()) is not stage.terrain_classes
    full = stage_image(stage)
    assert full.shape == (stage.height, stage.width, 3)


def test_save_a_frame(tmp_path):
    # The picture a person looks at: written with matplotlib, which the
    # plotting side depends on anyway.
    plt = pytest.importorskip("matplotlib.pyplot")
    sim = create_sim(load_stage("hillside"))
    for _ in range(120):
        sim_step(sim, InputState(right=True))
    path = tmp_path / "frame.png"
    plt.imsave(path, render_frame(sim, scale=2))
    assert path.stat().st_size > 1000


@pytest.mark.parametrize("name", BUILTIN_STAGES)
def test_builtin_stages_render(name):
    sim = create_sim(load_stage(name))
    frames = []
    for i in range(300):
        sim_step(sim, InputState(right=True, jump_pressed=i % 50 == 0, jump_held=i % 50 < 20))
        if i % 100 == 0:
            frames.append(render_frame(sim))
    for f in frames:
        assert f.shape == (224, 320, 3)
        assert len(np.unique(f.reshape(-1, 3), axis=0)) > 4


@pytest.mark.parametrize("angle, side", [(0, "below"), (64, "right"), (128, "above"), (192, "left")])
def test_standing_player_turns_its_feet_to_the_surface(angle, side):
    sim = create_sim(open_flat_stage())
    p = sim.player.physics
    p.x, p.y, p.angle, p.on_ground = 600.0, 400.0, angle, True
    img = render_frame(sim)
    cam_x, cam_y = camera(sim)
    ys, xs = np.nonzero(np.all(img == SHOES, axis=2))
    assert len(xs) > 10
    dx, dy = xs.mean() - (p.x - cam_x), ys.mean() - (p.y - cam_y)
    expected = {"below": dy > 10, "right": dx > 5, "above": dy < -10, "left": dx < -5}
    assert expected[side], (dx, dy)

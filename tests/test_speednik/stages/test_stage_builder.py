"""The builder: profile geometry -> pixel grids and entities; and play-tests
of the built-in stages with a scripted jump-runner."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from speednik.constants import STAND_HEIGHT_RADIUS
from speednik.physics import InputState
from speednik.simulation import SimState, create_sim, sim_step
from speednik.stages import Stage, build_stage, list_stages, load_stage, parse_profile
from speednik.terrain import EMPTY, SOLID, TOP_ONLY

HEADER = """
[stage]
name = "geo"
height = 1024
ground_y = 768
difficulty = "hard"
"""


def build(segments: str, entities: str = "", goal_x: int = 100) -> Stage:
    text = (textwrap.dedent(HEADER) + textwrap.dedent(segments)
            + textwrap.dedent(entities)
            + f'\n[[entity]]\nkind = "goal"\nx = {goal_x}\n')
    return build_stage(parse_profile(text, source="geo.toml"))


def surface(stage: Stage, x: int, layer: int = 0) -> int:
    """The first non-empty row of a pixel column (the stage height if none)."""
    col = stage.tiles.pixel_grid(layer)[:stage.height, x]
    hits = np.nonzero(col != EMPTY)[0]
    return int(hits[0]) if len(hits) else stage.height


# --- terrain geometry -----------------------------------------------------------

def test_flat_ground_at_ground_y_down_to_the_bottom():
    stage = build('[[segment]]\nkind = "flat"\nlength = 512\n')
    assert (stage.width, stage.height) == (512, 1024)
    for layer in (0, 1):
        grid = stage.tiles.pixel_grid(layer)
        assert (grid[:768, :512] == EMPTY).all()
        assert (grid[768:1024, :512] == SOLID).all()
    assert stage.start_x == 64
    assert stage.start_y == 768 - STAND_HEIGHT_RADIUS


def test_ramp_rises_by_rise():
    stage = build("""
        [[segment]]
        kind = "flat"
        length = 128
        [[segment]]
        kind = "ramp"
        length = 256
        rise = 64
        [[segment]]
        kind = "flat"
        length = 128
        """)
    assert surface(stage, 100) == 768
    assert surface(stage, 128 + 128) == 768 - 32
    assert surface(stage, 128 + 255) == 768 - 64
    assert surface(stage, 400) == 768 - 64
    # Monotonic: never a step along the way.
    rows = [surface(stage, x) for x in range(128, 384)]
    assert all(0 <= a - b <= 1 for a, b in zip(rows, rows[1:]))


def test_hill_peaks_at_amplitude_and_returns():
    stage = build("""
        [[segment]]
        kind = "hill"
        length = 512
        amplitude = 48
        [[segment]]
        kind = "flat"
        length = 64
        """)
    rows = [surface(stage, x) for x in range(512)]
    assert min(rows) == 768 - 48
    assert rows.index(min(rows)) in range(224, 288)
    assert rows[0] == 768 and rows[-1] == 768


def test_gap_is_empty_to_the_bottom_and_resumes_at_rise():
    stage = build("""
        [[segment]]
        kind = "flat"
        length = 256
        [[segment]]
        kind = "gap"
        length = 128
        rise = 32
        [[segment]]
        kind = "flat"
        length = 256
        """)
    grid = stage.tiles.pixel_grid(0)
    assert (grid[:, 256:384] == EMPTY).all()
    assert surface(stage, 255) == 768
    assert surface(stage, 384) == 768 - 32
    assert stage.meta["pits"] == [(256, 384)]


def test_step_is_a_wall_and_drop():
    stage = build("""
        [[segment]]
        kind = "flat"
        length = 256
        [[segment]]
        kind = "step"
        rise = 48
        [[segment]]
        kind = "flat"
        length = 256
        [[segment]]
        kind = "step"
        rise = -96
        [[segment]]
        kind = "flat"
        length = 256
        """)
    assert surface(stage, 255) == 768
    assert surface(stage, 256) == 720
    assert surface(stage, 511) == 720
    assert surface(stage, 512) == 816


def test_halfpipe_is_a_u():
    stage = build("""
        [[segment]]
        kind = "flat"
        length = 128
        [[segment]]
        kind = "halfpipe"
        length = 384
        depth = 96
        [[segment]]
        kind = "flat"
        length = 128
        """)
    x0 = 128
    assert surface(stage, x0 - 1) == 768
    # Quarter circles of radius `depth` down to a flat bottom.
    assert surface(stage, x0 + 96) == 768 + 96
    assert surface(stage, x0 + 192) == 768 + 96
    assert surface(stage, x0 + 384 - 96) == 768 + 96
    assert surface(stage, x0 + 384) == 768
    mid = x0 + 96 - round(96 * np.cos(np.radians(45)))
    assert abs(surface(stage, mid) - (768 + 96 * np.sin(np.radians(45)))) <= 2
    # Steep near the lip: within 8 px of the edge it is already far down.
    assert surface(stage, x0 + 8) > 768 + 30
    assert (stage.tiles.pixel_grid(0) == stage.tiles.pixel_grid(1)).all()


def test_bridge_is_top_only_over_a_pit():
    stage = build("""
        [[segment]]
        kind = "flat"
        length = 256
        [[segment]]
        kind = "bridge"
        length = 256
        [[segment]]
        kind = "flat"
        length = 256
        """)
    grid = stage.tiles.pixel_grid(0)
    assert (grid[768:776, 272:496] == TOP_ONLY).all()
    assert (grid[:768, 256:512] == EMPTY).all()
    assert (grid[776:, 272:496] == EMPTY).all()
    assert stage.tiles.solidity_at(300, 768, 0) == TOP_ONLY
    assert stage.meta["pits"] == [(256, 512)]


def test_tunnel_has_a_thick_ceiling():
    stage = build("""
        [[segment]]
        kind = "flat"
        length = 128
        [[segment]]
        kind = "tunnel"
        length = 320
        clearance = 64
        [[segment]]
        kind = "flat"
        length = 128
        """)
    grid = stage.tiles.pixel_grid(0)
    tunnel = grid[:, 128:448]
    assert (tunnel[768 - 64 - 32:768 - 64] == SOLID).all()
    assert (tunnel[768 - 64:768] == EMPTY).all()
    assert (tunnel[:768 - 96] == EMPTY).all()
    assert (grid[:768, :128] == EMPTY).all()


LOOP = """
[[segment]]
kind = "flat"
length = 256
[[segment]]
kind = "loop"
radius = 80
[[segment]]
kind = "flat"
length = 256
"""


def test_loop_layers_differ_as_the_switches_expect():
    stage = build(LOOP)
    r, g = 80, 768
    cx, cy = 256 + 64 + r, g - r
    assert stage.width == 256 + 2 * r + 128 + 256
    assert stage.meta["loops"] == [{"cx": cx, "cy": cy, "radius": r, "ground_y": g}]
    l0, l1 = stage.tiles.pixel_grid(0), stage.tiles.pixel_grid(1)
    s = np.sin(np.radians(45))
    mid = r + 12   # the middle of the ring's thickness
    lower_left = (int(cx - mid * s), int(cy + mid * s))
    lower_right = (int(cx + mid * s), int(cy + mid * s))
    upper_left = (int(cx - mid * s), int(cy - mid * s))
    top = (cx, cy - mid)
    left_side = (cx - mid, cy + 8)
    right_side = (cx + mid, cy + 8)
    for x, y in (lower_left, left_side):
        assert l1[y, x] == SOLID and l0[y, x] == EMPTY
    for x, y in (lower_right, right_side):
        assert l0[y, x] == SOLID and l1[y, x] == EMPTY
    for x, y in (upper_left, top, (cx - mid, cy - 8)):
        assert l0[y, x] == SOLID and l1[y, x] == SOLID
    # Inside the loop is open; the ground is on both layers.
    assert l0[cy, cx] == EMPTY and l1[cy, cx] == EMPTY
    assert (l0[g:, :] == SOLID).all() and (l1[g:, :] == SOLID).all()
    # Outside the loop's box the layers are identical.
    outer = r + 24
    diff = np.argwhere(l0[:stage.height, :stage.width] != l1[:stage.height, :stage.width])
    assert diff[:, 1].min() >= cx - outer - 1 and diff[:, 1].max() <= cx + outer
    assert diff[:, 0].min() >= cy and diff[:, 0].max() < g


def test_loop_layer_switches():
    stage = build(LOOP)
    r, g = 80, 768
    cx, cy = 256 + 64 + r, g - r
    entry, top, exit_ = stage.layer_switches
    assert (entry.x, entry.y_top, entry.y_bottom) == (cx - r - 32, cy - r - 40, g + 8)
    assert (entry.layer_right, entry.layer_left) == (0, 0)
    assert (top.x, top.y_top, top.y_bottom) == (cx, cy - r - 40, cy)
    assert (top.layer_right, top.layer_left) == (0, 1)
    assert (exit_.x, exit_.y_top, exit_.y_bottom) == (cx + r + 32, cy - r - 40, g + 8)
    assert (exit_.layer_right, exit_.layer_left) == (0, 0)


def test_holding_right_runs_the_loop():
    stage = build("""
        [[segment]]
        kind = "flat"
        length = 1024
        [[segment]]
        kind = "loop"
        radius = 80
        [[segment]]
        kind = "flat"
        length = 640
        """, goal_x=1024 + 288 + 400)
    sim = create_sim(stage)
    layers = set()
    lowest_y = stage.height
    for _ in range(1200):
        sim_step(sim, InputState(right=True))
        layers.add(sim.player.physics.layer)
        lowest_y = min(lowest_y, sim.player.physics.y)
        if sim.goal_reached or sim.player_dead:
            break
    assert sim.goal_reached
    assert layers == {0, 1}
    assert lowest_y < 768 - 2 * 80 + 40     # it went over the top


# --- entities -------------------------------------------------------------------

def test_entities_land_on_the_ground():
    stage = build("""
        [[segment]]
        kind = "flat"
        length = 256
        [[segment]]
        kind = "ramp"
        length = 256
        rise = 64
        [[segment]]
        kind = "flat"
        length = 1024
        """, """
        [[entity]]
        kind = "ring"
        x = 384
        [[entity]]
        kind = "spring"
        x = 600
        [[entity]]
        kind = "spikes"
        x = 700
        [[entity]]
        kind = "walker"
        x = 800
        [[entity]]
        kind = "checkpoint"
        x = 1000
        [[entity]]
        kind = "flyer"
        x = 1100
        """, goal_x=1400)
    high = 768 - 64
    ring, = stage.rings
    assert ring.x == 384 and abs(ring.y - (768 - 32 - 24)) <= 1
    spring, = stage.springs
    assert (spring.y, spring.direction, spring.strength) == (high - 8, "up", "yellow")
    spikes, = stage.spikes
    assert (spikes.y, spikes.width, spikes.height) == (high, 32, 16)
    walker, flyer = stage.enemies
    assert (walker.kind, walker.y, walker.span, walker.period) == ("walker", high - 12, 64, 240)
    assert (flyer.kind, flyer.y) == ("flyer", high - 48)
    checkpoint, = stage.checkpoints
    assert checkpoint.y == high - 48
    assert (stage.goal.x, stage.goal.y) == (1400, high)


def test_ring_lines_and_arcs():
    stage = build("""
        [[segment]]
        kind = "flat"
        length = 256
        [[segment]]
        kind = "gap"
        length = 128
        [[segment]]
        kind = "flat"
        length = 256
        """, """
        [[entity]]
        kind = "ring"
        x = 100
        count = 4
        spacing = 20
        [[entity]]
        kind = "ring"
        x = 240
        count = 5
        spacing = 40
        arc = 64
        """, goal_x=600)
    line, arc = stage.rings[:4], stage.rings[4:]
    assert [r.x for r in line] == [100, 120, 140, 160]
    assert all(r.y == 768 - 24 for r in line)
    assert [r.x for r in arc] == [240, 280, 320, 360, 400]
    assert [768 - 24 - r.y for r in arc] == [0, 48, 64, 48, 0]


def test_platform_is_drawn_top_only():
    stage = build('[[segment]]\nkind = "flat"\nlength = 512\n', """
        [[entity]]
        kind = "platform"
        x = 256
        above = 128
        width = 96
        """, goal_x=500)
    grid = stage.tiles.pixel_grid(0)
    top = 768 - 128
    assert (grid[top:top + 16, 208:304] == TOP_ONLY).all()
    assert (grid[top - 1, 200:312] == EMPTY).all()
    assert stage.tiles.solidity_at(256, top, 1) == TOP_ONLY


def test_meta_describes_the_segments():
    stage = load_stage("hillside")
    spans = stage.meta["segments"]
    assert spans[0]["x0"] == 0 and spans[-1]["x1"] == stage.width
    assert all(a["x1"] == b["x0"] for a, b in zip(spans, spans[1:]))
    assert stage.meta["profile"].stage.name == "hillside"


# --- the built-in stages ----------------------------------------------------------

@pytest.mark.parametrize("name", ["hillside", "pipeworks", "skybridge"])
def test_builtin_stage_shape(name: str):
    stage = load_stage(name)
    assert stage.width >= 4000
    assert stage.start_x < stage.goal.x < stage.width
    # The player starts standing on ground.
    feet = stage.start_y + STAND_HEIGHT_RADIUS
    assert stage.tiles.solidity_at(stage.start_x, feet, 0) != EMPTY
    assert stage.tiles.solidity_at(stage.start_x, feet - 1, 0) == EMPTY
    # 160 px of open sky above the highest ground.
    grid = stage.tiles.pixel_grid(0)
    assert not grid[:160, :stage.width].any()


def test_builtin_features():
    hill, pipe, sky = (load_stage(n) for n in list_stages())
    kinds = {n: {s["kind"] for s in load_stage(n).meta["segments"]} for n in list_stages()}
    assert {"hill", "loop", "gap"} <= kinds["hillside"]
    assert sum(s["kind"] == "gap" for s in hill.meta["segments"]) >= 2
    assert hill.springs and hill.checkpoints and hill.layer_switches
    assert {e.kind for e in hill.enemies} == {"walker"}
    assert {"step", "tunnel", "halfpipe", "ramp"} <= kinds["pipeworks"]
    assert pipe.spikes
    assert {"bridge", "gap"} <= kinds["skybridge"]
    assert "flyer" in {e.kind for e in sky.enemies}
    assert any(s.direction == "up" for s in sky.springs)


# --- play-tests -------------------------------------------------------------------

class JumpRunner:
    """A scripted player: hold right; on flat ground, jump (full height) at
    a pit, a wall, an enemy or spikes just ahead; if it stops making
    progress, spindash out."""

    def __init__(self) -> None:
        self.hold = 0
        self.prev_jump = False
        self.slow = 0
        self.best_x = -1.0
        self.since_best = 0
        self.dash = 0

    def __call__(self, sim: SimState) -> InputState:
        p = sim.player.physics
        stage = sim.stage
        tiles = stage.tiles
        if p.x > self.best_x + 1.0:
            self.best_x, self.since_best = p.x, 0
        else:
            self.since_best += 1
        if self.dash:
            # Down held, jump tapped every 4 frames, then down released.
            self.dash -= 1
            if self.dash == 0:
                return InputState(right=True)
            return InputState(down_held=True, jump_pressed=self.dash % 4 == 1,
                              jump_held=self.dash % 4 == 1)
        if self.since_best > 90 and p.on_ground and abs(p.ground_speed) < 0.5:
            self.since_best, self.dash = 0, 24
            return InputState(down_held=True)
        want = False
        if p.on_ground and (p.angle <= 16 or p.angle >= 240):
            feet = p.y + (14 if p.is_rolling else 19)
            speed = max(p.x_vel, 1.0)
            depth = range(0, int(stage.height - feet) + 1, 8)
            for d in range(12, int(48 + 4 * speed), 4):
                x = p.x + d
                pit = all(tiles.solidity_at(x, feet + k, p.layer) == EMPTY for k in depth)
                wall = d <= 28 and tiles.solidity_at(x, feet - 24, p.layer) != EMPTY
                if pit or wall:
                    want = True
                    break
            want = want or any(0 < e.x - p.x < 40 + 6 * speed and abs(e.y - p.y) < 80
                               for e in stage.enemies)
            want = want or any(0 < s.x - s.width / 2 - p.x < 24 + 4 * speed
                               and abs(s.y - feet) < 20 for s in stage.spikes)
            self.slow = self.slow + 1 if abs(p.ground_speed) < 0.3 else 0
            if self.slow > 8:
                want, self.slow = True, 0
        if want:
            self.hold = 40
        held = self.hold > 0
        self.hold = max(0, self.hold - 1)
        if p.on_ground and held and self.prev_jump:
            held, self.hold = False, 0   # release first, to press again
        pressed = held and not self.prev_jump
        self.prev_jump = held
        return InputState(right=True, jump_pressed=pressed, jump_held=held)


def play(stage: Stage, policy, frames: int = 3600,
         check_embedding: bool = False) -> SimState:
    sim = create_sim(stage)
    p = sim.player.physics
    for _ in range(frames):
        sim_step(sim, policy(sim))
        if sim.goal_reached or sim.player_dead:
            break
        if check_embedding:
            assert stage.tiles.solidity_at(p.x, p.y, p.layer) != SOLID, (
                f"{stage.name}: player centre inside terrain at ({p.x:.1f}, {p.y:.1f})")
    return sim


@pytest.mark.parametrize("name", ["hillside", "pipeworks", "skybridge"])
def test_jump_runner_finishes(name: str):
    sim = play(load_stage(name), JumpRunner(), check_embedding=True)
    assert sim.goal_reached, (name, sim.max_x_reached, sim.player_dead)


@pytest.mark.parametrize("name", ["hillside", "pipeworks", "skybridge"])
def test_holding_right_or_idling_does_not_finish(name: str):
    stage = load_stage(name)
    held = play(stage, lambda sim: InputState(right=True))
    assert not held.goal_reached
    assert held.max_x_reached < stage.goal.x - 500
    idle = play(stage, lambda sim: InputState(), frames=600)
    assert not idle.goal_reached
    assert idle.max_x_reached < stage.start_x + 1

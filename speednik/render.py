"""Pictures of a simulation drawn straight into numpy arrays.

`render_frame(sim)` gives an RGB uint8 image of the view around the player,
the way the game's camera would frame it: terrain, objects, the player and
a thin progress bar along the top. No display or drawing library is used.

Each stage's terrain is classified once, pixel by pixel (sky, solid, its
grassy top, top-only ledge, and which collision layer a solid pixel belongs
to), and kept by the stage as `stage.terrain_classes`; a frame is a slice
of that class image through a palette, with the objects and the player
drawn over it. Terrain solid only on the
layer the player is not on is drawn faded: the player passes through it.

Colours:
- sky blue; brown earth with a green top; tan top-only ledges;
- faded blue-grey: solid only on the other collision layer;
- gold rings; yellow (weak) or red (strong) springs with a white bar on the
  side they throw toward; silver spikes; magenta walkers; orange flyers;
- checkpoint: a grey pole, blue ball (red once reached);
- goal: a dashed white line across the view at its x and a post with a sign;
- player: blue body with a white eye on the side it faces and red feet on
  the surface it runs on (turned on walls and ceilings); a blue ball with a
  light stripe in ball form; red when hurt; grey when dead.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from speednik.checks import positive_int
from speednik.constants import (
    ROLL_HEIGHT_RADIUS,
    ROLL_WIDTH_RADIUS,
    STAND_HEIGHT_RADIUS,
    STAND_WIDTH_RADIUS,
)
from speednik.enemies import ENEMY_HALF_HEIGHT, ENEMY_HALF_WIDTH, enemy_position
from speednik.player import MODE_OF_ANGLE, PlayerState
from speednik.terrain import SOLID, TOP_ONLY

if TYPE_CHECKING:
    from speednik.simulation import SimState
    from speednik.stages.stage import Stage

SCREEN_WIDTH = 320
SCREEN_HEIGHT = 224

SKY = (104, 160, 240)
VOID = (24, 24, 40)
EARTH = (150, 98, 50)
EARTH_DARK = (130, 84, 42)
GRASS = (64, 176, 64)
GHOST = (150, 160, 196)
GHOST_DARK = (138, 148, 184)
GHOST_GRASS = (160, 190, 170)
LEDGE = (216, 176, 104)
LEDGE_EDGE = (120, 200, 90)
RING = (255, 214, 0)
SPRING_YELLOW = (250, 226, 40)
SPRING_RED = (226, 40, 40)
SPRING_BASE = (90, 90, 100)
WHITE = (255, 255, 255)
SPIKE = (206, 206, 218)
SPIKE_DARK = (110, 110, 124)
WALKER = (204, 48, 160)
FLYER = (240, 130, 30)
EYE = (20, 20, 20)
SHOES = (200, 30, 30)
POLE = (96, 96, 104)
CHECK_OFF = (40, 90, 230)
CHECK_ON = (230, 50, 50)
GOAL_SIGN = (250, 250, 250)
GOAL_MARK = (30, 90, 220)
PLAYER = (28, 64, 220)
PLAYER_LIGHT = (120, 170, 255)
PLAYER_HURT = (232, 72, 72)
PLAYER_DEAD = (128, 128, 128)
BAR_BACK = (30, 30, 30)
BAR = (250, 250, 250)

# Terrain classes of the cached stage image. Solid classes come in a light
# and a dark shade in a 16 px checkerboard, so the tile grid can be seen.
(C_SKY, C_SOLID, C_GRASS, C_SOLID0, C_GRASS0, C_SOLID1, C_GRASS1, C_LEDGE,
 C_LEDGE_EDGE, C_VOID) = range(10)
_DARK = 16
# Depth of the grassy band on top of solid ground.
GRASS_DEPTH = 3


def _palette(layer: int) -> np.ndarray:
    """Class -> colour for a player on `layer`: its solid is earth, the
    other layer's is faded."""
    pal = np.zeros((32, 3), np.uint8)
    mine, other = ((C_SOLID0, C_GRASS0), (C_SOLID1, C_GRASS1))[::1 if layer == 0 else -1]
    for c, colour in ((C_SKY, SKY), (C_SOLID, EARTH), (C_GRASS, GRASS),
                      (mine[0], EARTH), (mine[1], GRASS), (other[0], GHOST),
                      (other[1], GHOST_GRASS), (C_LEDGE, LEDGE),
                      (C_LEDGE_EDGE, LEDGE_EDGE), (C_VOID, VOID)):
        pal[c] = colour
        pal[c + _DARK] = colour
    pal[C_SOLID + _DARK] = EARTH_DARK
    pal[mine[0] + _DARK] = EARTH_DARK
    pal[other[0] + _DARK] = GHOST_DARK
    return pal


PALETTES = (_palette(0), _palette(1))


def terrain_masks(stage: Stage) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The stage's terrain classified pixel by pixel, as three boolean
    (height, width) images: solid on layer 0, solid on the last layer (the
    same as layer 0 on a one-layer stage), and top-only ledge (top-only on
    some layer and solid on none). Every picture of a stage starts here."""
    grids = [stage.solidity_grid(layer) for layer in range(len(stage.tiles.cell_grids))]
    s0 = grids[0] == SOLID
    s1 = grids[-1] == SOLID
    ledge = np.zeros_like(s0)
    for g in grids:
        ledge |= g == TOP_ONLY
    ledge &= ~(s0 | s1)
    return s0, s1, ledge


def below_open(mask: np.ndarray, depth: int) -> np.ndarray:
    """Pixels with a pixel outside `mask` at most `depth` rows above them:
    where `mask` is a surface, the band of its top `depth` rows."""
    out = np.zeros_like(mask)
    for k in range(1, depth + 1):
        out[k:] |= ~mask[:-k]
    return out


def terrain_classes(stage: Stage) -> np.ndarray:
    """The stage's terrain as a (height, width) uint8 image of the classes
    above (C_SKY, ...). Built once per stage, as `stage.terrain_classes`."""
    h, w = stage.height, stage.width
    s0, s1, ledge = terrain_masks(stage)
    solid = s0 | s1
    # Grass: solid pixels within GRASS_DEPTH below a non-solid one.
    exposed = below_open(solid, GRASS_DEPTH)
    cls = np.full((h, w), C_SKY, np.uint8)
    cls[ledge] = C_LEDGE
    edge = ledge.copy()
    edge[1:] &= ~ledge[:-1]
    cls[edge] = C_LEDGE_EDGE
    both, only0, only1 = s0 & s1, s0 & ~s1, s1 & ~s0
    cls[both] = np.where(exposed[both], C_GRASS, C_SOLID)
    cls[only0] = np.where(exposed[only0], C_GRASS0, C_SOLID0)
    cls[only1] = np.where(exposed[only1], C_GRASS1, C_SOLID1)
    ys, xs = np.ogrid[:h, :w]
    dark = (((ys >> 4) + (xs >> 4)) & 1).astype(bool) & np.isin(cls, (C_SOLID, C_SOLID0, C_SOLID1))
    cls[dark] += _DARK
    return cls


def stage_terrain_classes(stage: Stage) -> np.ndarray:
    """The stage's own `terrain_classes`, built on first use."""
    return stage.derive("terrain_classes", terrain_classes)


def stage_image(stage: Stage, layer: int = 0) -> np.ndarray:
    """The whole stage's terrain as an RGB image (height, width, 3), as
    seen by a player on `layer`; objects are not drawn."""
    return PALETTES[layer][stage_terrain_classes(stage)]


# -- drawing primitives (screen coordinates, clipped) ---------------------------

def _rect(img: np.ndarray, x0: float, y0: float, x1: float, y1: float,
          colour: tuple[int, int, int]) -> None:
    """Fill the pixels of [x0, x1) x [y0, y1)."""
    h, w = img.shape[:2]
    a, b = max(0, math.floor(x0)), min(w, math.floor(x1))
    c, d = max(0, math.floor(y0)), min(h, math.floor(y1))
    if a < b and c < d:
        img[c:d, a:b] = colour


def _disc(img: np.ndarray, cx: float, cy: float, r: float,
          colour: tuple[int, int, int], r_in: float = -1.0) -> None:
    """Fill a disc of radius r (an annulus when r_in >= 0)."""
    h, w = img.shape[:2]
    x0, x1 = max(0, math.floor(cx - r)), min(w, math.floor(cx + r) + 1)
    y0, y1 = max(0, math.floor(cy - r)), min(h, math.floor(cy + r) + 1)
    if x0 >= x1 or y0 >= y1:
        return
    ys, xs = np.ogrid[y0:y1, x0:x1]
    d2 = (xs + 0.5 - cx) ** 2 + (ys + 0.5 - cy) ** 2
    mask = d2 <= r * r
    if r_in >= 0.0:
        mask &= d2 >= r_in * r_in
    img[y0:y1, x0:x1][mask] = colour


def _triangle_up(img: np.ndarray, x0: float, base_y: float, width: float,
                 height: float, colour: tuple[int, int, int]) -> None:
    """A tooth standing on base_y, narrowing to a point `height` above it."""
    for k in range(int(height)):
        half = width / 2 * (k + 1) / height
        mid = x0 + width / 2
        y = base_y - height + k
        _rect(img, mid - half, y, mid + half, y + 1, colour)


# -- the frame --------------------------------------------------------------------

def camera(sim: SimState, width: int = SCREEN_WIDTH,
           height: int = SCREEN_HEIGHT) -> tuple[int, int]:
    """Top-left stage pixel of a view centred on the player, kept inside the
    stage (centred on the stage along an axis where the stage is smaller)."""
    p = sim.player.physics
    w, h = sim.stage.width, sim.stage.height

    def axis(pos: float, view: int, size: int) -> int:
        if size <= view:
            return -((view - size) // 2)
        return min(max(math.floor(pos) - view // 2, 0), size - view)

    return axis(p.x, width, w), axis(p.y, height, h)


def render_frame(sim: SimState, width: int = SCREEN_WIDTH,
                 height: int = SCREEN_HEIGHT, scale: int = 1) -> np.ndarray:
    """An RGB image (height * scale, width * scale, 3) uint8 of the view
    around the player."""
    for name, v in (("width", width), ("height", height), ("scale", scale)):
        positive_int(v, name)
    stage = sim.stage
    cam_x, cam_y = camera(sim, width, height)

    classes = stage_terrain_classes(stage)
    view = classes[max(cam_y, 0):cam_y + height, max(cam_x, 0):cam_x + width]
    if view.shape != (height, width):
        padded = np.full((height, width), C_VOID, np.uint8)
        oy, ox = max(-cam_y, 0), max(-cam_x, 0)
        padded[oy:oy + view.shape[0], ox:ox + view.shape[1]] = view
        view = padded
    img = PALETTES[1 if sim.player.physics.layer else 0][view]

    _draw_objects(img, sim, cam_x, cam_y)
    _draw_player(img, sim, cam_x, cam_y)
    # Progress bar: how far along the stage the player is.
    _rect(img, 0, 0, width, 3, BAR_BACK)
    _rect(img, 0, 1, round(width * sim.max_x_reached / stage.width), 2, (160, 160, 160))
    _rect(img, 0, 1, round(width * sim.player.physics.x / stage.width), 2, BAR)

    if scale > 1:
        img = img.repeat(scale, axis=0).repeat(scale, axis=1)
    return img


def _visible(x: float, cam_x: int, width: int, margin: float = 64.0) -> bool:
    return cam_x - margin <= x <= cam_x + width + margin


def _draw_objects(img: np.ndarray, sim: SimState, cam_x: int, cam_y: int) -> None:
    stage = sim.stage
    h, w = img.shape[:2]

    goal = stage.goal
    gx = goal.x - cam_x
    if 0 <= gx < w:
        gxi = math.floor(gx)
        img[0:h:8, gxi] = WHITE
        img[1:h:8, gxi] = WHITE
        img[2:h:8, gxi] = WHITE
    if _visible(goal.x, cam_x, w):
        gy = goal.y - cam_y
        _rect(img, gx - 2, gy - 64, gx + 2, gy, POLE)
        _rect(img, gx - 16, gy - 88, gx + 16, gy - 60, GOAL_SIGN)
        _disc(img, gx, gy - 74, 9, GOAL_MARK)

    for i, c in enumerate(stage.checkpoints):
        if _visible(c.x, cam_x, w):
            x, y = c.x - cam_x, c.y - cam_y
            _rect(img, x - 2, y - 24, x + 2, y + 24, POLE)
            _disc(img, x, y - 28, 5, CHECK_ON if sim.checkpoint_hit[i] else CHECK_OFF)

    for s in stage.spikes:
        if _visible(s.x, cam_x, w):
            x0, base = s.x - s.width / 2 - cam_x, s.y - cam_y
            teeth = max(1, round(s.width / 8))
            tooth = s.width / teeth
            for k in range(teeth):
                _triangle_up(img, x0 + k * tooth, base, tooth, s.height, SPIKE_DARK)
                _triangle_up(img, x0 + k * tooth + 1, base, tooth - 2, s.height - 2, SPIKE)

    for s in stage.springs:
        if _visible(s.x, cam_x, w):
            x, y = s.x - cam_x, s.y - cam_y
            colour = SPRING_RED if s.strength == "red" else SPRING_YELLOW
            _rect(img, x - 14, y - 8, x + 14, y + 8, SPRING_BASE)
            _rect(img, x - 12, y - 8, x + 12, y + 4, colour)
            if s.direction == "up":
                _rect(img, x - 12, y - 8, x + 12, y - 5, WHITE)
            elif s.direction == "left":
                _rect(img, x - 14, y - 8, x - 10, y + 8, WHITE)
            else:
                _rect(img, x + 10, y - 8, x + 14, y + 8, WHITE)

    for i, r in enumerate(stage.rings):
        if not sim.ring_taken[i] and _visible(r.x, cam_x, w, 16.0):
            _disc(img, r.x - cam_x, r.y - cam_y, 6, RING, 3)

    for i, e in enumerate(stage.enemies):
        if sim.enemy_destroyed[i] or not _visible(e.x, cam_x, w, 64.0 + e.span):
            continue
        ex, ey = enemy_position(e, sim.frame)
        x, y = ex - cam_x, ey - cam_y
        colour = WALKER if e.kind == "walker" else FLYER
        _rect(img, x - ENEMY_HALF_WIDTH, y - ENEMY_HALF_HEIGHT,
              x + ENEMY_HALF_WIDTH, y + ENEMY_HALF_HEIGHT, colour)
        _rect(img, x - 7, y - 6, x - 3, y - 1, WHITE)
        _rect(img, x + 3, y - 6, x + 7, y - 1, WHITE)
        _rect(img, x - 6, y - 5, x - 4, y - 2, EYE)
        _rect(img, x + 4, y - 5, x + 6, y - 2, EYE)
        if e.kind == "flyer":
            _rect(img, x - 18, y - 14, x - 8, y - 10, WHITE)
            _rect(img, x + 8, y - 14, x + 18, y - 10, WHITE)


def _draw_player(img: np.ndarray, sim: SimState, cam_x: int, cam_y: int) -> None:
    player = sim.player
    p = player.physics
    x, y = p.x - cam_x, p.y - cam_y
    if player.state == PlayerState.DEAD or sim.player_dead:
        body, light = PLAYER_DEAD, (180, 180, 180)
    elif player.state == PlayerState.HURT:
        body, light = PLAYER_HURT, (255, 170, 170)
    else:
        body, light = PLAYER, PLAYER_LIGHT
    if p.is_rolling:
        _disc(img, x, y, ROLL_HEIGHT_RADIUS, body)
        # A stripe across the ball hints at its spin.
        _rect(img, x - ROLL_WIDTH_RADIUS, y - 2, x + ROLL_WIDTH_RADIUS, y + 2, light)
        return
    # Standing, the body turns with the ground mode, feet to the surface:
    # upright on floors, on its side on walls, upside down on ceilings.
    mode = MODE_OF_ANGLE[p.angle] if p.on_ground else 0
    sprite, mask = _standing_sprite(body, light, p.facing_right, mode)
    h, w = img.shape[:2]
    sh, sw = mask.shape
    x0, y0 = math.floor(x - sw / 2), math.floor(y - sh / 2)
    a, b = max(0, x0), min(w, x0 + sw)
    c, d = max(0, y0), min(h, y0 + sh)
    if a < b and c < d:
        m = mask[c - y0:d - y0, a - x0:b - x0]
        img[c:d, a:b][m] = sprite[c - y0:d - y0, a - x0:b - x0][m]


_SPRITES: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def _standing_sprite(body, light, facing_right: bool,
                     mode: int) -> tuple[np.ndarray, np.ndarray]:
    """The standing player drawn upright, turned a quarter per ground mode
    (counter-clockwise, so its feet point along the mode's "down")."""
    key = (body, light, facing_right, mode)
    hit = _SPRITES.get(key)
    if hit is not None:
        return hit
    wr, hr = STAND_WIDTH_RADIUS, STAND_HEIGHT_RADIUS
    spr = np.zeros((2 * hr, 2 * wr, 3), np.uint8)
    spr[:] = body
    spr[hr + 2:2 * hr - 6, 3:2 * wr - 3] = light            # belly
    ex = wr + 3 if facing_right else wr - 7
    spr[6:11, ex:ex + 4] = WHITE                             # eye
    px = ex + 2 if facing_right else ex
    spr[7:10, px:px + 2] = EYE
    spr[2 * hr - 4:, :] = SHOES                              # feet
    mask = np.ones(spr.shape[:2], bool)
    hit = (np.ascontiguousarray(np.rot90(spr, mode)),
           np.ascontiguousarray(np.rot90(mask, mode)))
    _SPRITES[key] = hit
    return hit

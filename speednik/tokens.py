"""Token observations: the world around the player as a list of small facts.

The layout follows MettaGrid's observation tokens. An observation is a
`(num_tokens, 3)` uint8 array (200 tokens by default); each row is one
token `(location, feature_id, value)`:

- `location` packs a cell of the egocentric window, 11 x 11 cells of 16 x 16
  px tiles with the player's tile at the centre (row 5, col 5), as
  `row << 4 | col`. Rows and columns are at most 14, so 0xFF never names a
  cell: it marks an empty slot (the whole row is 0xFF).
- `feature_id` indexes `FEATURES`, a catalogue with stable ids, names and
  normalisations: a feature's signal is `(value - offset) / normalization`.
- `value` is the feature's byte.

Tokens are written in order:

1. the global and player block, always present, at the centre cell: on
   ground, rolling, facing right, x and y velocity, angle, rings, state,
   the player's pixel offset inside its tile, episode completion, last
   action and last reward;
2. the contents of each cell in increasing Manhattan distance from the
   centre (ties by row, then column), each cell's features in id order:
   solid and top-only terrain of the player's collision layer, the surface
   angle of sloped tiles, rings, springs, enemies, spikes, checkpoints and
   the goal post.

Tokens that do not fit are dropped, the farthest first, and counted
(`TokenEncoder.last_dropped`, `TokenEncoder.tokens_dropped`).

Signed quantities are stored around 128: a velocity v px/frame is
`clip(round(8 v) + 128)`, and the last reward r is `clip(round(100 r) + 128)`,
so one byte holds rewards from -1.28 to +1.27 (a time penalty of -0.001
reads as 128, a death as 0, a goal as 255).
"""
from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from speednik.actions import NUM_ACTIONS
from speednik.checks import positive_int
from speednik.constants import DEFAULT_MAX_STEPS, TILE_SIZE
from speednik.enemies import enemy_position
from speednik.entities import SPRING_DIRECTIONS, SPRING_STRENGTHS
from speednik.objects import object_tables
from speednik.terrain import SOLID, TOP_ONLY

if TYPE_CHECKING:
    from speednik.simulation import SimState
    from speednik.stages.stage import Stage

WINDOW = 11
NUM_TOKENS = 200
TOKEN_DIM = 3
EMPTY = 0xFF
# Four bits per coordinate, and 15/15 would collide with EMPTY.
MAX_COORD = 14


@dataclass(frozen=True, slots=True)
class FeatureSpec:
    """A token feature: its signal is `(value - offset) / normalization`."""

    id: int
    name: str
    normalization: float
    offset: int = 0
    description: str = ""

    def decode(self, value: int | np.ndarray) -> float | np.ndarray:
        return (np.asarray(value, np.float32) - self.offset) / self.normalization


_CATALOGUE = (
    # name, normalization, offset, description
    ("agent:on_ground", 1.0, 0, "1 on the ground"),
    ("agent:rolling", 1.0, 0, "1 in ball form (rolling, jumping, spindash)"),
    ("agent:facing_right", 1.0, 0, "1 facing right"),
    ("agent:x_vel", 8.0, 128, "horizontal velocity, px/frame"),
    ("agent:y_vel", 8.0, 128, "vertical velocity, px/frame, positive down"),
    ("agent:angle", 256.0, 0, "ground angle byte, fraction of a turn counter-clockwise"),
    ("agent:rings", 1.0, 0, "rings held, up to 255"),
    ("agent:state", 1.0, 0,
     "PlayerState: 0 standing, 1 rolling, 2 airborne, 3 spindash, 4 hurt, 5 dead"),
    ("agent:offset_x", 16.0, 0, "player x inside its tile, px"),
    ("agent:offset_y", 16.0, 0, "player y inside its tile, px"),
    ("episode_completion_pct", 100.0, 0, "frame / max_steps, percent"),
    ("last_action", 1.0, 0, "action taken on the previous step (0 before any)"),
    ("last_reward", 100.0, 128, "reward of the previous step"),
    ("terrain:solid", 255.0, 0, "share of the cell that is solid"),
    ("terrain:top_only", 255.0, 0, "share of the cell that is a top-only ledge"),
    ("terrain:angle", 256.0, 0, "surface angle byte of a sloped cell (absent: flat)"),
    ("ring", 1.0, 0, "rings not yet collected in the cell"),
    ("spring", 1.0, 0, "1 + direction (up, left, right) + 3 if red"),
    ("enemy", 1.0, 0, "1 walker, 2 flyer"),
    ("spikes", 1.0, 0, "1 where spikes are"),
    ("checkpoint", 1.0, 0, "1 not reached, 2 reached"),
    ("goal", 1.0, 0, "1 at the goal post"),
)
FEATURES: tuple[FeatureSpec, ...] = tuple(
    FeatureSpec(i, name, norm, offset, desc)
    for i, (name, norm, offset, desc) in enumerate(_CATALOGUE))
FEATURE_IDS: dict[str, int] = {f.name: f.id for f in FEATURES}
NUM_FEATURES = len(FEATURES)

(F_ON_GROUND, F_ROLLING, F_FACING, F_X_VEL, F_Y_VEL, F_ANGLE, F_RINGS,
 F_STATE, F_OFFSET_X, F_OFFSET_Y, F_COMPLETION, F_LAST_ACTION,
 F_LAST_REWARD, F_SOLID, F_TOP_ONLY, F_SURFACE_ANGLE, F_RING, F_SPRING,
 F_ENEMY, F_SPIKES, F_CHECKPOINT, F_GOAL) = range(NUM_FEATURES)

GLOBAL_FEATURES = tuple(range(F_ON_GROUND, F_LAST_REWARD + 1))
CELL_FEATURES = tuple(range(F_SOLID, NUM_FEATURES))
_N_GLOBAL = len(GLOBAL_FEATURES)
_N_CELL = len(CELL_FEATURES)
# Planes of the per-cell arrays, in feature order.
_P_SOLID, _P_TOP, _P_ANGLE, _P_RING, _P_SPRING, _P_ENEMY, _P_SPIKES, _P_CHECK, _P_GOAL = (
    f - F_SOLID for f in CELL_FEATURES)


def feature(name_or_id: str | int) -> FeatureSpec:
    """The catalogue entry for a feature name or id."""
    if isinstance(name_or_id, str):
        if name_or_id not in FEATURE_IDS:
            raise ValueError(
                f"unknown token feature {name_or_id!r}: known features are "
                f"{', '.join(FEATURE_IDS)}")
        return FEATURES[FEATURE_IDS[name_or_id]]
    if not 0 <= int(name_or_id) < NUM_FEATURES:
        raise ValueError(
            f"token feature id {name_or_id} out of range 0..{NUM_FEATURES - 1}")
    return FEATURES[int(name_or_id)]


def pack_coordinate(row: int, col: int) -> int:
    if not (0 <= row <= MAX_COORD and 0 <= col <= MAX_COORD):
        raise ValueError(
            f"cell ({row}, {col}) cannot be packed: rows and columns must be "
            f"in 0..{MAX_COORD}")
    return row << 4 | col


def unpack_coordinate(packed: int) -> tuple[int, int] | None:
    """(row, col) of a packed location, or None for an empty slot."""
    packed = int(packed)
    if packed == EMPTY:
        return None
    if not 0 <= packed < EMPTY:
        raise ValueError(f"packed coordinate must be a byte, got {packed}")
    return packed >> 4, packed & 15


def cell_order(window: int = WINDOW) -> np.ndarray:
    """Cells (row, col) of the window sorted by Manhattan distance from the
    centre, ties by row then column: the order tokens are written in."""
    c = window // 2
    cells = sorted(((r, k) for r in range(window) for k in range(window)),
                   key=lambda rc: (abs(rc[0] - c) + abs(rc[1] - c), rc[0], rc[1]))
    return np.array(cells, np.int64).reshape(-1, 2)


def decode_tokens(tokens: np.ndarray, window: int = WINDOW,
                  normalize: bool = False) -> np.ndarray:
    """Dense feature planes `(NUM_FEATURES, window, window)` of a token array.

    Raw bytes (uint8) by default; with `normalize`, float32 signals
    `(value - offset) / normalization` where a token is present and 0 elsewhere.
    """
    tokens = np.asarray(tokens)
    if tokens.ndim != 2 or tokens.shape[1] != TOKEN_DIM:
        raise ValueError(f"tokens must have shape (n, {TOKEN_DIM}), got {tokens.shape}")
    live = tokens[tokens[:, 0] != EMPTY]
    rows = live[:, 0].astype(np.int64) >> 4
    cols = live[:, 0].astype(np.int64) & 15
    feats = live[:, 1].astype(np.int64)
    if len(live) and (rows.max() >= window or cols.max() >= window
                      or feats.max() >= NUM_FEATURES):
        raise ValueError("a token names a cell outside the window or an unknown feature")
    if not normalize:
        planes = np.zeros((NUM_FEATURES, window, window), np.uint8)
        planes[feats, rows, cols] = live[:, 2]
        return planes
    planes = np.zeros((NUM_FEATURES, window, window), np.float32)
    planes[feats, rows, cols] = (live[:, 2] - _OFFSETS[feats]) / _NORMS[feats]
    return planes


_OFFSETS = np.array([f.offset for f in FEATURES], np.float32)
_NORMS = np.array([f.normalization for f in FEATURES], np.float32)


# -- per-stage tables -----------------------------------------------------------

# The static planes are padded by this many tiles on each side, so a window
# (at most 15 wide) around any player inside the stage is a plain slice.
_PAD = 8


def _fill(counts: np.ndarray) -> np.ndarray:
    """Pixel counts of a 16 x 16 tile as 0 (none) or 1..255."""
    return np.where(counts > 0, np.maximum(1, counts * 255 // 256), 0).astype(np.uint8)


def static_planes(stage: Stage) -> np.ndarray:
    """The per-cell features that never change, for every collision layer:
    `(layers, len(CELL_FEATURES), rows + 2 pad, cols + 2 pad)` uint8 with
    terrain, springs, spikes and the goal (rings, enemies and checkpoints
    are filled per call). Built once per stage, as `stage.token_planes`."""
    tiles = stage.tiles
    masks = tiles.masks
    solid = _fill((masks == SOLID).sum(axis=(1, 2)))
    top = _fill((masks == TOP_ONLY).sum(axis=(1, 2)))
    angle = np.array(tiles.a_down, np.uint8)
    rows, cols = tiles.height_tiles, tiles.width_tiles
    static = np.zeros((len(tiles.cell_grids), _N_CELL, rows + 2 * _PAD, cols + 2 * _PAD),
                      np.uint8)
    inner = (slice(_PAD, _PAD + rows), slice(_PAD, _PAD + cols))

    def put(plane: int, x: float, y: float, value: int) -> None:
        r, c = math.floor(y) // TILE_SIZE, math.floor(x) // TILE_SIZE
        if 0 <= r < rows and 0 <= c < cols:
            static[:, plane, r + _PAD, c + _PAD] = value

    for layer, grid in enumerate(tiles.cell_grids):
        static[layer, _P_SOLID][inner] = solid[grid]
        static[layer, _P_TOP][inner] = top[grid]
        # Only sloped surfaces carry an angle; a full or empty tile reads flat.
        filled = (solid[grid] > 0) | (top[grid] > 0)
        static[layer, _P_ANGLE][inner] = np.where(filled, angle[grid], 0)
    for s in stage.springs:
        code = 1 + SPRING_DIRECTIONS.index(s.direction) + 3 * SPRING_STRENGTHS.index(s.strength)
        put(_P_SPRING, s.x, s.y, code)
    for s in stage.spikes:
        x0, x1 = s.x - s.width / 2, s.x + s.width / 2
        y0, y1 = s.y - s.height, s.y
        for r in range(math.floor(y0) // TILE_SIZE, (math.ceil(y1) - 1) // TILE_SIZE + 1):
            for c in range(math.floor(x0) // TILE_SIZE, (math.ceil(x1) - 1) // TILE_SIZE + 1):
                put(_P_SPIKES, c * TILE_SIZE, r * TILE_SIZE, 1)
    put(_P_GOAL, stage.goal.x, stage.goal.y, 1)
    return static


def _clip_byte(v: float) -> int:
    v = int(round(v))
    return 0 if v < 0 else (255 if v > 255 else v)


# -- the encoder ----------------------------------------------------------------

class TokenEncoder:
    """Encodes a simulation as a `(num_tokens, 3)` uint8 token array.

    It remembers the last action and reward (`record`, called by whoever
    steps the simulation) because they are part of the observation;
    `reset` forgets them at the start of an episode.
    """

    __slots__ = ("num_tokens", "window", "max_steps", "last_action", "last_reward",
                 "last_dropped", "tokens_dropped", "_order_flat", "_order_packed")

    def __init__(self, num_tokens: int = NUM_TOKENS, window: int = WINDOW,
                 max_steps: int = DEFAULT_MAX_STEPS) -> None:
        num_tokens = positive_int(num_tokens, "num_tokens")
        if (isinstance(window, bool) or not isinstance(window, int) or window % 2 == 0
                or not 1 <= window <= MAX_COORD + 1):
            raise ValueError(
                f"window must be an odd integer in 1..{MAX_COORD + 1}, got {window!r}")
        max_steps = positive_int(max_steps, "max_steps")
        self.num_tokens = num_tokens
        self.window = window
        self.max_steps = max_steps
        self.last_action = 0
        self.last_reward = 0.0
        self.last_dropped = 0
        self.tokens_dropped = 0
        order = cell_order(window)
        self._order_flat = order[:, 0] * window + order[:, 1]
        self._order_packed = (order[:, 0] << 4 | order[:, 1]).astype(np.uint8)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.num_tokens, TOKEN_DIM)

    def reset(self) -> None:
        """Start an episode: no last action or reward, no dropped tokens."""
        self.last_action = 0
        self.last_reward = 0.0
        self.last_dropped = 0
        self.tokens_dropped = 0

    def record(self, action: int, reward: float) -> None:
        """Remember the step just taken, for the next observation."""
        self.last_action = int(action)
        self.last_reward = float(reward)

    def __getstate__(self):
        return (self.num_tokens, self.window, self.max_steps, self.last_action,
                self.last_reward, self.last_dropped, self.tokens_dropped)

    def __setstate__(self, state) -> None:
        self.__init__(*state[:3])
        (self.last_action, self.last_reward, self.last_dropped,
         self.tokens_dropped) = state[3:]

    def __repr__(self) -> str:
        return (f"TokenEncoder(num_tokens={self.num_tokens}, window={self.window}, "
                f"max_steps={self.max_steps})")

    # -- encoding ---------------------------------------------------------------

    def global_values(self, sim: SimState) -> list[int]:
        """Bytes of the global and player block, in GLOBAL_FEATURES order."""
        player = sim.player
        p = player.physics
        rings = player.rings
        completion = sim.frame * 100 // self.max_steps
        return [
            1 if p.on_ground else 0,
            1 if p.is_rolling else 0,
            1 if p.facing_right else 0,
            _clip_byte(p.x_vel * 8.0 + 128.0),
            _clip_byte(p.y_vel * 8.0 + 128.0),
            p.angle & 255,
            rings if rings < 255 else 255,
            int(player.state),
            math.floor(p.x) & 15,
            math.floor(p.y) & 15,
            completion if completion < 100 else 100,
            self.last_action if 0 <= self.last_action < NUM_ACTIONS else 0,
            _clip_byte(self.last_reward * 100.0 + 128.0),
        ]

    def cell_planes(self, sim: SimState) -> np.ndarray:
        """The window's per-cell features, `(len(CELL_FEATURES), window, window)`."""
        stage = sim.stage
        try:
            t = stage.object_tables
            static = stage.token_planes
        except AttributeError:      # their first use on this stage
            t = object_tables(stage)
            static = stage.derive("token_planes", static_planes)
        p = sim.player.physics
        w = self.window
        half = w // 2
        tx = math.floor(p.x) >> 4
        ty = math.floor(p.y) >> 4
        row0, col0 = ty - half, tx - half
        static = static[p.layer]
        r0, c0 = row0 + _PAD, col0 + _PAD
        if 0 <= r0 and r0 + w <= static.shape[1] and 0 <= c0 and c0 + w <= static.shape[2]:
            planes = static[:, r0:r0 + w, c0:c0 + w].copy()
        else:
            # Far outside the stage (thrown high by a spring): copy the overlap.
            planes = np.zeros((_N_CELL, w, w), np.uint8)
            a0, a1 = max(r0, 0), min(r0 + w, static.shape[1])
            b0, b1 = max(c0, 0), min(c0 + w, static.shape[2])
            if a0 < a1 and b0 < b1:
                planes[:, a0 - r0:a1 - r0, b0 - c0:b1 - c0] = static[:, a0:a1, b0:b1]

        x0 = col0 * TILE_SIZE
        x1 = x0 + w * TILE_SIZE
        y0 = row0 * TILE_SIZE
        y1 = y0 + w * TILE_SIZE
        if t.rings:
            taken = sim.ring_taken
            ring_plane = planes[_P_RING]
            for i, rx, ry in t.rings[bisect_left(t.ring_x, x0):bisect_left(t.ring_x, x1)]:
                if not taken[i] and y0 <= ry < y1:
                    r, c = (math.floor(ry) - y0) >> 4, (math.floor(rx) - x0) >> 4
                    if ring_plane[r, c] < 255:
                        ring_plane[r, c] += 1
        if t.enemies:
            destroyed = sim.enemy_destroyed
            frame = sim.frame
            lo = bisect_left(t.enemy_x, x0 - t.enemy_span)
            for i, enemy, kind in t.enemies[lo:bisect_left(t.enemy_x, x1)]:
                if destroyed[i]:
                    continue
                ex, ey = enemy_position(enemy, frame)
                if x0 <= ex < x1 and y0 <= ey < y1:
                    planes[_P_ENEMY, (math.floor(ey) - y0) >> 4,
                           (math.floor(ex) - x0) >> 4] = kind
        for i, cx, cy in t.checkpoints:
            if x0 <= cx < x1 and y0 <= cy < y1:
                planes[_P_CHECK, (math.floor(cy) - y0) >> 4,
                       (math.floor(cx) - x0) >> 4] = 2 if sim.checkpoint_hit[i] else 1
        return planes

    def dense(self, sim: SimState) -> np.ndarray:
        """All features as planes `(NUM_FEATURES, window, window)` of raw
        bytes, nothing dropped: what `decode_tokens` of an observation
        gives back when every token fits."""
        w = self.window
        out = np.zeros((NUM_FEATURES, w, w), np.uint8)
        out[F_ON_GROUND:F_LAST_REWARD + 1, w // 2, w // 2] = self.global_values(sim)
        out[F_SOLID:] = self.cell_planes(sim)
        return out

    def encode(self, sim: SimState) -> np.ndarray:
        """A fresh `(num_tokens, 3)` uint8 token array for `sim`."""
        n = self.num_tokens
        out = np.full((n, TOKEN_DIM), EMPTY, np.uint8)
        centre = (self.window // 2) << 4 | (self.window // 2)
        g = min(_N_GLOBAL, n)
        out[:g, 0] = centre
        out[:g, 1] = GLOBAL_FEATURES[:g]
        out[:g, 2] = self.global_values(sim)[:g]
        dropped = _N_GLOBAL - g

        planes = self.cell_planes(sim)
        # (cells in visiting order, features): nonzero walks it cell by cell.
        by_cell = planes.reshape(_N_CELL, -1).T[self._order_flat]
        rank, feat = np.nonzero(by_cell)
        room = n - g
        k = len(rank)
        if k > room:
            dropped += k - room
            rank, feat = rank[:room], feat[:room]
            k = room
        if k:
            out[g:g + k, 0] = self._order_packed[rank]
            out[g:g + k, 1] = feat + F_SOLID
            out[g:g + k, 2] = by_cell[rank, feat]
        self.last_dropped = dropped
        self.tokens_dropped += dropped
        return out

    __call__ = encode

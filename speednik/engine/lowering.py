"""A stage lowered to the flat arrays compiled code reads, and a
simulation state copied to and from the engine's state arrays.

`lower_stage(stage)` is computed once per stage and kept by the stage
(see `Stage.derived`); everything in it comes from the readable
structures (`TileMap`'s scan tables, the `ObjectIndex` columns, the
observation's sorted enemy and spike tables), so both engines read the
same numbers.
"""
from __future__ import annotations

from collections import namedtuple
from types import SimpleNamespace

import numpy as np

from speednik.engine.jit import frame_jit
from speednik.engine.layout import (
    F_GROUND_SPEED,
    F_MAX_X,
    F_MAX_X_GAIN,
    F_SPINREV,
    F_X,
    F_X_VEL,
    F_Y,
    F_Y_VEL,
    NO_CAUSE,
    NUM_F,
    NUM_S,
    S_ANGLE,
    S_CONTROL_LOCK,
    S_DEAD,
    S_DEATH_CAUSE,
    S_DEATHS,
    S_FACING_RIGHT,
    S_FRAME,
    S_GOAL_REACHED,
    S_INVULNERABLE,
    S_JUMPING,
    S_LAYER,
    S_ON_GROUND,
    S_RINGS,
    S_RINGS_COLLECTED,
    S_ROLLING,
    S_STATE,
    S_JUMP_HELD,
    S_WITHOUT_GAIN,
    SOURCES,
)
from speednik.entities import ENEMY_KINDS, SPRING_DIRECTIONS, SPRING_STRENGTHS
from speednik.objects import SPIKES, object_index, object_tables
from speednik.player import PlayerState, create_player

# The block of tiles around a cell that `terrain.open_air` finds empty:
# as far as any cast of the air collision reads, for a player within
# 16 px of the cell's column sideways and 32 px of its row up and down.
OPEN_AIR_COLUMNS = 2
OPEN_AIR_ROWS = 3

# A lowered stage is two arrays, `ints` (int64) and `floats` (float64).
# Each starts with a header: the stage's sizes and, for every table, where
# it starts. (Two arrays rather than one per table: Numba passes a tuple's
# arrays field by field on every call, and with forty of them a frame
# spent most of its time passing arguments.)
CompiledStage = namedtuple("CompiledStage", ["ints", "floats"])

# -- ints header: sizes ...
I_WIDTH_TILES = 0
I_HEIGHT_TILES = 1
I_PW = 2                 # width of a padded row of tiles
I_WIDTH = 3
I_HEIGHT = 4
I_NUM_COLUMNS = 5        # of the object index
I_NUM_RINGS = 6
I_NUM_ENEMIES = 7
I_NUM_CHECKPOINTS = 8
I_NUM_SPIKES = 9
# ... and where each int table starts (in ints) ...
I_CELLS = 10             # padded tile indices of layer 0; layer 1 at I_CELLS + 1
I_T_DOWN_ALL = 12        # scan tables (speednik.terrain): floor sensor with top-only tiles,
I_T_DOWN = 13            # the four directions with solid tiles only
I_T_RIGHT = 14
I_T_UP = 15
I_T_LEFT = 16
I_A_DOWN = 17            # tile angles per direction
I_A_RIGHT = 18
I_A_UP = 19
I_A_LEFT = 20
I_COLUMN_START = 21      # object index: first entry of each column, and one past the last
I_O_KIND = 22            # each entry's kind and index
I_O_INDEX = 23
I_SPRING_DIRECTION = 24
I_SPRING_STRENGTH = 25
I_ENEMY_KIND = 26
I_ENEMY_PERIOD = 27
I_SWITCH_RIGHT = 28
I_SWITCH_LEFT = 29
I_ENEMY_ORDER = 30       # enemies sorted by x (the terrain observation's order)
# ... and where each float table starts (in floats).
I_O_BOX = 31             # x0, y0, x1, y1 of each index entry
I_RING_X = 32
I_RING_Y = 33
I_SPRING_X = 34
I_SPRING_Y = 35
I_CHECKPOINT_X = 36
I_CHECKPOINT_Y = 37
I_ENEMY_X = 38
I_ENEMY_Y = 39
I_ENEMY_SPAN = 40
I_ENEMY_SORTED_X = 41
I_SPIKE_X = 42           # spikes by (x, middle y), sorted
I_SPIKE_Y = 43
I_OPEN_AIR = 44          # per padded cell of layer 0, 1 if the tiles around it are all
                         # empty (`terrain.open_air`); layer 1 at I_OPEN_AIR + 1
I_COLUMN_SPIKES = 46     # object index: how many of each column's entries are spikes
INT_HEADER = 47
# -- floats header
G_GOAL_X = 0
G_WALKER_SPAN = 1        # the widest walker patrol
FLOAT_HEADER = 2


class _Packer:
    """Appends tables to a header-led array, noting where each starts."""

    def __init__(self, header: int, dtype) -> None:
        self.parts: list[tuple[int, np.ndarray]] = []
        self.size = header
        self.dtype = dtype

    def add(self, values) -> int:
        arr = np.asarray(values).reshape(-1)
        start = self.size
        self.parts.append((start, arr))
        self.size += len(arr)
        return start

    def array(self) -> np.ndarray:
        # Each table is copied once, into place, taking the array's type there.
        out = np.zeros(self.size, self.dtype)
        for start, arr in self.parts:
            out[start:start + len(arr)] = arr
        return out


def lower_stage(stage) -> CompiledStage:
    """The stage's flat arrays (built here; `compiled_stage` gives the
    stage's own, built once)."""
    tiles = stage.tiles
    ints, floats = _Packer(INT_HEADER, np.int64), _Packer(FLOAT_HEADER, np.float64)
    head: dict[int, int] = {}
    cells = tiles.padded_cells()
    head[I_CELLS] = ints.add(cells[0])
    head[I_CELLS + 1] = ints.add(cells[1])
    around = open_air_cells(cells, tiles._pw)
    head[I_OPEN_AIR] = ints.add(around[0])
    head[I_OPEN_AIR + 1] = ints.add(around[1])
    # The scan tables in terrain.SCAN_TABLES order.
    for slot, table in zip((I_T_DOWN_ALL, I_T_DOWN, I_T_RIGHT, I_T_UP, I_T_LEFT),
                           tiles.scan_tables):
        head[slot] = ints.add(table)
    for slot, angles in ((I_A_DOWN, tiles.a_down), (I_A_RIGHT, tiles.a_right),
                         (I_A_UP, tiles.a_up), (I_A_LEFT, tiles.a_left)):
        head[slot] = ints.add(angles)

    index = object_index(stage)
    starts = [0]
    entries: list = []
    for column in index.columns:
        entries.extend(column)
        starts.append(len(entries))
    head[I_COLUMN_START] = ints.add(starts)
    head[I_O_KIND] = ints.add([e[0] for e in entries])
    head[I_O_INDEX] = ints.add([e[1] for e in entries])
    head[I_COLUMN_SPIKES] = ints.add([sum(e[0] == SPIKES for e in column)
                                      for column in index.columns])
    head[I_O_BOX] = floats.add([v for e in entries for v in e[2:]])

    springs, enemies = stage.springs, stage.enemies
    head[I_SPRING_DIRECTION] = ints.add([SPRING_DIRECTIONS.index(s.direction) for s in springs])
    head[I_SPRING_STRENGTH] = ints.add([SPRING_STRENGTHS.index(s.strength) for s in springs])
    head[I_ENEMY_KIND] = ints.add([ENEMY_KINDS.index(e.kind) for e in enemies])
    head[I_ENEMY_PERIOD] = ints.add([e.period for e in enemies])
    head[I_SWITCH_RIGHT] = ints.add([s.layer_right for s in stage.layer_switches])
    head[I_SWITCH_LEFT] = ints.add([s.layer_left for s in stage.layer_switches])
    objs = object_tables(stage)
    head[I_ENEMY_ORDER] = ints.add([i for i, _, _ in objs.enemies])
    for slot, values in (
            (I_RING_X, [r.x for r in stage.rings]), (I_RING_Y, [r.y for r in stage.rings]),
            (I_SPRING_X, [s.x for s in springs]), (I_SPRING_Y, [s.y for s in springs]),
            (I_CHECKPOINT_X, [c.x for c in stage.checkpoints]),
            (I_CHECKPOINT_Y, [c.y for c in stage.checkpoints]),
            (I_ENEMY_X, [e.x for e in enemies]), (I_ENEMY_Y, [e.y for e in enemies]),
            (I_ENEMY_SPAN, [e.span for e in enemies]),
            (I_ENEMY_SORTED_X, objs.enemy_x),
            (I_SPIKE_X, [sx for sx, _ in objs.spikes]),
            (I_SPIKE_Y, [sy for _, sy in objs.spikes])):
        head[slot] = floats.add(values)

    head.update({
        I_WIDTH_TILES: tiles.width_tiles, I_HEIGHT_TILES: tiles.height_tiles,
        I_PW: tiles._pw, I_WIDTH: stage.width, I_HEIGHT: stage.height,
        I_NUM_COLUMNS: len(index.columns), I_NUM_RINGS: len(stage.rings),
        I_NUM_ENEMIES: len(enemies), I_NUM_CHECKPOINTS: len(stage.checkpoints),
        I_NUM_SPIKES: len(objs.spikes),
    })
    int_array, float_array = ints.array(), floats.array()
    for slot, value in head.items():
        int_array[slot] = int(value)
    float_array[G_GOAL_X] = float(stage.goal.x)
    float_array[G_WALKER_SPAN] = float(objs.enemy_span)
    return CompiledStage(int_array, float_array)


def open_air_cells(cells: np.ndarray, pw: int) -> np.ndarray:
    """Per layer of `cells` (padded rows of `pw` tiles), 1 for each cell
    whose block of tiles OPEN_AIR_COLUMNS to either side and OPEN_AIR_ROWS
    above and below is all empty, else 0; tiles past the padded grid
    count as empty (no cast reads them)."""
    rows, cols = OPEN_AIR_ROWS, OPEN_AIR_COLUMNS
    tiles = cells.reshape(len(cells), -1, pw) != 0
    n, height = len(cells), tiles.shape[1]
    counts = np.zeros((n, height + 2 * rows + 1, pw + 2 * cols + 1), np.int64)
    counts[:, 1:, 1:] = np.pad(tiles, ((0, 0), (rows, rows), (cols, cols))) \
        .cumsum(axis=1).cumsum(axis=2)
    tall, wide = 2 * rows + 1, 2 * cols + 1
    inside = (counts[:, tall:, wide:] - counts[:, :-tall, wide:]
              - counts[:, tall:, :-wide] + counts[:, :-tall, :-wide])
    return (inside == 0).astype(np.int64).reshape(n, -1)


# -- a SimState and the engine's state arrays ------------------------------------------

def start_arrays(stage) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(f, s, gone) of a fresh simulation of `stage`, as `create_sim`
    makes it, without the readable simulation (which loads stages by
    name, so the stage generator could not call code that needs it)."""
    # create_sim's fresh SimState, field for field.
    start = SimpleNamespace(
        player=create_player(stage.start_x, stage.start_y, stage.tiles),
        max_x_reached=stage.start_x, max_x_gain=0.0, frame=0, rings_collected=0,
        deaths=0, frames_without_gain=0, goal_reached=False, player_dead=False,
        death_cause="", jump_held=False)
    f, s = state_arrays(start)
    gone = np.zeros(len(stage.rings) + len(stage.enemies) + len(stage.checkpoints), np.uint8)
    return f, s, gone


def state_arrays(sim) -> tuple[np.ndarray, np.ndarray]:
    """(f, s) holding `sim`'s player and counters (see `layout`)."""
    player = sim.player
    p = player.physics
    f = np.zeros(NUM_F, np.float64)
    s = np.zeros(NUM_S, np.int64)
    f[F_X], f[F_Y], f[F_X_VEL], f[F_Y_VEL] = p.x, p.y, p.x_vel, p.y_vel
    f[F_GROUND_SPEED], f[F_SPINREV] = p.ground_speed, p.spinrev
    f[F_MAX_X], f[F_MAX_X_GAIN] = sim.max_x_reached, sim.max_x_gain
    s[S_ANGLE], s[S_ON_GROUND], s[S_ROLLING] = p.angle, p.on_ground, p.is_rolling
    s[S_FACING_RIGHT], s[S_LAYER], s[S_JUMPING] = p.facing_right, p.layer, p.jumping
    s[S_CONTROL_LOCK], s[S_STATE] = p.control_lock, int(player.state)
    s[S_RINGS], s[S_INVULNERABLE] = player.rings, player.invulnerable
    s[S_FRAME], s[S_RINGS_COLLECTED] = sim.frame, sim.rings_collected
    s[S_DEATHS], s[S_GOAL_REACHED] = sim.deaths, sim.goal_reached
    s[S_DEAD] = sim.player_dead
    s[S_DEATH_CAUSE] = death_cause_code(sim.death_cause)
    s[S_WITHOUT_GAIN] = sim.frames_without_gain
    s[S_JUMP_HELD] = sim.jump_held
    return f, s


def write_state(sim, f: np.ndarray, s: np.ndarray) -> None:
    """Copy the engine's state arrays back into `sim`, as Python values."""
    player = sim.player
    p = player.physics
    p.x, p.y = float(f[F_X]), float(f[F_Y])
    p.x_vel, p.y_vel = float(f[F_X_VEL]), float(f[F_Y_VEL])
    p.ground_speed, p.spinrev = float(f[F_GROUND_SPEED]), float(f[F_SPINREV])
    sim.max_x_reached, sim.max_x_gain = float(f[F_MAX_X]), float(f[F_MAX_X_GAIN])
    p.angle, p.on_ground = int(s[S_ANGLE]), bool(s[S_ON_GROUND])
    p.is_rolling, p.facing_right = bool(s[S_ROLLING]), bool(s[S_FACING_RIGHT])
    p.layer, p.jumping = int(s[S_LAYER]), bool(s[S_JUMPING])
    p.control_lock = int(s[S_CONTROL_LOCK])
    player.state = PlayerState(int(s[S_STATE]))
    player.rings, player.invulnerable = int(s[S_RINGS]), int(s[S_INVULNERABLE])
    sim.frame, sim.rings_collected = int(s[S_FRAME]), int(s[S_RINGS_COLLECTED])
    sim.deaths, sim.goal_reached = int(s[S_DEATHS]), bool(s[S_GOAL_REACHED])
    sim.player_dead = bool(s[S_DEAD])
    sim.death_cause = death_cause_name(int(s[S_DEATH_CAUSE]))
    sim.frames_without_gain = int(s[S_WITHOUT_GAIN])
    sim.jump_held = bool(s[S_JUMP_HELD])


def death_cause_code(cause: str) -> int:
    """The engine's code of a death cause ("" : NO_CAUSE)."""
    if not cause:
        return NO_CAUSE
    try:
        return SOURCES.index(cause)
    except ValueError:
        raise ValueError(f"unknown death cause {cause!r}: accepted are "
                         f"{', '.join(map(repr, SOURCES))}") from None


def death_cause_name(code: int) -> str:
    """The death cause an engine code stands for ("" for NO_CAUSE)."""
    return SOURCES[code] if code != NO_CAUSE else ""


@frame_jit
def spring_count(st) -> int:
    """How many springs the stage has: the direction and strength tables,
    one entry per spring, are laid out one after the other."""
    return st.ints[I_SPRING_STRENGTH] - st.ints[I_SPRING_DIRECTION]


def compiled_stage(stage) -> CompiledStage:
    """The stage's own flat arrays, lowered on first use."""
    return stage.derive("compiled", lower_stage)

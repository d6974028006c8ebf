"""The "basic", "terrain", "hazards", "stall", "lookahead", "pits", "landing", "room",
"footing", "local", "onward", "stride", "reach", "stand", "behind", "runup"
and "turnback" observations (`speednik.observation`), compiled:
written into a float32 array instead of returned.

Every observation is written into an array of OBS_WIDEST values: "local"
is "footing" written in full, then moved down over the values it leaves
out, and "onward" (and "stride", onward with its later flights pressed two
frames on, "reach", stride with its flights played when the player is
faster than it runs, and "stand", reach with a flight coming down only
once the player stands) is written as "footing" with its own flights, then
moved down the same way; "behind" is "reach" with the spring behind the
player written after it, "runup" is "reach" with how far behind its
farthest x the player is written after it, and "turnback" is "behind"
with that value after it."""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numba import errors, njit, types
from numba.extending import overload

from speednik.engine.jit import frame_jit, leaf_jit
from speednik.engine.layout import (
    F_GROUND_SPEED,
    F_MAX_X,
    F_SPINREV,
    F_X,
    F_X_VEL,
    F_Y,
    F_Y_VEL,
    S_ANGLE,
    S_CONTROL_LOCK,
    S_FACING_RIGHT,
    S_FRAME,
    S_INVULNERABLE,
    S_JUMP_HELD,
    S_JUMPING,
    S_LAYER,
    S_ON_GROUND,
    S_RINGS,
    S_ROLLING,
    S_STATE,
    S_WITHOUT_GAIN,
    SPRING_RED,
    SPRING_RIGHT,
    SPRING_UP,
)
from speednik.engine.lowering import (
    G_GOAL_X,
    G_WALKER_SPAN,
    I_ENEMY_ORDER,
    I_ENEMY_SORTED_X,
    I_CELLS,
    I_HEIGHT,
    I_NUM_ENEMIES,
    I_PW,
    I_NUM_SPIKES,
    I_SPIKE_X,
    I_SPIKE_Y,
    I_SPRING_DIRECTION,
    I_SPRING_STRENGTH,
    I_SPRING_X,
    I_SPRING_Y,
    I_WIDTH,
    spring_count,
)
from speednik.engine.objects import enemy_gone, enemy_position, touches_spikes
from speednik.engine.terrain import (
    _cell,
    cast_down,
    cast_left,
    cast_right,
    cast_up,
    height_tiles,
    width_tiles,
)
from speednik.constants import (
    JUMP_RELEASE_SPEED,
    MAX_X_SPEED,
    SPINDASH_MAX_REV,
    SPRING_RED_SPEED,
    SPRING_YELLOW_SPEED,
    TOP_SPEED,
)
from speednik.observation.basic import _INV_SPEED, _INV_TIME, BASIC_VALUES
from speednik.observation.behind import BEHIND_VALUES
from speednik.observation.hazards import _INV_INVULNERABLE, HAZARD_VALUES
from speednik.observation.footing import FOOTING_FRAMES, FOOTING_VALUES, SPIKES_BEHIND
from speednik.observation.local import LOCAL_KEPT
from speednik.observation.onward import ONWARD_VALUES, STEEP_ANGLE
from speednik.observation.stand import STAND_FRAMES
from speednik.observation.stride import STRIDE
from speednik.observation.landing import FLIGHT_FRAMES, LANDING_VALUES, LATER, PREDICT_BELOW
from speednik.observation.lookahead import (
    _INV_SPRING_REACH,
    CEILING_AHEAD,
    GROUND_FARTHER,
    LOOKAHEAD_VALUES,
    SPRING_REACH,
    WALL_HEIGHT_REACH,
)
from speednik.observation.pits import (
    _INV_PIT_REACH,
    PIT_COLUMNS,
    PIT_DEPTH,
    PIT_REACH,
    PIT_STEP,
    PITS_VALUES,
)
from speednik.observation.probes import (
    BELOW_REACH,
    CEILING_REACH,
    DROP_NORM,
    DROP_REACH,
    GROUND_AHEAD,
    GROUND_PROBE_RISE,
    LOOK_SPEED,
    OBJECT_REACH,
    WALL_REACH,
)
from speednik.observation.runup import _INV_RUNUP, BEHIND_FARTHEST
from speednik.observation.turnback import TURNBACK_FARTHEST
from speednik.observation.room import ROOM_COLUMNS, ROOM_REACH, ROOM_VALUES
from speednik.observation.registry import compiled_observations, get_observation
from speednik.observation.stall import _INV_STALL, STALL_VALUES
from speednik.observation.terrain import TERRAIN_VALUES
from speednik.observation.value import index_of
from speednik.engine.player import (
    AIRBORNE,
    DEAD,
    HURT,
    MODE_OF_ANGLE,
    SPINDASH,
    _air_frame,
    _ground_frame,
    radii,
)
from speednik.player import FLOOR_MODE
from speednik.terrain import DOWN, LEFT, NO_HIT, RIGHT, UP

GROUND_NEAR, GROUND_MID, GROUND_FAR = GROUND_AHEAD

# The compiled observations, by their index in the registry
# (`speednik.observation.registry`).
OBSERVATION_KINDS = tuple(e.name for e in compiled_observations())
OBS_SIZES = tuple(e.size for e in compiled_observations())
OBS_BASIC = get_observation("basic").compiled_kind
OBS_HAZARDS = get_observation("hazards").compiled_kind
OBS_STALL = get_observation("stall").compiled_kind
OBS_LOOKAHEAD = get_observation("lookahead").compiled_kind
OBS_PITS = get_observation("pits").compiled_kind
OBS_LANDING = get_observation("landing").compiled_kind
OBS_ROOM = get_observation("room").compiled_kind
OBS_FOOTING = get_observation("footing").compiled_kind
OBS_LOCAL = get_observation("local").compiled_kind
OBS_ONWARD = get_observation("onward").compiled_kind
OBS_STRIDE = get_observation("stride").compiled_kind
OBS_REACH = get_observation("reach").compiled_kind
OBS_STAND = get_observation("stand").compiled_kind
OBS_BEHIND = get_observation("behind").compiled_kind
OBS_RUNUP = get_observation("runup").compiled_kind
OBS_TURNBACK = get_observation("turnback").compiled_kind
# The rule a flight is judged by: "landing"'s, "footing"'s, "onward"'s
# (footing's, moving on), or "stand"'s (onward's, come down only once
# stood on the ground STAND_FRAMES frames in a row).
RULE_LANDING, RULE_FOOTING, RULE_ONWARD, RULE_STAND = 0, 1, 2, 3
# `observe` reads each of these as extending the one before it: every
# kind from OBS_LOCAL on moves down as "local" does, from OBS_STRIDE on
# presses its later jumps STRIDE frames on, and from OBS_REACH on plays
# its flights when the player is fast. "behind", "runup" and "turnback"
# are "reach" (not "stand") with values after it.
assert (OBS_LOCAL, OBS_ONWARD, OBS_STRIDE, OBS_REACH, OBS_STAND, OBS_BEHIND,
        OBS_RUNUP, OBS_TURNBACK) == tuple(range(OBS_LOCAL, OBS_LOCAL + 8)) \
    and OBS_TURNBACK == len(OBSERVATION_KINDS) - 1
# The array every observation is written into: "local" needs the room of
# "footing" before it moves its values down.
OBS_WIDEST = max(OBS_SIZES)
_LOCAL_KEPT = np.array(LOCAL_KEPT, np.int64)

# Where each value is written: each observation extends the one before
# it, so a value sits at the same place in every observation that has it.
X, Y, X_VEL, Y_VEL, ON_GROUND, GROUND_SPEED, ROLLING, FACING_RIGHT, ANGLE, MAX_X, \
    GOAL_DX, TIME = (index_of(BASIC_VALUES, n) for n in (
        "x", "y", "x_vel", "y_vel", "on_ground", "ground_speed", "is_rolling",
        "facing_right", "angle", "max_x", "goal_dx", "time"))
LOOK_DIR, WALL_AHEAD, WALL_AHEAD_LOW, GROUND_AHEAD_NEAR, GROUND_AHEAD_MID, GROUND_AHEAD_FAR, \
    SLOPE_AHEAD, GROUND_BELOW, CEILING_ABOVE, GAP_AHEAD, ENEMY_NEAR, HAZARD_NEAR = (
        index_of(TERRAIN_VALUES, n) for n in (
            "look_dir", "wall_ahead", "wall_ahead_low", "ground_ahead_near",
            "ground_ahead_mid", "ground_ahead_far", "slope_ahead", "ground_below",
            "ceiling_above", "gap_ahead", "enemy_near", "hazard_near"))
RINGS_HELD, INVULNERABLE, ENEMY_AHEAD_NEAR, ENEMY_AHEAD_VX, ENEMY_AHEAD_VY, \
    SPIKES_AHEAD_NEAR = (index_of(HAZARD_VALUES, n) for n in (
        "rings_held", "invulnerable", "enemy_ahead_near", "enemy_ahead_vx",
        "enemy_ahead_vy", "spikes_ahead_near"))
STALLED_FOR = index_of(STALL_VALUES, "stalled_for")
SPRING_AHEAD_NEAR, WALL_AHEAD_HEIGHT, CEILING_AHEAD_AT, GROUND_AHEAD_FARTHER, \
    SPINDASH_CHARGE = (index_of(LOOKAHEAD_VALUES, n) for n in (
        "spring_ahead_near", "wall_ahead_height", "ceiling_ahead", "ground_ahead_farther",
        "spindash_charge"))
SPRING_BEHIND_NEAR = index_of(BEHIND_VALUES, "spring_behind_near")
PIT_AHEAD_DX, JUMP_HELD, JUMP_READY = (index_of(PITS_VALUES, n) for n in (
    "pit_ahead_dx", "jump_held", "jump_ready"))
FULL_LANDS = index_of(LANDING_VALUES, "full_lands")
# "footing" writes its values where "landing" writes its own.
assert index_of(FOOTING_VALUES, "full_footing") == FULL_LANDS
# "onward" moves down as "local" does, its flights where local's are.
assert index_of(ONWARD_VALUES, "full_onward") == len(LOCAL_KEPT) - 5
FULL_ROOM = index_of(ROOM_VALUES, "full_room")
# The landing values and, for "room", the two rooms after them.
assert FULL_ROOM == FULL_LANDS + 5


@frame_jit
def basic_values(st, f, s, out):
    inv_w = 1.0 / st.ints[I_WIDTH]
    x = f[F_X]
    out[X] = x * inv_w
    out[Y] = f[F_Y] / st.ints[I_HEIGHT]
    out[X_VEL] = f[F_X_VEL] * _INV_SPEED
    out[Y_VEL] = f[F_Y_VEL] * _INV_SPEED
    out[ON_GROUND] = 1.0 if s[S_ON_GROUND] else 0.0
    out[GROUND_SPEED] = f[F_GROUND_SPEED] * _INV_SPEED
    out[ROLLING] = 1.0 if s[S_ROLLING] else 0.0
    out[FACING_RIGHT] = 1.0 if s[S_FACING_RIGHT] else 0.0
    out[ANGLE] = s[S_ANGLE] / 255.0
    out[MAX_X] = f[F_MAX_X] * inv_w
    out[GOAL_DX] = (st.floats[G_GOAL_X] - x) * inv_w
    out[TIME] = s[S_FRAME] * _INV_TIME


def observe(kind, st, f, s, gone, out, flights):
    """The observation `kind` (an index of OBSERVATION_KINDS) into
    out[:its size] (out holds OBS_WIDEST values); flights is the episode's
    `flight_scratch` ("landing" plays flights on it).

    Called from Python it runs `observer(kind)`. Called from compiled
    code, `kind` must be a compile-time constant (a closure's integer, or
    an argument that carries one): the call compiles to a call of
    `observer(kind)` alone, so a run compiles only the observation it
    uses."""
    observer(kind)(st, f, s, gone, out, flights)


@overload(observe, prefer_literal=True, jit_options={"_nrt": False})
def _observe_compiled(kind, st, f, s, gone, out, flights):
    if not isinstance(kind, types.IntegerLiteral):
        raise errors.TypingError(
            f"observe's kind must be a compile-time constant, got {kind}")
    observe_kind = observer(kind.literal_value)

    def observe_impl(kind, st, f, s, gone, out, flights):
        observe_kind(st, f, s, gone, out, flights)
    return observe_impl


# How each kind observes (indexed by kind): arrays, so that what
# `landing_values` is passed is a number, not a constant its compiled code
# would be specialised on once per kind.
_FLIGHT_RULE = np.array([
    RULE_STAND if k == OBS_STAND
    else RULE_ONWARD if k in (OBS_ONWARD, OBS_STRIDE, OBS_REACH, OBS_BEHIND, OBS_RUNUP,
                              OBS_TURNBACK)
    else RULE_FOOTING if k in (OBS_FOOTING, OBS_LOCAL)
    else RULE_LANDING for k in range(len(OBSERVATION_KINDS))], np.int64)
_WITH_ROOM = np.array([k == OBS_ROOM for k in range(len(OBSERVATION_KINDS))])
_LATER_FRAMES = np.array([STRIDE if k >= OBS_STRIDE else LATER
                          for k in range(len(OBSERVATION_KINDS))], np.int64)
_FAST_FLIGHTS = np.array([k >= OBS_REACH for k in range(len(OBSERVATION_KINDS))])


@lru_cache(maxsize=None)
def observer(kind: int):
    """The compiled function writing observation `kind` alone:
    `observer(kind)(st, f, s, gone, out, flights)`. Each observation
    extends the one before it; the parts a kind lacks are not compiled
    for it (its flags are closure constants, so Numba drops their branches
    before typing), and its machine code is cached on its own."""
    if isinstance(kind, bool) or not isinstance(kind, (int, np.integer)) \
            or not 0 <= kind < len(OBSERVATION_KINDS):
        raise ValueError(f"no compiled observation of kind {kind!r}: kinds are "
                         f"0 to {len(OBSERVATION_KINDS) - 1} ({', '.join(OBSERVATION_KINDS)})")
    kind = int(kind)
    terrain = kind != OBS_BASIC
    hazards = kind >= OBS_HAZARDS
    stall = kind >= OBS_STALL
    lookahead = kind >= OBS_LOOKAHEAD
    pits = kind >= OBS_PITS
    landing = kind >= OBS_LANDING
    local = kind >= OBS_LOCAL
    behind = kind in (OBS_BEHIND, OBS_TURNBACK)
    runup = kind in (OBS_RUNUP, OBS_TURNBACK)
    # Where the run-up's value goes: after reach's values, or after behind's.
    back_at = TURNBACK_FARTHEST if kind == OBS_TURNBACK else BEHIND_FARTHEST

    def observe_kind(st, f, s, gone, out, flights):
        basic_values(st, f, s, out)
        if terrain:
            terrain_probes(st, f, s, gone, out)
        if hazards:
            hazards_ahead(st, f, s, gone, out)
        if stall:
            clock = s[S_WITHOUT_GAIN] * _INV_STALL
            out[STALLED_FOR] = 1.0 if clock > 1.0 else clock
        if lookahead:
            lookahead_probes(st, f, s, out)
        if pits:
            pit_probes(st, f, s, out)
            out[JUMP_HELD] = 1.0 if s[S_JUMP_HELD] else 0.0
            out[JUMP_READY] = 1.0 if s[S_ON_GROUND] and not s[S_JUMP_HELD] else 0.0
        if landing:
            landing_values(st, f, s, out, flights, _WITH_ROOM[kind], _FLIGHT_RULE[kind],
                           _LATER_FRAMES[kind], _FAST_FLIGHTS[kind])
        if local:
            # Each kept value moves to an index at or below its own, in
            # order, so no value is overwritten before it has moved.
            for i in range(len(_LOCAL_KEPT)):
                out[i] = out[_LOCAL_KEPT[i]]
        if behind:
            # After the move down: footing's values lie where these go.
            look = 1.0 if _looks_right(f, s) else -1.0
            _spring_ahead(st, f, -look, out, SPRING_BEHIND_NEAR)
        if runup:
            # runup.behind_farthest's expression, so both engines agree.
            back = (f[F_MAX_X] - f[F_X]) * _INV_RUNUP
            out[back_at] = 0.0 if back < 0.0 else 1.0 if back > 1.0 else back

    # Its own name, so its machine code has cache files of its own.
    observe_kind.__qualname__ = f"observe_{OBSERVATION_KINDS[kind]}"
    return frame_jit(observe_kind)


# -- terrain probes -----------------------------------------------------------

@leaf_jit
def ray(st, direction, x, y, layer, reach):
    """`speednik.observation.probes.ray`: (distance, surface angle) along
    `direction`, or (reach + 1, 0) with no surface within reach.

    Tiles are visited along their padded layer (`lowering`) by a stride,
    so no tile costs a division."""
    ints = st.ints
    w = width_tiles(st)
    if direction & 1:
        lane = y >> 4
        if not 0 <= lane < height_tiles(st):
            return reach + 1, 0
        along = x
        n = w
        cell0 = ints[I_CELLS + layer] + _cell(ints, 0, lane)
        stride = 1
    else:
        lane = x >> 4
        if not 0 <= lane < w:
            return reach + 1, 0
        along = y
        n = height_tiles(st)
        cell0 = ints[I_CELLS + layer] + _cell(ints, lane, 0)
        stride = ints[I_PW]
    if direction < UP:
        low = 0
        high = n - 1
    else:
        # Counted from the far end: tile t of the reversed lane is tile
        # -t - 1 of the lane.
        along = -along - 1
        low = -n
        high = -1
        cell0 -= stride
        stride = -stride
    t = along >> 4
    if t < low:
        t = low
    last = (along + reach) >> 4
    if last > high:
        last = high
    while t <= last:
        if ints[cell0 + t * stride] != 0:
            start = t << 4
            if start < along:
                start = along
            if direction == DOWN:
                d, a = cast_down(st, x, start, layer, True)
            elif direction == RIGHT:
                d, a = cast_right(st, start, y, layer)
            elif direction == UP:
                d, a = cast_up(st, x, -start - 1, layer)
            else:
                d, a = cast_left(st, -start - 1, y, layer)
            if d != NO_HIT:
                d += start - along
                if d > reach:
                    return reach + 1, 0
                return (d if d >= 0 or direction == DOWN else 0), a
            t += 2
        else:
            t += 1
    return reach + 1, 0


@frame_jit
def _ground_probe(st, x, top, feet, layer, reach, sign, ahead, out, k):
    """One ground-ahead probe into out[k]; returns (found, angle)."""
    d, a = ray(st, DOWN, x + sign * ahead, top, layer, reach)
    if d > reach:
        out[k] = DROP_REACH / DROP_NORM
        return False, 0
    drop = (top + d - feet) / DROP_NORM
    out[k] = -1.0 if drop < -1.0 else drop
    return True, a


@frame_jit
def _search_left(floats, start, n, v):
    """`bisect_left` in the n sorted values from floats[start]."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if floats[start + mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@frame_jit
def _search_right(floats, start, n, v):
    """`bisect_right` in the n sorted values from floats[start]."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if v < floats[start + mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


@frame_jit
def _object_features(near, dx, dy, look, out, k):
    if near > OBJECT_REACH:
        out[k] = 0.0
        out[k + 1] = 0.0
        out[k + 2] = 0.0
        return
    r = 1.0 / OBJECT_REACH
    out[k] = 1.0 - near * r
    out[k + 1] = dx * look * r
    out[k + 2] = dy * r


@frame_jit
def _looks_right(f, s):
    x_vel = f[F_X_VEL]
    return x_vel >= LOOK_SPEED or (x_vel > -LOOK_SPEED and s[S_FACING_RIGHT] != 0)


@frame_jit
def _probe_origin(f, s):
    """`speednik.observation.probes.probe_origin`."""
    x = int(math.floor(f[F_X]))
    y = int(math.floor(f[F_Y]))
    if _looks_right(f, s):
        look, sign, ahead = 1.0, 1, RIGHT
    else:
        look, sign, ahead = -1.0, -1, LEFT
    hr = radii(s)[1]
    return x, y, look, sign, ahead, hr, y + hr


@frame_jit
def terrain_probes(st, f, s, gone, out):
    layer = s[S_LAYER]
    x, y, look, sign, ahead, hr, feet = _probe_origin(f, s)

    wall_mid, _ = ray(st, ahead, x, y, layer, WALL_REACH)
    wall_low, _ = ray(st, ahead, x, y + hr // 2, layer, WALL_REACH)

    top = y - GROUND_PROBE_RISE
    reach = feet - top + DROP_REACH
    slope = 0.0
    found, a = _ground_probe(st, x, top, feet, layer, reach, sign, GROUND_NEAR, out, GROUND_AHEAD_NEAR)
    gap = 0.0 if found else 1.0
    if found:
        signed = a - 256 if a >= 128 else a
        slope = signed * look / 64.0
    if not _ground_probe(st, x, top, feet, layer, reach, sign, GROUND_MID, out, GROUND_AHEAD_MID)[0]:
        gap = 1.0
    if not _ground_probe(st, x, top, feet, layer, reach, sign, GROUND_FAR, out, GROUND_AHEAD_FAR)[0]:
        gap = 1.0
    if s[S_ON_GROUND] and MODE_OF_ANGLE[s[S_ANGLE]] == FLOOR_MODE:
        below = 0
    else:
        below, _ = ray(st, DOWN, x, feet, layer, BELOW_REACH)
        below = 0 if below < 0 else below
    above, _ = ray(st, UP, x, y - hr, layer, CEILING_REACH)

    out[LOOK_DIR] = look
    out[WALL_AHEAD] = (wall_mid if wall_mid < WALL_REACH else WALL_REACH) / WALL_REACH
    out[WALL_AHEAD_LOW] = (wall_low if wall_low < WALL_REACH else WALL_REACH) / WALL_REACH
    out[SLOPE_AHEAD] = slope
    out[GROUND_BELOW] = (below if below < BELOW_REACH else BELOW_REACH) / BELOW_REACH
    out[CEILING_ABOVE] = (above if above < CEILING_REACH else CEILING_REACH) / CEILING_REACH
    out[GAP_AHEAD] = gap

    best, edx, edy, _ = _nearest_enemy(st, f, s, gone, 0.0)
    _object_features(best, edx, edy, look, out, ENEMY_NEAR)
    best, hdx, hdy = _nearest_spikes(st, f, 0.0)
    _object_features(best, hdx, hdy, look, out, HAZARD_NEAR)


@frame_jit
def _nearest_enemy(st, f, s, gone, ahead):
    """`speednik.observation.probes.nearest_enemy`, with the enemy's index (-1
    for none) in place of the enemy."""
    px, py = f[F_X], f[F_Y]
    frame = s[S_FRAME]
    ints, floats = st.ints, st.floats
    best = OBJECT_REACH + 1.0
    edx = edy = 0.0
    found = -1
    n_enemies = ints[I_NUM_ENEMIES]
    if n_enemies:
        xs = ints[I_ENEMY_SORTED_X]
        lo = _search_left(floats, xs, n_enemies, px - OBJECT_REACH - floats[G_WALKER_SPAN])
        hi = _search_right(floats, xs, n_enemies, px + OBJECT_REACH)
        order = ints[I_ENEMY_ORDER]
        for j in range(lo, hi):
            i = ints[order + j]
            if enemy_gone(st, gone, i):
                continue
            ex, ey = enemy_position(st, i, frame)
            dx, dy = ex - px, ey - py
            if ahead != 0.0 and dx * ahead <= 0.0:
                continue
            d = math.sqrt(dx * dx + dy * dy)
            if d < best:
                best, edx, edy, found = d, dx, dy, i
    return best, edx, edy, found


@frame_jit
def _nearest_spikes(st, f, ahead):
    """`speednik.observation.probes.nearest_spikes`."""
    px, py = f[F_X], f[F_Y]
    ints, floats = st.ints, st.floats
    best = OBJECT_REACH + 1.0
    hdx = hdy = 0.0
    n_spikes = ints[I_NUM_SPIKES]
    if n_spikes:
        xs, ys = ints[I_SPIKE_X], ints[I_SPIKE_Y]
        lo = _search_left(floats, xs, n_spikes, px - OBJECT_REACH)
        hi = _search_right(floats, xs, n_spikes, px + OBJECT_REACH)
        for j in range(lo, hi):
            dx, dy = floats[xs + j] - px, floats[ys + j] - py
            if ahead != 0.0 and dx * ahead <= 0.0:
                continue
            d = math.sqrt(dx * dx + dy * dy)
            if d < best:
                best, hdx, hdy = d, dx, dy
    return best, hdx, hdy


@frame_jit
def _clip_motion(v):
    return -MAX_X_SPEED if v < -MAX_X_SPEED else (MAX_X_SPEED if v > MAX_X_SPEED else v)


@frame_jit
def hazards_ahead(st, f, s, gone, out):
    look = 1.0 if _looks_right(f, s) else -1.0
    out[RINGS_HELD] = 1.0 if s[S_RINGS] > 0 else 0.0
    out[INVULNERABLE] = s[S_INVULNERABLE] * _INV_INVULNERABLE
    best, edx, edy, i = _nearest_enemy(st, f, s, gone, look)
    _object_features(best, edx, edy, look, out, ENEMY_AHEAD_NEAR)
    if best <= OBJECT_REACH:
        frame = s[S_FRAME]
        ex, ey = enemy_position(st, i, frame)
        nx, ny = enemy_position(st, i, frame + 1)
        out[ENEMY_AHEAD_VX] = _clip_motion((nx - ex) * look)
        out[ENEMY_AHEAD_VY] = _clip_motion(ny - ey)
    else:
        out[ENEMY_AHEAD_VX] = 0.0
        out[ENEMY_AHEAD_VY] = 0.0
    best, hdx, hdy = _nearest_spikes(st, f, look)
    _object_features(best, hdx, hdy, look, out, SPIKES_AHEAD_NEAR)


# -- lookahead ------------------------------------------------------------------

@frame_jit
def _spring_ahead(st, f, look, out, k):
    """`speednik.observation.lookahead.spring_ahead` into out[k:k + 6]."""
    ints, floats = st.ints, st.floats
    px, py = f[F_X], f[F_Y]
    best = SPRING_REACH + 1.0
    found = -1
    dx_best = dy_best = 0.0
    xs, ys = ints[I_SPRING_X], ints[I_SPRING_Y]
    for i in range(spring_count(st)):
        dx, dy = floats[xs + i] - px, floats[ys + i] - py
        if dx * look <= 0.0:
            continue
        d = math.sqrt(dx * dx + dy * dy)
        if d < best:
            best, found, dx_best, dy_best = d, i, dx, dy
    if found < 0 or best > SPRING_REACH:
        for j in range(6):
            out[k + j] = 0.0
        return
    strength = ints[ints[I_SPRING_STRENGTH] + found]
    speed = SPRING_RED_SPEED if strength == SPRING_RED else SPRING_YELLOW_SPEED
    direction = ints[ints[I_SPRING_DIRECTION] + found]
    if direction == SPRING_UP:
        up, forward = 1.0, 0.0
    else:
        up = 0.0
        forward = (1.0 if direction == SPRING_RIGHT else -1.0) * look
    out[k] = 1.0 - best * _INV_SPRING_REACH
    out[k + 1] = dx_best * look * _INV_SPRING_REACH
    out[k + 2] = dy_best * _INV_SPRING_REACH
    out[k + 3] = speed / SPRING_RED_SPEED
    out[k + 4] = up
    out[k + 5] = forward


@frame_jit
def _wall_height(st, x, y, feet, sign, ahead, layer):
    """`speednik.observation.lookahead.wall_height`."""
    d, _ = ray(st, ahead, x, y, layer, WALL_REACH)
    if d > WALL_REACH:
        return 0.0
    column = x + sign * (d + 1)
    top = feet - WALL_HEIGHT_REACH
    down, _ = ray(st, DOWN, column, top, layer, WALL_HEIGHT_REACH)
    if down <= 0:
        return 1.0
    rise = WALL_HEIGHT_REACH - down
    return 0.0 if rise < 0 else rise / WALL_HEIGHT_REACH


@frame_jit
def lookahead_probes(st, f, s, out):
    layer = s[S_LAYER]
    x, y, look, sign, ahead, hr, feet = _probe_origin(f, s)
    above, _ = ray(st, UP, x + sign * CEILING_AHEAD, y - hr, layer, CEILING_REACH)
    if above == 0:
        above = CEILING_REACH
    top = y - GROUND_PROBE_RISE
    reach = feet - top + DROP_REACH
    _spring_ahead(st, f, look, out, SPRING_AHEAD_NEAR)
    out[WALL_AHEAD_HEIGHT] = _wall_height(st, x, y, feet, sign, ahead, layer)
    out[CEILING_AHEAD_AT] = (above if above < CEILING_REACH else CEILING_REACH) / CEILING_REACH
    _ground_probe(st, x, top, feet, layer, reach, sign, GROUND_FARTHER, out,
                  GROUND_AHEAD_FARTHER)
    out[SPINDASH_CHARGE] = f[F_SPINREV] / SPINDASH_MAX_REV


# -- pits -----------------------------------------------------------------------

@frame_jit
def pit_probes(st, f, s, out):
    """`speednik.observation.pits.pit_probes` into out[PIT_AHEAD_DX:+4]."""
    layer = s[S_LAYER]
    x, y, _, sign, _, _, feet = _probe_origin(f, s)
    top = y - GROUND_PROBE_RISE
    reach = feet - top + PIT_DEPTH
    pit = landing = after = -1
    landing_drop = 0
    for k in range(PIT_COLUMNS):
        d, _ = ray(st, DOWN, x + sign * (k * PIT_STEP), top, layer, reach)
        ground = d <= reach
        if pit < 0:
            if not ground:
                pit = k
        elif landing < 0:
            if ground:
                landing = k
                landing_drop = top + d - feet
        elif not ground:
            after = k
            break
    k = PIT_AHEAD_DX
    if pit < 0:
        out[k] = 1.0
        out[k + 1] = 0.0
        out[k + 2] = 0.0
        out[k + 3] = 0.0
        return
    width = (landing if landing >= 0 else PIT_COLUMNS) - pit
    out[k] = pit * PIT_STEP * _INV_PIT_REACH
    out[k + 1] = width * PIT_STEP * _INV_PIT_REACH
    if landing < 0:
        out[k + 2] = 0.0
        out[k + 3] = 0.0
        return
    height = landing_drop / DROP_NORM
    out[k + 2] = -1.0 if height < -1.0 else (2.0 if height > 2.0 else height)
    length = (after if after >= 0 else PIT_COLUMNS) - landing
    out[k + 3] = length * PIT_STEP * _INV_PIT_REACH


# -- landing ----------------------------------------------------------------------

@leaf_jit
def _flying(s):
    return s[S_STATE] == AIRBORNE or s[S_STATE] == HURT


@frame_jit
def flight_lands(st, f0, s0, left, right, jump, f, s, rule):
    """Whether `speednik.observation.landing.flight` comes down on ground
    (1.0) or not (0.0), by the rule of "landing" or "footing" (any depth,
    FOOTING_FRAMES, spikes a fall), or of "onward" (footing's, and holding
    right the player comes down moving right), with no frames of running
    first, played on f and s (copies of the player's f0 and s0), for a
    player neither charging a spindash nor dead (`landing_values` reads 0
    for those without playing). A landed player is left in f and s."""
    return _flight(st, f0, s0, left, right, jump, f, s, rule, f, s, -1)[0]


@frame_jit
def _flight(st, f0, s0, left, right, jump, f, s, rule, keep_f, keep_s, keep):
    """`flight_lands`, and the frame of its loop it ended on (the number
    of its frames: it ran out; -1: before the loop). With `keep` >= 0, the
    player's state at the top of loop frames 1 to AIR_KEPT (its first
    FLIGHT_F and FLIGHT_S values) is copied into rows keep to keep +
    AIR_KEPT - 1 of keep_f and keep_s, flat arrays of such rows."""
    for i in range(len(f0)):
        f[i] = f0[i]
    for i in range(len(s0)):
        s[i] = s0[i]
    footing = rule != RULE_LANDING
    deepest = f[F_Y] + radii(s)[1] + (math.inf if footing else PIT_DEPTH)
    frames = FOOTING_FRAMES if footing else FLIGHT_FRAMES
    bottom = st.ints[I_HEIGHT]
    if not _flying(s):
        _ground_frame(st, f, s, left, right, True, False)
        if footing and touches_spikes(st, f, s):
            return 0.0, -1
    stand = STAND_FRAMES if rule == RULE_STAND else 1
    standing = 0
    for n in range(frames):
        if keep >= 0 and 1 <= n <= AIR_KEPT:
            row = keep + n - 1
            for i in range(FLIGHT_F):
                keep_f[row * FLIGHT_F + i] = f[i]
            for i in range(FLIGHT_S):
                keep_s[row * FLIGHT_S + i] = s[i]
        hr = radii(s)[1]
        if f[F_Y] + hr > deepest or f[F_Y] - hr > bottom:
            return 0.0, n
        if s[S_ON_GROUND]:
            standing += 1
            if standing >= stand:
                return _moving_on(f, right, rule), n
            _ground_frame(st, f, s, left, right, False, False)
        else:
            standing = 0
            _air_frame(st, f, s, left, right, jump)
        if footing and touches_spikes(st, f, s):
            return 0.0, n
    if s[S_ON_GROUND] and standing + 1 >= stand and f[F_Y] + radii(s)[1] <= deepest:
        return _moving_on(f, right, rule), frames
    return 0.0, frames


@leaf_jit
def _moving_on(f, right, rule):
    """A landed flight's value: by "onward" (and "stand"), holding right
    it must come down moving right."""
    return 0.0 if rule >= RULE_ONWARD and right and f[F_GROUND_SPEED] <= 0.0 else 1.0


@frame_jit
def on_steep_ground(s):
    """`speednik.observation.onward.on_steep_ground`."""
    a = s[S_ANGLE]
    return s[S_ON_GROUND] != 0 and min(a, 256 - a) >= STEEP_ANGLE


@frame_jit
def spikes_in_view(st, f):
    """`speednik.observation.footing.spikes_in_view`."""
    n = st.ints[I_NUM_SPIKES]
    if n == 0:
        return False
    xs = st.ints[I_SPIKE_X]
    x = f[F_X]
    return (_search_right(st.floats, xs, n, x + PIT_REACH)
            > _search_left(st.floats, xs, n, x - SPIKES_BEHIND))


# A flight reads (and writes) only the player's position, speeds and rev
# (f[:F_SPINREV + 1]) and its angle to its state (s[:S_STATE + 1]); the
# rest (counters, rings, the best x) cannot change where it comes down.
FLIGHT_F = F_SPINREV + 1
FLIGHT_S = S_STATE + 1
assert (F_X, F_Y, F_X_VEL, F_Y_VEL, F_GROUND_SPEED, F_SPINREV) == tuple(range(FLIGHT_F))
assert max(S_ANGLE, S_ON_GROUND, S_ROLLING, S_FACING_RIGHT, S_LAYER, S_JUMPING,
           S_CONTROL_LOCK) < S_STATE


# The plans a flight from the player's own state is played with, each
# remembered by `_remembered_flight`: right with jump let go, right with
# jump held, left.
PLAN_HOP = 0
PLAN_FULL = 1
PLAN_BRAKE = 2
# Frames of each remembered flight whose states are kept.
AIR_KEPT = 16


# How many states the later plans ran to are kept, the latest ones: a
# decision finds its player where one of them ran to when it ran on as
# they did, `later` frames after the decision that played them. Two keep
# those of "stride" (two frames on) deciding every frame as well as
# every other.
RUN_KEPT = 2
# A kept state's row of memo: the rule's key (0: none), full, hop,
# full_room, hop_room.
MEMO_WIDTH = 5


@njit(cache=True)
def flight_scratch(f, s):
    """What the flights of "landing" are played on, one per episode: copies
    of the player (fly_f, fly_s), the states the later plans were played
    from (run_f, run_s: RUN_KEPT rows each), and memo: in its first row,
    column 0, the row of run_f the next later plans are kept in, then a
    row per kept state: the rule's key it was played by (0: none yet),
    and what it gave (full, hop, and for "room" full_room, hop_room);
    then, for each plan of the player's
    own state (PLAN_HOP, PLAN_FULL, PLAN_BRAKE), the states of the first
    AIR_KEPT frames of its last flight (air_f, air_s: rows of FLIGHT_F and
    FLIGHT_S values, plan by plan), and air_memo: the
    rule it was played by + 1 (0: none yet), its value, and the frame of
    its loop it ended on."""
    return (np.empty_like(f), np.empty_like(s), np.empty((RUN_KEPT, len(f))),
            np.empty((RUN_KEPT, len(s)), s.dtype), np.zeros((1 + RUN_KEPT, MEMO_WIDTH)),
            np.empty(3 * AIR_KEPT * FLIGHT_F),
            np.empty(3 * AIR_KEPT * FLIGHT_S, s.dtype), np.zeros((3, 3)))


@frame_jit
def _remembered_flight(st, f, s, left, right, jump, rule, plan, flights):
    """`flight_lands` of the player's own state f, s with these buttons,
    by "footing" or "onward"'s rule. A flight is a function of the
    player's state alone, so when f and s are the state of one of the
    first AIR_KEPT frames of the last flight played with this plan (the
    player followed it, and nothing the flight does not play, a spring
    or an enemy, touched it) and that flight ended within its frames,
    the flight from here is the rest of it and ends the same way: its
    value is returned without playing it. In the air, deciding every
    other frame, most decisions find the player on the flight the last
    one played for the buttons it then pressed."""
    fly_f, fly_s, _, _, _, air_f, air_s, air_memo = flights
    ended = air_memo[plan, 2]
    # Only a player in the air starts a flight at the top of its loop, as
    # the kept flight went on from each kept state (from the ground a
    # flight first jumps).
    if _flying(s) and air_memo[plan, 0] == rule + 1 and ended < FOOTING_FRAMES:
        first = plan * AIR_KEPT
        for row in range(first, first + min(int(ended), AIR_KEPT)):
            if _is_kept_state(f, s, air_f, air_s, row):
                return air_memo[plan, 1]
    value, ended = _flight(st, f, s, left, right, jump, fly_f, fly_s, rule,
                           air_f, air_s, plan * AIR_KEPT)
    air_memo[plan, 0] = rule + 1
    air_memo[plan, 1] = value
    air_memo[plan, 2] = ended
    return value


@frame_jit
def _kept_run(f, s, run_f, run_s, memo, wanted, landing):
    """The row of memo (1 to RUN_KEPT) whose later plans were played from
    this player's state by this rule (landing: "landing", whose values
    with rooms serve it without), or 0."""
    for j in range(RUN_KEPT):
        key = memo[1 + j, 0]
        if (key >= wanted if landing else key == wanted) \
                and _is_kept_state(f, s, run_f[j], run_s[j], 0):
            return 1 + j
    return 0


@leaf_jit
def _is_kept_state(f, s, keep_f, keep_s, row):
    """Whether the flight's part of f and s equals row `row` of keep_f and
    keep_s, flat arrays of FLIGHT_F and FLIGHT_S values a row."""
    for i in range(FLIGHT_F):
        if f[i] != keep_f[row * FLIGHT_F + i]:
            return False
    for i in range(FLIGHT_S):
        if s[i] != keep_s[row * FLIGHT_S + i]:
            return False
    return True


@frame_jit
def room_ahead(st, f, s):
    """`speednik.observation.room.room_ahead` of the landed player in f, s."""
    layer = s[S_LAYER]
    x, y, _, sign, _, _, feet = _probe_origin(f, s)
    top = y - GROUND_PROBE_RISE
    reach = feet - top + PIT_DEPTH
    for k in range(ROOM_COLUMNS):
        d, _ = ray(st, DOWN, x + sign * (k * PIT_STEP), top, layer, reach)
        if d > reach:
            return k * PIT_STEP / ROOM_REACH
    return 1.0


@frame_jit
def _flight_room(st, f0, s0, left, right, jump, f, s, room, rule):
    """(lands, room) of one plan from f0, s0; room 0.0 unless asked for
    and the flight lands."""
    lands = flight_lands(st, f0, s0, left, right, jump, f, s, rule)
    if room and lands != 0.0:
        return lands, room_ahead(st, f, s)
    return lands, 0.0


@frame_jit
def landing_values(st, f, s, out, flights, room, rule, later, fast):
    """`speednik.observation.landing.landing_values` into out[FULL_LANDS:+5],
    after the pit probes, and with room
    `speednik.observation.room.room_values` into out[FULL_LANDS:+7]; by
    another rule, `speednik.observation.footing.footing_values` or
    `speednik.observation.onward.onward_values` instead.

    A flight is a function of the player's state alone (the terrain does
    not change), so when this frame's player is one that the later plans
    of one of the last RUN_KEPT decisions on the ground started from (it
    ran on, as they did), their results are this frame's full and hop,
    equal to playing them again; running toward a pit, that is two
    flights of five saved, deciding every frame or every other. The later plans run
    on for `later` frames ("stride": two) before they press jump. With
    `fast` ("reach") the flights are played whenever the player moves
    across faster than TOP_SPEED, whatever lies in view. By "footing" and
    "onward", each flight from the player's own state may be the rest of
    one played before (`_remembered_flight`)."""
    fly_f, fly_s, run_f, run_s, memo = flights[:5]
    k = FULL_LANDS
    n = 7 if room else 5
    if out[PIT_AHEAD_DX] >= PREDICT_BELOW \
            and not (rule != RULE_LANDING and spikes_in_view(st, f)) \
            and not (rule >= RULE_ONWARD and on_steep_ground(s)) \
            and not (fast and abs(f[F_X_VEL]) > TOP_SPEED):
        for i in range(n):
            out[k + i] = 1.0
        return
    state = s[S_STATE]
    if state == SPINDASH or state == DEAD:
        for i in range(n):
            out[k + i] = 0.0
        return
    flying = _flying(s)
    # A kept row's key: 1 the lands values, 2 the rooms too, -1 the values
    # of "footing", -2 those of "onward" and "stride" (each rule's kept for
    # itself alone; whatever frames the later plans ran on for, they are
    # the flights of the state they ran to, which run_f and run_s hold).
    wanted = -float(rule) if rule != RULE_LANDING else (2.0 if room else 1.0)
    row = 0 if flying else _kept_run(f, s, run_f, run_s, memo, wanted, rule == RULE_LANDING)
    if row:
        full = memo[row, 1]
        hop = memo[row, 2]
        full_room = memo[row, 3]
        hop_room = memo[row, 4]
    elif rule != RULE_LANDING:
        full_room = hop_room = 0.0
        hop = _remembered_flight(st, f, s, False, True, False, rule, PLAN_HOP, flights)
        if flying and not (s[S_JUMPING] and f[F_Y_VEL] < JUMP_RELEASE_SPEED):
            full = hop
        else:
            full = _remembered_flight(st, f, s, False, True, True, rule, PLAN_FULL, flights)
    else:
        hop, hop_room = _flight_room(st, f, s, False, True, False, fly_f, fly_s, room,
                                     rule)
        if flying and not (s[S_JUMPING] and f[F_Y_VEL] < JUMP_RELEASE_SPEED):
            full = hop
            full_room = hop_room
        else:
            full, full_room = _flight_room(st, f, s, False, True, True, fly_f, fly_s, room,
                                           rule)
    out[k] = full
    out[k + 1] = hop
    if rule != RULE_LANDING:
        out[k + 2] = _remembered_flight(st, f, s, True, False, False, rule, PLAN_BRAKE,
                                        flights)
    else:
        out[k + 2] = flight_lands(st, f, s, True, False, False, fly_f, fly_s, rule)
    if room:
        out[k + 5] = full_room
        out[k + 6] = hop_room
    if flying:
        out[k + 3] = full
        out[k + 4] = hop
        return
    # The later plans are kept in the row after the one kept last, so the
    # RUN_KEPT latest are kept.
    j = int(memo[0, 0])
    memo[0, 0] = (j + 1) % RUN_KEPT
    run_fj = run_f[j]
    run_sj = run_s[j]
    for i in range(len(f)):
        run_fj[i] = f[i]
    for i in range(len(s)):
        run_sj[i] = s[i]
    for _ in range(later):
        if _flying(run_sj):
            break
        _ground_frame(st, run_fj, run_sj, False, True, False, False)
    kept = memo[1 + j]
    out[k + 3], kept[3] = _flight_room(st, run_fj, run_sj, False, True, True, fly_f, fly_s,
                                       room, rule)
    out[k + 4], kept[4] = _flight_room(st, run_fj, run_sj, False, True, False, fly_f, fly_s,
                                       room, rule)
    kept[0] = wanted
    kept[1] = out[k + 3]
    kept[2] = out[k + 4]

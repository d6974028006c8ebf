"""The player: its states and one frame of movement against the terrain.

The order of the steps inside a frame follows the original game's main loop
for each state (grounded, rolling, airborne); see PHYSICS.md for the rules.
Sensor positions rotate with the ground mode (floor, right wall, ceiling,
left wall), so one piece of code runs floors, walls, ceilings and loops.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from speednik.constants import (
    FALL_SPEED_CAP,
    GRAVITY,
    GROUND_SNAP_MARGIN,
    GROUND_SNAP_MAX,
    HURT_GRAVITY,
    INVULNERABLE_FRAMES,
    JUMP_FORCE,
    JUMP_RELEASE_SPEED,
    MAX_SPEED,
    ROLL_HEIGHT_RADIUS,
    ROLL_MIN_SPEED,
    ROLL_WIDTH_RADIUS,
    SLIP_LOCK_FRAMES,
    SLIP_SPEED,
    SPINDASH_BASE_SPEED,
    SPINDASH_MAX_REV,
    SPINDASH_REV_PER_PRESS,
    STAND_HEIGHT_RADIUS,
    STAND_WIDTH_RADIUS,
    UNROLL_SPEED,
    WALL_SENSOR_FLAT_DROP,
    WALL_SENSOR_REACH,
)
from speednik.physics import (
    COS,
    SIN,
    InputState,
    PhysicsState,
    apply_air_drag,
    apply_air_input,
    apply_ground_input,
    apply_roll_input,
    landing_speed,
    rolling_slope,
    running_slope,
)
from speednik.terrain import DOWN, LEFT, NO_HIT, RIGHT, UP, TileMap

# The radius difference between standing and ball form: becoming a ball
# moves the centre this far toward the feet so the feet stay put.
RADIUS_SHIFT = STAND_HEIGHT_RADIUS - ROLL_HEIGHT_RADIUS
# Above this ground speed a frame's move is split in two (see _ground_frame).
SUBSTEP_SPEED = 8.0

# Per ground mode (floor, right wall, ceiling, left wall): the player's
# "down" and "right" as screen vectors, and the sensor direction of each.
MODE_DOWN = ((0, 1), (1, 0), (0, -1), (-1, 0))
MODE_RIGHT = ((1, 0), (0, -1), (-1, 0), (0, 1))
MODE_FLOOR_DIR = (DOWN, RIGHT, UP, LEFT)
MODE_RIGHT_DIR = (RIGHT, UP, LEFT, DOWN)
MODE_LEFT_DIR = (LEFT, DOWN, RIGHT, UP)


def ground_mode(angle: int) -> int:
    """Floor (0-32, 224-255), right wall (33-95), ceiling (96-160), left wall."""
    if angle <= 32 or angle >= 224:
        return 0
    if angle <= 95:
        return 1
    if angle <= 160:
        return 2
    return 3


MODE_OF_ANGLE = tuple(ground_mode(a) for a in range(256))
# The mode of a floor: `MODE_OF_ANGLE[angle] == FLOOR_MODE` is the floor test.
FLOOR_MODE = 0


class PlayerState(IntEnum):
    STANDING = 0   # on the ground, standing or running
    ROLLING = 1
    AIRBORNE = 2
    SPINDASH = 3   # charging a spindash
    HURT = 4       # knocked back, airborne, no control
    DEAD = 5


@dataclass(slots=True)
class Player:
    physics: PhysicsState = field(default_factory=PhysicsState)
    state: PlayerState = PlayerState.AIRBORNE
    rings: int = 0
    invulnerable: int = 0

    def copy(self) -> Player:
        return Player(self.physics.copy(), self.state, self.rings,
                      self.invulnerable)

    @property
    def in_ball(self) -> bool:
        """Rolling, charging or jumping: the form that destroys enemies."""
        return self.physics.is_rolling and self.state != PlayerState.HURT


def create_player(x: float, y: float, tiles: TileMap | None = None) -> Player:
    """A player at (x, y). Given the terrain, it is put standing on the
    first floor below that point, so a stage starts from standing still."""
    player = Player(PhysicsState(x=x, y=y), PlayerState.AIRBORNE)
    if tiles is None:
        return player
    p = player.physics
    foot = int(y) + STAND_HEIGHT_RADIUS
    for step in range(0, tiles.height_tiles * 16, 16):
        da, aa = tiles.cast_down(int(x) - STAND_WIDTH_RADIUS, foot + step, 0, True)
        db, ab = tiles.cast_down(int(x) + STAND_WIDTH_RADIUS, foot + step, 0, True)
        if db < da:
            da, aa = db, ab
        if da < 32:
            p.y = float(foot + step + da - STAND_HEIGHT_RADIUS)
            p.angle = aa
            p.on_ground = True
            player.state = PlayerState.STANDING
            break
    return player


def radii(p: PhysicsState) -> tuple[int, int]:
    """Hit box half-width and half-height: smaller in ball form."""
    if p.is_rolling:
        return ROLL_WIDTH_RADIUS, ROLL_HEIGHT_RADIUS
    return STAND_WIDTH_RADIUS, STAND_HEIGHT_RADIUS


def player_update(player: Player, inp: InputState, tiles: TileMap) -> bool:
    """Advance the player one frame. Returns True if it jumped this frame."""
    state = player.state
    if state == PlayerState.DEAD:
        return False
    p = player.physics
    if player.invulnerable > 0 and state != PlayerState.HURT:
        player.invulnerable -= 1
    if state == PlayerState.AIRBORNE or state == PlayerState.HURT:
        _air_frame(player, p, inp, tiles)
        return False
    if state == PlayerState.SPINDASH:
        _spindash_frame(player, p, inp, tiles)
        return False
    return _ground_frame(player, p, inp, tiles)


def _shift_down(p: PhysicsState, amount: float) -> None:
    """Move the centre toward the feet, along the current ground mode."""
    dx, dy = MODE_DOWN[MODE_OF_ANGLE[p.angle]] if p.on_ground else (0, 1)
    p.x += dx * amount
    p.y += dy * amount


def _start_jump(player: Player, p: PhysicsState) -> None:
    a = p.angle
    s, c = SIN[a], COS[a]
    gs = p.ground_speed
    p.x_vel = gs * c - JUMP_FORCE * s
    p.y_vel = -gs * s - JUMP_FORCE * c
    if not p.is_rolling:
        _shift_down(p, RADIUS_SHIFT)
    p.on_ground = False
    p.is_rolling = True
    p.jumping = True
    player.state = PlayerState.AIRBORNE


def _ground_frame(player: Player, p: PhysicsState, inp: InputState,
                  tiles: TileMap) -> bool:
    rolling = player.state == PlayerState.ROLLING
    left, right = inp.left, inp.right
    if p.control_lock > 0:
        p.control_lock -= 1
        left = right = False

    # Spindash starts from standing still with down held.
    if (not rolling and inp.down_held and inp.jump_pressed
            and p.ground_speed == 0.0):
        player.state = PlayerState.SPINDASH
        p.spinrev = 0.0
        p.is_rolling = True
        _shift_down(p, RADIUS_SHIFT)
        return False

    angle = p.angle
    gs = p.ground_speed
    gs = rolling_slope(gs, angle) if rolling else running_slope(gs, angle)

    if inp.jump_pressed:
        p.ground_speed = gs
        _start_jump(player, p)
        return True

    if rolling:
        gs = apply_roll_input(gs, left, right)
    else:
        gs = apply_ground_input(gs, left, right)
        if right and not left:
            p.facing_right = True
        elif left and not right:
            p.facing_right = False
    if gs > MAX_SPEED:
        gs = MAX_SPEED
    elif gs < -MAX_SPEED:
        gs = -MAX_SPEED

    if not rolling and inp.down_held and abs(gs) >= ROLL_MIN_SPEED:
        rolling = True
        player.state = PlayerState.ROLLING
        p.is_rolling = True
        _shift_down(p, RADIUS_SHIFT)
    elif rolling and abs(gs) < UNROLL_SPEED:
        rolling = False
        player.state = PlayerState.STANDING
        p.is_rolling = False
        _shift_down(p, -RADIUS_SHIFT)

    mode = MODE_OF_ANGLE[angle]
    x_vel = gs * COS[angle]
    y_vel = -gs * SIN[angle]

    # Push sensors look where the player is about to be, on the side it
    # moves toward; they are off on ceilings.
    if gs != 0.0 and (angle <= 64 or angle >= 192):
        rx, ry = MODE_RIGHT[mode]
        sx = p.x + x_vel
        sy = p.y + y_vel
        if mode == 0 and angle == 0:
            sy += WALL_SENSOR_FLAT_DROP
        if gs > 0.0:
            d = MODE_RIGHT_DIR[mode]
            sx += rx * WALL_SENSOR_REACH
            sy += ry * WALL_SENSOR_REACH
            sign = 1.0
        else:
            d = MODE_LEFT_DIR[mode]
            sx -= rx * WALL_SENSOR_REACH
            sy -= ry * WALL_SENSOR_REACH
            sign = -1.0
        dist, _ = tiles.cast(d, int(sx), int(sy), p.layer)
        if dist <= 0:
            # The sensor would be inside the wall: stop one pixel short.
            x_vel += sign * rx * (dist - 1)
            y_vel += sign * ry * (dist - 1)
            gs = 0.0

    p.ground_speed = gs
    if -SUBSTEP_SPEED <= gs <= SUBSTEP_SPEED or gs == 0.0:
        p.x += x_vel
        p.y += y_vel
        p.x_vel = x_vel
        p.y_vel = y_vel
        _ground_sensors(player, p, tiles)
    else:
        # Fast enough to leave a tight curve in one step: move in two halves,
        # re-reading the surface (and so the direction) in between.
        half = gs * 0.5
        for _ in range(2):
            a = p.angle
            p.x_vel = x_vel = gs * COS[a]
            p.y_vel = y_vel = -gs * SIN[a]
            p.x += half * COS[a]
            p.y -= half * SIN[a]
            _ground_sensors(player, p, tiles)
            if not p.on_ground:
                break

    if (p.on_ground and p.control_lock == 0 and 32 < p.angle < 224
            and abs(p.ground_speed) < SLIP_SPEED):
        # Too slow for a steep surface: fall off it.
        p.control_lock = SLIP_LOCK_FRAMES
        _leave_ground(player, p)
    return False


def _ground_sensors(player: Player, p: PhysicsState, tiles: TileMap) -> None:
    """Snap to the surface under the feet, or leave the ground."""
    mode = MODE_OF_ANGLE[p.angle]
    wr, hr = radii(p)
    dx, dy = MODE_DOWN[mode]
    rx, ry = MODE_RIGHT[mode]
    cx = p.x + dx * hr
    cy = p.y + dy * hr
    d = MODE_FLOOR_DIR[mode]
    top_only = mode == 0
    if d == DOWN:
        da, aa = tiles.cast_down(int(cx - wr), int(cy), p.layer, top_only)
        db, ab = tiles.cast_down(int(cx + wr), int(cy), p.layer, top_only)
    else:
        da, aa = tiles.cast(d, int(cx - rx * wr), int(cy - ry * wr), p.layer)
        db, ab = tiles.cast(d, int(cx + rx * wr), int(cy + ry * wr), p.layer)
    speed = abs(p.x_vel) if mode == 0 or mode == 2 else abs(p.y_vel)
    reach = speed + GROUND_SNAP_MARGIN
    # Above 10 px/frame a tight curve can sink the sensors deeper than the
    # original 14 px; the allowance grows with speed so they still recover.
    # A sensor deeper than that is in a wall and the other one decides.
    deepest = -(reach if reach > GROUND_SNAP_MAX else GROUND_SNAP_MAX)
    if da < deepest:
        da = NO_HIT if db >= deepest else da
    elif db < deepest:
        db = NO_HIT
    if db < da:
        da, db, aa, ab = db, da, ab, aa
    if not (aa & 63) and ab & 63 and db < NO_HIT:
        # The nearer sensor read a square tile, whose angle carries no
        # slope, while the other stands on a slope: on a curve built of
        # tiles that is the better angle (a square one there reads as a
        # wall one frame later).
        aa = ab
    if da > (reach if reach < GROUND_SNAP_MAX else GROUND_SNAP_MAX):
        _leave_ground(player, p)
        return
    if da < deepest:
        return
    p.x += dx * da
    p.y += dy * da
    p.angle = aa


def _leave_ground(player: Player, p: PhysicsState) -> None:
    # Rolling off an edge keeps the ball form (is_rolling stays set).
    p.on_ground = False
    p.jumping = False
    player.state = PlayerState.AIRBORNE


def _spindash_frame(player: Player, p: PhysicsState, inp: InputState,
                    tiles: TileMap) -> None:
    if not inp.down_held:
        speed = SPINDASH_BASE_SPEED + int(p.spinrev) / 2.0
        p.ground_speed = speed if p.facing_right else -speed
        p.spinrev = 0.0
        player.state = PlayerState.ROLLING
        return
    # Decay (rounded down to 1/256) comes before this frame's press, so a
    # release right after a press launches with the full charge.
    p.spinrev -= int(p.spinrev / 32.0 * 256.0) / 256.0
    if inp.jump_pressed:
        p.spinrev = min(p.spinrev + SPINDASH_REV_PER_PRESS, SPINDASH_MAX_REV)
    p.x_vel = p.y_vel = 0.0
    _ground_sensors(player, p, tiles)


def _air_frame(player: Player, p: PhysicsState, inp: InputState,
               tiles: TileMap) -> None:
    hurt = player.state == PlayerState.HURT
    x_vel, y_vel = p.x_vel, p.y_vel
    if not hurt:
        if p.jumping and not inp.jump_held and y_vel < JUMP_RELEASE_SPEED:
            y_vel = JUMP_RELEASE_SPEED
        x_vel = apply_air_input(x_vel, inp.left, inp.right)
        if inp.right and not inp.left:
            p.facing_right = True
        elif inp.left and not inp.right:
            p.facing_right = False
        x_vel = apply_air_drag(x_vel, y_vel)
    p.x += x_vel
    p.y += y_vel
    y_vel += HURT_GRAVITY if hurt else GRAVITY
    if y_vel > FALL_SPEED_CAP:
        y_vel = FALL_SPEED_CAP
    p.x_vel, p.y_vel = x_vel, y_vel
    # The body turns back upright while airborne.
    a = p.angle
    if a:
        if a < 128:
            p.angle = a - 2 if a > 2 else 0
        else:
            p.angle = a + 2 if a < 254 else 0
    _air_collision(player, p, tiles)


def _air_collision(player: Player, p: PhysicsState, tiles: TileMap) -> None:
    wr, hr = radii(p)
    x_vel, y_vel = p.x_vel, p.y_vel
    layer = p.layer
    ix = int(p.x)
    iy = int(p.y)
    vertical = abs(y_vel) > abs(x_vel)
    if x_vel >= 0.0 or vertical:
        dist, _ = tiles.cast_right(ix + WALL_SENSOR_REACH, iy, layer)
        if dist <= 0:
            p.x += dist - 1
            if p.x_vel > 0.0:
                p.x_vel = 0.0
    if x_vel <= 0.0 or vertical:
        dist, _ = tiles.cast_left(ix - WALL_SENSOR_REACH, iy, layer)
        if dist <= 0:
            p.x -= dist - 1
            if p.x_vel < 0.0:
                p.x_vel = 0.0
    ix = int(p.x)
    if y_vel < 0.0:
        top = int(p.y - hr)
        dc, _ = tiles.cast_up(ix - wr, top, layer)
        dd, _ = tiles.cast_up(ix + wr, top, layer)
        if dd < dc:
            dc = dd
        if dc <= 0:
            p.y -= dc - 1
            p.y_vel = 0.0
        return
    bottom = int(p.y + hr)
    da, aa = tiles.cast_down(ix - wr, bottom, layer, True)
    db, ab = tiles.cast_down(ix + wr, bottom, layer, True)
    # A sensor sunk deeper than this frame's fall is in a wall, not on a
    # floor: the other one decides.
    deepest = -(y_vel + 8.0)
    if da < deepest:
        da = NO_HIT
    if db < deepest:
        db = NO_HIT
    if db < da:
        da, aa = db, ab
    if da < 0:
        p.y += da
        _land(player, p, aa)


def _land(player: Player, p: PhysicsState, angle: int) -> None:
    hurt = player.state == PlayerState.HURT
    p.angle = angle
    p.on_ground = True
    if hurt:
        p.ground_speed = 0.0
        p.x_vel = 0.0
        player.invulnerable = INVULNERABLE_FRAMES
    else:
        p.ground_speed = landing_speed(p.x_vel, p.y_vel, angle)
    if p.is_rolling:
        # The ball opens on landing: the centre rises to standing height.
        p.is_rolling = False
        _shift_down(p, -RADIUS_SHIFT)
    p.jumping = False
    player.state = PlayerState.STANDING

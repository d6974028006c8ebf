"""Physics and game constants, in pixels and frames at 60 frames per second.

The values are those of Sonic the Hedgehog 2's engine (see PHYSICS.md).
"""
from __future__ import annotations

FPS = 60
TILE_SIZE = 16

# Ground
ACCELERATION = 0.046875
DECELERATION = 0.5
FRICTION = 0.046875
TOP_SPEED = 6.0
SLOPE_FACTOR_RUNNING = 0.125
SLOPE_FACTOR_ROLL_UP = 0.078125
SLOPE_FACTOR_ROLL_DOWN = 0.3125
MAX_SPEED = 16.0
# Velocities are normalised by this in observations.
MAX_X_SPEED = MAX_SPEED

# Rolling and spindash
ROLL_MIN_SPEED = 1.0
UNROLL_SPEED = 0.5
ROLL_FRICTION = 0.0234375
ROLL_DECELERATION = 0.125
SPINDASH_BASE_SPEED = 8.0
SPINDASH_REV_PER_PRESS = 2.0
SPINDASH_MAX_REV = 8.0

# Air
GRAVITY = 0.21875
HURT_GRAVITY = 0.1875
JUMP_FORCE = 6.5
JUMP_RELEASE_SPEED = -4.0
AIR_ACCELERATION = 0.09375
AIR_DRAG_THRESHOLD = -4.0
FALL_SPEED_CAP = 16.0

# Slipping: below this speed on a steep surface the player detaches.
SLIP_SPEED = 2.5
SLIP_LOCK_FRAMES = 30

# Hit box radii
STAND_WIDTH_RADIUS = 9
STAND_HEIGHT_RADIUS = 19
ROLL_WIDTH_RADIUS = 7
ROLL_HEIGHT_RADIUS = 14
WALL_SENSOR_REACH = 10
# On flat ground the wall sensors drop this far so low steps are caught.
WALL_SENSOR_FLAT_DROP = 8

# Ground sensing: snap to a surface this far below (capped) / above.
GROUND_SNAP_MARGIN = 4
GROUND_SNAP_MAX = 14

# Objects
SPRING_YELLOW_SPEED = 10.0
SPRING_RED_SPEED = 16.0
SIDE_SPRING_LOCK_FRAMES = 16
HURT_Y_SPEED = -4.0
HURT_X_SPEED = 2.0
INVULNERABLE_FRAMES = 120
RING_RADIUS = 8

# Default episode length (one minute of game time).
DEFAULT_MAX_STEPS = 3600
# The stage's side edges keep the player's centre this far inside.
EDGE_MARGIN = 16.0
# An episode ends after this many frames without a new best x (a stall).
DEFAULT_STALL_FRAMES = 300

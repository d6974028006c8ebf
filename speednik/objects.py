"""Rings, springs, spikes, checkpoints, enemies and layer switches: how the
player interacts with them each frame.

Objects are found through a spatial index of stage columns
(`stage.object_index`), so a frame only looks at the few objects near the
player. `ObjectTables` (`stage.object_tables`) lists them sorted by x for
the range queries of the observation and token encoders.
"""
from __future__ import annotations

from speednik.constants import (
    HURT_X_SPEED,
    HURT_Y_SPEED,
    RING_RADIUS,
    SIDE_SPRING_LOCK_FRAMES,
    SPRING_RED_SPEED,
    SPRING_YELLOW_SPEED,
)
from speednik.enemies import ENEMY_HALF_HEIGHT, ENEMY_HALF_WIDTH, enemy_position, enemy_reach
from speednik.entities import ENEMY_KINDS
from speednik.events import (
    ENEMY_CAUSES,
    CheckpointEvent,
    DamageEvent,
    DeathEvent,
    EnemyDestroyedEvent,
    RingCollectedEvent,
    SpringEvent,
)
from speednik.player import RADIUS_SHIFT, Player, PlayerState, radii

# Width of one index column in pixels (a power of two: found by a shift).
COLUMN_SHIFT = 7
# The index looks this far either side of an object for the player's box.
PLAYER_REACH = 24.0

RING, SPRING, SPIKES, CHECKPOINT, ENEMY, SWITCH = range(6)

SPRING_HALF_WIDTH = 14.0
SPRING_HALF_HEIGHT = 8.0


class ObjectIndex:
    """For each column of the stage, the objects a player in it may touch.

    Entries are (kind, index, x0, y0, x1, y1) with the box an object can
    occupy; the per-frame test refines it. Built once per stage, as
    `stage.object_index`.
    """

    __slots__ = ("columns",)

    def __init__(self, stage) -> None:
        boxes: list[tuple] = []
        for i, r in enumerate(stage.rings):
            boxes.append((RING, i, r.x - RING_RADIUS, r.y - RING_RADIUS,
                          r.x + RING_RADIUS, r.y + RING_RADIUS))
        for i, s in enumerate(stage.springs):
            boxes.append((SPRING, i, s.x - SPRING_HALF_WIDTH,
                          s.y - SPRING_HALF_HEIGHT, s.x + SPRING_HALF_WIDTH,
                          s.y + SPRING_HALF_HEIGHT))
        for i, s in enumerate(stage.spikes):
            boxes.append((SPIKES, i, s.x - s.width / 2, s.y - s.height,
                          s.x + s.width / 2, s.y))
        for i, c in enumerate(stage.checkpoints):
            boxes.append((CHECKPOINT, i, c.x - 8.0, c.y - 48.0, c.x + 8.0,
                          c.y + 48.0))
        for i, e in enumerate(stage.enemies):
            boxes.append((ENEMY, i, *enemy_reach(e)))
        for i, s in enumerate(stage.layer_switches):
            boxes.append((SWITCH, i, s.x, s.y_top, s.x, s.y_bottom))
        n = (stage.width >> COLUMN_SHIFT) + 2
        columns: list[list[tuple]] = [[] for _ in range(n)]
        for box in boxes:
            first = max(0, int(box[2] - PLAYER_REACH) >> COLUMN_SHIFT)
            last = min(n - 1, int(box[4] + PLAYER_REACH) >> COLUMN_SHIFT)
            for c in range(first, last + 1):
                columns[c].append(box)
        self.columns = [tuple(c) for c in columns]

    def near(self, x: float) -> tuple:
        c = int(x) >> COLUMN_SHIFT
        if c < 0:
            c = 0
        elif c >= len(self.columns):
            c = len(self.columns) - 1
        return self.columns[c]


class ObjectTables:
    """A stage's enemies, spikes, rings and checkpoints in the order range
    queries want them, built once per stage as `stage.object_tables`.

    - `enemies`: (index, enemy, kind number: 1 + its ENEMY_KINDS index) by
      x, with `enemy_x` to bisect; an enemy may be up to `enemy_span` from
      its x (walkers patrol), so a query widens its range by that much;
    - `spikes`: (x, y) of the middle of each spikes' box, by x, `spike_x`;
    - `rings`: (index, x, y) by x, `ring_x`;
    - `checkpoints`: (index, x, y) in stage order.
    """

    __slots__ = ("enemies", "enemy_x", "enemy_span", "spikes", "spike_x",
                 "rings", "ring_x", "checkpoints")

    def __init__(self, stage) -> None:
        enemies = stage.enemies
        order = sorted(range(len(enemies)), key=lambda i: enemies[i].x)
        self.enemies = [(i, enemies[i], 1 + ENEMY_KINDS.index(enemies[i].kind))
                        for i in order]
        self.enemy_x = [enemies[i].x for i in order]
        self.enemy_span = max((e.span for e in enemies if e.kind == "walker"), default=0.0)
        self.spikes = sorted((s.x, s.y - s.height / 2) for s in stage.spikes)
        self.spike_x = [x for x, _ in self.spikes]
        rings = stage.rings
        order = sorted(range(len(rings)), key=lambda i: rings[i].x)
        self.rings = [(i, rings[i].x, rings[i].y) for i in order]
        self.ring_x = [rings[i].x for i in order]
        self.checkpoints = [(i, c.x, c.y) for i, c in enumerate(stage.checkpoints)]


def hurt_player(sim, source_x: float, source: str, events: list) -> None:
    """Knock the player back and take its rings; with none, it dies of
    `source` (one of `speednik.events.CAUSES`)."""
    player: Player = sim.player
    if player.invulnerable > 0 or player.state == PlayerState.HURT:
        return
    if player.rings == 0:
        kill_player(sim, source, events)
        return
    p = player.physics
    events.append(DamageEvent(player.rings, source))
    player.rings = 0
    if p.is_rolling:
        p.is_rolling = False
        p.y -= RADIUS_SHIFT
    away = 1.0 if p.x >= source_x else -1.0
    p.x_vel = HURT_X_SPEED * away
    p.y_vel = HURT_Y_SPEED
    p.ground_speed = 0.0
    p.on_ground = False
    p.jumping = False
    p.angle = 0
    player.state = PlayerState.HURT


def kill_player(sim, cause: str, events: list) -> None:
    """The player dies of `cause` (one of `speednik.events.CAUSES`)."""
    sim.player.state = PlayerState.DEAD
    sim.player_dead = True
    sim.death_cause = cause
    sim.deaths += 1
    events.append(DeathEvent(cause))


def _object_index(stage) -> ObjectIndex:
    try:
        return stage.object_index
    except AttributeError:          # its first use on this stage
        return stage.derive("object_index", ObjectIndex)


def player_box(p) -> tuple[float, float, float, float]:
    """The box objects are touched with (left, top, right, bottom): the
    player's radii about its centre (physics p)."""
    wr, hr = radii(p)
    return p.x - wr, p.y - hr, p.x + wr, p.y + hr


def touches_spikes(stage, p) -> bool:
    """Whether the player's box (physics p) overlaps spikes, as `interact`
    tests it."""
    px0, py0, px1, py1 = player_box(p)
    for kind, _, x0, y0, x1, y1 in _object_index(stage).near(p.x):
        if kind == SPIKES and not (px1 < x0 or px0 > x1 or py1 < y0 or py0 > y1):
            return True
    return False


def interact(sim, prev_x: float, events: list) -> None:
    """Everything the player touches this frame, in index order."""
    player = sim.player
    p = player.physics
    px0, py0, px1, py1 = player_box(p)
    stage = sim.stage
    for kind, i, x0, y0, x1, y1 in _object_index(stage).near(p.x):
        if kind == SWITCH:
            if y0 <= p.y <= y1:
                if prev_x < x0 <= p.x:
                    p.layer = stage.layer_switches[i].layer_right
                elif p.x < x0 <= prev_x:
                    p.layer = stage.layer_switches[i].layer_left
            continue
        if kind == ENEMY:
            if sim.enemy_destroyed[i]:
                continue
            enemy = stage.enemies[i]
            ex, ey = enemy_position(enemy, sim.frame)
            if (px1 < ex - ENEMY_HALF_WIDTH or px0 > ex + ENEMY_HALF_WIDTH
                    or py1 < ey - ENEMY_HALF_HEIGHT
                    or py0 > ey + ENEMY_HALF_HEIGHT):
                continue
            if player.in_ball:
                sim.enemy_destroyed[i] = 1
                events.append(EnemyDestroyedEvent(enemy.kind, ex, ey))
                if not p.on_ground and p.y_vel > 0.0:
                    p.y_vel = -p.y_vel
            else:
                hurt_player(sim, ex, ENEMY_CAUSES[enemy.kind], events)
            continue
        if px1 < x0 or px0 > x1 or py1 < y0 or py0 > y1:
            continue
        if kind == RING:
            if not sim.ring_taken[i]:
                sim.ring_taken[i] = 1
                player.rings += 1
                sim.rings_collected += 1
                r = stage.rings[i]
                events.append(RingCollectedEvent(r.x, r.y))
        elif kind == SPRING:
            _spring(sim, stage.springs[i], events)
        elif kind == SPIKES:
            hurt_player(sim, (x0 + x1) / 2, "spikes", events)
        elif kind == CHECKPOINT:
            if not sim.checkpoint_hit[i]:
                sim.checkpoint_hit[i] = 1
                c = stage.checkpoints[i]
                events.append(CheckpointEvent(c.x, c.y))
        if player.state == PlayerState.DEAD:
            return


def _spring(sim, spring, events: list) -> None:
    player = sim.player
    p = player.physics
    speed = SPRING_RED_SPEED if spring.strength == "red" else SPRING_YELLOW_SPEED
    if spring.direction == "up":
        if p.y_vel < 0.0 and not p.on_ground:
            return
        wr, hr = radii(p)
        if p.is_rolling:
            p.is_rolling = False
            hr += RADIUS_SHIFT
        p.y = spring.y - SPRING_HALF_HEIGHT - hr
        p.y_vel = -speed
        p.on_ground = False
        p.jumping = False
        p.angle = 0
        player.state = PlayerState.AIRBORNE
    else:
        sign = 1.0 if spring.direction == "right" else -1.0
        if p.on_ground:
            p.ground_speed = sign * speed
            p.control_lock = SIDE_SPRING_LOCK_FRAMES
        p.x_vel = sign * speed
        p.facing_right = sign > 0
        wr, _ = radii(p)
        p.x = spring.x + sign * (SPRING_HALF_WIDTH + wr + 1)
    events.append(SpringEvent(spring.direction, spring.strength))


def object_index(stage) -> ObjectIndex:
    """The stage's own `ObjectIndex`, built on first use."""
    return stage.derive("object_index", ObjectIndex)


def object_tables(stage) -> ObjectTables:
    """The stage's own `ObjectTables`, built on first use."""
    try:
        return stage.object_tables
    except AttributeError:          # its first use on this stage
        return stage.derive("object_tables", ObjectTables)

"""The shortcuts the compiled engine takes where nothing can be met: the
open air around a tile (`open_air`), where the air collision casts
nothing, and columns without spikes, where `touches_spikes` looks no
further.

Each is checked against what it stands for, tile by tile, cast by cast
and object by object; the parity tests then prove whole episodes equal."""
from __future__ import annotations

import numpy as np
import pytest

from speednik.engine.lowering import (
    I_COLUMN_SPIKES,
    OPEN_AIR_COLUMNS,
    OPEN_AIR_ROWS,
    compiled_stage,
)
from speednik.engine.terrain import cast_down, cast_left, cast_right, cast_up, open_air
from speednik.objects import SPIKES, object_index
from speednik.stages import load_stage
from speednik.terrain import NO_HIT

STAGES = ("hillside", "pipeworks", "skybridge", "gen:expert:10000", "gen:hard:3")


def _tiles_around(stage, layer, x, y) -> int:
    """Non-empty tiles in the block around the tile of pixel (x, y),
    counted one by one on the readable grid."""
    grid = stage.tiles.cell_grids[layer]
    rows, cols = grid.shape
    tx, ty = x >> 4, y >> 4
    count = 0
    for row in range(ty - OPEN_AIR_ROWS, ty + OPEN_AIR_ROWS + 1):
        for col in range(tx - OPEN_AIR_COLUMNS, tx + OPEN_AIR_COLUMNS + 1):
            if 0 <= row < rows and 0 <= col < cols and grid[row, col] != 0:
                count += 1
    return count


@pytest.mark.parametrize("name", STAGES)
def test_open_air_is_a_block_of_empty_tiles(name):
    stage = load_stage(name)
    st = compiled_stage(stage)
    rng = np.random.default_rng(7)
    seen = {True: 0, False: 0}
    for _ in range(3000):
        layer = int(rng.integers(0, 2))
        x = int(rng.integers(-40, stage.width + 40))
        y = int(rng.integers(-40, stage.height + 40))
        inside = x >= 0 and y >= 0 and (x >> 4) < stage.tiles.width_tiles + 2 \
            and (y >> 4) < stage.tiles.height_tiles + 2
        want = inside and _tiles_around(stage, layer, x, y) == 0
        assert open_air(st, layer, x, y) == want, (layer, x, y)
        seen[want] += 1
    # Both answers were met, many times.
    assert min(seen.values()) > 300


@pytest.mark.parametrize("name", STAGES)
def test_every_cast_from_near_open_air_finds_nothing(name):
    """What `_air_collision` relies on to skip its casts: every pixel
    within 16 px of x and 32 px of y."""
    stage = load_stage(name)
    st = compiled_stage(stage)
    rng = np.random.default_rng(11)
    checked = 0
    while checked < 300:
        layer = int(rng.integers(0, 2))
        x = int(rng.integers(0, stage.width + 40))
        y = int(rng.integers(0, stage.height + 40))
        if not open_air(st, layer, x, y):
            continue
        checked += 1
        for px in range(x - 16, x + 17, 4):
            for py in range(y - 32, y + 33, 8):
                assert cast_down(st, px, py, layer, True)[0] == NO_HIT
                assert cast_down(st, px, py, layer, False)[0] == NO_HIT
                assert cast_up(st, px, py, layer)[0] == NO_HIT
                assert cast_left(st, px, py, layer)[0] == NO_HIT
                assert cast_right(st, px, py, layer)[0] == NO_HIT


@pytest.mark.parametrize("name", ["pipeworks", "gen:expert:10000", "gen:expert:10001"])
def test_column_spike_counts_are_the_index_columns(name):
    stage = load_stage(name)
    st = compiled_stage(stage)
    columns = object_index(stage).columns
    start = st.ints[I_COLUMN_SPIKES]
    counts = [int(st.ints[start + c]) for c in range(len(columns))]
    assert counts == [sum(entry[0] == SPIKES for entry in column) for column in columns]
    # Each spike strip is in at least one column, and most columns hold none.
    assert len(stage.spikes) > 0
    assert sum(counts) >= len(stage.spikes)
    assert counts.count(0) > len(counts) // 2

"""The shortcuts the compiled engine takes where nothing can be met: a
box of empty tiles (`no_tiles`), where the air collision casts nothing,
and columns without spikes, where `touches_spikes` looks no further.

Each is checked against what it stands for, cast by cast and object by
object; the parity tests then prove whole episodes equal."""
from __future__ import annotations

import numpy as np
import pytest

from speednik.engine.lowering import I_COLUMN_SPIKES, compiled_stage
from speednik.engine.terrain import cast_down, cast_left, cast_right, cast_up, no_tiles
from speednik.objects import SPIKES, object_index
from speednik.stages import load_stage
from speednik.terrain import NO_HIT

STAGES = ("hillside", "pipeworks", "skybridge", "gen:expert:10000", "gen:hard:3")


def _tiles_near(stage, layer, x0, y0, x1, y1) -> int:
    """Non-empty tiles holding or next to pixels x0..x1, y0..y1, counted
    one by one on the readable grid."""
    grid = stage.tiles.cell_grids[layer]
    rows, cols = grid.shape
    count = 0
    for ty in range((y0 >> 4) - 1, (y1 >> 4) + 2):
        for tx in range((x0 >> 4) - 1, (x1 >> 4) + 2):
            if 0 <= ty < rows and 0 <= tx < cols and grid[ty, tx] != 0:
                count += 1
    return count


@pytest.mark.parametrize("name", STAGES)
def test_no_tiles_counts_the_box_and_its_neighbours(name):
    stage = load_stage(name)
    st = compiled_stage(stage)
    rng = np.random.default_rng(7)
    empty = full = 0
    for _ in range(3000):
        layer = int(rng.integers(0, 2))
        x0 = int(rng.integers(-80, stage.width + 80))
        y0 = int(rng.integers(-80, stage.height + 80))
        x1 = x0 + int(rng.integers(0, 40))
        y1 = y0 + int(rng.integers(0, 60))
        want = _tiles_near(stage, layer, x0, y0, x1, y1) == 0
        assert no_tiles(st, layer, x0, y0, x1, y1) == want, (layer, x0, y0, x1, y1)
        empty += want
        full += not want
    # Both answers were met, many times.
    assert empty > 300 and full > 300


@pytest.mark.parametrize("name", STAGES)
def test_every_cast_from_a_box_of_no_tiles_finds_nothing(name):
    """What `_air_collision` relies on to skip its casts."""
    stage = load_stage(name)
    st = compiled_stage(stage)
    rng = np.random.default_rng(11)
    checked = 0
    while checked < 400:
        layer = int(rng.integers(0, 2))
        x0 = int(rng.integers(-40, stage.width + 40))
        y0 = int(rng.integers(-40, stage.height + 40))
        x1, y1 = x0 + 20, y0 + 38
        if not no_tiles(st, layer, x0, y0, x1, y1):
            continue
        checked += 1
        for x in range(x0, x1 + 1, 3):
            for y in range(y0, y1 + 1, 5):
                assert cast_down(st, x, y, layer, True)[0] == NO_HIT
                assert cast_down(st, x, y, layer, False)[0] == NO_HIT
                assert cast_up(st, x, y, layer)[0] == NO_HIT
                assert cast_left(st, x, y, layer)[0] == NO_HIT
                assert cast_right(st, x, y, layer)[0] == NO_HIT


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

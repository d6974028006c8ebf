"""A MAP-Elites run's archive as a Bokeh figure the page can click: one
square per filled cell of the behaviour grid (mean speed across, rings
up), coloured by its elite's fitness exactly as `python -m plots archive`
colours it (matplotlib's viridis from the lowest elite's fitness to the
highest, computed here rather than by Bokeh's own palette, whose colours
differ in the last digit), empty cells left blank, the best elite ringed.

A click on a filled cell names its elite as "I,J", the form
`runners.replay --cell` takes; a click on an empty cell, or outside the
grid, names none.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
from bokeh.events import Tap
from bokeh.models import ColorBar, ColumnDataSource, HoverTool, LinearColorMapper, Range1d
from bokeh.plotting import figure
from matplotlib import colormaps
from matplotlib.colors import Normalize, to_hex

from runners.archive_file import format_cell, load_archive

COLOURMAP = "viridis"
PALETTE = [to_hex(colormaps[COLOURMAP](i)) for i in range(256)]
COLUMNS = ("x", "y", "width", "height", "fitness", "colour", "cell", "speed", "rings")


@dataclass(frozen=True)
class ArchiveCells:
    """What the figure draws of one archive, and where its cells are."""

    title: str
    dims: tuple[int, int]
    lower: tuple[float, float]
    upper: tuple[float, float]
    # The filled cells, one entry per elite, by column of `COLUMNS`.
    data: dict[str, list] = field(default_factory=dict)
    best: str | None = None
    low: float = 0.0
    high: float = 1.0

    def cell_at(self, x: float, y: float) -> str | None:
        """The filled cell "I,J" at point (x, y) of the grid, or None."""
        if not (math.isfinite(x) and math.isfinite(y)):
            return None
        (x0, y0), (x1, y1) = self.lower, self.upper
        i = math.floor((x - x0) / (x1 - x0) * self.dims[0])
        j = math.floor((y - y0) / (y1 - y0) * self.dims[1])
        if not (0 <= i < self.dims[0] and 0 <= j < self.dims[1]):
            return None
        cell = format_cell((i, j))
        return cell if cell in self.data["cell"] else None


def archive_cells(run_dir: Path) -> ArchiveCells:
    """The cells of RUN_DIR/archive.npz; `ArchiveFileError` when it
    cannot be read."""
    archive = load_archive(run_dir)
    (x0, y0), (x1, y1) = archive.lower, archive.upper
    w, h = (x1 - x0) / archive.dims[0], (y1 - y0) / archive.dims[1]
    objective = archive.objective
    # As matplotlib's imshow scales a grid of fitness (empty cells NaN).
    low = float(np.min(objective)) if len(objective) else 0.0
    high = float(np.max(objective)) if len(objective) else 1.0
    norm, cmap = Normalize(vmin=low, vmax=high), colormaps[COLOURMAP]
    cells = [format_cell(c) for c in archive.cell]
    data = {
        "x": [float(x0 + (i + 0.5) * w) for i, _ in archive.cell],
        "y": [float(y0 + (j + 0.5) * h) for _, j in archive.cell],
        "width": [float(w)] * len(cells),
        "height": [float(h)] * len(cells),
        "fitness": [float(f) for f in objective],
        "colour": [to_hex(cmap(norm(f))) for f in objective],
        "cell": cells,
        "speed": [float(m[0]) for m in archive.measures],
        "rings": [float(m[1]) for m in archive.measures],
    }
    filled, total = len(cells), archive.dims[0] * archive.dims[1]
    return ArchiveCells(
        title=(f"{Path(run_dir).name}: {filled} of {total} cells filled "
               f"({100 * filled / total:.1f}%); click a cell to replay its elite"),
        dims=archive.dims, lower=(float(x0), float(y0)), upper=(float(x1), float(y1)),
        data=data, best=cells[int(np.argmax(objective))] if filled else None,
        low=low, high=high if high > low else low + 1.0)


class ArchiveMap:
    """The figure, and the callback a click on a filled cell calls with
    the cell's "I,J"."""

    def __init__(self, on_cell: Callable[[str], None]) -> None:
        self.on_cell = on_cell
        self.cells: ArchiveCells | None = None
        self.source = ColumnDataSource({c: [] for c in COLUMNS})
        self.best = ColumnDataSource({"x": [], "y": [], "label": []})
        self.mapper = LinearColorMapper(palette=PALETTE, low=0.0, high=1.0)
        self.figure = figure(
            height=420, width=620, name="archive", tools="", toolbar_location=None,
            x_range=Range1d(0.0, 1.0), y_range=Range1d(0.0, 1.0),
            x_axis_label="mean speed (px per frame to the right)",
            y_axis_label="mean rings at the end", visible=False)
        cells = self.figure.rect(x="x", y="y", width="width", height="height",
                                 source=self.source, fill_color="colour",
                                 line_color="colour")
        self.figure.scatter(x="x", y="y", source=self.best, size=18, fill_alpha=0.0,
                            line_color="red", line_width=2, legend_field="label")
        self.figure.legend.location = "top_left"
        self.figure.add_tools(HoverTool(renderers=[cells], tooltips=[
            ("cell", "@cell"), ("fitness", "@fitness{0.000}"), ("speed", "@speed{0.00}"),
            ("rings", "@rings{0.0}")]))
        self.figure.add_layout(ColorBar(color_mapper=self.mapper, width=12,
                                        title="fitness of the cell's elite"), "right")
        self.figure.on_event(Tap, self.on_tap)

    def show(self, cells: ArchiveCells | None) -> None:
        """Draw `cells`; None hides the figure (a run without an archive)."""
        self.cells = cells
        self.figure.visible = cells is not None
        if cells is None:
            return
        self.source.data = cells.data
        at = cells.data["cell"].index(cells.best) if cells.best else None
        self.best.data = ({"x": [cells.data["x"][at]], "y": [cells.data["y"][at]],
                           "label": [f"best elite, cell {cells.best}"]} if at is not None
                          else {"x": [], "y": [], "label": []})
        self.mapper.update(low=cells.low, high=cells.high)
        self.figure.x_range.update(start=cells.lower[0], end=cells.upper[0])
        self.figure.y_range.update(start=cells.lower[1], end=cells.upper[1])
        self.figure.title.text = cells.title

    def on_tap(self, event: Tap) -> None:
        if self.cells is None or event.x is None or event.y is None:
            return
        cell = self.cells.cell_at(event.x, event.y)
        if cell is not None:
            self.on_cell(cell)

"""A quality-diversity run's archive as a heatmap: one square per cell of
the behaviour grid (mean speed across, rings up), coloured by the fitness
of its elite, empty cells left blank, the best elite ringed."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from plots import PlotError, new_figure, save_figure
from runners.archive_file import ARCHIVE_NAME, ArchiveFileError, load_archive

ARCHIVE_PICTURE = "archive.png"


def draw_archive(fig: Figure, run_dir: str | os.PathLike) -> Figure:
    try:
        archive = load_archive(run_dir)
    except ArchiveFileError as e:
        raise PlotError(str(e)) from None
    grid = np.full(archive.dims, np.nan)
    for (i, j), value in zip(archive.cell, archive.objective):
        grid[i, j] = value
    ax = fig.add_subplot(1, 1, 1)
    (x0, y0), (x1, y1) = archive.lower, archive.upper
    image = ax.imshow(grid.T, origin="lower", extent=(x0, x1, y0, y1), aspect="auto",
                      cmap="viridis", interpolation="nearest")
    fig.colorbar(image, ax=ax, label="fitness of the cell's elite")
    if len(archive.objective):
        i, j = archive.cell[int(np.argmax(archive.objective))]
        w = (x1 - x0) / archive.dims[0]
        h = (y1 - y0) / archive.dims[1]
        ax.plot(x0 + (i + 0.5) * w, y0 + (j + 0.5) * h, marker="o", markersize=14, linestyle="none",
                markerfacecolor="none", markeredgecolor="red", markeredgewidth=2,
                label=f"best elite, cell {i},{j}")
        ax.legend(loc="upper left")
    filled = len(archive.objective)
    cells = archive.dims[0] * archive.dims[1]
    ax.set_title(f"{Path(run_dir).name}: {filled} of {cells} cells filled "
                 f"({100 * filled / cells:.1f}%)")
    ax.set_xlabel("mean speed (px per frame to the right)")
    ax.set_ylabel("mean rings at the end")
    return fig


def plot_archive(run_dir: str | os.PathLike, out: str | os.PathLike | None = None) -> Path:
    """Draw RUN_DIR/archive.npz to `out` (default RUN_DIR/archive.png)."""
    run_dir = Path(run_dir)
    if run_dir.is_file() and run_dir.name == ARCHIVE_NAME:
        run_dir = run_dir.parent
    fig = draw_archive(new_figure(8, 6), run_dir)
    return save_figure(fig, out or run_dir / ARCHIVE_PICTURE)

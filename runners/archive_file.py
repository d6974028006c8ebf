"""`archive.npz`: a quality-diversity run's archive of elites, as data.

A run whose search keeps an archive (MAP-Elites) writes it beside
best.json at every checkpoint: for each filled cell, its grid index, the
elite genome, its fitness and its behaviour descriptors, and the grid's
shape and bounds. numpy arrays only, read with `allow_pickle=False`.

    archive = load_archive("runs/qd")        # a run directory or the file
    genome = archive.elite((3, 7))           # the elite of cell (3, 7)
"""
from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from runners.atomic import atomic_write_bytes

ARCHIVE_NAME = "archive.npz"
FIELDS = ("solution", "objective", "measures", "cell", "dims", "lower", "upper")
ARCHIVE_ACCEPTED = (f"accepted: a run directory of a search with an archive "
                    f"(--algorithm map-elites), or its {ARCHIVE_NAME}")


class ArchiveFileError(ValueError):
    """An archive that cannot be read; one line naming what and where."""


@dataclass(frozen=True)
class Archive:
    path: Path
    solution: np.ndarray     # (elites, genome size)
    objective: np.ndarray    # (elites,)
    measures: np.ndarray     # (elites, 2)
    cell: np.ndarray         # (elites, 2) grid index of each elite
    dims: tuple[int, int]
    lower: np.ndarray
    upper: np.ndarray

    def elite(self, cell: tuple[int, int]) -> np.ndarray:
        """The genome of the elite in `cell`; ArchiveFileError when the
        cell is outside the grid or empty."""
        return self.solution[self._index(cell)].copy()

    def elite_fitness(self, cell: tuple[int, int]) -> float:
        """The fitness (objective) the elite in `cell` was kept with."""
        return float(self.objective[self._index(cell)])

    def _index(self, cell: tuple[int, int]) -> int:
        i, j = cell
        if not (0 <= i < self.dims[0] and 0 <= j < self.dims[1]):
            raise ArchiveFileError(
                f"{self.path}: cell {i},{j} is outside the {self.dims[0]}x{self.dims[1]} "
                f"grid; accepted: I from 0 to {self.dims[0] - 1}, J from 0 to "
                f"{self.dims[1] - 1}")
        hits = np.nonzero((self.cell[:, 0] == i) & (self.cell[:, 1] == j))[0]
        if not len(hits):
            best = self.cell[int(np.argmax(self.objective))] if len(self.objective) else None
            hint = f" (the best elite is in cell {best[0]},{best[1]})" if best is not None else ""
            raise ArchiveFileError(f"{self.path}: cell {i},{j} holds no elite; "
                                   f"{len(self.cell)} of {self.dims[0] * self.dims[1]} "
                                   f"cells are filled{hint}")
        return int(hits[0])


def write_archive_file(path: str | Path, arrays: dict[str, np.ndarray]) -> None:
    buf = io.BytesIO()
    np.savez(buf, **{name: np.asarray(arrays[name]) for name in FIELDS})
    atomic_write_bytes(Path(path), buf.getvalue())


def load_archive(path: str | Path) -> Archive:
    path = Path(path)
    if path.is_dir():
        path = path / ARCHIVE_NAME
    try:
        with np.load(path, allow_pickle=False) as npz:
            data = {name: npz[name] for name in FIELDS}
    except FileNotFoundError:
        raise ArchiveFileError(f"{path}: no such file; {ARCHIVE_ACCEPTED}") from None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise ArchiveFileError(f"{path}: unreadable archive ({exc}); "
                               f"{ARCHIVE_ACCEPTED}") from None
    n = len(data["objective"])
    shapes_ok = (data["solution"].ndim == 2 and len(data["solution"]) == n
                 and data["measures"].shape == (n, 2) and data["cell"].shape == (n, 2)
                 and data["dims"].shape == (2,))
    if not shapes_ok:
        raise ArchiveFileError(f"{path}: damaged archive (its arrays disagree in shape); "
                               f"{ARCHIVE_ACCEPTED}")
    return Archive(path, data["solution"].astype(np.float64),
                   data["objective"].astype(np.float64), data["measures"].astype(np.float64),
                   data["cell"].astype(np.int64), (int(data["dims"][0]), int(data["dims"][1])),
                   data["lower"].astype(np.float64), data["upper"].astype(np.float64))


def format_cell(cell) -> str:
    """(I, J) -> "I,J", the form `parse_cell` (and `--cell`) reads."""
    i, j = cell
    return f"{int(i)},{int(j)}"


def parse_cell(text: str) -> tuple[int, int]:
    """"I,J" -> (I, J); ValueError naming the accepted form."""
    parts = text.split(",")
    try:
        i, j = (int(p) for p in parts)
    except ValueError:
        raise ValueError(f"cell {text!r} is not two whole numbers; accepted: I,J "
                         f"(for example 3,7)") from None
    return i, j

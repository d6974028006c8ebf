"""What a search method has of its own, per generation, as live Bokeh
figures of the page: the panels its registry entry declares
(`evolution.strategies.registry.Panel`), each a logbook column of its own
(MAP-Elites' QD-score and coverage, NEAT's number of species) or a number
of the run's `method.jsonl` (`evolution.loop.method_file`: CMA-ES's step
size on a log scale, OpenAI-ES's learning statistics, ...); and species
sizes, where method.jsonl has them, as a stacked area (each band one
species, the oldest at the bottom, the whole height the population).

Figures whose data change in place, rather than pictures drawn again:
a running run's page then costs a refresh the reading of two small files,
not a matplotlib drawing every second.
"""
from __future__ import annotations

import html
import math
from typing import Any, Sequence

import numpy as np
from bokeh.layouts import column, row
from bokeh.models import ColumnDataSource, Div, HoverTool
from bokeh.palettes import Category20
from bokeh.plotting import figure

from evolution.strategies.registry import STRATEGIES

Records = Sequence[dict[str, Any]]


def _panels(logbook: bool) -> dict[str, tuple[tuple[str, str, bool], ...]]:
    """(column, label, log scale) of each method's panels from the logbook
    or from method.jsonl, as its registry entry declares them."""
    out = {}
    for name, entry in STRATEGIES.items():
        panels = tuple((p.name, p.label, p.log) for p in entry.panels if p.logbook == logbook)
        if panels:
            out[name] = panels
    return out


SPECIES = "species_sizes"
PANELS_PER_ROW = 2
COLOURS = Category20[20]


def series(records: Records, name: str) -> tuple[list[float], list[float]]:
    """Generations and one number per generation (NaN where a line has
    none, or null for a number that was not finite)."""
    values = [r.get(name) for r in records]
    return ([float(r["gen"]) for r in records],
            [math.nan if v is None else float(v) for v in values])


def species_table(records: Records) -> tuple[list[float], list[str], np.ndarray]:
    """Generations, every species key that ever lived (by age), and a
    (species, generations) matrix of their sizes, 0 where a species was
    not alive."""
    rows = [r for r in records if isinstance(r.get(SPECIES), dict)]
    keys = sorted({k for r in rows for k in r[SPECIES]}, key=_key_order)
    sizes = np.zeros((len(keys), len(rows)))
    where = {k: i for i, k in enumerate(keys)}
    for j, r in enumerate(rows):
        for k, n in r[SPECIES].items():
            sizes[where[k], j] = 0.0 if n is None else float(n)
    return [float(r["gen"]) for r in rows], keys, sizes


def species_bands(records: Records) -> dict[str, list]:
    """The stacked area as one polygon a species: its top edge left to
    right, then the top of the species below it right to left."""
    gens, keys, sizes = species_table(records)
    tops = np.cumsum(sizes, axis=0)
    out: dict[str, list] = {"xs": [], "ys": [], "species": [], "colour": []}
    for i, key in enumerate(keys):
        below = tops[i - 1] if i else np.zeros(len(gens))
        out["xs"].append(gens + gens[::-1])
        out["ys"].append(tops[i].tolist() + below[::-1].tolist())
        out["species"].append(f"species {key}")
        out["colour"].append(COLOURS[i % len(COLOURS)])
    return out


def _key_order(key: str) -> tuple[int, float, str]:
    try:
        return (0, float(key), key)
    except ValueError:
        return (1, 0.0, key)


def _panel(algorithm: str, name: str, label: str, log: bool, source: ColumnDataSource):
    # Named for the method too: two methods may log a number of one name.
    fig = figure(height=230, width=560, title=label, x_axis_label="generation",
                 y_axis_type="log" if log else "linear", name=f"history-{algorithm}-{name}",
                 tools="pan,wheel_zoom,box_zoom,reset")
    fig.line(x="gen", y=name, source=source, line_width=2)
    dots = fig.scatter(x="gen", y=name, source=source, size=4)
    fig.add_tools(HoverTool(renderers=[dots], tooltips=[("generation", "@gen"),
                                                          (label, f"@{{{name}}}")]))
    return fig


def _rows(figures: list) -> list:
    return [row(*figures[i:i + PANELS_PER_ROW])
            for i in range(0, len(figures), PANELS_PER_ROW)]


class MethodHistory:
    """The figures of the chosen run's method; a method's are made the
    first time one of its runs is chosen (a figure takes a while to make,
    and a page shows few of the methods)."""

    def __init__(self) -> None:
        # As the registry has them now (a method registered since shows too).
        self.logbook_panels, self.method_panels = _panels(logbook=True), _panels(logbook=False)
        log_columns = [n for panels in self.logbook_panels.values() for n, _, _ in panels]
        method_columns = [n for panels in self.method_panels.values() for n, _, _ in panels]
        self.logbook_source = ColumnDataSource({c: [] for c in ("gen", *log_columns)})
        self.method_source = ColumnDataSource({c: [] for c in ("gen", *method_columns)})
        self.species_source = ColumnDataSource({"xs": [], "ys": [], "species": [],
                                                "colour": []})
        self.note = Div(text="", width=1250)
        self.panels: dict[str, list] = {}
        self.blocks: dict[str, Any] = {}
        # Species sizes (method.jsonl's `species_sizes`), shown whenever
        # the run's records have them.
        self.species = figure(height=340, width=1000, name="history-species-sizes",
                              title="species sizes per generation",
                              x_axis_label="generation", y_axis_label="members",
                              tools="pan,wheel_zoom,box_zoom,reset", visible=False)
        bands = self.species.patches(xs="xs", ys="ys", source=self.species_source,
                                     fill_color="colour", line_color="white",
                                     fill_alpha=0.85, legend_field="species")
        self.species.add_tools(HoverTool(renderers=[bands], tooltips=[("", "@species")]))
        self.species.add_layout(self.species.legend[0], "right")
        self.layout = column(self.note, self.species)
        self.show("", {}, [], "")

    def block(self, algorithm: str) -> None:
        """The figures of `algorithm`'s panels, made once."""
        if algorithm in self.blocks:
            return
        figures = [_panel(algorithm, *p, self.logbook_source)
                   for p in self.logbook_panels.get(algorithm, ())]
        figures += [_panel(algorithm, *p, self.method_source)
                    for p in self.method_panels.get(algorithm, ())]
        if not figures:
            return
        self.panels[algorithm] = figures
        self.blocks[algorithm] = column(*_rows(figures))
        self.layout.children = [self.note, *self.blocks.values(), self.species]

    def show(self, algorithm: str, logbook: dict[str, list[float]], records: Records,
             problem: str) -> None:
        """The run's numbers: `logbook` its logbook's columns, `records`
        its method.jsonl lines, `problem` why these could not be read."""
        self.block(algorithm)
        for name, block in self.blocks.items():
            block.visible = name == algorithm
        self.note.text = f"<p><i>{html.escape(problem)}</i></p>" if problem else ""
        gens = logbook.get("gen", [])
        log_data = {c: list(logbook.get(c) or [math.nan] * len(gens))
                    for c in self.logbook_source.data if c != "gen"}
        _update(self.logbook_source, {"gen": list(gens), **log_data})
        method_data = {"gen": [float(r["gen"]) for r in records]}
        for c in self.method_source.data:
            if c != "gen":
                method_data[c] = series(records, c)[1]
        _update(self.method_source, method_data)
        _update(self.species_source, species_bands(records))
        self.species.visible = bool(self.species_source.data["xs"])


def _update(source: ColumnDataSource, data: dict[str, list]) -> None:
    """Sent to the browser only when it changed."""
    if data != dict(source.data):
        source.data = data


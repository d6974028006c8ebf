"""Every view of the dashboard has its own address, so a reload or a link
pasted elsewhere opens the same view:

    /?run=NAME                  the run chosen in the table
    /?overlay=A,B               the runs overlaid (or overlay=A&overlay=B)
    /?study=NAME                an evolution.tune study
    /?comparison=NAME           an evolution.compare output directory
    /?x=frames                  curves against frames played (else generations)
    /?x=seconds                 curves against wall time (the logbook's seconds)
    /?columns=seed,es_lr        settings shown as columns of the runs table

NAME is a directory's path under RUNS_DIR as the page shows it. The page
reads the address once, when it opens (Bokeh's `session_context.request`),
and from then on writes it in the browser's address bar
(`history.replaceState`) whenever the choice changes. A name that is not
(or not yet) under RUNS_DIR is kept and shown when it appears; anything
else the address holds is left alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence
from urllib.parse import quote

# The curves' x axes as the address names them ("gen" is the page as it opens).
X_AXES = ("gen", "frames", "seconds")

# Replaces the query of the page's address without adding to its history.
REPLACE_JS = ("const q = cb_obj.value;\n"
              "window.history.replaceState(window.history.state, '',"
              " window.location.pathname + q + window.location.hash);")


@dataclass(frozen=True)
class View:
    run: str | None = None
    overlay: tuple[str, ...] = ()
    study: str | None = None
    comparison: str | None = None
    x: str = "gen"
    columns: tuple[str, ...] = ()

    @property
    def frames(self) -> bool:
        return self.x == "frames"


def _texts(values: Iterable[bytes | str]) -> list[str]:
    return [v.decode("utf-8", errors="replace") if isinstance(v, bytes) else str(v)
            for v in values]


def _last(arguments: Mapping[str, Sequence[bytes | str]], key: str) -> str | None:
    values = [v for v in _texts(arguments.get(key) or []) if v.strip()]
    return values[-1].strip() if values else None


def split_names(values: Sequence[str], known: Iterable[str] = ()) -> tuple[str, ...]:
    """The run names of `overlay` values: each value a name when it is one
    of `known` (a name may hold a comma), else its comma-separated parts;
    each name once, in order."""
    names = set(known)
    out: list[str] = []
    for value in values:
        parts = [value] if value in names else value.split(",")
        for part in (p.strip() for p in parts):
            if part and part not in out:
                out.append(part)
    return tuple(out)


def read_view(arguments: Mapping[str, Sequence[bytes | str]] | None,
              known: Iterable[str] = ()) -> View:
    """The view an address asks for (tornado's `request.arguments`: each
    name to its values, as bytes)."""
    if not arguments:
        return View()
    return View(run=_last(arguments, "run"),
                overlay=split_names(_texts(arguments.get("overlay") or []), known),
                study=_last(arguments, "study"),
                comparison=_last(arguments, "comparison"),
                x=x if (x := _last(arguments, "x")) in X_AXES else "gen",
                columns=split_names(_texts(arguments.get("columns") or [])))


def _q(text: str) -> str:
    return quote(text, safe="/")


def query(view: View) -> str:
    """The address's query of `view` ("" for the page as it opens)."""
    parts = []
    if view.run:
        parts.append(f"run={_q(view.run)}")
    if view.overlay:
        if any("," in n for n in view.overlay):
            parts += [f"overlay={_q(n)}" for n in view.overlay]
        else:
            parts.append("overlay=" + ",".join(_q(n) for n in view.overlay))
    if view.study:
        parts.append(f"study={_q(view.study)}")
    if view.comparison:
        parts.append(f"comparison={_q(view.comparison)}")
    if view.x != "gen":
        parts.append(f"x={view.x}")
    if view.columns:
        parts.append("columns=" + ",".join(_q(n) for n in view.columns))
    return "?" + "&".join(parts) if parts else ""

"""An `evolution.tune` output directory (OUT/study.db, Optuna's SQLite
study; OUT/best.json; OUT/trials/NNNN, one run directory a trial) as the
dashboard shows it, the views Optuna Dashboard has: the trials (number,
state, score, settings, a link to the trial's run) as a table, the best
score so far against trials, the settings against the score as parallel
coordinates, and each setting's importance as Optuna computes it
(`optuna.importance.get_param_importances`, from 2 complete trials on).

The study file is opened read-only (SQLite's `mode=ro`, and Optuna told to
create no table and check no version), so the page never writes it, nor
makes a journal beside it: a tuning that is running goes on undisturbed.
"""
from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bokeh.layouts import column, row
from bokeh.models import (
    ColumnDataSource,
    Div,
    FactorRange,
    FixedTicker,
    HoverTool,
    LinearColorMapper,
)
from bokeh.palettes import Viridis256
from bokeh.plotting import figure

from plots.dashboard.runs import STUDY_FILE

TRIALS_DIR = "trials"
STUDY_NAME = "tune"
# How long a read waits for a tuning's write to the file (s): the page
# reads on its own thread and must not stall; a busy file is read at the
# next refresh.
BUSY_SECONDS = 1.0
MIN_FOR_IMPORTANCE = 2


class StudyReadError(ValueError):
    """A study file that cannot be read; the message says why."""


class StudyBusyError(StudyReadError):
    """A study file another program holds locked for longer than
    `BUSY_SECONDS` (a tuning writing it): read again later."""


@dataclass
class Trial:
    number: int
    state: str
    value: float
    params: dict[str, Any]
    run: str | None          # the trial's run as the runs table names it


@dataclass
class StudyData:
    """What the page shows of one study."""

    name: str
    direction: str = "maximize"
    params: list[str] = field(default_factory=list)
    # Per setting: (low, high, log) of a number, or the choices of a category.
    spaces: dict[str, Any] = field(default_factory=dict)
    trials: list[Trial] = field(default_factory=list)
    identity: dict[str, Any] = field(default_factory=dict)
    importance: dict[str, float] | None = None
    importance_note: str = ""

    @property
    def complete(self) -> list[Trial]:
        return [t for t in self.trials if t.state == "COMPLETE" and math.isfinite(t.value)]

    def best(self) -> Trial | None:
        done = self.complete
        if not done:
            return None
        pick = max if self.direction == "maximize" else min
        return pick(done, key=lambda t: t.value)


def storage_url(path: Path) -> str:
    """SQLAlchemy's address of `path`, opened read-only."""
    return f"sqlite:///file:{quote(str(path.absolute()))}?mode=ro&uri=true"


def read_study(path: Path, root: Path) -> StudyData:
    """The study in `path` (an evolution.tune OUT under RUNS_DIR `root`),
    read without writing; StudyReadError when it cannot be."""
    import optuna
    from sqlalchemy.exc import SQLAlchemyError

    from evolution.tune_storage import SQLITE_HEADER, database_error

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    name = str(path.relative_to(root)) if path != root else path.name
    try:
        with (path / STUDY_FILE).open("rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise StudyReadError(f"{name}/{STUDY_FILE} cannot be read "
                             f"({exc.strerror or exc})") from None
    if head != SQLITE_HEADER:
        raise StudyReadError(f"{name}/{STUDY_FILE} cannot be read: it is not an SQLite "
                             f"database; accepted: the study.db evolution.tune writes")
    storage = None
    try:
        storage = optuna.storages.RDBStorage(
            storage_url(path / STUDY_FILE),
            engine_kwargs={"connect_args": {"timeout": BUSY_SECONDS}},
            skip_compatibility_check=True, skip_table_creation=True)
        names = [s.study_name for s in storage.get_all_studies()]
        if not names:
            raise StudyReadError(f"{name}/{STUDY_FILE} holds no study yet")
        study = optuna.load_study(study_name=STUDY_NAME if STUDY_NAME in names else names[0],
                                  storage=storage)
        frozen = study.get_trials(deepcopy=False)
        direction = study.direction.name.lower()
        identity = study.user_attrs.get("identity")
    except StudyReadError:
        raise
    except (SQLAlchemyError, optuna.exceptions.OptunaError, ValueError, KeyError,
            RuntimeError) as exc:
        cause = database_error(exc) or exc
        if "locked" in str(cause):
            raise StudyBusyError(f"{name}/{STUDY_FILE} is being written; read again "
                                 f"at the next refresh") from None
        text = str(getattr(cause, "orig", None) or cause).strip()
        raise StudyReadError(f"{name}/{STUDY_FILE} cannot be read: "
                             f"{text.splitlines()[0] if text else type(cause).__name__}"
                             ) from None
    finally:
        if storage is not None:
            storage.engine.dispose()
    data = StudyData(name=name, direction=direction,
                     identity=identity if isinstance(identity, dict) else {})
    for t in frozen:
        for p, dist in t.distributions.items():
            if p not in data.spaces:
                data.params.append(p)
                data.spaces[p] = _space(dist)
        run_dir = path / TRIALS_DIR / f"{t.number:04d}"
        data.trials.append(Trial(
            number=t.number, state=t.state.name,
            value=float(t.value) if t.value is not None else math.nan,
            params=dict(t.params),
            run=str(run_dir.relative_to(root)) if run_dir.is_dir() else None))
    data.importance, data.importance_note = importance_of(frozen, direction)
    return data


def _space(dist) -> Any:
    from optuna.distributions import CategoricalDistribution

    if isinstance(dist, CategoricalDistribution):
        return list(dist.choices)
    return (float(dist.low), float(dist.high), bool(getattr(dist, "log", False)))


def importance_of(frozen, direction: str) -> tuple[dict[str, float] | None, str]:
    """Optuna's importance of each setting (fANOVA, its default) over the
    complete trials, or None and why not."""
    import optuna
    from optuna.trial import TrialState

    done = [t for t in frozen if t.state == TrialState.COMPLETE]
    if len(done) < MIN_FOR_IMPORTANCE:
        return None, (f"importance needs at least {MIN_FOR_IMPORTANCE} complete trials; "
                      f"{len(done)} so far")
    # A study in memory holding copies of them: Optuna reads only these.
    copy = optuna.create_study(direction=direction)
    copy.add_trials(done)
    try:
        found = optuna.importance.get_param_importances(copy, evaluator=None)
    except (ValueError, RuntimeError) as exc:
        return None, f"importance could not be computed: {exc}"
    if not found:
        return None, "importance: no setting varies among the complete trials"
    return {k: float(v) for k, v in found.items()}, ""


# -- what the page draws ---------------------------------------------------------------

def _num(v: Any) -> str:
    if isinstance(v, float):
        return "-" if math.isnan(v) else f"{v:.4g}"
    return str(v)


def trials_html(data: StudyData) -> str:
    """The trials as an HTML table (every name and value read from the
    file escaped), each linking to its run."""
    best = data.best()
    head = ["trial", "state", "score", *data.params, "run"]
    out = ["<table class='study-trials' style='border-collapse:collapse'><thead><tr>"]
    out += [f"<th style='padding:2px 8px;border-bottom:1px solid #999;text-align:left'>"
            f"{html.escape(h)}</th>" for h in head]
    out.append("</tr></thead><tbody>")
    for t in data.trials:
        mark = " style='font-weight:bold'" if best is not None and t is best else ""
        cells = [str(t.number), t.state.lower(), _num(t.value),
                 *(_num(t.params.get(p, "")) for p in data.params)]
        tds = "".join(f"<td style='padding:2px 8px;border-bottom:1px solid #ddd'>"
                      f"{html.escape(c)}</td>" for c in cells)
        link = (f"<a href='?run={html.escape(quote(t.run, safe=''))}'>"
                f"{html.escape(t.run)}</a>" if t.run else "-")
        out.append(f"<tr class='study-trial'{mark}>{tds}"
                   f"<td style='padding:2px 8px;border-bottom:1px solid #ddd'>{link}</td></tr>")
    out.append("</tbody></table>")
    return "".join(out)


def summary_html(data: StudyData) -> str:
    ident = data.identity
    best = data.best()
    words = [f"{len(data.trials)} trials ({len(data.complete)} complete)",
             f"direction {data.direction}"]
    if ident.get("method"):
        words.insert(0, f"method {ident['method']}")
    if ident.get("frames"):
        words.append(f"{ident['frames']} frames a trial")
    if best is not None:
        words.append(f"best: trial {best.number}, score {best.value:.4g}")
    return (f"<p><b>{html.escape(data.name)}</b>: "
            + html.escape(", ".join(str(w) for w in words)) + "</p>")


def best_so_far(data: StudyData) -> dict[str, list]:
    xs, ys, tops = [], [], []
    top = math.nan
    better = (lambda a, b: a > b) if data.direction == "maximize" else (lambda a, b: a < b)
    for t in sorted(data.complete, key=lambda t: t.number):
        if math.isnan(top) or better(t.value, top):
            top = t.value
        xs.append(t.number)
        ys.append(t.value)
        tops.append(top)
    return {"trial": xs, "score": ys, "best": tops}


def _scaled(value: Any, space: Any) -> float:
    """A setting's value placed on its axis, 0 (low) to 1 (high)."""
    if isinstance(space, list):
        if value not in space:
            return math.nan
        return space.index(value) / max(len(space) - 1, 1)
    low, high, log = space
    try:
        v = float(value)
    except (TypeError, ValueError):
        return math.nan
    if log and low > 0 and high > 0 and v > 0:
        low, high, v = math.log10(low), math.log10(high), math.log10(v)
    return (v - low) / (high - low) if high != low else 0.5


def parallel_data(data: StudyData) -> dict[str, list]:
    """One polyline a complete trial: its settings, then its score, each
    scaled to its axis (0 to 1)."""
    done = data.complete
    scores = [t.value for t in done]
    lo, hi = (min(scores), max(scores)) if scores else (0.0, 1.0)
    xs, ys = [], []
    for t in done:
        line = [_scaled(t.params.get(p), data.spaces[p]) for p in data.params]
        line.append((t.value - lo) / (hi - lo) if hi != lo else 0.5)
        xs.append(list(range(len(line))))
        ys.append(line)
    return {"xs": xs, "ys": ys, "score": scores, "trial": [t.number for t in done]}


def _ends(space: Any) -> tuple[str, str]:
    if isinstance(space, list):
        return (str(space[0]), str(space[-1])) if space else ("", "")
    low, high, log = space
    return f"{low:.3g}", f"{high:.3g}" + (" (log)" if log else "")


class StudyView:
    """The section of the page showing the chosen study."""

    def __init__(self) -> None:
        self.summary = Div(text="", width=1250)
        self.table = Div(text="", width=1250, name="study-trials")
        self.best_source = ColumnDataSource({"trial": [], "score": [], "best": []})
        self.best = figure(height=300, width=600, title="best score so far",
                           x_axis_label="trial", y_axis_label="score", name="study-best",
                           tools="pan,wheel_zoom,box_zoom,reset")
        self.best.step(x="trial", y="best", source=self.best_source, mode="after",
                       line_width=2, color="black", legend_label="best so far")
        dots = self.best.scatter(x="trial", y="score", source=self.best_source, size=7,
                                 color="steelblue", legend_label="trial")
        self.best.add_tools(HoverTool(renderers=[dots], tooltips=[
            ("trial", "@trial"), ("score", "@score{0.0000}"), ("best so far", "@best{0.0000}")]))
        self.best.legend.location = "top_left"
        self.best.xaxis.ticker.min_interval = 1         # trials are whole numbers
        self.importance = Div(text="", width=600)
        self.importance_box = column(self.importance, name="study-importance")
        self.parallel_box = column(name="study-parallel")
        self.layout = column(self.summary, self.table, row(self.best, self.importance_box),
                             self.parallel_box, visible=False)

    def clear(self) -> None:
        self.layout.visible = False

    def busy(self, text: str) -> None:
        """The file could not be read for now: what was shown stays, with
        a line saying so."""
        if not self.layout.visible or not self.best.visible:
            self.problem(text)
            return
        if "is being written" not in self.summary.text:
            self.summary.text += f"<p><i>{html.escape(text)}</i></p>"

    def problem(self, text: str) -> None:
        self.layout.visible = True
        self.summary.text = f"<p><i>{html.escape(text)}</i></p>"
        self.table.text = ""
        self.best.visible = False
        self.importance_box.children = [self.importance]
        self.importance.text = ""
        self.parallel_box.children = []

    def show(self, data: StudyData) -> None:
        self.layout.visible = True
        self.best.visible = True
        self.summary.text = summary_html(data)
        self.table.text = trials_html(data)
        self.best_source.data = best_so_far(data)
        self.parallel_box.children = [parallel_figure(data)] if data.complete else []
        if data.importance is None:
            self.importance.text = f"<p><i>{html.escape(data.importance_note)}</i></p>"
            self.importance_box.children = [self.importance]
        else:
            self.importance_box.children = [importance_figure(data.importance)]


def parallel_figure(data: StudyData):
    axes = [*data.params, "score"]
    source = ColumnDataSource(parallel_data(data))
    scores = source.data["score"]
    mapper = LinearColorMapper(palette=Viridis256, low=min(scores), high=max(scores))
    if mapper.low == mapper.high:
        mapper.high = mapper.low + 1.0
    fig = figure(height=340, width=1250, title="settings against score (each line a "
                 "complete trial, coloured by its score)", name="study-parallel-figure",
                 x_range=(-0.3, len(axes) - 0.7), y_range=(-0.12, 1.12),
                 tools="pan,wheel_zoom,reset")
    lines = fig.multi_line(xs="xs", ys="ys", source=source, line_width=2, alpha=0.8,
                           color={"field": "score", "transform": mapper})
    fig.add_tools(HoverTool(renderers=[lines], tooltips=[("trial", "@trial"),
                                                          ("score", "@score{0.0000}")]))
    for k in range(len(axes)):
        fig.line(x=[k, k], y=[0, 1], color="grey", line_width=1)
    lows, highs = zip(*(_ends(data.spaces[p]) for p in data.params)) if data.params else ((), ())
    ends = ColumnDataSource({
        "x": list(range(len(axes))) * 2,
        "y": [-0.06] * len(axes) + [1.06] * len(axes),
        "text": [*lows, f"{min(scores):.4g}", *highs, f"{max(scores):.4g}"]})
    fig.text(x="x", y="y", text="text", source=ends, text_align="center",
             text_baseline="middle", text_font_size="8pt")
    fig.xaxis.ticker = FixedTicker(ticks=list(range(len(axes))))
    fig.xaxis.major_label_overrides = {k: name for k, name in enumerate(axes)}
    fig.yaxis.visible = False
    fig.xgrid.visible = False
    fig.ygrid.visible = False
    return fig


def importance_figure(importance: dict[str, float]):
    names = list(importance)[::-1]           # the most important on top
    fig = figure(height=300, width=600, title="importance of each setting (Optuna, fANOVA)",
                 y_range=FactorRange(*names), x_range=(0, 1.05), name="study-importance-figure",
                 x_axis_label="share of the score's variance", tools="")
    source = ColumnDataSource({"name": names, "value": [importance[n] for n in names]})
    bars = fig.hbar(y="name", right="value", source=source, height=0.6, color="steelblue")
    fig.add_tools(HoverTool(renderers=[bars], tooltips=[("", "@name"),
                                                         ("importance", "@value{0.000}")]))
    return fig


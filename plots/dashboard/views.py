"""What the dashboard shows of one run besides its curves, as HTML the
page puts in a Div: the search method's own state at its last
checkpoint (the view its registry entry declares, `MethodView`: a kind
of `VIEW_KINDS` or a function of its own; no method is named here), a
replay of the best genome, and comparisons. Each picture is
drawn by the `plots` command that draws it on disk (`plots replay`,
`plots methods`), or here for a method's state, and
embedded in the page as a data URL, so the server serves no file and
writes none into RUNS_DIR. (What a method has per generation is drawn by
`history`, and a MAP-Elites archive by `archive_map`, as Bokeh figures of
the page.)
"""
from __future__ import annotations

import base64
import html
import io
import math
import shlex
import tempfile
from dataclasses import dataclass
from functools import partial
from importlib import import_module
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
from matplotlib.figure import Figure

from evolution.loop.method_file import METHOD_NAME
from plots import PlotError, new_figure
from runners.genome_file import BEST_NAME

# A GIF in the page is kept small: every frame of a long episode at game
# size would be megabytes sent over the websocket.
PAGE_GIF_MAX_FRAMES = 400
PAGE_GIF_SCALE = 2
# A generated set among a run's stages offers its first few for replay
# (any other is typed as gen:DIFFICULTY:SEED).
SET_STAGES_OFFERED = 8
# The widest a picture is shown (a stage map is drawn wider).
MAX_WIDTH = 1250


class ViewError(ValueError):
    """What a view cannot show, in one sentence for the page."""


def figure_html(fig: Figure, alt: str) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return (f'<img alt="{html.escape(alt)}" style="max-width:{MAX_WIDTH}px" '
            f'src="data:image/png;base64,{data}">')


def note(text: str) -> str:
    return f"<p><i>{html.escape(text)}</i></p>"


def numbers_table(rows: Sequence[tuple[str, Any]], caption: str) -> str:
    cells = "".join(f"<tr><td>{html.escape(k)}</td><td style='text-align:right'>"
                    f"{html.escape(_number(v))}</td></tr>" for k, v in rows)
    return (f"<table class='numbers'><caption style='text-align:left'><b>"
            f"{html.escape(caption)}</b></caption>{cells}</table>")


def _number(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


# -- the method's own view ---------------------------------------------------------------

def declared_view(algorithm: str):
    """The view `algorithm`'s registry entry declares
    (`evolution.strategies.registry.MethodView`), or None."""
    from evolution.strategies.registry import STRATEGIES

    entry = STRATEGIES.get(algorithm)
    return entry.view if entry is not None else None


def view_files(algorithm: str) -> tuple[str, ...]:
    """The run's files the method's view is drawn from (besides whether
    the run has a method.jsonl): the page draws it again only when one of
    them changes, so a running run costs a drawing at each checkpoint,
    not every second. None for a method whose view is one unchanging
    line."""
    view = declared_view(algorithm)
    return tuple(view.files) if view is not None else ()


def method_view(run_dir: Path, settings: dict, logbook: dict[str, list[float]]) -> str:
    """The HTML of what the run's search method has of its own at its last
    checkpoint, as its registry entry declares it (its numbers per
    generation are `history`'s figures)."""
    from evolution.strategies.registry import STRATEGIES

    algorithm = settings.get("algorithm", "")
    view = declared_view(algorithm)
    if view is not None:
        try:
            return view_drawing(view.kind, algorithm)(run_dir, settings, logbook)
        except (PlotError, ViewError) as e:
            return note(str(e))
    entry = STRATEGIES.get(algorithm)
    if entry is not None and entry.panels:
        return note(f"{algorithm}'s own numbers, generation by generation, are its "
                    f"figures on this page")
    return note(f"{algorithm or 'this method'} keeps nothing of its own beyond the "
                f"population whose fitness is drawn above")


def view_drawing(kind: str, algorithm: str = "") -> Callable[[Path, dict, dict], str]:
    """The function that draws a view of `kind`: one of `VIEW_KINDS`, or
    "module:function"; ViewError naming what is accepted otherwise."""
    if kind in VIEW_KINDS:
        return VIEW_KINDS[kind]
    module, _, name = kind.partition(":")
    accepted = f"accepted: {', '.join(VIEW_KINDS)}, or module:function"
    of = f" (the view of {algorithm})" if algorithm else ""
    if not module or not name:
        raise ViewError(f"unknown view kind {kind!r}{of}; {accepted}")
    try:
        drawing = getattr(import_module(module), name)
    except (ImportError, AttributeError) as e:
        raise ViewError(f"view {kind!r}{of} cannot be loaded ({e}); {accepted}") from None
    if not callable(drawing):
        raise ViewError(f"view {kind!r}{of} is not a function; {accepted}")
    return drawing


def _method_settings(settings: dict) -> list[tuple[str, Any]]:
    """The method's own settings as the run had them (its registry entry
    names them; a run that left one out had its default)."""
    from evolution.strategies.registry import STRATEGIES

    entry = STRATEGIES.get(settings.get("algorithm", ""))
    options = settings.get("options") or {}
    return [(f"setting {s.name}", options.get(s.name, s.default))
            for s in (entry.settings if entry is not None else ())]


def program_view(run_dir: Path, settings: dict | None = None,
                 logbook: dict[str, list[float]] | None = None) -> str:
    """The best program as indented code, as replay prints it."""
    from runners.genome_file import GenomeFileError, load_genome_file

    try:
        record = load_genome_file(run_dir / BEST_NAME)
    except GenomeFileError as e:
        return note(f"no best program to show: {e}")
    listing = record.policy_spec.listing(record.genome) or ""
    return (f"<p>best program, found in generation {record.generation} (what its "
            f"constants decide already decided):</p><pre>{html.escape(listing)}</pre>")


def archive_view(run_dir: Path, settings: dict | None = None,
                 logbook: dict[str, list[float]] | None = None) -> str:
    """A line when the archive cannot be read; nothing otherwise: the
    archive is the page's clickable figure (`archive_map`), its QD-score
    and coverage `history`'s."""
    from runners.archive_file import ArchiveFileError, load_archive

    try:
        load_archive(run_dir)
    except ArchiveFileError as e:
        return note(str(e))
    return ""


def _checkpoint_search(run_dir: Path, what: str) -> dict:
    from evolution.loop.checkpoint import CheckpointError, load_checkpoint

    try:
        ckpt = load_checkpoint(run_dir)
    except CheckpointError as e:
        raise ViewError(f"no {what} to show: {e}") from None
    if not ckpt.search:
        raise ViewError(f"no {what} to show: the checkpoint holds no search state")
    return {"generation": ckpt.generation, **ckpt.search}


def has_history(run_dir: Path) -> bool:
    """Whether the run keeps its method's numbers per generation (a run
    from before method.jsonl existed does not)."""
    return (run_dir / METHOD_NAME).is_file()


def no_history(what: str) -> str:
    return note(f"This run has no {METHOD_NAME} (runs write it since it was added): "
                f"{what} at the last checkpoint only.")


def _checkpoint_part(draw, *args) -> str:
    """What the last checkpoint shows, or one line saying why not."""
    try:
        return draw(*args)
    except ViewError as e:
        return note(str(e))


def search_distribution_view(run_dir: Path, settings: dict,
                             logbook: dict[str, list[float]] | None = None) -> str:
    """The search distribution of the last checkpoint: the axes of its
    covariance (a state with a step size `sigma` and the square roots of
    the covariance's eigenvalues `diagD`), or its mean and Adam's moments
    (a state with `theta`, `m`, `v` and Adam's step count `t`)."""
    if not has_history(run_dir):
        return (distribution_checkpoint_view(run_dir, settings)
                + no_history("its numbers per generation are shown"))
    return _checkpoint_part(distribution_checkpoint_view, run_dir, settings)


def distribution_checkpoint_view(run_dir: Path, settings: dict) -> str:
    algorithm = settings.get("algorithm") or "the search"
    state = _checkpoint_search(run_dir, "search distribution")
    arrays = state.get("arrays") or {}
    if "diagD" in arrays:
        return covariance_view(state, settings, algorithm)
    if "theta" in arrays:
        return mean_view(state, settings, algorithm)
    raise ViewError(f"no search distribution to show: {algorithm}'s checkpoint holds "
                    f"neither a covariance (diagD) nor a mean (theta)")


def covariance_view(state: dict, settings: dict, algorithm: str) -> str:
    meta, arrays = state["meta"], state["arrays"]
    axes = np.sort(np.asarray(arrays["diagD"], dtype=np.float64))[::-1]
    sigma = float(meta["sigma"])
    rows = [("generation of the checkpoint", state["generation"]),
            ("updates", int(meta["update_count"])),
            ("step size sigma", sigma),
            ("condition number of C", float(meta["cond"])),
            ("longest axis sigma * sqrt(eig)", sigma * float(axes[0])),
            ("shortest axis sigma * sqrt(eig)", sigma * float(axes[-1])),
            *_method_settings(settings)]
    fig = new_figure(6, 3.5)
    ax = fig.add_subplot(1, 1, 1)
    ax.semilogy(np.arange(1, axes.size + 1), sigma * axes, marker=".")
    ax.set_xlabel("principal axis of the search distribution (longest first)")
    ax.set_ylabel("step along it: sigma * sqrt(eigenvalue)")
    ax.set_title(f"{algorithm} at generation {state['generation']}: the search's shape")
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    return (numbers_table(rows, f"{algorithm}, from the last checkpoint")
            + figure_html(fig, "axes of the search distribution"))


def mean_view(state: dict, settings: dict, algorithm: str) -> str:
    arrays, t = state["arrays"], int(state["meta"].get("t", 0))
    theta = np.asarray(arrays["theta"], dtype=np.float64)
    m, v = (np.asarray(arrays.get(k, []), dtype=np.float64) for k in ("m", "v"))
    rows = [("generation of the checkpoint", state["generation"]),
            ("Adam steps t", t),
            ("|theta| (mean's norm)", float(np.linalg.norm(theta))),
            ("|m| (first moment)", float(np.linalg.norm(m)) if m.size else math.nan),
            ("mean sqrt(v) (second moment)",
             float(np.mean(np.sqrt(v))) if v.size else math.nan),
            *_method_settings(settings)]
    fig = new_figure(6, 3.5)
    ax = fig.add_subplot(1, 1, 1)
    ax.hist(theta, bins=40)
    ax.set_xlabel("parameter value of the mean theta")
    ax.set_ylabel("parameters")
    ax.set_title(f"{algorithm}'s mean at generation {state['generation']}")
    fig.tight_layout()
    return (numbers_table(rows, f"{algorithm}, from the last checkpoint")
            + figure_html(fig, "mean of the search distribution"))


def network_view(run_dir: Path, settings: dict | None = None,
                 logbook: dict[str, list[float]] | None = None) -> str:
    """The best network, and for a run without method.jsonl (whose
    species sizes per generation are then not drawn) its species at the
    last checkpoint."""
    if has_history(run_dir):
        return topology_view(run_dir)
    return (_checkpoint_part(species_sizes_view, run_dir) + topology_view(run_dir)
            + no_history("the size of each species is shown"))


def species_sizes_view(run_dir: Path) -> str:
    generation, sizes = species_sizes(run_dir)
    fig = new_figure(4.5, 4.5)
    ax = fig.add_subplot(1, 1, 1)
    ax.bar([str(k) for k, _ in sizes], [n for _, n in sizes])
    ax.set_xlabel("species (key)")
    ax.set_ylabel("members")
    ax.set_title(f"species sizes at generation {generation}")
    fig.tight_layout()
    return figure_html(fig, "species sizes")


def species_sizes(run_dir: Path) -> tuple[int, list[tuple[int, int]]]:
    """The generation of a speciated run's checkpoint and its species as
    (key, members), the largest first."""
    state = _checkpoint_search(run_dir, "species")
    sizes = [(int(s["key"]), len(s["members"])) for s in state["meta"]["species"]]
    return state["generation"], sorted(sizes, key=lambda kv: (-kv[1], kv[0]))


def topology_view(run_dir: Path) -> str:
    from runners.genome_file import BEST_NAME, GenomeFileError, load_genome_file

    try:
        record = load_genome_file(run_dir / BEST_NAME)
    except GenomeFileError as e:
        return note(f"no best network to draw: {e}")
    fig = draw_network(record.genome)
    return figure_html(fig, "best network")


# The view kinds the dashboard draws, by the name a registry entry's
# `MethodView` gives.
VIEW_KINDS: dict[str, Callable[[Path, dict, dict], str]] = {
    "archive": archive_view,
    "network": network_view,
    "search-distribution": search_distribution_view,
    "program": program_view,
}


def draw_network(genome: np.ndarray) -> Figure:
    """A `neat` genome (speednik.neat_genome's layout) as a layered graph:
    inputs left, each node one layer right of its latest source, outputs
    right; connections blue for positive weights, red for negative, as
    thick as their weight is large."""
    from speednik.actions import ACTION_NAMES
    from speednik.neat_genome import ACTIVATIONS, CONNECTION_WIDTH, HEADER, NODE_WIDTH

    n_in, n_out, n_hidden, n_conn = (int(v) for v in genome[:HEADER])
    nodes = genome[HEADER:HEADER + NODE_WIDTH * (n_hidden + n_out)].reshape(-1, NODE_WIDTH)
    start = HEADER + NODE_WIDTH * (n_hidden + n_out)
    conns = genome[start:start + CONNECTION_WIDTH * n_conn].reshape(-1, CONNECTION_WIDTH)
    total = n_in + n_hidden + n_out
    depth = np.zeros(total, dtype=int)
    for src, dst, _ in conns:          # listed in evaluation order
        depth[int(dst)] = max(depth[int(dst)], depth[int(src)] + 1)
    last = max(int(depth.max()), 1) + (1 if n_hidden else 0)
    depth[n_in + n_hidden:] = last
    pos = {}
    for layer in range(last + 1):
        members = [k for k in range(total) if depth[k] == layer]
        for row, k in enumerate(members):
            pos[k] = (layer, (row + 0.5) / len(members))
    fig = new_figure(6.5, 5)
    ax = fig.add_subplot(1, 1, 1)
    big = float(np.max(np.abs(conns[:, 2]))) if n_conn else 1.0
    for src, dst, weight in conns:
        (x0, y0), (x1, y1) = pos[int(src)], pos[int(dst)]
        ax.plot([x0, x1], [y0, y1], color="tab:blue" if weight >= 0 else "tab:red",
                linewidth=0.3 + 2.5 * abs(weight) / (big or 1.0), alpha=0.7, zorder=1)
    kinds = [("input", range(n_in), "lightgrey"),
             ("hidden", range(n_in, n_in + n_hidden), "gold"),
             ("output", range(n_in + n_hidden, total), "limegreen")]
    for label, keys, colour in kinds:
        keys = list(keys)
        if keys:
            ax.scatter([pos[k][0] for k in keys], [pos[k][1] for k in keys], s=60,
                       color=colour, edgecolor="black", zorder=2, label=label)
    for a in range(n_out):
        x, y = pos[n_in + n_hidden + a]
        name = ACTION_NAMES[a] if a < len(ACTION_NAMES) else str(a)
        ax.annotate(name, (x, y), xytext=(6, 0), textcoords="offset points",
                    fontsize=7, va="center")
    used = sorted({ACTIVATIONS[int(a)] for a in nodes[:, 1]}) if len(nodes) else []
    ax.set_title(f"best network: {n_in} inputs, {n_hidden} hidden, {n_out} outputs, "
                 f"{n_conn} connections", fontsize=10)
    ax.set_xlabel("layer (activations: " + ", ".join(used) + ")")
    ax.set_xlim(-0.3, last + 0.8)
    ax.set_xticks(range(last + 1))
    ax.set_yticks([])
    ax.legend(loc="upper center", ncol=3, fontsize=8, bbox_to_anchor=(0.5, -0.12))
    fig.tight_layout()
    return fig


# -- replay ------------------------------------------------------------------------------

BEST_GENOME = ("", "the best genome")
# Who plays, when a baseline agent does: "agent:NAME".
AGENT_PREFIX = "agent:"


def elite_choices(run_dir: Path) -> list[tuple[str, str]]:
    """Who can be replayed, as (value, label): the best genome (""), then,
    in a MAP-Elites run, each elite of its archive, the fittest first
    ("I,J"), then the baseline agents ("agent:NAME")."""
    from runners.agents import BASELINES
    from runners.archive_file import ARCHIVE_NAME, ArchiveFileError, format_cell, load_archive

    agents = [(f"{AGENT_PREFIX}{name}", f"baseline agent {name}") for name in BASELINES]
    if not (run_dir / ARCHIVE_NAME).is_file():
        return [BEST_GENOME, *agents]
    try:
        archive = load_archive(run_dir)
    except ArchiveFileError:
        return [BEST_GENOME, *agents]
    order = np.argsort(-np.asarray(archive.objective), kind="stable")
    return [BEST_GENOME] + [
        (format_cell(archive.cell[k]),
         f"elite of cell {format_cell(archive.cell[k])} (fitness {archive.objective[k]:.3f})")
        for k in order] + agents


def replay_choices(settings: dict) -> list[str]:
    """The stages to offer: the run's own training, held-out and
    validation stages (the first `SET_STAGES_OFFERED` of each generated
    set), then the built-in ones."""
    from speednik.stages import StageSetError, expand_stages, list_stages

    offered: list[str] = []
    for key in ("stages", "test_stages", "validation_stages"):
        for given in settings.get(key) or []:
            try:
                names = expand_stages([str(given)])[:SET_STAGES_OFFERED]
            except (StageSetError, ValueError):
                continue
            offered += [n for n in names if n not in offered]
    return offered + [s for s in list_stages() if s not in offered]


@dataclass(frozen=True)
class Player:
    """Who a replay plays, and with which runner settings."""

    label: str
    agent: Callable[[], Any]
    observation: str
    max_steps: int
    stall_frames: int | None
    action_repeat: int = 1


def replay_view(run_dir: Path, settings: dict, stage_name: str, who: str = "") -> str:
    """Play the run's best genome, the elite of archive cell `who` ("I,J")
    of a MAP-Elites run, or baseline agent `who` ("agent:NAME"), on one
    stage (one of the run's own, a built-in one, or gen:DIFFICULTY:SEED)
    and show the stage map with its trajectory and the animation. Writes
    nothing into the run directory: the GIF is drawn in a temporary
    directory."""
    from plots.animation import write_replay_gif
    from plots.stage_map import draw_stage_map
    from runners.episode import resolve_stage
    from runners.genome_file import BEST_NAME, GenomeFileError, load_genome_file, locate_stage
    from runners.agents import BASELINES, make_baseline
    from runners.archive_file import ArchiveFileError
    from runners.episode import DEFAULT_STALL_FRAMES
    from runners.replay import STAGES_ACCEPTED, elite_record, format_result, replay_episode
    from speednik.constants import DEFAULT_MAX_STEPS
    from speednik.stages import StageSetError, expand_stages

    who = who.strip()
    if who.startswith(AGENT_PREFIX):
        name = who[len(AGENT_PREFIX):]
        if name not in BASELINES:
            raise ViewError(f"unknown agent {name!r}; accepted: {', '.join(BASELINES)}")
        player = Player(f"baseline agent {name}", partial(make_baseline, name), "basic",
                        DEFAULT_MAX_STEPS, DEFAULT_STALL_FRAMES)
    else:
        try:
            record = load_genome_file(run_dir / BEST_NAME)
        except GenomeFileError as e:
            raise ViewError(f"nothing to replay: {e}") from None
        label = f"{run_dir.name}'s best genome"
        if who:
            try:
                record = elite_record(record, who)
            except (ArchiveFileError, ValueError) as e:
                raise ViewError(f"no elite to replay: {e}") from None
            label = f"{run_dir.name}'s elite of cell {who}"
        player = Player(label, record.policy, record.observation, record.max_steps,
                        record.stall_frames, record.action_repeat)
    text = stage_name.strip()
    # No other path: the page reads no file outside RUNS_DIR a visitor names.
    if text not in replay_choices(settings) and not text.startswith("gen:"):
        raise ViewError(f"unknown stage {text!r}; accepted: the run's own stages, a "
                        f"built-in one, or gen:DIFFICULTY:SEED")
    try:
        names = expand_stages([text])
    except (StageSetError, ValueError) as e:
        raise ViewError(f"{e}") from None
    if len(names) != 1:
        raise ViewError(f"{text!r} names {len(names)} stages; replay one: "
                        f"gen:DIFFICULTY:SEED with one seed")
    name = names[0]
    if name.endswith(".toml"):
        name = locate_stage(name, run_dir)
    try:
        stage = resolve_stage(name)
    except (ValueError, KeyError, OSError) as e:
        message = str(e)
        raise ViewError(message if "accepted" in message
                        else f"{message}; {STAGES_ACCEPTED}") from None
    result = replay_episode(player.agent(), stage, player.observation, player.max_steps,
                            player.stall_frames, record=True,
                            action_repeat=player.action_repeat)
    fig = draw_stage_map(stage, result, label=player.label)
    with tempfile.TemporaryDirectory(prefix="speednik-dashboard-") as tmp:
        gif = write_replay_gif(result, stage, Path(tmp) / "replay.gif",
                               max_frames=PAGE_GIF_MAX_FRAMES, scale=PAGE_GIF_SCALE)
        gif_data = base64.b64encode(gif.read_bytes()).decode("ascii")
    return (f"<p class='replay-result'><b>{html.escape(player.label)} on "
            f"{html.escape(text)}</b></p><pre>{html.escape(format_result(result).strip())}</pre>"
            + figure_html(fig, "replay over the stage map")
            + f'<br><img alt="replay animation" src="data:image/gif;base64,{gif_data}">')


# -- compare -----------------------------------------------------------------------------

def comparison_text(out_dir: Path) -> str:
    """What `evolution.compare` printed of `out_dir`: its tables as
    Markdown (the methods, held-out stages per test set, and which method
    beats which)."""
    from evolution.compare import by_set_table, improvement_lines, table
    from plots.methods import read_comparison

    data = read_comparison(out_dir)
    try:
        text = table(data["methods"])
        if all(m.get("held_out_by_set") for m in data["methods"].values()):
            text += "\n\n" + by_set_table(data["methods"])
        improvement = data.get("improvement") or {}
        if len(data["methods"]) > 1 and improvement.get("pairs"):
            on = ("held-out completion" if improvement.get("on") == "held_out"
                  else "training fitness")
            text += "\n\n" + improvement_lines(improvement["pairs"], on)
    except (KeyError, TypeError, ValueError, AttributeError, StopIteration) as e:
        raise PlotError(f"{out_dir}: compare.json is not a comparison ({e})") from None
    return text


def comparison_view(out_dir: Path) -> str:
    """An `evolution.compare` output directory: its task, and its picture
    as `plots methods` draws it (the curves and the performance profiles);
    its tables are the page's (`comparison_text`)."""
    from plots.methods import draw_methods, read_comparison

    data = read_comparison(out_dir)
    comparison_text(out_dir)                # a file that is no comparison says so
    fig = draw_methods(new_figure(13, 5), out_dir)
    return (f"<p><b>{html.escape(str(out_dir))}</b>: seeds "
            f"{html.escape(_listed(data.get('seeds')))}, "
            f"{html.escape(str(data.get('frames')))} frames each; task: "
            f"{html.escape(task_text(data.get('task')))}</p>"
            + figure_html(fig, "methods compared"))


def _listed(values: Any) -> str:
    if isinstance(values, list):
        return ", ".join(str(v) for v in values)
    return str(values)


def task_text(task: Any) -> str:
    """A comparison's task (the `evolution.run` options every run got) as
    a person reads it: the stages named, then the options as typed."""
    if not task:
        return "evolution.run's defaults"
    if not isinstance(task, list):
        return str(task)
    words = [str(w) for w in task]
    stages, rest, i = [], [], 0
    while i < len(words):
        if words[i] in ("--stages", "--stage"):
            i += 1
            while i < len(words) and not words[i].startswith("--"):
                stages.append(words[i])
                i += 1
            continue
        rest.append(words[i])
        i += 1
    parts = ([f"stages {', '.join(stages)}"] if stages else []) + \
        ([shlex.join(rest)] if rest else [])
    return "; ".join(parts)


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") else inner
    return [c.strip() for c in inner.split("|")]


def _is_rule(cells: list[str]) -> bool:
    return bool(cells) and all(c and set(c) <= set(":-") and "-" in c for c in cells)

"""How long the dashboard takes to read a RUNS_DIR of 500 runs (the first
page's data, and again once cached) and to build a page over them; and
what a page following a running run costs that run: the generations per
second of a small fixed run (CMA-ES, compiled engine, one worker) alone,
and while a dashboard page in another process (as the server is) chooses
it and refreshes every second, drawing its method view as the server's
drawing thread does; and how long reading an evolution.tune study of 100
trials takes. The two runs are alternated, so that both meet the same
load on the machine; the best and median of each, the ratio of each pair,
the page's own use of a core, and the load average are printed (on a
shared machine the run's speed swings, and its figures are approximate).

With a browser (headless Chromium), over RUNS_DIR of 500 runs served by
`python -m plots dashboard`: seconds from asking for the page to the runs
table's first rows painted (the plain table the page's HTML holds; target:
1 s), and to the interactive table drawing its first row, on a first visit (BokehJS's
files not yet in the browser's cache) and on a visit again, and the share of a core the
server spends on one open, idle page whose refresh ticks, with one run of
the 500 running (target: 5%); the browser's own share is printed beside it.

    python benchmarks/bench_dashboard.py [--runs 500] [--generations 2000] [--repeats 5]
        [--study-trials 100] [--idle-seconds 20] [--only-page]
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import statistics
import tempfile
import time
from functools import partial
from pathlib import Path

import evolution  # noqa: F401  (pins the numeric kernels before numpy loads)
from evolution.config import EvolutionConfig
from evolution.loop.evolve import evolve

POLL_SECONDS = 1.0       # the page's refresh (plots.dashboard.page.REFRESH_MS)
# When the browser first painted text, in ms from asking for the page.
PAINTED_JS = "performance.getEntriesByName('first-contentful-paint')[0].startTime"


def read_many(count: int) -> str:
    from plots.dashboard.page import Page
    from plots.dashboard.runs import RunsDir

    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp) / "one"
        evolve(EvolutionConfig(generations=20, population=6, max_steps=300, workers=1), one)
        root = Path(tmp) / "runs"
        for k in range(count):
            shutil.copytree(one, root / f"group{k // 50}" / f"run{k}")
        runs = RunsDir(root)
        t0 = time.perf_counter()
        rows = runs.rows()
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        runs.rows()
        again = time.perf_counter() - t0
        t0 = time.perf_counter()
        Page(runs).refresh()
        page = time.perf_counter() - t0
    return (f"{len(rows)} runs of 21 generations: first read {first:.2f} s, a refresh "
            f"{again * 1000:.0f} ms, a page built over them {page:.2f} s (target: open in 2 s)")


def make_runs(tmp: Path, count: int) -> Path:
    """RUNS_DIR of `count` copies of one small run (21 generations), in
    groups of 50, the last of them held locked as a running run holds it."""
    one = tmp / "one"
    # The readable engine: no compiled kernels to build for so small a run.
    evolve(EvolutionConfig(generations=20, population=6, max_steps=300, workers=1,
                           engine="python"), one)
    root = tmp / "runs"
    # Written a day ago, as most runs of a long-lived RUNS_DIR were (their
    # rows' ages then change once in hours, not every second).
    then = time.time() - 86400
    for k in range(count):
        run = root / f"group{k // 50}" / f"run{k}"
        shutil.copytree(one, run)
        for file in run.iterdir():
            os.utime(file, (then, then))
    return root


def cpu_seconds(pids: list[int]) -> float:
    import psutil

    total = 0.0
    for pid in pids:
        try:
            times = psutil.Process(pid).cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


def page_in_a_browser(count: int, idle: float) -> list[str]:
    """The page served over `count` runs, opened in headless Chromium:
    how long until the table's first row shows, and what the open page
    then costs the server and the browser per second of wall time."""
    import fcntl
    import shutil as sh
    import socket
    import subprocess
    import sys
    import urllib.request

    import psutil
    from playwright.sync_api import sync_playwright

    chromium = sh.which("chromium") or sh.which("chromium-browser")
    if chromium is None:
        return ["the page in a browser: no chromium on this machine"]
    with tempfile.TemporaryDirectory() as tmp:
        root = make_runs(Path(tmp), count)
        live = root / "group0" / "run0"
        fd = os.open(live, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = subprocess.Popen([sys.executable, "-m", "plots", "dashboard", str(root),
                                   "--port", str(port)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        url = f"http://127.0.0.1:{port}/"
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    urllib.request.urlopen(url + "static/js/bokeh.min.js", timeout=5).read()
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise RuntimeError("the dashboard never answered")
                    time.sleep(0.2)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])

                viewport = {"width": 1300, "height": 900}

                def first_row(new_page) -> tuple[float, float]:
                    """(s) until the plain table of the page's HTML is
                    painted (the browser's first contentful paint: the
                    page's first text is the table's heading), and until
                    the interactive table shows its first row."""
                    page = new_page()
                    t0 = time.perf_counter()
                    page.goto(url, wait_until="commit")
                    page.locator(".slick-cell").first.wait_for(timeout=120000)
                    took = time.perf_counter() - t0
                    painted = page.evaluate(PAINTED_JS) / 1000
                    page.close()
                    return painted, took

                # A first page, closed: Python's imports warm.
                fresh = partial(browser.new_page, viewport=viewport)
                first_row(fresh)
                # A first visit: a browser of its own each time, which has
                # none of BokehJS's files yet.
                opened = [first_row(fresh) for _ in range(3)]
                # Visits again: one browser, its cache warm from its first.
                context = browser.new_context(viewport=viewport)
                first_row(context.new_page)
                again = [first_row(context.new_page) for _ in range(3)]
                context.close()
                # The pages closed above are forgotten by the server only
                # after Bokeh's unused-session lifetime (15 s, checked every
                # 17 s): until then they refresh too.
                time.sleep(40)
                page = browser.new_page(viewport=viewport)
                page.goto(url)
                page.locator(".slick-cell").first.wait_for(timeout=120000)
                page.wait_for_timeout(5000)         # what the page builds after the table
                browser_pids = [c.pid for c in psutil.Process().children(recursive=True)
                                if "chrom" in c.name().lower()]
                server_cpu, browser_cpu = cpu_seconds([server.pid]), cpu_seconds(browser_pids)
                t0 = time.perf_counter()
                time.sleep(idle)
                wall = time.perf_counter() - t0
                server_use = (cpu_seconds([server.pid]) - server_cpu) / wall
                browser_use = (cpu_seconds(browser_pids) - browser_cpu) / wall
                browser.close()
        finally:
            server.terminate()
            server.wait(30)
            os.close(fd)
    def shown(visits: list[tuple[float, float]], which: int) -> str:
        times = [v[which] for v in visits]
        return f"{min(times):.2f} s (best of 3; each {', '.join(f'{t:.2f}' for t in times)})"

    return [f"the page over {count} runs in headless Chromium (load average "
            f"{os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs), from asking for the page:",
            f"  a first visit: the table's first rows painted (the page's HTML) in "
            f"{shown(opened, 0)}, target 1 s; the interactive table drawn in "
            f"{shown(opened, 1)}",
            f"  a visit again: the table's first rows painted in {shown(again, 0)}, target "
            f"1 s; the interactive table drawn in {shown(again, 1)}",
            f"  one open idle page, refresh ticking ({idle:.0f} s): server "
            f"{100 * server_use:.1f}% of a core (target 5%), browser "
            f"{100 * browser_use:.1f}%"]


def read_a_study(trials: int) -> str:
    """How long the page takes to read an evolution.tune study of
    `trials` complete trials of three settings (its file read-only, and
    Optuna's fANOVA importance over them), done off the page's event loop
    when the file changes."""
    import optuna
    from optuna.distributions import FloatDistribution

    from plots.dashboard.study import importance_of, read_study

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    spaces = {name: FloatDistribution(1e-4, 1.0, log=True) for name in ("a", "b", "c")}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "tune"
        out.mkdir()
        study = optuna.create_study(study_name="tune", direction="maximize",
                                    storage=f"sqlite:///{out / 'study.db'}",
                                    sampler=optuna.samplers.RandomSampler(seed=0))
        for _ in range(trials):
            trial = study.ask(spaces)
            study.tell(trial, trial.params["a"] - 0.1 * trial.params["b"])
        read_study(out, Path(tmp))                      # Optuna's imports, once
        t0 = time.perf_counter()
        data = read_study(out, Path(tmp))
        whole = time.perf_counter() - t0
        frozen = study.get_trials(deepcopy=False)
        t0 = time.perf_counter()
        importance_of(frozen, "maximize")
        importance = time.perf_counter() - t0
    return (f"a study of {len(data.trials)} trials: read in {whole * 1000:.0f} ms, of which "
            f"Optuna's importance {importance * 1000:.0f} ms")


def follow(root: str, name: str, ready, stop, done) -> None:
    """A dashboard page over `root` with run `name` chosen, refreshed
    every POLL_SECONDS until `stop`; sends (refreshes, seconds they took,
    CPU seconds the page used, seconds it followed)."""
    from plots.dashboard.page import Page
    from plots.dashboard.runs import RunsDir

    page = Page(RunsDir(Path(root)))      # no server: views drawn in this process
    page.chosen = name
    count, spent = 0, 0.0
    ready.set()
    cpu, start = time.process_time(), time.perf_counter()
    next_at = start
    while not stop.wait(max(0.0, next_at - time.perf_counter())):
        t0 = time.perf_counter()
        page.refresh()
        spent += time.perf_counter() - t0
        count += 1
        next_at += POLL_SECONDS
    done.send((count, spent, time.process_time() - cpu, time.perf_counter() - start))


def timed_run(config: EvolutionConfig, out: Path) -> float:
    """Generations per second of `config` run into `out`."""
    t0 = time.perf_counter()
    evolve(config, out)
    return (config.generations + 1) / (time.perf_counter() - t0)


def followed_run(config: EvolutionConfig, root: Path, name: str) -> tuple[float, tuple]:
    context = multiprocessing.get_context("spawn")
    ready, stop = context.Event(), context.Event()
    receive, send = context.Pipe(duplex=False)
    page = context.Process(target=follow, args=(str(root), name, ready, stop, send))
    page.start()
    try:
        if not ready.wait(120):
            raise RuntimeError("the dashboard page did not start")
        speed = timed_run(config, root / name)
    finally:
        stop.set()
    page_use = receive.recv()
    page.join(60)
    return speed, page_use


def polling_cost(generations: int, repeats: int) -> list[str]:
    from speednik.engine import warm_up

    warm_up()
    config = EvolutionConfig(algorithm="cmaes", generations=generations, population=16,
                             max_steps=600, workers=1, seed=0, engine="compiled")
    alone, followed, refreshes = [], [], []
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        timed_run(config.replace(generations=2), Path(tmp) / "warm")
        for k in range(repeats):
            alone.append(timed_run(config, Path(tmp) / f"alone{k}"))
            speed, page_use = followed_run(config, Path(tmp) / f"followed{k}", "run")
            followed.append(speed)
            refreshes.append(page_use)
    count, spent, cpu, wall = (sum(u[i] for u in refreshes) for i in range(4))
    pairs = [f / a for f, a in zip(followed, alone)]
    load = max(load, os.getloadavg()[0])

    def figures(speeds: list[float]) -> str:
        each = ", ".join(f"{s:.1f}" for s in speeds)
        return (f"best {max(speeds):6.2f}, median {statistics.median(speeds):6.2f} "
                f"generations/s (each: {each})")

    return [
        f"a CMA-ES run of {generations} generations (population 16, compiled engine, "
        f"1 worker), {repeats} of each, alternated ({os.cpu_count()} CPUs, load average "
        f"up to {load:.1f}):",
        f"  alone                           {figures(alone)}",
        f"  a dashboard page refreshing it  {figures(followed)}",
        f"  ratio followed / alone          of the bests {max(followed) / max(alone):.2f}; "
        f"of each pair run one after the other, median "
        f"{statistics.median(pairs):.2f} (each: {', '.join(f'{r:.2f}' for r in pairs)})",
        f"  the page (its own process): {count} refreshes of "
        f"{1000 * spent / max(count, 1):.0f} ms on average, {100 * cpu / wall:.0f}% of a "
        f"core while it followed",
    ]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=500)
    p.add_argument("--generations", type=int, default=2000,
                   help="generations of each timed run: several seconds, so the page "
                        "refreshes it many times")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--study-trials", type=int, default=100)
    p.add_argument("--idle-seconds", type=float, default=20.0)
    p.add_argument("--only-page", action="store_true",
                   help="only the page in a browser (the first figures above)")
    args = p.parse_args()
    for line in page_in_a_browser(args.runs, args.idle_seconds):
        print(line, flush=True)
    if args.only_page:
        return
    print(read_many(args.runs), flush=True)
    print(read_a_study(args.study_trials), flush=True)
    for line in polling_cost(args.generations, args.repeats):
        print(line)


if __name__ == "__main__":
    main()

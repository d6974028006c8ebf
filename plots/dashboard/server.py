"""The dashboard's server: Bokeh's, with one application at "/", bound to
127.0.0.1 unless `--host` says otherwise. It serves the page and Bokeh's
own assets and nothing else: no file of RUNS_DIR is served, the page reads
them on the server side. The page asks nobody to log in: on any address
but a loopback one, whoever reaches it sees every run and can replay
them, and the command says so on stderr. Ctrl-C stops it."""
from __future__ import annotations

import ipaddress
import logging
import sys
from pathlib import Path
from typing import TextIO

DEFAULT_PORT = 5006
DEFAULT_HOST = "127.0.0.1"
# A path that climbs (`..`, or its dots percent-encoded) is answered 404
# before any handler reads it; Bokeh's static files would answer 403.
CLIMBING = r"(?i).*(?:\.|%2e)(?:\.|%2e).*"


def _not_found_handler():
    from tornado.web import HTTPError, RequestHandler

    class NotFound(RequestHandler):
        def prepare(self) -> None:
            raise HTTPError(404)

    return NotFound


def make_server(root: Path, port: int = DEFAULT_PORT, host: str = DEFAULT_HOST):
    """A started Bokeh server for the runs under `root` (not yet serving
    until its IO loop runs)."""
    from bokeh.application import Application
    from bokeh.application.handlers.function import FunctionHandler
    from bokeh.server.server import Server

    from plots.dashboard.page import make_document

    # Bokeh and tornado log every request at INFO; the command prints its own line.
    for name in ("bokeh", "tornado"):
        logging.getLogger(name).setLevel(logging.WARNING)
    origins = [f"{host}:{port}"] + ([f"localhost:{port}"] if host == DEFAULT_HOST else [])
    server = Server({"/": Application(FunctionHandler(make_document(root)))},
                    address=host, port=port, allow_websocket_origin=origins,
                    num_procs=1)
    # Ahead of every route Bokeh made (its static files come first there):
    # tornado checks host-specific handlers before its wildcard ones.
    server._tornado.add_handlers(r".*", [(CLIMBING, _not_found_handler())])
    _only_bundles_drawn(server._tornado)
    server.start()
    return server


# The BokehJS bundles the page loads: not WebGL (no figure draws with it)
# nor MathJax (2 MB; text on the page is shown as written, never as TeX).
BUNDLES = ["bokeh", "bokeh-widgets", "bokeh-tables"]


def _only_bundles_drawn(app) -> None:
    """The page's HTML names only BUNDLES (Bokeh's server names all it
    has, not knowing what a document will use)."""
    every = app.resources

    def resources(absolute_url=None):
        return every(absolute_url).clone(components=list(BUNDLES))
    app.resources = resources


def is_loopback(host: str) -> bool:
    """Whether `host` answers this machine only (127.0.0.0/8, ::1,
    localhost)."""
    if host.strip().lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False                # a name that may resolve to any address


def exposure_warning(host: str) -> str | None:
    """The line the command prints when the page is open to the network."""
    if is_loopback(host):
        return None
    return (f"plots: warning: the dashboard has no authentication and --host {host} opens "
            f"it to the network: anyone who can reach this machine sees every run and can "
            f"replay them; use --host 127.0.0.1 (the default) to keep it to this machine")


def serve(root: Path, port: int, host: str, out: TextIO, err: TextIO | None = None) -> None:
    """Serve until Ctrl-C."""
    # Warned before the port opens: once it answers, the warning is out.
    # Ctrl-C is how the dashboard stops, so it stops quietly however soon
    # it comes (the port answers a moment before the line that says so).
    server = None
    try:
        warning = exposure_warning(host)
        if warning:
            print(warning, file=err if err is not None else sys.stderr, flush=True)
        server = make_server(root, port, host)
        print(f"dashboard of {root} at http://{host}:{port}/ (Ctrl-C stops it)", file=out,
              flush=True)
        server.io_loop.start()
    except KeyboardInterrupt:
        pass
    finally:
        if server is not None:
            server.stop()

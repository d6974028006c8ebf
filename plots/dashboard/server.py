"""The dashboard's server: Bokeh's, with one application at "/", bound to
127.0.0.1 unless `--host` says otherwise. It serves the page and Bokeh's
own assets and nothing else: no file of RUNS_DIR is served, the page reads
them on the server side. Ctrl-C stops it."""
from __future__ import annotations

import logging
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
    server.start()
    return server


def serve(root: Path, port: int, host: str, out: TextIO) -> None:
    """Serve until Ctrl-C."""
    server = make_server(root, port, host)
    print(f"dashboard of {root} at http://{host}:{port}/ (Ctrl-C stops it)", file=out,
          flush=True)
    try:
        server.io_loop.start()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()

"""Serve a WSGI app with the standard library's server, one thread per request.

``python tests/support/wsgi_server.py module:attr PORT`` (for :func:`live_server.serve`).
"""

from __future__ import annotations

import importlib
import sys
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server


class ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass


def command(app: str, port: int) -> list[str]:
    """The command line serving ``module:attr`` on 127.0.0.1:``port``."""
    return [sys.executable, __file__, app, str(port)]


def main() -> None:
    module, _, attr = sys.argv[1].partition(":")
    app = getattr(importlib.import_module(module), attr)
    server = make_server(
        "127.0.0.1", int(sys.argv[2]), app, ThreadingWSGIServer, handler_class=QuietHandler
    )
    server.serve_forever()


if __name__ == "__main__":
    main()

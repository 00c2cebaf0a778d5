"""The examples served for real: the FastAPI one under uvicorn (asyncio), the Starlette one
under hypercorn's trio worker, with every provider on: credentials, e-mail (to a real SMTP
inbox) and OpenID Connect (the test OP)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx
from live_server import SERVERS, LiveServer, free_port, serve

SECRET = "starlette-e2e-secret-that-is-long-enough-0123456789"
CRASHES = ("Traceback", "Exception in ASGI application", "unexpected failure serving")
EXAMPLES = {"fastapi": ("examples.fastapi_app:app", "uvicorn"),
            "starlette": ("examples.starlette_app:app", "hypercorn-trio")}  # fmt: skip


@contextmanager
def serve_example(
    name: str, db: Path, env: Mapping[str, str], *, crashes: bool = False, port: int | None = None
) -> Iterator[LiveServer]:
    """Serve an example on SQLite file ``db``; fails if the log shows a crash (unless
    ``crashes``)."""
    app, server = EXAMPLES[name]
    port = port or free_port()
    full_env = {"AUTH_SECRET": SECRET, "EXAMPLE_DB": str(db), **env}
    with serve(SERVERS[server](app, port), port, env=full_env) as live:
        yield live
        log = live.log
    if not crashes:
        for crash in CRASHES:
            assert crash not in log, log


def browser_client(site: LiveServer) -> httpx.Client:
    """A client with its own cookie jar, sending the site's ``Origin`` like a browser's
    form posts; redirects are not followed."""
    return httpx.Client(base_url=site.url, timeout=15, headers={"origin": site.url})


def sign_in_with_password(
    http: httpx.Client, password: str = "demo", **fields: str
) -> httpx.Response:
    """The home page's credentials form, posted to the example's ``/signin`` (``sign_in``)."""
    form = {"provider": "credentials", "username": "demo", "password": password, **fields}
    return http.post("/signin", data=form)

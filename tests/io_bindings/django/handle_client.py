"""A test client of Django's own WSGI or ASGI handler with one Django ``handle`` as the
only middleware (:func:`handle_client`)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import django_db
import httpx
from django.conf import settings

if not settings.configured:  # the tests' one Django set-up, whichever module asks first
    django_db.configure()

from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.wsgi import WSGIHandler
from django.test import override_settings

from io_bindings.django import Handle
from io_bindings.translate import ASGIApp, Receive, Scope, Send, serve_lifespan

with warnings.catch_warnings():  # "install httpx2": the sync client that drives the examples
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


class _Current:
    """The ``MIDDLEWARE`` entry: the handle of the test being run."""

    sync_capable = True
    async_capable = True
    handle: Handle | None = None

    def __call__(self, get_response: Any) -> Any:
        assert self.handle is not None
        return self.handle(get_response)


hook = _Current()


def asgi_app(django_app: ASGIHandler) -> ASGIApp:
    """Django's ASGI handler with the lifespan a server's would answer (Django refuses it)."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await serve_lifespan(receive, send)
        else:
            await django_app(scope, receive, send)

    return app


@contextmanager
def handle_client(
    handle: Handle,
    mode: str,
    urlconf: str,
    *,
    after: Sequence[str] = (),
    before: Sequence[str] = (),
    **settings: Any,
) -> Iterator[httpx.Client]:
    """A client of Django's ``mode`` handler (``wsgi``/``asgi``) serving the URLs of module
    ``urlconf`` behind the middleware at the dotted paths ``before``, ``handle``, then
    those ``after``, with more Django ``settings`` overridden."""
    hook.handle = handle
    middleware = [*before, f"{__name__}.hook", *after]
    with override_settings(
        ROOT_URLCONF=urlconf, MIDDLEWARE=middleware, ALLOWED_HOSTS=["*"], **settings
    ):
        if mode == "wsgi":
            transport = httpx.WSGITransport(app=WSGIHandler())
            with httpx.Client(transport=transport, base_url="http://testserver") as http:
                yield http
        else:
            with TestClient(asgi_app(ASGIHandler()), follow_redirects=False) as client:
                yield client  # one event loop for the whole test, as under uvicorn

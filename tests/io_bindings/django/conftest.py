"""The example project (``examples/django_project``) served for real: under uvicorn (ASGI)
and under ``manage.py runserver`` (WSGI), with every provider on: credentials, e-mail
(to a real SMTP inbox) and OpenID Connect (the test OP)."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

import httpx
import pytest
from live_server import ROOT, LiveServer, free_port, serve, uvicorn_command
from mail_server import MailServer, mail_server

from tests.oidc_op.provider import OpenIDProvider, oidc_op, oidc_op_redirect_uris

__all__ = ["oidc_op", "oidc_op_redirect_uris"]

PROJECT = ROOT / "examples" / "django_project"
SECRET = "django-e2e-secret-that-is-long-enough-0123456789"
CRASHES = ("Internal Server Error", "unexpected failure serving", "Exception in ASGI application")


def command(mode: str, port: int) -> list[str]:
    """The example under uvicorn (``asgi``) or Django's ``runserver`` (``wsgi``)."""
    if mode == "asgi":
        return [*uvicorn_command("myproject.asgi:application", port), "--app-dir", str(PROJECT)]
    return [sys.executable, str(PROJECT / "manage.py"), "runserver", "--noreload",
            f"127.0.0.1:{port}"]  # fmt: skip


@contextmanager
def serve_example(mode: str, port: int, env: Mapping[str, str]) -> Iterator[LiveServer]:
    """Serve the example; fails if the server log ever shows a crash."""
    with serve(command(mode, port), port, env={"AUTH_SECRET": SECRET, **env}) as live:
        yield live
        log = live.log
    for crash in CRASHES:
        assert crash not in log, log


@pytest.fixture(scope="module")
def smtp() -> Iterator[MailServer]:
    with mail_server() as server:
        yield server


@pytest.fixture(scope="module", params=["asgi", "wsgi"])
def site(
    request: pytest.FixtureRequest, oidc_op: OpenIDProvider, smtp: MailServer
) -> Iterator[LiveServer]:
    """The example with all its providers, under each server in turn."""
    port = free_port()
    client = oidc_op.register_client([f"http://127.0.0.1:{port}/auth/callback/op"])
    env = {
        "EXAMPLE_OIDC_ISSUER": oidc_op.issuer,
        "AUTH_OP_ID": client.client_id,
        "AUTH_OP_SECRET": client.client_secret or "",
        "EXAMPLE_SMTP_PORT": str(smtp.port),
        "EXAMPLE_UPDATE_AGE": "0",  # every session read re-issues the cookie
    }
    with serve_example(request.param, port, env) as live:
        yield live


@pytest.fixture
def http(site: LiveServer) -> Iterator[httpx.Client]:
    """A client with its own cookie jar; redirects are not followed."""
    with httpx.Client(base_url=site.url, timeout=15) as http:
        yield http

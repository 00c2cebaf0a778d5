"""The account pages' headers on the Django example (ASGI and WSGI), over real SMTP: the
verification and reset links answer ``Referrer-Policy: no-referrer`` (not the
``same-origin`` Django's ``SecurityMiddleware`` puts on other pages), and the reset and
two-factor set-up pages ``Cache-Control: no-store``."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from live_server import LiveServer, csrf_token, free_port
from mail_server import MailServer, sign_in_link

from tests.io_bindings.django.conftest import serve_example

pytestmark = pytest.mark.e2e

PW = "correct horse battery staple"
NO_STORE = "private, no-cache, no-store"


@pytest.fixture(scope="module", params=["asgi", "wsgi"])
def example(request: pytest.FixtureRequest, smtp: MailServer) -> Iterator[LiveServer]:
    port = free_port()
    with serve_example(request.param, port, {"EXAMPLE_SMTP_PORT": str(smtp.port)}) as live:
        yield live


def link_path(smtp: MailServer, to: str) -> str:
    link = urlsplit(sign_in_link(smtp.inbox.next_for(to)))
    return f"{link.path}?{link.query}"


def post(client: httpx.Client, route: str, **form: str) -> httpx.Response:
    return client.post(f"/auth/{route}", data={"csrfToken": csrf_token(client), **form})


def test_token_links_send_no_referrer_and_secret_pages_are_never_stored(
    example: LiveServer, smtp: MailServer
) -> None:
    email = f"ann-{uuid.uuid4().hex[:10]}@example.com"
    with httpx.Client(base_url=example.url, timeout=15) as client:
        assert client.get("/auth/signin").headers["referrer-policy"] == "same-origin"
        assert post(client, "signup", email=email, password=PW).status_code == 302
        verified = client.get(link_path(smtp, email))
        assert verified.status_code == 200
        assert verified.headers["referrer-policy"] == "no-referrer"

        assert post(client, "callback/password", email=email, password=PW).status_code == 302
        setup = client.get("/auth/two-factor-setup")
        assert "otpauth://" in setup.text
        assert setup.headers["cache-control"] == NO_STORE

        assert post(client, "forgot-password", email=email).status_code == 302
        reset = client.get(link_path(smtp, email))
        assert reset.status_code == 200
        assert reset.headers["referrer-policy"] == "no-referrer"
        assert reset.headers["cache-control"] == NO_STORE


def test_a_common_password_is_refused_on_the_page(example: LiveServer) -> None:
    with httpx.Client(base_url=example.url, timeout=15) as client:
        email = f"bo-{uuid.uuid4().hex[:10]}@example.com"
        page = post(client, "signup", email=email, password="password1")
        assert page.status_code == 400
        assert "That password is too common" in page.text

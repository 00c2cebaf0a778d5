"""The response side of the translation: several raw ``Set-Cookie`` lines through
``response.cookies``, as Django's WSGI and ASGI handlers write them."""

from __future__ import annotations

import django_db
import pytest
from django.conf import settings

if not settings.configured:  # the tests' one Django set-up, whichever module asks first
    django_db.configure()

from django.http import HttpResponse

from io_bindings.django._translate import add_cookies, django_response
from sansio_auth import Cookie, CookieOptions, Response


def set_cookie_lines(response: HttpResponse) -> list[str]:
    """What Django's handlers send (``c.output(header="")`` per entry, stripped by ASGI)."""
    return [morsel.output(header="").strip() for morsel in response.cookies.values()]


def test_every_engine_cookie_is_one_verbatim_line_in_order() -> None:
    cookies = [
        Cookie(name="a", value="x y(1)", options=CookieOptions(path="/", http_only=True)),
        Cookie(name="a", value="", options=CookieOptions(path="/auth", max_age=0)),
        Cookie(name="b.0", value="chunk", options=CookieOptions(path="/", secure=True)),
    ]
    response = HttpResponse()
    response.set_cookie("csrftoken", "django")  # Django's own cookies keep working
    add_cookies(response, cookies)
    lines = set_cookie_lines(response)
    assert lines[0].startswith("csrftoken=django")
    assert lines[1:] == [cookie.header_value() for cookie in cookies]
    assert lines[1].startswith("a=x%20y(1);")  # the engine's encoding, not SimpleCookie's


def test_engine_response_status_headers_body() -> None:
    engine = Response(
        status=302,
        headers=(("location", "/x"), ("cache-control", "no-store")),
        cookies=(Cookie(name="s", value="v"),),
    )
    response = django_response(engine)
    assert response.status_code == 302
    assert response.headers["Location"] == "/x"
    assert response.headers["Cache-Control"] == "no-store"
    assert "Content-Type" not in response.headers
    assert set_cookie_lines(response) == [engine.cookies[0].header_value()]
    assert response.content == b""


@pytest.mark.parametrize("content_type", ["application/json", "text/html; charset=utf-8"])
def test_engine_content_type_is_kept(content_type: str) -> None:
    engine = Response(headers=(("content-type", content_type),), body=b"{}")
    response = django_response(engine)
    assert response.headers["Content-Type"] == content_type
    assert response.content == b"{}"

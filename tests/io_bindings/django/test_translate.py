"""The response side of the translation: several raw ``Set-Cookie`` lines through
``response.cookies``, as Django's WSGI and ASGI handlers write them."""

from __future__ import annotations

import django_db
import pytest
from django.conf import settings

if not settings.configured:  # the tests' one Django set-up, whichever module asks first
    django_db.configure()

from http.cookies import SimpleCookie
from urllib.parse import parse_qsl

from django.http import HttpResponse
from django.test import RequestFactory, override_settings

from io_bindings.django._translate import add_cookies, django_response, engine_request
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


def test_a_jar_fed_from_response_cookies_has_each_cookie_as_sent() -> None:
    """What Django's test client does with a response (``SimpleCookie.update``): each engine
    cookie under its name, its value as the browser sends it back."""
    response = HttpResponse()
    add_cookies(response, [Cookie(name="authjs.csrf-token", value="t|h")])
    jar = SimpleCookie()
    jar.update(response.cookies)
    [morsel] = jar.values()
    assert (morsel.key, morsel.value, morsel.coded_value) == ("authjs.csrf-token", "t|h", "t%7Ch")
    morsel.set("authjs.csrf-token", "other", "other")  # changed by Django: Django's line
    assert morsel.output(header="").strip().startswith("authjs.csrf-token=other")


@override_settings(ALLOWED_HOSTS=["testserver"])
def test_a_multipart_form_reaches_the_engine_urlencoded() -> None:
    fields = {"csrfToken": "t|h", "email": "ada@example.com", "password": "p w&"}
    request = RequestFactory().post("/auth/callback/password", fields, HTTP_HOST="testserver")
    translated = engine_request(request, request.body)
    assert translated.header("content-type") == "application/x-www-form-urlencoded"
    assert dict(parse_qsl(translated.body.decode())) == fields

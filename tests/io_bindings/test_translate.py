"""The shared translation: a Host that does not make a URL is refused, a good one is kept;
what of an ASGI request is read, and in which order it is refused."""

from __future__ import annotations

import pytest

from io_bindings.translate import (
    BAD_HOST,
    BODY_TOO_LARGE,
    HEADERS_TOO_LARGE,
    BadHost,
    HeaderLimits,
    asgi_request,
    asgi_request_now,
    make_request,
)
from sansio_auth import Request


@pytest.mark.parametrize(
    "host", ["bad host", "a/b", "user@evil.test", "app.test:99999", "app.test:x", "", "[::1"]
)
def test_a_host_that_does_not_make_a_url_is_refused(host: str) -> None:
    with pytest.raises(BadHost):
        make_request("GET", scheme="http", host=host, raw_path="/auth/csrf", headers={})


@pytest.mark.parametrize("host", ["app.test", "app.test:8000", "127.0.0.1:3000", "[::1]:8000"])
def test_a_good_host_makes_the_url(host: str) -> None:
    request = make_request(
        "GET", scheme="https", host=host, raw_path="/auth/%61", query="a=1", headers={}
    )
    assert request.url == f"https://{host}/auth/%61?a=1"


@pytest.mark.parametrize("host", ["bad host", "app.test:x"])
def test_a_bad_host_is_refused_every_time_it_comes(host: str) -> None:
    for _ in range(3):
        with pytest.raises(BadHost):
            make_request("GET", scheme="http", host=host, raw_path="/", headers={})


@pytest.mark.parametrize("raw_path", ["x/auth/csrf", "*", ":1/auth"])
def test_a_path_that_would_run_on_into_the_host_is_refused(raw_path: str) -> None:
    with pytest.raises(BadHost):
        make_request("GET", scheme="http", host="app.test", raw_path=raw_path, headers={})


def _scope(method: str) -> dict[str, object]:
    return {
        "type": "http",
        "method": method,
        "path": "/auth/session",
        "raw_path": b"/auth/session",
        "query_string": b"",
        "headers": [(b"host", b"example.com"), (b"content-length", b"999999")],
    }


@pytest.mark.anyio
@pytest.mark.parametrize("method", ["GET", "HEAD"])
async def test_the_body_of_a_get_or_head_is_not_read(method: str) -> None:
    async def receive() -> dict[str, object]:
        raise AssertionError("a GET body was read")

    request = await asgi_request(_scope(method), receive, limit=10)
    assert isinstance(request, Request)
    assert request.body == b""


@pytest.mark.anyio
async def test_a_post_body_over_the_cap_is_refused_from_its_length() -> None:
    async def receive() -> dict[str, object]:
        raise AssertionError("the body was read despite its declared length")

    assert await asgi_request(_scope("POST"), receive, limit=10) is BODY_TOO_LARGE


@pytest.mark.anyio
async def test_headers_over_the_limits_are_refused_before_the_body_is_read() -> None:
    async def receive() -> dict[str, object]:
        raise AssertionError("the body was read despite the headers over their limits")

    few = HeaderLimits(max_count=1)
    assert await asgi_request(_scope("POST"), receive, 10, few) is HEADERS_TOO_LARGE
    assert asgi_request_now(_scope("GET"), few) is HEADERS_TOO_LARGE


@pytest.mark.anyio
async def test_a_get_is_made_at_once_as_asgi_request_makes_it() -> None:
    async def receive() -> dict[str, object]:
        raise AssertionError("a GET body was read")

    assert asgi_request_now(_scope("GET")) == await asgi_request(_scope("GET"), receive, 10)
    bad_host = {**_scope("GET"), "headers": [(b"host", b"exa mple.com")]}
    assert asgi_request_now(bad_host) is BAD_HOST

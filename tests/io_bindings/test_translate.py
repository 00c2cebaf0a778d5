"""The shared translation: a Host that does not make a URL is refused, a good one is kept."""

from __future__ import annotations

import pytest

from io_bindings.translate import BadHost, make_request


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

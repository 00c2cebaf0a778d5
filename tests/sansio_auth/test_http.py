"""HTTP values: requests, responses, URL helpers, dates."""

import random
import string
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_auth import Cookie, Request, Response, headers_from_pairs, http
from sansio_auth.http import http_date, iso_date, same_origin, split_url


def test_headers_from_pairs_lowercases_and_folds():
    headers = headers_from_pairs(
        [
            (b"Cookie", b"a=1"),
            ("X-Thing", "x"),
            (b"cookie", b"b=2"),
            (b"Accept", b"text/html"),
            (b"accept", b"application/json"),
        ]
    )
    assert headers == {
        "cookie": "a=1; b=2",
        "x-thing": "x",
        "accept": "text/html, application/json",
    }


def test_headers_from_pairs_keeps_few_and_short_names_lowered():
    made_up = [(f"X-Made-Up-{i}".encode(), b"v") for i in range(1000)]
    pairs = [*made_up, (b"X-" + b"L" * 100, b"v"), ("X-Str", "s"), (b"X-STR", b"b")]
    for _ in range(2):  # the second time, from the table of names already seen
        headers = headers_from_pairs(pairs)
        assert headers["x-made-up-999"] == "v"
        assert headers["x-" + "l" * 100] == "v"
        assert headers["x-str"] == "s, b"
    assert len(http._HEADER_NAMES) <= 512
    assert max(map(len, http._HEADER_NAMES)) <= 64


_NAMES = st.sampled_from([b"host", b"Host", b"cookie", b"Cookie", b"accept", "accept", b"x-a"])
_VALUES = st.one_of(st.binary(max_size=8).map(lambda b: b.replace(b"\n", b"")), st.text(max_size=8))


@given(pairs=st.lists(st.tuples(_NAMES, _VALUES), max_size=6), as_tuple=st.booleans())
def test_headers_from_pairs_fold_as_the_loop_does(pairs: list[Any], as_tuple: bool) -> None:
    """The quick path (names seen before, bytes values, none repeated) gives what folding
    pair by pair gives, whatever the pairs."""
    expected: dict[str, str] = {}
    for raw_name, raw_value in pairs:
        name = (raw_name.decode("latin-1") if isinstance(raw_name, bytes) else raw_name).lower()
        value = raw_value.decode("latin-1") if isinstance(raw_value, bytes) else raw_value
        if name in expected:
            expected[name] += ("; " if name == "cookie" else ", ") + value
        else:
            expected[name] = value
    given_pairs = tuple(pairs) if as_tuple else pairs
    for _ in range(2):  # the second time the names are known
        assert headers_from_pairs(given_pairs) == expected
    assert headers_from_pairs(iter(pairs)) == expected


def test_headers_from_pairs_latin1():
    assert headers_from_pairs([(b"x", "é".encode("latin-1"))]) == {"x": "é"}


def test_request_header():
    request = Request(method="GET", url="http://h/", headers={"x-a": "1"})
    assert request.header("x-a") == "1"
    assert request.header("x-b") is None


def test_response_helpers():
    response = Response(
        status=302,
        headers=(("Location", "/there"), ("content-type", "application/json")),
        cookies=(Cookie(name="a", value="b"),),
        body=b'{"x": 1}',
    )
    assert response.header("location") == "/there"
    assert response.location == "/there"
    assert response.header("missing") is None
    assert response.json() == {"x": 1}
    assert response.header_list()[-1] == ("set-cookie", "a=b; Path=/; HttpOnly; SameSite=Lax")


def test_split_url():
    assert split_url("HTTP://Example.COM:8080/a/b?x=1&x=2&y=") == (
        "http://example.com:8080",
        "/a/b",
        {"x": "2", "y": ""},
    )
    assert split_url("http://h")[1] == "/"


def test_only_urls_without_a_query_are_memoised():
    http._memoised_origin_and_path.cache_clear()
    assert http.origin_and_path("http://H/cb?code=secret") == ("http://h", "/cb")
    assert http.url_query("http://H/cb?code=secret") == {"code": "secret"}
    assert http._memoised_origin_and_path.cache_info().currsize == 0  # a code is never kept
    assert http.origin_and_path("http://H/auth/session") == ("http://h", "/auth/session")
    assert http.url_query("http://H/auth/session") == {}
    assert http._memoised_origin_and_path.cache_info().currsize == 1


@pytest.mark.parametrize(
    ("url", "origin", "same"),
    [
        ("http://localhost:3000/x", "http://localhost:3000", True),
        ("HTTP://LOCALHOST:3000/ok", "http://localhost:3000", True),
        ("https://example.com:443/x", "https://example.com", True),
        ("http://example.com:80", "http://example.com", True),
        ("http://[::1]:8000/", "http://[::1]:8000", True),
        ("https://localhost:3000/x", "http://localhost:3000", False),
        ("http://localhost:3001/x", "http://localhost:3000", False),
        ("http://localhost:3000.evil.com/", "http://localhost:3000", False),
        ("http://localhost:3000@evil.com/", "http://localhost:3000", False),
        ("javascript:alert(1)", "http://localhost:3000", False),
        ("http://localhost:99999/", "http://localhost:3000", False),
        ("//localhost:3000/x", "http://localhost:3000", False),
        ("", "http://localhost:3000", False),
    ],
)
def test_same_origin(url, origin, same):
    assert same_origin(url, origin) is same


def test_iso_date_matches_javascript():
    assert iso_date(1797943810.25) == "2026-12-22T12:50:10.250Z"
    assert iso_date(0) == "1970-01-01T00:00:00.000Z"


def test_cookie_values_are_encoded_as_encode_uri_component():
    rng = random.Random(13)
    alphabet = string.printable + "é€😀|%"
    values = ["", "a-b_c.d!e~f*g'h(i)j", "a|b", "a b;c", *string.punctuation]
    values += ["".join(rng.choices(alphabet, k=rng.randrange(1, 30))) for _ in range(300)]
    for value in values:
        header = Cookie(name="n", value=value).header_value()
        assert header.partition(";")[0] == "n=" + quote(value, safe="-_.!~*'()")


def test_http_date_is_rfc_1123_in_english():
    rng = random.Random(13)
    for timestamp in [0, 1_800_000_000.9, *(rng.uniform(0, 4e9) for _ in range(300))]:
        expected = datetime.fromtimestamp(int(timestamp), UTC).strftime("%a, %d %b %Y %H:%M:%S")
        assert http_date(timestamp) == expected + " GMT"


def test_iso_date_keeps_milliseconds_as_datetime_rounds_them():
    rng = random.Random(13)
    for timestamp in [0, 1.9999996, 1_800_000_000.0005, *(rng.uniform(0, 4e9) for _ in range(300))]:
        moment = datetime.fromtimestamp(timestamp, UTC).replace(tzinfo=None)
        assert iso_date(timestamp) == moment.isoformat(timespec="milliseconds") + "Z"

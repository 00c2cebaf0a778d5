"""Auth.js's cookie names, attributes, overrides and the chunking of long session cookies."""

from urllib.parse import unquote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_auth import Cookie, CookieOptions
from sansio_auth.cookies import (
    CHUNK_SIZE,
    MAX_CHUNKS,
    ResponseCookies,
    cookie_set,
    read_chunked,
    write_chunked,
)
from sansio_auth.errors import Configuration
from sansio_auth.http import http_date, parse_cookie_header
from tests.sansio_auth.driver import START, parse_set_cookie

MAX_AGE = 2592000


def test_chunk_size_is_auth_js():
    assert CHUNK_SIZE == 3936


def test_default_names_and_attributes():
    cookies = cookie_set(False, MAX_AGE, {})
    assert cookies.session_token.name == "authjs.session-token"
    assert cookies.callback_url.name == "authjs.callback-url"
    assert cookies.csrf_token.name == "authjs.csrf-token"
    assert cookies.pkce_code_verifier.name == "authjs.pkce.code_verifier"
    assert cookies.state.name == "authjs.state"
    assert cookies.nonce.name == "authjs.nonce"
    assert cookies.webauthn_challenge.name == "authjs.challenge"
    for spec in (cookies.session_token, cookies.callback_url, cookies.csrf_token):
        assert spec.options == CookieOptions(path="/", http_only=True, same_site="lax")


def test_secure_names_and_attributes():
    cookies = cookie_set(True, MAX_AGE, {})
    assert cookies.session_token.name == "__Secure-authjs.session-token"
    assert cookies.callback_url.name == "__Secure-authjs.callback-url"
    assert cookies.csrf_token.name == "__Host-authjs.csrf-token"
    assert cookies.pkce_code_verifier.name == "__Secure-authjs.pkce.code_verifier"
    assert cookies.state.name == "__Secure-authjs.state"
    assert cookies.nonce.name == "__Secure-authjs.nonce"
    assert cookies.webauthn_challenge.name == "__Secure-authjs.challenge"
    for key in cookies.__struct_fields__:
        spec = getattr(cookies, key)
        assert spec.options.secure
        assert spec.options.path == "/"
        assert spec.options.domain is None


def test_session_cookie_expires_with_the_session_and_has_no_max_age():
    line = cookie_set(False, 60, {}).session_token.make("v", START).header_value()
    expires = http_date(START + 60)
    assert line == f"authjs.session-token=v; Path=/; Expires={expires}; HttpOnly; SameSite=Lax"


def test_check_cookie_lifetimes():
    cookies = cookie_set(False, MAX_AGE, {})
    for spec in (cookies.pkce_code_verifier, cookies.state, cookies.webauthn_challenge):
        _, _, attrs = parse_set_cookie(spec.make("v", START).header_value())
        assert attrs["max-age"] == "900"
        assert attrs["expires"] == http_date(START + 900)
    _, _, attrs = parse_set_cookie(cookies.nonce.make("v", START).header_value())
    assert "max-age" not in attrs
    assert attrs["expires"] == http_date(START + 900)


def test_session_scoped_cookies_have_no_expiry():
    cookies = cookie_set(False, MAX_AGE, {})
    for spec in (cookies.csrf_token, cookies.callback_url):
        _, _, attrs = parse_set_cookie(spec.make("v", START).header_value())
        assert "expires" not in attrs
        assert "max-age" not in attrs


def test_deletion_format():
    spec = cookie_set(False, MAX_AGE, {}).session_token
    assert spec.delete().header_value() == (
        "authjs.session-token=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax"
    )
    assert spec.delete("authjs.session-token.3").name == "authjs.session-token.3"


def test_attribute_order_of_a_full_cookie():
    options = CookieOptions(
        domain="example.com",
        secure=True,
        same_site="none",
        max_age=10,
        expires=START,
        partitioned=True,
    )
    assert Cookie(name="n", value="v", options=options).header_value() == (
        f"n=v; Max-Age=10; Domain=example.com; Path=/; Expires={http_date(START)}; "
        "HttpOnly; Secure; Partitioned; SameSite=None"
    )


def test_values_are_encoded_as_encode_uri_component():
    assert Cookie(name="c", value="tok|hash").header_value().startswith("c=tok%7Chash;")
    url = Cookie(name="c", value="http://localhost:3000/dash").header_value()
    assert url.startswith("c=http%3A%2F%2Flocalhost%3A3000%2Fdash;")
    assert (
        Cookie(name="c", value="a-b_c.d!e~f*g'h(i)j")
        .header_value()
        .startswith("c=a-b_c.d!e~f*g'h(i)j;")
    )


def test_http_date_is_rfc_1123():
    assert http_date(1797943810) == "Tue, 22 Dec 2026 12:50:10 GMT"


def test_overrides_merge_over_the_defaults():
    cookies = cookie_set(
        True,
        MAX_AGE,
        {
            "session_token": {"name": "my-session", "options": {"domain": "example.com"}},
            "csrf_token": {"options": {"same_site": "strict"}},
        },
    )
    assert cookies.session_token.name == "my-session"
    assert cookies.session_token.options.domain == "example.com"
    assert cookies.session_token.options.secure  # untouched options keep their default
    assert cookies.session_token.expires_in == MAX_AGE
    assert cookies.csrf_token.name == "__Host-authjs.csrf-token"
    assert cookies.csrf_token.options.same_site == "strict"


@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        ({"session": {}}, "session"),
        ({"state": {"nam": "x"}}, "nam"),
        ({"state": {"options": {"colour": "red"}}}, "colour"),
        ({"state": {"options": {"same_site": "sometimes"}}}, "state"),
        ({"state": {"options": {"max_age": "soon"}}}, "state"),
    ],
)
def test_bad_overrides_are_named(overrides, named):
    with pytest.raises(Configuration, match=named):
        cookie_set(False, MAX_AGE, overrides)


# -- parsing the Cookie header -----------------------------------------------------------------


def test_parse_cookie_header():
    assert parse_cookie_header("a=1; b=2;c=3") == {"a": "1", "b": "2", "c": "3"}
    assert parse_cookie_header("a=1; a=2") == {"a": "1"}  # first wins, as Auth.js
    assert parse_cookie_header("a=tok%7Chash") == {"a": "tok|hash"}
    assert parse_cookie_header("a=%E0%A4%A") == {"a": "%E0%A4%A"}  # undecodable stays raw
    assert parse_cookie_header('a="quoted"') == {"a": "quoted"}
    assert parse_cookie_header("novalue; =x; b=") == {"b": ""}
    assert parse_cookie_header(None) == {}
    assert parse_cookie_header("") == {}
    header = "x.a=1; a=%41; a.0=2; b=%7C; a=3"
    assert parse_cookie_header(header, only="a") == {"a": "A", "a.0": "2"}


def _decoded_as_unquote(value: str) -> str:
    """How cookie values were decoded before (urllib's ``unquote``, raw when not UTF-8): the
    reference the quicker decoding keeps to."""
    try:
        return unquote(value, errors="strict")
    except UnicodeDecodeError:
        return value


_COOKIE_TEXT = st.lists(
    st.one_of(
        st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters=";"),
        st.sampled_from(["%", "%41", "%7C", "%C3", "%A9", "%E0%A4", "%ZZ", "%c3%a9", "%F0%9F"]),
    )
).map("".join)


@given(value=_COOKIE_TEXT)
def test_cookie_values_decode_as_unquote_decoded_them(value: str) -> None:
    """Percent-escapes decode the whole value at once (quicker than ``unquote``, on every
    request), to what ``unquote`` gave: UTF-8, malformed escapes kept, and the value raw when
    the escapes are not UTF-8; with ``only``, the same values for the names it keeps."""
    header = f"a={value}; other={value}"
    stripped = value.strip()
    if len(stripped) > 1 and stripped[0] == stripped[-1] == '"':
        stripped = stripped[1:-1]
    expected = _decoded_as_unquote(stripped)
    assert parse_cookie_header(header) == {"a": expected, "other": expected}
    assert parse_cookie_header(header, only="a") == {"a": expected}


# -- chunking ------------------------------------------------------------------------------------


def apply(jar: dict[str, str], cookies: list[Cookie]) -> None:
    """What a browser does with the Set-Cookie lines (via their wire form)."""
    for cookie in cookies:
        name, value, attrs = parse_set_cookie(cookie.header_value())
        if attrs.get("max-age") == "0":
            jar.pop(name, None)
        else:
            jar[name] = value


def roundtrip(jar: dict[str, str]) -> dict[str, str]:
    header = "; ".join(f"{k}={v}" for k, v in jar.items())
    return parse_cookie_header(header)


SPEC = cookie_set(False, MAX_AGE, {}).session_token
NAME = SPEC.name


def test_short_value_is_one_cookie():
    cookies = write_chunked(SPEC, "x" * CHUNK_SIZE, START, [])
    assert [c.name for c in cookies] == [NAME]


def test_long_value_is_chunked():
    cookies = write_chunked(SPEC, "x" * (CHUNK_SIZE + 1), START, [])
    assert [c.name for c in cookies] == [f"{NAME}.0", f"{NAME}.1"]
    assert [len(c.value) for c in cookies] == [CHUNK_SIZE, 1]
    assert all(c.options.expires == START + MAX_AGE for c in cookies)


def test_going_from_chunked_to_single_deletes_the_chunks():
    cookies = write_chunked(SPEC, "short", START, [f"{NAME}.0", f"{NAME}.1"])
    deleted = [c.name for c in cookies if c.options.max_age == 0]
    assert deleted == [f"{NAME}.0", f"{NAME}.1"]
    assert [c.name for c in cookies if c.options.max_age != 0] == [NAME]


def test_read_orders_chunks_by_number():
    cookies = {f"{NAME}.{i}": str(i) + "|" for i in (10, 2, 0, 1, 9)}
    value, present = read_chunked(cookies, NAME)
    assert value == "0|1|2|9|10|"
    assert present == [f"{NAME}.{i}" for i in (0, 1, 2, 9, 10)]


def test_read_ignores_foreign_names():
    cookies = {NAME: "whole", f"{NAME}.x": "no", f"{NAME}-other": "no", "other": "no"}
    assert read_chunked(cookies, NAME) == ("whole", [NAME])


def test_read_of_nothing():
    assert read_chunked({}, NAME) == (None, [])
    assert read_chunked({NAME: ""}, NAME) == (None, [NAME])


def test_read_refuses_chunks_beyond_the_cap_and_names_at_most_the_cap():
    """5,000 chunk cookies are no session, and at most ``MAX_CHUNKS`` deletions answer them."""
    cookies = {f"{NAME}.{i}": "x" for i in range(5000)}
    value, present = read_chunked(cookies, NAME)
    assert value is None
    assert present == [f"{NAME}.{i}" for i in range(MAX_CHUNKS)]
    stray = f"{NAME}.{MAX_CHUNKS}"
    assert read_chunked({stray: "x"}, NAME) == (None, [stray])  # named, so it is deleted
    assert read_chunked({NAME: "v", stray: "x"}, NAME) == (None, [NAME, stray])
    within = {f"{NAME}.{i}": "x" for i in range(MAX_CHUNKS)}
    assert read_chunked(within, NAME) == ("x" * MAX_CHUNKS, list(within))


@given(
    indices=st.sets(st.integers(min_value=0, max_value=60), min_size=1),
    whole=st.booleans(),
)
def test_deleting_what_a_refusal_names_ends_the_refusal(indices, whole):
    """A browser that deletes what each answer deletes gets out of any mix of chunks in a
    bounded number of answers, each naming at most ``MAX_CHUNKS`` chunks."""
    jar = {f"{NAME}.{i}": "x" for i in indices} | ({NAME: "w"} if whole else {})
    for _ in range(len(indices) // MAX_CHUNKS + 1):
        value, present = read_chunked(jar, NAME)
        if value is not None:
            break
        assert len([n for n in present if n != NAME]) <= MAX_CHUNKS
        for name in present:
            del jar[name]
    left = [name for name in jar if name.startswith(f"{NAME}.")]
    assert all(int(name.rsplit(".", 1)[1]) < MAX_CHUNKS for name in left)  # no refusal left


def test_write_refuses_a_value_beyond_the_cap():
    assert len(write_chunked(SPEC, "x" * (MAX_CHUNKS * CHUNK_SIZE), START, [])) == MAX_CHUNKS
    with pytest.raises(Configuration, match="would need 17 chunks"):
        write_chunked(SPEC, "x" * (MAX_CHUNKS * CHUNK_SIZE + 1), START, [])


def test_response_cookies_keep_the_order_they_were_decided_in():
    csrf = cookie_set(False, MAX_AGE, {}).csrf_token
    out = ResponseCookies()
    out.set(csrf.make("token", START))
    out.delete_chunks(SPEC, [f"{NAME}.0"])
    out.set_chunked(SPEC, "x" * (CHUNK_SIZE + 1), START, [f"{NAME}.0", f"{NAME}.2"])
    out.delete(csrf)
    names = [c.name for c in out]
    assert names == [csrf.name, f"{NAME}.0", f"{NAME}.2", f"{NAME}.0", f"{NAME}.1", csrf.name]
    assert [c.name for c in out.deletions_only()] == [f"{NAME}.0", f"{NAME}.2", csrf.name]


def test_response_cookies_drop_takes_back_a_cookie_and_its_chunks_only():
    out = ResponseCookies()
    out.set_chunked(SPEC, "x" * (CHUNK_SIZE + 1), START, [])
    out.set(SPEC.delete(NAME))
    out.set(SPEC.delete(f"{NAME}-other"))
    out.drop(NAME)
    assert [c.name for c in out] == [f"{NAME}-other"]


TOKEN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."


def value_of(length: int, pattern: str) -> str:
    return (pattern * (length // len(pattern) + 1))[:length]


lengths = st.integers(min_value=1, max_value=5 * CHUNK_SIZE + 7)
patterns = st.text(alphabet=TOKEN_CHARS, min_size=1, max_size=12)


@given(first=lengths, second=lengths, pattern=patterns, garbage=st.booleans())
def test_chunking_round_trips_and_cleans_stale_chunks(first, second, pattern, garbage):
    jar: dict[str, str] = {"unrelated": "keep"}
    if garbage:
        jar[f"{NAME}.7"] = "stale-from-elsewhere"
    _, present = read_chunked(roundtrip(jar), NAME)
    apply(jar, write_chunked(SPEC, value_of(first, pattern), START, present))
    assert read_chunked(roundtrip(jar), NAME)[0] == value_of(first, pattern)

    _, present = read_chunked(roundtrip(jar), NAME)
    new_value = value_of(second, pattern[::-1])
    apply(jar, write_chunked(SPEC, new_value, START, present))
    value, present = read_chunked(roundtrip(jar), NAME)
    assert value == new_value
    chunks = -(-second // CHUNK_SIZE)
    expected = [NAME] if chunks == 1 else [f"{NAME}.{i}" for i in range(chunks)]
    assert present == expected  # no stale chunk survives
    assert jar["unrelated"] == "keep"
    assert all(len(v) <= CHUNK_SIZE for k, v in jar.items() if k.startswith(NAME))

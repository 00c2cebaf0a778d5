"""Auth.js's ``getToken`` (``sansio_auth.session_token``): the session cookie or the bearer
token, the same salts, chunking and secret rotation as a session read."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_auth import Request, jwt
from sansio_auth.cookies import CHUNK_SIZE
from sansio_auth.errors import MissingSecretError
from sansio_auth.http import decode_uri_component, encode_uri_component
from sansio_auth.session_token import bearer_token, get_token
from sansio_auth.testing import seeded_entropy

NOW = 1_800_000_000.0
SECRET = "session-token-tests-secret-long-enough-000"
OLD = "an-older-secret-that-still-decodes-00000000"
CLAIMS = {"sub": "42", "name": "Ada", "email": "ada@example.com"}
NAME = "authjs.session-token"
SECURE = "__Secure-authjs.session-token"


def token(secret: str = SECRET, salt: str = NAME, **claims: object) -> str:
    return jwt.encode({**CLAIMS, **claims}, secret, salt, now=NOW, entropy=seeded_entropy(1))


def request(**headers: str) -> Request:
    return Request(method="GET", url="https://api.example/things", headers=headers)


def decoded(found: object) -> dict[str, object]:
    assert isinstance(found, dict)
    return {k: found[k] for k in CLAIMS}


def test_from_the_session_cookie() -> None:
    found = get_token(request(cookie=f"{NAME}={token()}"), secret=SECRET, now=NOW)
    assert decoded(found) == CLAIMS


def test_from_a_chunked_cookie() -> None:
    value = token(blob="x" * (2 * CHUNK_SIZE))
    pieces = [value[i : i + CHUNK_SIZE] for i in range(0, len(value), CHUNK_SIZE)]
    assert len(pieces) == 3
    cookie = "; ".join(f"{NAME}.{i}={p}" for i, p in reversed(list(enumerate(pieces))))
    found = get_token(request(cookie=cookie), secret=SECRET, now=NOW)
    assert decoded(found) == CLAIMS


def test_from_a_bearer_token_percent_encoded() -> None:
    bearer = f"Bearer {encode_uri_component(token())}"
    assert decoded(get_token(request(authorization=bearer), secret=SECRET, now=NOW)) == CLAIMS
    raw = get_token(request(authorization=bearer), secret=None, now=NOW, raw=True)
    assert raw == token()


def test_the_cookie_wins_over_the_bearer_token() -> None:
    headers = {"cookie": f"{NAME}={token(name='cookie')}", "authorization": f"Bearer {token()}"}
    found = get_token(request(**headers), secret=SECRET, now=NOW)
    assert isinstance(found, dict)
    assert found["name"] == "cookie"


@pytest.mark.parametrize(
    "authorization",
    ["Bearer abc%ZZ", "Bearer %E0%A4%A", "Bearer %C3%28", "Basic dXNlcjpwYXNz", "Bearer", ""],
)
def test_no_token_from_a_malformed_or_other_authorization(authorization: str) -> None:
    assert bearer_token(authorization) is None
    found = get_token(request(authorization=authorization), secret=SECRET, now=NOW, raw=True)
    assert found is None


def test_secret_rotation_and_wrong_secrets() -> None:
    old = request(authorization=f"Bearer {token(secret=OLD)}")
    assert decoded(get_token(old, secret=[SECRET, OLD], now=NOW)) == CLAIMS
    assert get_token(old, secret=SECRET, now=NOW) is None


def test_an_expired_or_tampered_token_is_none() -> None:
    valid = token()
    assert (
        get_token(request(authorization=f"Bearer {valid}"), secret=SECRET, now=NOW + 40 * 86400)
        is None
    )
    tampered = valid[:-4] + ("AAAA" if not valid.endswith("AAAA") else "BBBB")
    assert get_token(request(authorization=f"Bearer {tampered}"), secret=SECRET, now=NOW) is None


def test_the_salt_is_the_cookie_name() -> None:
    secure = request(cookie=f"{SECURE}={token(salt=SECURE)}")
    assert get_token(secure, secret=SECRET, now=NOW) is None  # looks for authjs.session-token
    assert decoded(get_token(secure, secret=SECRET, now=NOW, secure_cookie=True)) == CLAIMS
    named = request(cookie=f"mine={token(salt='mine')}")
    assert decoded(get_token(named, secret=SECRET, now=NOW, cookie_name="mine")) == CLAIMS
    salted = request(authorization=f"Bearer {token(salt='pepper')}")
    assert get_token(salted, secret=SECRET, now=NOW) is None
    assert decoded(get_token(salted, secret=SECRET, now=NOW, salt="pepper")) == CLAIMS


def test_no_secret_is_an_error_unless_raw() -> None:
    with_token = request(authorization=f"Bearer {token()}")
    with pytest.raises(MissingSecretError):
        get_token(with_token, secret=None, now=NOW)
    with pytest.raises(MissingSecretError):
        get_token(with_token, secret=["", ""], now=NOW)
    assert get_token(request(), secret=None, now=NOW) is None  # no token: nothing to decode


@given(st.text())
def test_decode_uri_component_undoes_encode_uri_component(text: str) -> None:
    try:
        text.encode()
    except UnicodeEncodeError:  # lone surrogates have no UTF-8 (JavaScript throws too)
        return
    assert decode_uri_component(encode_uri_component(text)) == text

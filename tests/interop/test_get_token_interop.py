"""``getToken`` against ``@auth/core``'s own (Node): tokens Auth.js made, read from a bearer
header, a cookie and chunked cookies, decode here exactly as there; ours decode there."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

import pytest

from io_bindings import get_token
from sansio_auth import Request, jwt
from sansio_auth.http import encode_uri_component

pytestmark = pytest.mark.e2e

NodeAuth = Callable[..., Any]
SECRET = "interop-secret-0123456789abcdef0123456789"
OLD_SECRET = "interop-old-secret-fedcba9876543210fedcba98"
SESSION = "authjs.session-token"
CLAIMS = {"sub": "42", "name": "Ada", "email": "ada@example.com", "blob": "x" * 6000}
CHUNK_SIZE = 3936


def both(authjs: NodeAuth, headers: dict[str, str], **options: Any) -> tuple[Any, Any]:
    """(@auth/core's getToken, ours) on a request with ``headers``."""
    theirs = authjs("getToken", secret=SECRET, headers=headers, **options)["token"]
    secure = {"secure_cookie": True} if options.get("secureCookie") else {}
    raw = {"raw": True} if options.get("raw") else {}
    ours = get_token(
        Request(method="GET", url="http://x/", headers=headers), secret=SECRET, **secure, **raw
    )
    return theirs, ours


def test_a_token_authjs_made_reads_the_same_from_every_place(authjs: NodeAuth) -> None:
    made = authjs("encode", token=CLAIMS, secret=SECRET, salt=SESSION)
    pieces = [made[i : i + CHUNK_SIZE] for i in range(0, len(made), CHUNK_SIZE)]
    places = [
        {"authorization": f"Bearer {encode_uri_component(made)}"},
        {"authorization": f"Bearer {made}"},
        {"cookie": f"{SESSION}={made}"},
        {"cookie": "; ".join(f"{SESSION}.{i}={p}" for i, p in enumerate(pieces))},
    ]
    for headers in places:
        theirs, ours = both(authjs, headers)
        assert theirs is not None
        assert ours == theirs
        assert both(authjs, headers, raw=True) == (made, made)


def test_a_token_we_made_reads_the_same_in_authjs(authjs: NodeAuth) -> None:
    made = jwt.encode(CLAIMS, SECRET, SESSION, now=time.time(), entropy=secrets.token_bytes)
    theirs, ours = both(authjs, {"authorization": f"Bearer {encode_uri_component(made)}"})
    assert theirs is not None
    assert theirs == ours


def test_secure_cookie_salt_and_rotation(authjs: NodeAuth) -> None:
    secure = f"__Secure-{SESSION}"
    made = authjs("encode", token=CLAIMS, secret=SECRET, salt=secure)
    theirs, ours = both(authjs, {"cookie": f"{secure}={made}"}, secureCookie=True)
    assert theirs is not None
    assert ours == theirs
    assert both(authjs, {"authorization": f"Bearer {made}"}) == (None, None)  # other salt
    old = authjs("encode", token=CLAIMS, secret=OLD_SECRET, salt=SESSION)
    headers = {"authorization": f"Bearer {old}"}
    request = Request(method="GET", url="http://x/", headers=headers)
    rotated = get_token(request, secret=[SECRET, OLD_SECRET])
    assert isinstance(rotated, dict)
    assert rotated["sub"] == "42"


@pytest.mark.parametrize("bearer", ["Bearer abc%ZZ", "Bearer %C3%28", "Bearer not-a-jwe"])
def test_a_bad_bearer_token_is_null_on_both_sides(authjs: NodeAuth, bearer: str) -> None:
    assert both(authjs, {"authorization": bearer}) == (None, None)

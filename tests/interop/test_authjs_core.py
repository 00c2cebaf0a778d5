"""Session cookies cross between ``@auth/core`` 0.41.3 (Node) and this engine, both ways.

Same secret, same salt (the cookie name): a cookie minted by one side is a session on
the other, with secret rotation and with chunked (over 4 KB) tokens. The Node side
is ``@auth/core``'s own ``jwt.encode``/``jwt.decode`` and its ``Auth(request, config)``
signing in with a credentials provider; ours is the engine plus the anyio binding.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import pytest

from io_bindings.anyio import Auth
from sansio_auth import AuthConfig, Callbacks, Request, Response, jwt
from sansio_auth.providers import Credentials

pytestmark = pytest.mark.e2e

NodeAuth = Callable[..., Any]
ORIGIN = "http://127.0.0.1:3000"
SESSION = "authjs.session-token"
SECRET = "interop-secret-0123456789abcdef0123456789"
OLD_SECRET = "interop-old-secret-fedcba9876543210fedcba98"
ADA = {
    "id": "42",
    "name": "Ada",
    "email": "ada@example.com",
    "image": "https://example.com/ada.png",
}
ADA_SESSION_USER = {
    "name": "Ada",
    "email": "ada@example.com",
    "image": "https://example.com/ada.png",
}
BLOB = "0123456789abcdef" * 400  # 6400 characters: the token needs three cookies
CHUNK_SIZE = 3936  # Auth.js: 4096 per cookie minus 160 for the attributes


def make_auth(secret: str | list[str], *, blob: str | None = None) -> Auth:
    """The engine with the same app as the Node script's (see ``conftest.SCRIPT``)."""

    def authorize(credentials: dict[str, Any]) -> dict[str, Any] | None:
        ok = credentials.get("username") == "ada" and credentials.get("password") == "lovelace"
        return ADA if ok else None

    def jwt_callback(token: dict[str, Any], user: Any) -> dict[str, Any]:
        return {**token, "blob": blob} if user and blob else token

    def session_callback(session: dict[str, Any], token: dict[str, Any]) -> dict[str, Any]:
        return {**session, "sub": token.get("sub"), "blob_length": len(token.get("blob", ""))}

    config = AuthConfig(
        secret=secret,
        trust_host=True,
        providers=[Credentials(authorize=authorize, credentials={"username": {}, "password": {}})],
        callbacks=Callbacks(jwt=jwt_callback, session=session_callback),
    )
    return Auth(config, env={})


def cookie_header(cookies: dict[str, str]) -> str:
    return "; ".join(f"{name}={value}" for name, value in cookies.items())


def respond(
    auth: Auth, method: str, path: str, cookies: dict[str, str], body: str = ""
) -> Response:
    headers = {"cookie": cookie_header(cookies)}
    if body:
        headers["content-type"] = "application/x-www-form-urlencoded"
    request = Request(method=method, url=ORIGIN + path, headers=headers, body=body.encode())
    response = anyio.run(auth.respond, request)
    assert response is not None
    return response


def set_cookies(response: Response) -> dict[str, str]:
    """Cookies ``response`` sets (deletions left out), as a browser would keep them."""
    return {c.name: c.value for c in response.cookies if c.options.max_age != 0}


def our_sign_in(auth: Auth) -> dict[str, str]:
    """Sign Ada in through our credentials callback; the cookies the browser keeps."""
    csrf = respond(auth, "GET", "/auth/csrf", {})
    jar = set_cookies(csrf)
    token = csrf.json()["csrfToken"]
    body = f"csrfToken={token}&username=ada&password=lovelace"
    response = respond(auth, "POST", "/auth/callback/credentials", jar, body)
    assert response.status == 302
    return {k: v for k, v in set_cookies(response).items() if k.startswith(SESSION)}


def our_session(auth: Auth, cookies: dict[str, str]) -> tuple[Any, dict[str, str]]:
    """``GET /auth/session`` here: the body and the session cookies set."""
    response = respond(auth, "GET", "/auth/session", cookies)
    assert response.status == 200
    return response.json(), set_cookies(response)


def server_side_session(origin: str, cookie: str) -> Any:
    """``Auth.session()`` (the server-side read the adapters use) for a page request."""
    page = Request(method="GET", url=f"{origin}/dashboard", headers={"cookie": cookie})
    return anyio.run(make_auth(SECRET).session, page).data


def node_sign_in(
    authjs: NodeAuth, secret: str | list[str], blob: str | None = None
) -> dict[str, str]:
    """Sign Ada in through ``@auth/core``'s ``Auth``; its session cookies."""
    result = authjs("signIn", origin=ORIGIN, secret=secret, blob=blob, password="lovelace")
    assert result["status"] == 302, result
    return node_cookies(result["cookies"])


def node_cookies(lines: list[str]) -> dict[str, str]:
    """Session cookies (chunks included, deletions left out) from ``Set-Cookie`` lines."""
    pairs = (line.partition("=") for line in lines)
    return {name: value for name, _, value in pairs if name.startswith(SESSION) and value}


@pytest.mark.parametrize(
    ("origin", "name"),
    [("http://127.0.0.1:3000", SESSION), ("https://app.example.com", f"__Secure-{SESSION}")],
)
def test_token_encoded_by_authjs_is_our_session(authjs: NodeAuth, origin: str, name: str) -> None:
    claims = {"name": "Ada", "email": "ada@example.com", "picture": ADA["image"], "sub": "42"}
    token = authjs("encode", token=claims, secret=SECRET, salt=name)
    session = server_side_session(origin, f"{name}={token}")
    assert session["user"] == ADA_SESSION_USER
    assert session["sub"] == "42"
    # the salt is the cookie name: the same token under the other name is no session
    other = SESSION if name != SESSION else f"__Secure-{SESSION}"
    assert server_side_session(origin, f"{other}={token}") is None


def test_our_session_cookie_decodes_in_authjs(authjs: NodeAuth) -> None:
    cookie = our_sign_in(make_auth(SECRET))[SESSION]
    decoded = authjs("decode", token=cookie, secret=SECRET, salt=SESSION)
    ours = jwt.decode(cookie, SECRET, SESSION, now=decoded["claims"]["iat"])
    assert decoded["claims"] == ours
    assert {k: ours[k] for k in ("name", "email", "picture", "sub")} == {
        "name": "Ada",
        "email": "ada@example.com",
        "picture": ADA["image"],
        "sub": "42",
    }
    assert ours["exp"] - ours["iat"] == 30 * 24 * 60 * 60
    assert "error" in authjs("decode", token=cookie, secret=OLD_SECRET, salt=SESSION)


def test_authjs_sign_in_cookie_is_our_session(authjs: NodeAuth) -> None:
    cookies = node_sign_in(authjs, SECRET)
    assert list(cookies) == [SESSION]
    session, _ = our_session(make_auth(SECRET), cookies)
    assert session["user"] == ADA_SESSION_USER
    assert session["sub"] == "42"


def test_our_sign_in_cookie_is_an_authjs_session(authjs: NodeAuth) -> None:
    cookies = our_sign_in(make_auth(SECRET))
    result = authjs("session", origin=ORIGIN, secret=SECRET, cookie=cookie_header(cookies))
    assert result["status"] == 200
    assert result["body"]["user"] == ADA_SESSION_USER
    assert result["body"]["sub"] == "42"
    # Auth.js re-encrypts on every read: its new cookie is still a session here
    session, _ = our_session(make_auth(SECRET), node_cookies(result["cookies"]))
    assert session["user"] == ADA_SESSION_USER


def test_rotation_accepts_authjs_tokens_under_the_old_secret(authjs: NodeAuth) -> None:
    cookies = node_sign_in(authjs, OLD_SECRET)
    rotated = make_auth([SECRET, OLD_SECRET])  # re-issued although within update_age
    session, reissued = our_session(rotated, cookies)
    assert session["user"] == ADA_SESSION_USER
    assert "claims" in authjs("decode", token=reissued[SESSION], secret=SECRET, salt=SESSION)
    assert "error" in authjs("decode", token=reissued[SESSION], secret=OLD_SECRET, salt=SESSION)
    assert our_session(make_auth(SECRET), cookies)[0] is None  # the old secret is needed


def test_rotation_new_tokens_use_the_first_secret(authjs: NodeAuth) -> None:
    cookie = our_sign_in(make_auth([SECRET, OLD_SECRET]))[SESSION]
    both = authjs("decode", token=cookie, secret=[SECRET, OLD_SECRET], salt=SESSION)
    assert both["claims"]["sub"] == "42"
    assert "claims" in authjs("decode", token=cookie, secret=SECRET, salt=SESSION)
    assert "error" in authjs("decode", token=cookie, secret=OLD_SECRET, salt=SESSION)
    result = authjs(
        "session", origin=ORIGIN, secret=[OLD_SECRET, SECRET], cookie=f"{SESSION}={cookie}"
    )
    assert result["body"]["user"] == ADA_SESSION_USER


def assert_chunked(cookies: dict[str, str]) -> None:
    """Chunks ``.0``, ``.1``, ... of :data:`CHUNK_SIZE` characters, the last one shorter."""
    names = [f"{SESSION}.{i}" for i in range(len(cookies))]
    assert len(names) == 3
    assert sorted(cookies) == names
    assert [len(cookies[name]) for name in names[:-1]] == [CHUNK_SIZE] * (len(names) - 1)
    assert 0 < len(cookies[names[-1]]) <= CHUNK_SIZE


def test_chunked_cookie_from_authjs_is_our_session(authjs: NodeAuth) -> None:
    cookies = node_sign_in(authjs, SECRET, blob=BLOB)
    assert_chunked(cookies)
    session, _ = our_session(make_auth(SECRET), cookies)
    assert session["user"] == ADA_SESSION_USER
    assert session["blob_length"] == len(BLOB)


def test_our_chunked_cookie_is_an_authjs_session(authjs: NodeAuth) -> None:
    cookies = our_sign_in(make_auth(SECRET, blob=BLOB))
    assert_chunked(cookies)
    result = authjs("session", origin=ORIGIN, secret=SECRET, cookie=cookie_header(cookies))
    assert result["body"]["user"] == ADA_SESSION_USER
    assert result["body"]["blobLength"] == len(BLOB)

"""``get_token`` for API servers: the runtimes' (their configuration: secrets, cookie names,
``jwt.decode``, revocation) and ``io_bindings.get_token`` on every framework's request."""

from __future__ import annotations

import io
from typing import Any

import pytest

from io_bindings import get_token
from io_bindings.anyio import Auth
from io_bindings.db.memory import MemoryAdapter
from io_bindings.sync import SyncAuth
from io_bindings.wsgi import AuthWSGI
from sansio_auth import AuthConfig, Request, jwt
from sansio_auth.errors import MissingSecretError
from sansio_auth.http import encode_uri_component
from sansio_auth.providers import Credentials

SECRET = "get-token-tests-secret-that-is-long-enough-0"
NAME = "authjs.session-token"
CLAIMS = {"sub": "42", "name": "Ada", "sid": "s-1"}


def token(salt: str = NAME, secret: str = SECRET, **claims: Any) -> str:
    import secrets
    import time

    return jwt.encode(
        {**CLAIMS, **claims}, secret, salt, now=time.time(), entropy=secrets.token_bytes
    )


def api_request(value: str, origin: str = "http://api.test") -> Request:
    headers = {"authorization": f"Bearer {encode_uri_component(value)}"}
    return Request(method="GET", url=f"{origin}/things", headers=headers)


def config(**options: Any) -> AuthConfig:
    providers = [Credentials(authorize=lambda credentials: None)]
    return AuthConfig(secret=SECRET, trust_host=True, providers=providers, **options)


def claims_of(found: Any) -> dict[str, Any]:
    assert isinstance(found, dict)
    return {k: found[k] for k in CLAIMS}


@pytest.mark.anyio
async def test_the_runtime_reads_a_bearer_token_with_its_configuration() -> None:
    auth = Auth(config(), env={})
    assert claims_of(await auth.get_token(api_request(token()))) == CLAIMS
    value = token()
    assert await auth.get_token(api_request(value), raw=True) == value
    secure = api_request(token(salt=f"__Secure-{NAME}"), origin="https://api.test")
    assert claims_of(await auth.get_token(secure)) == CLAIMS  # https: the __Secure- name
    assert await auth.get_token(api_request("not a token")) is None
    assert await auth.get_token(Request(method="GET", url="http://api.test/")) is None


@pytest.mark.anyio
async def test_the_runtime_uses_jwt_decode_and_refuses_revoked_tokens() -> None:
    async def decode(token: str, secret: Any, salt: str) -> dict[str, Any] | None:
        return {"sub": "from-decode", "iat": 1} if token == "opaque" else None

    auth = Auth(config(jwt={"decode": decode}), env={})
    assert await auth.get_token(api_request("opaque")) == {"sub": "from-decode", "iat": 1}
    assert await auth.get_token(api_request("other")) is None
    revocable = Auth(
        config(adapter=MemoryAdapter(), session={"strategy": "jwt", "revocation": True}),
        env={},
    )
    value = token(iat=1)
    assert claims_of(await revocable.get_token(api_request(value))) == CLAIMS
    await revocable.revoke_sessions(user_id="42")
    assert await revocable.get_token(api_request(value)) is None


def test_the_sync_runtime_and_wsgi() -> None:
    auth = SyncAuth(config(), env={})
    assert claims_of(auth.get_token(api_request(token()))) == CLAIMS
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": "/things",
        "SERVER_NAME": "api.test",
        "SERVER_PORT": "80",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(),
        "HTTP_AUTHORIZATION": f"Bearer {token()}",
    }
    assert claims_of(AuthWSGI(auth=auth).get_token(environ)) == CLAIMS


# -- io_bindings.get_token: any framework's request --------------------------------------------


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("AUTH_SECRET", SECRET)
    return SECRET


def test_the_helper_defaults_to_auth_secret(secret: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert claims_of(get_token(api_request(token()))) == CLAIMS
    assert get_token(api_request(token()), raw=True) is not None
    monkeypatch.delenv("AUTH_SECRET")
    with pytest.raises(MissingSecretError):
        get_token(api_request(token()))
    assert claims_of(get_token(api_request(token()), secret=["new-one", SECRET])) == CLAIMS


def test_starlette_and_asgi_scopes(secret: str) -> None:
    from starlette.requests import Request as StarletteRequest

    scope = {
        "type": "http",
        "method": "GET",
        "path": "/",
        "headers": [(b"cookie", f"{NAME}={token()}".encode())],
    }
    assert claims_of(get_token(StarletteRequest(scope))) == CLAIMS
    assert claims_of(get_token(scope)) == CLAIMS


def test_aiohttp(secret: str) -> None:
    from aiohttp.test_utils import make_mocked_request

    request = make_mocked_request("GET", "/", headers={"Authorization": f"Bearer {token()}"})
    assert claims_of(get_token(request)) == CLAIMS


def test_django(secret: str) -> None:
    from django.conf import settings

    if not settings.configured:
        settings.configure(ALLOWED_HOSTS=["*"])
    from django.test import RequestFactory

    request = RequestFactory().get("/", HTTP_AUTHORIZATION=f"Bearer {token()}")
    assert claims_of(get_token(request)) == CLAIMS


def test_flask_and_wsgi_environs(secret: str) -> None:
    from flask import Flask
    from flask import request as flask_request

    app = Flask(__name__)
    with app.test_request_context("/", headers={"Cookie": f"{NAME}={token()}"}):
        assert claims_of(get_token(flask_request)) == CLAIMS
        assert claims_of(get_token(flask_request.environ)) == CLAIMS


def test_something_without_headers_is_refused() -> None:
    with pytest.raises(TypeError, match="headers"):
        get_token(object(), secret=SECRET)

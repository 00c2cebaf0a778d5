"""Federated sign-out and revocable sessions against the real OP (``oidc-provider`` with
RP-initiated and back-channel logout on), the app served for real (hypercorn in the test's
own event loop, so the test sees the app's state), on asyncio and trio.

* RP-initiated logout: after our federated sign-out the OP session is over too (signing
  in again shows the OP's login form); without it the OP signs the user straight back in.
* Back-channel logout: the user signs out at the OP; the OP's logout token ends the
  app's session, for JWT and database sessions.
* Forged, replayed, expired and nonce-carrying logout tokens are refused with 400.
* ``revoke_sessions`` ends sessions for both strategies.
"""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urljoin, urlsplit

import anyio
import httpx
import pytest
import sniffio
from joserfc import jwt as jose_jwt
from joserfc.jwk import RSAKey
from live_server import free_port

from io_bindings.anyio import Auth, AuthApp
from io_bindings.db.sqlite import SQLiteAdapter
from sansio_auth import AuthConfig
from tests.oidc_op.login import _first_form
from tests.oidc_op.provider import OIDCClient, OpenIDProvider

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

SECRET = "a-test-secret-that-is-long-enough-for-hkdf"
EVENT = "http://schemas.openid.net/event/backchannel-logout"


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@asynccontextmanager
async def serving(app: Any, port: int) -> AsyncIterator[None]:
    """Serve ASGI ``app`` on 127.0.0.1:``port`` with hypercorn in this event loop."""
    from hypercorn.config import Config

    config = Config()
    config.bind = [f"127.0.0.1:{port}"]
    config.loglevel = "WARNING"
    stop = anyio.Event()
    if sniffio.current_async_library() == "trio":
        from hypercorn.trio import serve
    else:
        from hypercorn.asyncio import serve  # type: ignore[assignment]
    async with anyio.create_task_group() as group:
        group.start_soon(lambda: serve(app, config, shutdown_trigger=stop.wait))
        with anyio.fail_after(10):
            while True:
                try:
                    await anyio.connect_tcp("127.0.0.1", port)
                    break
                except OSError:
                    await anyio.sleep(0.02)
        try:
            yield
        finally:
            stop.set()


@dataclass
class Site:
    """The app at ``url`` and a browser (one cookie jar for the app and the OP)."""

    url: str
    auth: Auth
    op: OpenIDProvider
    browser: httpx.AsyncClient

    async def session(self) -> Any:
        return (await self.browser.get(f"{self.url}/auth/session")).json()

    async def csrf(self) -> str:
        token: str = (await self.browser.get(f"{self.url}/auth/csrf")).json()["csrfToken"]
        return token

    async def start_sign_in(self) -> str:
        response = await self.browser.post(
            f"{self.url}/auth/signin/op", data={"csrfToken": await self.csrf()}
        )
        assert response.status_code == 302
        return response.headers["location"]

    async def sign_in(self) -> None:
        answer = await self.op.alogin(self.browser, await self.start_sign_in())
        done = await self.browser.get(answer.url)
        assert done.status_code == 302, done.text
        assert (await self.session())["user"]["email"] == self.op.account.email

    async def op_asks_for_login(self) -> bool:
        """Start a sign-in and follow the OP's redirects: does it show its login form?"""
        url = await self.start_sign_in()
        for _ in range(10):
            response = await self.browser.get(url)
            if response.status_code in (302, 303):
                url = urljoin(url, response.headers["location"])
                if not url.startswith(self.op.issuer):
                    return False  # straight back to the app: the OP session was alive
                continue
            return _first_form(response.text).fields.get("prompt") == "login"
        raise AssertionError("no page")

    async def sign_out(self, **form: str) -> httpx.Response:
        return await self.browser.post(
            f"{self.url}/auth/signout", data={"csrfToken": await self.csrf(), **form}
        )

    async def logout_at_op(self, url: str | None = None) -> httpx.Response:
        """Sign out at the OP (its end-session page, confirmed); the OP's last answer."""
        response = await self.browser.get(url or f"{self.op.issuer}/session/end")
        assert response.status_code == 200, response.text
        form = _first_form(response.text)
        action = urljoin(str(response.url), form.action)
        return await self.browser.post(action, data={**form.fields, "logout": "yes"})


@pytest.fixture
async def make_site(oidc_op: OpenIDProvider, tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    async with anyio.create_task_group() as group, httpx.AsyncClient(timeout=10) as browser:
        stops: list[anyio.Event] = []

        async def make(strategy: str = "jwt", **provider: Any) -> Site:
            port = free_port()
            url = f"http://127.0.0.1:{port}"
            client = oidc_op.register_client(
                [f"{url}/auth/callback/op"],
                post_logout_redirect_uris=[f"{url}/auth/signout/callback/op"],
                backchannel_logout_uri=f"{url}/auth/backchannel-logout/op",
                backchannel_logout_session_required=True,
            )
            session: dict[str, Any] = {"strategy": strategy}
            if strategy == "jwt":
                session["revocation"] = True
            adapter = SQLiteAdapter(tmp_path / f"{uuid.uuid4().hex}.db")
            config = AuthConfig(
                secret=SECRET,
                trust_host=True,
                adapter=adapter,
                session=session,
                providers=[oidc_op.provider_config(client, **provider)],
            )
            auth = Auth(config, env={})
            started, stop = anyio.Event(), anyio.Event()
            stops.append(stop)

            async def run() -> None:
                async with serving(AuthApp(auth=auth), port):
                    started.set()
                    await stop.wait()
                await auth.aclose()
                await adapter.aclose()

            group.start_soon(run)
            await started.wait()
            site = Site(url, auth, oidc_op, browser)
            site.client = client  # type: ignore[attr-defined]
            return site

        yield make
        for stop in stops:
            stop.set()


# -- RP-initiated logout -----------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["jwt", "database"])
async def test_federated_sign_out_ends_the_op_session(make_site: Any, strategy: str) -> None:
    site = await make_site(strategy, end_session=True)
    await site.sign_in()
    response = await site.sign_out(callbackUrl="/goodbye")
    assert response.status_code == 302
    location = response.headers["location"]
    assert location.startswith(f"{site.op.issuer}/session/end?")
    params = dict(parse_qsl(urlsplit(location).query))
    assert params["client_id"] == site.client.client_id  # type: ignore[attr-defined]
    assert params["post_logout_redirect_uri"] == f"{site.url}/auth/signout/callback/op"
    assert params["id_token_hint"].count(".") == 2
    assert params["state"]
    assert await site.session() is None  # our session is over already
    back = await site.logout_at_op(location)  # the OP's confirmation page, then back to us
    assert back.status_code in (302, 303)
    callback = back.headers["location"]
    assert callback.startswith(f"{site.url}/auth/signout/callback/op?")
    assert dict(parse_qsl(urlsplit(callback).query))["state"] == params["state"]
    done = await site.browser.get(callback)
    assert done.status_code == 302
    assert done.headers["location"] == f"{site.url}/goodbye"
    assert await site.op_asks_for_login()  # signing in again asks for the password


async def test_without_federation_the_op_signs_the_user_straight_back_in(make_site: Any) -> None:
    site = await make_site()
    await site.sign_in()
    response = await site.sign_out()
    assert response.headers["location"] == site.url  # no detour to the OP
    assert not await site.op_asks_for_login()  # Auth.js's behaviour (next-auth #836)


async def test_sign_out_federated_on_request(make_site: Any) -> None:
    site = await make_site()
    await site.sign_in()
    response = await site.sign_out(federated="true")
    assert response.headers["location"].startswith(f"{site.op.issuer}/session/end?")


async def test_a_forged_state_is_refused(make_site: Any) -> None:
    site = await make_site(end_session=True)
    await site.sign_in()
    location = (await site.sign_out()).headers["location"]
    assert location.startswith(site.op.issuer)
    done = await site.browser.get(f"{site.url}/auth/signout/callback/op?state=forged")
    assert done.status_code == 302
    assert "/auth/error?error=" in done.headers["location"]


# -- back-channel logout ----------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["jwt", "database"])
async def test_backchannel_logout_from_the_op_ends_the_session(
    make_site: Any, strategy: str
) -> None:
    site = await make_site(strategy, backchannel_logout=True)
    await site.sign_in()
    assert await site.session() is not None
    await site.logout_at_op()  # the user signs out at the OP: it posts us a logout token
    assert await site.session() is None


async def test_backchannel_logout_ends_exactly_the_database_session_of_its_sid(
    make_site: Any,
) -> None:
    """One user, two browsers (two OP sessions): the OP logs one out, and its logout token's
    ``sid`` ends that browser's session row only (the rows keep the sign-in's ``sid``)."""
    site = await make_site("database", backchannel_logout=True)
    await site.sign_in()
    async with httpx.AsyncClient(timeout=10) as second_browser:
        other = Site(site.url, site.auth, site.op, second_browser)
        await other.sign_in()
        await site.logout_at_op()
        assert await site.session() is None
        assert await other.session() is not None  # the same user, another OP session
        await other.logout_at_op()
        assert await other.session() is None


def logout_token(op: OpenIDProvider, client: OIDCClient, **changes: Any) -> str:
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": op.issuer,
        "aud": client.client_id,
        "iat": now,
        "exp": now + 120,
        "jti": secrets.token_hex(8),
        "sub": op.account.sub,
        "events": {EVENT: {}},
    }
    claims.update(changes)
    claims = {k: v for k, v in claims.items() if v is not None}
    key = changes.pop("_key", None) or RSAKey.import_key(op.signing_key)
    header = {"alg": "RS256", "kid": op.signing_key["kid"], "typ": "logout+jwt"}
    return jose_jwt.encode(header, claims, key)


async def post_logout(site: Site, token: str) -> httpx.Response:
    return await site.browser.post(
        f"{site.url}/auth/backchannel-logout/op", data={"logout_token": token}
    )


async def test_logout_tokens_are_checked(make_site: Any) -> None:
    site = await make_site(backchannel_logout=True)
    client = site.client  # type: ignore[attr-defined]
    await site.sign_in()
    other = RSAKey.generate_key(2048, parameters={"kid": site.op.signing_key["kid"]})
    refused = {
        "forged": jose_jwt.encode(
            {"alg": "RS256", "kid": site.op.signing_key["kid"]},
            {"iss": site.op.issuer, "aud": client.client_id, "iat": int(time.time()),
             "jti": "x", "sub": site.op.account.sub, "events": {EVENT: {}}},
            other,
        ),
        "expired": logout_token(site.op, client, iat=int(time.time()) - 600,
                                exp=int(time.time()) - 300),
        "nonce": logout_token(site.op, client, nonce="n"),
        "no event": logout_token(site.op, client, events={"other": {}}),
        "other audience": logout_token(site.op, client, aud="someone-else"),
        "no sub nor sid": logout_token(site.op, client, sub=None),
    }  # fmt: skip
    for name, token in refused.items():
        response = await post_logout(site, token)
        assert response.status_code == 400, name
        assert response.headers["cache-control"] == "no-store"
        assert response.json()["error"] == "invalid_request"
        assert await site.session() is not None, name  # still signed in
    missing = await site.browser.post(f"{site.url}/auth/backchannel-logout/op", data={})
    assert missing.status_code == 400
    good = logout_token(site.op, client)
    answer = await post_logout(site, good)
    assert answer.status_code == 200
    assert answer.headers["cache-control"] == "no-store"
    assert await site.session() is None
    await anyio.sleep(1.1)  # a new session, issued after the logout
    await site.sign_in()
    replayed = await post_logout(site, good)
    assert replayed.status_code == 400  # the jti was used
    assert await site.session() is not None


# -- revoke_sessions ---------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["jwt", "database"])
async def test_revoke_sessions_signs_out_everywhere(make_site: Any, strategy: str) -> None:
    site = await make_site(strategy)
    await site.sign_in()
    await anyio.sleep(1.1)  # JWT marks have whole-second precision: issued before, revoked
    [account] = await site.auth.settings.adapter.list_accounts_by_user_id(
        str((await site.auth.settings.adapter.get_user_by_account("op", site.op.account.sub))["id"])
    )
    deleted = await site.auth.revoke_sessions(user_id=account["user_id"])
    assert deleted == (1 if strategy == "database" else 0)
    assert await site.session() is None

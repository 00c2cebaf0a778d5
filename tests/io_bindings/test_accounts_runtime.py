"""The runtime's account API (server-side: create a user with a password, set a password,
read and reset a second factor), on asyncio, trio and the sync runtime; and password hashing
performed off the event loop."""

from __future__ import annotations

import threading
from typing import Any
from urllib.parse import urlencode

import pytest

import sansio_auth.passwords
from io_bindings.anyio import Auth
from io_bindings.db.memory import MemoryAdapter
from io_bindings.sync import SyncAuth
from sansio_auth import AuthConfig, Request
from sansio_auth.providers import Password
from tests.sansio_auth.accounts_peer import FAST, Outbox

pytestmark = pytest.mark.anyio
SECRET = "s" * 40


def config(**options: Any) -> AuthConfig:
    return AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=MemoryAdapter(),
        providers=[Password(send_email=Outbox(), argon2=FAST)],
        session={"strategy": "jwt"},
        two_factor={},
        **options,
    )


def sign_in_request(auth: Auth | SyncAuth, csrf: Any, email: str, password: str) -> Request:
    token = csrf.json()["csrfToken"]
    cookie = "; ".join(c.header_value().split(";")[0] for c in csrf.cookies)
    body = urlencode({"csrfToken": token, "email": email, "password": password}).encode()
    return Request(
        method="POST",
        url="http://localhost/auth/callback/password",
        headers={"content-type": "application/x-www-form-urlencoded", "cookie": cookie},
        body=body,
    )


CSRF = Request(method="GET", url="http://localhost/auth/csrf")


async def test_the_async_account_api() -> None:
    auth = Auth(config())
    user = await auth.create_password_user("Ann@Example.com", "correct horse", verified=True)
    assert user["email"] == "ann@example.com"
    with pytest.raises(ValueError, match="email_taken"):
        await auth.create_password_user("ann@example.com", "correct horse")
    with pytest.raises(ValueError, match="too_short"):
        await auth.set_password(user["id"], "short")
    await auth.set_password(user["id"], "a new passphrase")
    csrf = await auth.respond(CSRF)
    assert csrf is not None
    signed_in = await auth.respond(
        sign_in_request(auth, csrf, "ann@example.com", "a new passphrase")
    )
    assert signed_in is not None
    assert signed_in.location == "http://localhost"
    assert await auth.two_factor_status(user["id"]) == {"enabled": False, "recovery_codes_left": 0}
    assert await auth.reset_two_factor(user["id"]) is False


async def test_hashing_runs_in_a_worker_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[threading.Thread] = []
    real = sansio_auth.passwords.Argon2idHasher.verify

    def spy(*args: Any) -> Any:
        threads.append(threading.current_thread())
        return real(*args)

    monkeypatch.setattr(sansio_auth.passwords.Argon2idHasher, "verify", spy)
    auth = Auth(config())
    await auth.create_password_user("ann@example.com", "correct horse", verified=True)
    csrf = await auth.respond(CSRF)
    await auth.respond(sign_in_request(auth, csrf, "ann@example.com", "correct horse"))
    await auth.respond(sign_in_request(auth, csrf, "nobody@example.com", "correct horse"))
    assert len(threads) == 2
    assert threading.current_thread() not in threads


def test_the_sync_account_api() -> None:
    auth = SyncAuth(config())
    user = auth.create_password_user("ann@example.com", "correct horse")
    assert user["email_verified"] is None
    auth.set_password(user["id"], "a new passphrase")
    assert auth.two_factor_status(user["id"])["enabled"] is False
    assert auth.reset_two_factor(user["id"]) is False
    with pytest.raises(ValueError, match="invalid_email"):
        auth.create_password_user("not an address", "correct horse")

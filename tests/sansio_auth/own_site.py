"""A site for the tests of a user's own sessions and accounts: two providers of one fake OP
(``op``, ``op2``), optionally an e-mail provider, a faulty memory adapter, database or
revocable JWT sessions, and the moves the security routes take."""

from __future__ import annotations

from typing import Any

import pytest

from sansio_auth import Response
from sansio_auth.providers import Email, Passkey
from tests.sansio_auth.adapter_faults import FaultyAdapter
from tests.sansio_auth.driver import AuthPair, Browser
from tests.sansio_auth.oauth.fake_op import FakeOP, sign_in

SESSION = "authjs.session-token"
BOB = {"sub": "bob-sub", "name": "Bob", "email": "bob@example.com", "email_verified": True}
STRATEGIES = pytest.mark.parametrize("strategy", ["database", "jwt"])
EVENTS = ("sign_in", "sign_out", "link_account", "unlink_account", "delete_user")


class Site:
    """The engine, its fake OP (users ``alice`` and ``bob``) and its adapter."""

    def __init__(
        self,
        strategy: str = "database",
        *,
        email: bool = False,
        passkey: bool = False,
        provider: dict[str, Any] | None = None,
        **config: Any,
    ) -> None:
        self.op = FakeOP()
        self.op.users["bob"] = dict(BOB)
        self.db = FaultyAdapter(hide=config.pop("hide", ()))
        session = {"strategy": strategy, **config.pop("session", {})}
        if strategy == "jwt":
            session.setdefault("revocation", True)
        options = provider or {}
        providers: list[Any] = [
            self.op.provider(**options),
            self.op.provider(id="op2", name="Other OP", **{"type": "oauth", **options}),
        ]
        if email:
            providers.append(Email(send_verification_request=lambda **_: None))
        if passkey:
            providers.append(Passkey())
            config.setdefault("experimental", {"enable_webauthn": True})
        self.pair = AuthPair.build(
            adapter=self.db,
            session=session,
            providers=providers,
            events={name: (lambda **m: None) for name in (*EVENTS, "revoke_sessions")},
            **config,
        )
        self.op.connect(self.pair)
        self.strategy = strategy

    @property
    def clock(self) -> Any:
        return self.pair.clock

    @property
    def emitted(self) -> Any:
        return self.pair.performer.emitted

    def browser(self, user: str | None = "alice", provider: str = "op") -> Browser:
        """A new browser, signed in as ``user`` (``None``: signed out)."""
        browser = self.pair.new_browser()
        if user is not None:
            response = sign_in(browser, self.op, provider, user=user)
            assert response.status == 302, response
        return browser

    def sign_in(self, browser: Browser, user: str = "alice", provider: str = "op") -> Response:
        return sign_in(browser, self.op, provider, user=user)


def post_json(browser: Browser, route: str, **fields: Any) -> Response:
    """A JSON POST to ``<base>/<route>`` with the CSRF token."""
    body = {"csrfToken": browser.csrf_token(), **fields}
    return browser.post(f"{browser.base}/{route}", json=body)


def post_form(browser: Browser, route: str, **fields: str) -> Response:
    """A form POST (the security page's buttons) with the CSRF token."""
    form = {"csrfToken": browser.csrf_token(), **fields}
    return browser.post(f"{browser.base}/{route}", form=form)


def sessions_of(browser: Browser) -> Any:
    response = browser.get(f"{browser.base}/sessions")
    assert response.status == 200, response.body
    return response.json()


def accounts_of(browser: Browser) -> Any:
    response = browser.get(f"{browser.base}/accounts")
    assert response.status == 200, response.body
    return response.json()


def current_id(browser: Browser) -> str:
    [current] = [s["id"] for s in sessions_of(browser) if s["current"]]
    return str(current)

"""The runtimes' calls on a user's own sessions and accounts (``Auth`` and ``SyncAuth``): the
same engine operations as the security page's routes, for the browser of a request, with
refusals raised as the engine's errors."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import anyio
import pytest

from io_bindings.anyio import Auth
from io_bindings.db.memory import MemoryAdapter
from io_bindings.self_service import Change, LinkedAccount
from io_bindings.sync import SyncAuth
from sansio_auth import AuthConfig, Flow, Request, Response
from sansio_auth.errors import LastSignInMethod, RecordNotFound, SessionNotFresh, SessionRequired
from sansio_auth.events import HTTPResponse, OutboundRequest
from tests.sansio_auth.driver import ORIGIN, SECRET, Browser, Clock, seeded_entropy
from tests.sansio_auth.oauth.fake_op import FakeOP, sign_in

SESSION = "authjs.session-token"


class Site:
    """A runtime of either kind on a fake OP and a memory adapter, and browsers on it."""

    def __init__(self, kind: str, **session: Any) -> None:
        self.clock = Clock()
        self.op = FakeOP(self.clock)
        config = AuthConfig(
            secret=SECRET,
            trust_host=True,
            adapter=MemoryAdapter(),
            providers=[self.op.provider(), self.op.provider(id="op2", name="Other OP")],
            session={"strategy": "jwt", "revocation": True, **session},
        )
        options: dict[str, Any] = {"clock": self.clock, "entropy": seeded_entropy(1), "env": {}}
        self.kind = kind
        if kind == "async":
            self.auth: Any = Auth(config, transport=self, **options)
        else:
            self.auth = SyncAuth(config, send_http=self.op.handle, **options)

    async def send(self, request: OutboundRequest) -> HTTPResponse:
        return self.op.handle(request)

    def run(self, flow: Flow) -> Response:
        if self.kind == "async":
            return anyio.run(flow.run, self.auth.perform)
        return flow.run_sync(self.auth.perform)

    def call(self, method: str, browser: Browser, *args: Any) -> Any:
        """``auth.<method>(<a request of browser>, *args)``, awaited when it must be."""
        request = browser.build("GET", "/settings")
        function: Callable[..., Any] = getattr(self.auth, method)
        if self.kind == "async":

            async def call() -> Any:
                return await function(request, *args)

            return anyio.run(call)
        return function(request, *args)

    def browser(self, user: str = "alice", provider: str = "op") -> Browser:
        browser = Browser(self.auth.engine, self, self.clock, ORIGIN)
        assert sign_in(browser, self.op, provider, user=user).status == 302
        return browser


KINDS = pytest.mark.parametrize("kind", ["async", "sync"])


@KINDS
def test_listing_and_ending_sessions(kind):
    site = Site(kind)
    mine, other, third = site.browser(), site.browser(), site.browser()
    listed = site.call("list_sessions", mine)
    assert [s.current for s in listed] == [True, False, False]
    assert listed[0].expires > datetime.now(UTC)
    assert listed[0].created_at is not None
    site.clock.advance(1)
    ended = site.call("revoke_session", mine, listed[1].id)
    assert ended == Change(count=1)
    assert site.call("revoke_other_sessions", mine).count == 1
    assert other.session() is None
    assert third.session() is None
    own = site.call("revoke_session", mine, listed[0].id)
    assert [c.name for c in own.cookies] == [SESSION]
    assert own.set_cookie_headers()[0].startswith(f"{SESSION}=;")


@KINDS
def test_refusals_raise_the_engines_errors(kind):
    site = Site(kind, fresh_age=60)
    signed_out = Browser(site.auth.engine, site, site.clock, ORIGIN)
    with pytest.raises(SessionRequired):
        site.call("list_sessions", signed_out)
    browser = site.browser()
    with pytest.raises(RecordNotFound):
        site.call("revoke_session", browser, "nope")
    with pytest.raises(LastSignInMethod):
        site.call("unlink_account", browser, "op")
    site.clock.advance(61)
    with pytest.raises(SessionNotFresh):
        site.call("delete_user", browser)


@KINDS
def test_accounts_unlink_and_delete(kind):
    site = Site(kind)
    browser = site.browser()
    site.browser(provider="op2")  # the same person at op2: refused (the address is taken)...
    assert site.call("list_accounts", browser) == [
        LinkedAccount(
            provider="op",
            provider_name="Memory OP",
            type="oidc",
            provider_account_id="alice-sub",
            can_unlink=False,
        )
    ]
    adapter = site.auth.settings.adapter
    user_id = next(iter(adapter.store.users))
    account = {"user_id": user_id, "type": "oidc", "provider": "op2"}
    adapter.store.link_account({**account, "provider_account_id": "alice-sub"})
    assert [a.can_unlink for a in site.call("list_accounts", browser)] == [True, True]
    assert site.call("unlink_account", browser, "op2", "alice-sub").count == 1
    deleted = site.call("delete_user", browser)
    assert [c.name for c in deleted.cookies] == [SESSION]
    assert adapter.store.users == {}


def test_the_request_is_only_read_for_its_browser():
    """The request's path and method do not matter: any request of the browser will do."""
    site = Site("sync")
    browser = site.browser()
    request = browser.build("POST", "/anything/else", form={"x": "1"})
    assert isinstance(request, Request)
    assert len(site.auth.list_sessions(request)) == 1

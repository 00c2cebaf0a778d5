"""A browser with a software authenticator against an engine with WebAuthn providers.

>>> peer = PasskeyPeer.build()
>>> peer.register(email="ann@example.com")      # options, authenticator, callback
>>> peer.browser.session()["user"]["email"]
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

from sansio_auth import AuthConfig, Response
from sansio_auth.providers import Passkey, Provider
from sansio_auth.testing import SECRET, Browser, Clock, seeded_entropy
from sansio_auth.testing.webauthn import SoftAuthenticator
from tests.sansio_auth.adapter_faults import FaultyAdapter
from tests.sansio_auth.driver import query_of

WRITES = {
    "create_user",
    "update_user",
    "delete_user",
    "link_account",
    "unlink_account",
    "create_user_and_account",
    "create_session",
    "update_session",
    "delete_session",
    "create_authenticator",
    "update_authenticator_counter",
}
ENABLED = {"enable_webauthn": True}


@dataclass
class PasskeyPeer:
    """An engine (memory adapter that records calls), a browser and an authenticator."""

    browser: Browser
    db: FaultyAdapter
    authenticator: SoftAuthenticator

    @classmethod
    def build(
        cls,
        *providers: Provider,
        seed: str = "webauthn",
        authenticator: SoftAuthenticator | None = None,
        clock: Clock | None = None,
        **options: Any,
    ) -> PasskeyPeer:
        db = options.pop("adapter", None) or FaultyAdapter()
        config = AuthConfig(
            secret=SECRET,
            trust_host=True,
            adapter=db,
            providers=list(providers) or [Passkey()],
            experimental=ENABLED,
            **options,
        )
        browser = Browser(config, seed=seed, clock=clock)
        authenticator = authenticator or SoftAuthenticator(entropy=seeded_entropy(seed + "-key"))
        return cls(browser, db, authenticator)

    @property
    def origin(self) -> str:
        return self.browser.origin

    def options(self, provider_id: str = "passkey", **query: str) -> Response:
        """``GET webauthn-options/<id>`` with ``query``."""
        path = f"/auth/webauthn-options/{provider_id}"
        if query:
            path += "?" + "&".join(f"{k}={v}" for k, v in query.items())
        return self.browser.get(path)

    def callback(
        self, action: Any, data: Any, provider_id: str = "passkey", **form: Any
    ) -> Response:
        """``POST callback/<id>`` with ``action``, ``data`` (JSON-encoded) and the CSRF token."""
        body = {"action": action, "data": json.dumps(data), "csrfToken": self.browser.csrf_token()}
        return self.browser.post(f"/auth/callback/{provider_id}", form={**body, **form})

    def ceremony(
        self, provider_id: str = "passkey", *, query: dict[str, str] | None = None, **overrides: Any
    ) -> Response:
        """Options, the authenticator's response (with ``overrides``), and the callback."""
        reply = self.options(provider_id, **(query or {}))
        assert reply.status == 200, reply.body
        options = reply.json()
        overrides.setdefault("origin", self.origin)
        data = self.authenticator.respond(options, **overrides)
        return self.callback(options["action"], data, provider_id)

    def register(
        self, email: str = "ann@example.com", provider_id: str = "passkey", **kw: Any
    ) -> Response:
        return self.ceremony(provider_id, query={"action": "register", "email": email}, **kw)

    def authenticate(self, provider_id: str = "passkey", **kw: Any) -> Response:
        return self.ceremony(provider_id, **kw)

    def snapshot(self) -> dict[str, Any]:
        """Everything the database holds."""
        store = self.db.store
        tables = ("users", "accounts", "sessions", "tokens", "authenticators")
        return copy.deepcopy({name: getattr(store, name) for name in tables})

    def writes(self) -> list[str]:
        """The adapter write methods called so far."""
        return [name for name, _ in self.db.calls if name in WRITES]


def error_of(response: Response) -> str | None:
    """The ``error`` query value of a redirect, if any."""
    return query_of(response.location or "").get("error")

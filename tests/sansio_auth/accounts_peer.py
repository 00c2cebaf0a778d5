"""In-memory peers for the account tests: a mailbox sender, cheap argon2 parameters, and an
engine with a password provider (and two-factor) on the memory adapter."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from io_bindings.db.memory import MemoryAdapter
from sansio_auth import AuthConfig
from sansio_auth.email import VerificationMessage
from sansio_auth.passwords import Argon2Params
from sansio_auth.providers import Password
from sansio_auth.testing import SECRET
from sansio_auth.totp import secret_key, totp
from tests.sansio_auth.driver import AuthPair, Browser

FAST = Argon2Params(memory_cost=64, time_cost=1)
"""Parameters that keep unit tests quick (the real ones cost ~50 ms a hash)."""


@dataclass(frozen=True)
class Mail:
    to: str
    kind: str
    url: str
    message: VerificationMessage
    token: str | None

    @property
    def query(self) -> dict[str, str]:
        return dict(parse_qsl(urlsplit(self.url).query))

    @property
    def path(self) -> str:
        parts = urlsplit(self.url)
        return f"{parts.path}?{parts.query}" if parts.query else parts.path


class Outbox:
    """A ``send_email`` that keeps every message (an opaque object, as a real sender is: a
    recording names it rather than writing what it holds)."""

    def __init__(self) -> None:
        self.sent: list[Mail] = []

    def __call__(
        self, identifier: str, url: str, message: VerificationMessage, kind: str, token: Any
    ) -> None:
        self.sent.append(Mail(identifier, kind, url, message, token))

    def last(self, kind: str | None = None, to: str | None = None) -> Mail:
        found = [m for m in self.sent if kind in (None, m.kind) and to in (None, m.to)]
        assert found, f"no {kind or ''} mail to {to or 'anyone'} in {self.sent}"
        return found[-1]


@dataclass
class Accounts:
    pair: AuthPair
    adapter: MemoryAdapter
    outbox: Outbox

    @property
    def browser(self) -> Browser:
        return self.pair.browser

    @property
    def base(self) -> str:
        return self.pair.engine.settings.base_path


def build(
    *,
    two_factor: Any = None,
    strategy: str = "jwt",
    password: dict[str, Any] | None = None,
    **options: Any,
) -> Accounts:
    adapter = MemoryAdapter()
    outbox = Outbox()
    provider = Password(**{"send_email": outbox, "argon2": FAST, **(password or {})})
    config = AuthConfig(
        secret=SECRET,
        trust_host=True,
        adapter=adapter,
        providers=[provider, *options.pop("providers", [])],
        session={"strategy": strategy, **options.pop("session", {})},
        two_factor=two_factor,
        **options,
    )
    return Accounts(AuthPair.build(config), adapter, outbox)


def csrf(browser: Browser) -> str:
    return browser.csrf_token()


def sign_up(accounts: Accounts, email: str, password: str, browser: Browser | None = None) -> Any:
    browser = browser or accounts.browser
    form = {"csrfToken": browser.csrf_token(), "email": email, "password": password}
    return browser.post(f"{accounts.base}/signup", form=form)


def verify(accounts: Accounts, email: str, browser: Browser | None = None) -> Any:
    browser = browser or accounts.browser
    return browser.get(accounts.outbox.last("verify-email", email).path)


def sign_in(accounts: Accounts, email: str, password: str, browser: Browser | None = None) -> Any:
    browser = browser or accounts.browser
    form = {"csrfToken": browser.csrf_token(), "email": email, "password": password}
    return browser.post(f"{accounts.base}/callback/password", form=form)


def code_for(uri_or_secret: str, now: float) -> str:
    secret = dict(parse_qsl(urlsplit(uri_or_secret).query)).get("secret", uri_or_secret)
    return totp(secret_key(secret), now)

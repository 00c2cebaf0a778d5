"""The mixed workload: browsers (one cookie jar and connection each) running scenarios
against the app until a deadline, every answer checked and counted by kind."""

from __future__ import annotations

import random
import secrets
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.oidc_op.provider import LoginFailed, OpenIDProvider

from .app import PASSWORD, PROVIDER_ID, USER, USERNAME

SESSION_COOKIE = "authjs.session-token"
UNKNOWN = "?"
"""What :attr:`Browser.expected` holds when the browser's session is not known."""
KEPT_EXAMPLES = 5


class Mismatch(Exception):
    """An answer that is not what the scenario expects."""


@dataclass
class Tally:
    """What the browsers saw."""

    requests: Counter[str] = field(default_factory=Counter)
    scenarios: Counter[str] = field(default_factory=Counter)
    server_errors: Counter[str] = field(default_factory=Counter)
    transport_errors: Counter[str] = field(default_factory=Counter)
    mismatches: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)
    """The first few mismatches and transport errors, described."""

    def note(self, scenario: str, problem: str) -> None:
        if len(self.examples) < KEPT_EXAMPLES:
            self.examples.append(f"{scenario}: {problem}")


class Browser:
    """One user's browser against the app at ``url`` (and the OP, whose cookies share the
    jar); ``expected`` is the e-mail of the user it should be signed in as (``None``: signed
    out, :data:`UNKNOWN`: not known)."""

    def __init__(self, url: str, op: OpenIDProvider, tally: Tally) -> None:
        self.url, self.op, self.tally = url, op, tally
        self.http = httpx.AsyncClient(base_url=url, timeout=30, trust_env=False)
        self.expected: str | None = None

    async def send(self, kind: str, method: str, path: str, **options: Any) -> httpx.Response:
        """One request to the app, counted as ``kind``; a 5xx is counted and fails the step."""
        self.tally.requests[kind] += 1
        response = await self.http.request(method, path, **options)
        if response.status_code >= 500:
            self.tally.server_errors[f"{kind} {response.status_code}"] += 1
            raise Mismatch(f"{kind}: {response.status_code} {response.text[:200]}")
        return response

    async def csrf_token(self) -> str:
        response = await self.send("csrf", "GET", "/auth/csrf")
        expect(response.status_code == 200, f"csrf answered {response.status_code}")
        token: str = response.json()["csrfToken"]
        return token

    async def post_form(self, kind: str, path: str, form: dict[str, str]) -> httpx.Response:
        """``POST`` of ``form`` with the CSRF token and a callback URL; must redirect."""
        fields = {"csrfToken": await self.csrf_token(), "callbackUrl": self.url + "/", **form}
        response = await self.send(kind, "POST", path, data=fields)
        expect(response.status_code == 302, f"{kind} answered {response.status_code}")
        return response

    def session_cookie(self) -> str | None:
        return next((c.value for c in self.http.cookies.jar if c.name == SESSION_COOKIE), None)


def expect(condition: bool, problem: str) -> None:
    if not condition:
        raise Mismatch(problem)


async def read_session(browser: Browser, cookie: str | None = None) -> Any:
    """``GET session`` (with ``cookie`` as the session cookie, if given), checked against
    what the browser expects; the session."""
    headers = {"cookie": f"{SESSION_COOKIE}={cookie}"} if cookie is not None else {}
    response = await browser.send("session", "GET", "/auth/session", headers=headers)
    expect(response.status_code == 200, f"session answered {response.status_code}")
    session = response.json()
    email = session["user"]["email"] if session else None
    if browser.expected != UNKNOWN:
        expect(email == browser.expected, f"signed in as {email}, not {browser.expected}")
    return session


async def credentials_sign_in(browser: Browser) -> None:
    form = {"username": USERNAME, "password": PASSWORD}
    response = await browser.post_form("credentials", "/auth/callback/credentials", form)
    expect(response.headers["location"] == browser.url + "/", "credentials not signed in")
    browser.expected = USER["email"]
    await read_session(browser)


async def wrong_password(browser: Browser) -> None:
    form = {"username": USERNAME, "password": secrets.token_urlsafe(8)}
    response = await browser.post_form("wrong password", "/auth/callback/credentials", form)
    expect("error=CredentialsSignin" in response.headers["location"], "a wrong password passed")


async def sign_out(browser: Browser) -> None:
    await browser.post_form("sign-out", "/auth/signout", {})
    browser.expected = None
    await read_session(browser)


async def bad_csrf(browser: Browser) -> None:
    form = {"csrfToken": secrets.token_hex(32), "callbackUrl": browser.url + "/"}
    response = await browser.send("bad csrf", "POST", "/auth/signout", data=form)
    expect(response.status_code == 302, f"a bad CSRF token answered {response.status_code}")
    await read_session(browser)  # still signed in as before


async def garbage_cookie(browser: Browser) -> None:
    """A random session cookie: no session, and the browser's cookie is cleared."""
    await _foreign_cookie(browser, secrets.token_urlsafe(secrets.choice((8, 120, 600))))


async def tampered_cookie(browser: Browser) -> None:
    """The browser's own session cookie with one character changed."""
    cookie = browser.session_cookie()
    if cookie is None:
        await credentials_sign_in(browser)
        cookie = browser.session_cookie()
        expect(cookie is not None, "no session cookie after signing in")
        assert cookie is not None
    at = len(cookie) // 2
    swapped = "A" if cookie[at] != "A" else "B"
    await _foreign_cookie(browser, cookie[:at] + swapped + cookie[at + 1 :])


async def _foreign_cookie(browser: Browser, value: str) -> None:
    expected, browser.expected = browser.expected, None
    try:
        await read_session(browser, value)
    finally:
        browser.expected = expected if browser.session_cookie() else None


async def oidc_sign_in(browser: Browser) -> None:
    """The whole round trip: the app's redirect, the OP's login and consent, the callback."""
    response = await browser.post_form("oidc sign-in", f"/auth/signin/{PROVIDER_ID}", {})
    location = response.headers["location"]
    expect(location.startswith(browser.op.authorization_endpoint), f"redirected to {location}")
    answer = await browser.op.alogin(browser.http, location)
    browser.tally.requests["oidc callback"] += 1
    callback = await answer.asend(browser.http)
    expect(callback.status_code == 302, f"the callback answered {callback.status_code}")
    location = callback.headers["location"]
    expect(location == browser.url + "/", f"the OIDC callback redirected to {location}")
    browser.expected = browser.op.account.email
    await read_session(browser)


async def session_read(browser: Browser) -> None:
    await read_session(browser)


async def csrf(browser: Browser) -> None:
    await browser.csrf_token()


Scenario = Callable[[Browser], Awaitable[None]]
SCENARIOS: dict[str, tuple[Scenario, int]] = {
    "session read": (session_read, 40),
    "csrf": (csrf, 10),
    "credentials sign-in": (credentials_sign_in, 12),
    "sign-out": (sign_out, 8),
    "wrong password": (wrong_password, 8),
    "garbage cookie": (garbage_cookie, 8),
    "tampered cookie": (tampered_cookie, 6),
    "bad csrf": (bad_csrf, 4),
    "oidc sign-in": (oidc_sign_in, 4),
}
"""Name → (scenario, weight)."""


async def browse(url: str, op: OpenIDProvider, tally: Tally, seed: int, until: float) -> None:
    """One browser running weighted random scenarios until the ``time.monotonic()`` ``until``."""
    choose = random.Random(seed)  # noqa: S311 (a reproducible mix, not a secret)
    names = list(SCENARIOS)
    weights = [SCENARIOS[name][1] for name in names]
    browser = Browser(url, op, tally)
    try:
        while time.monotonic() < until:
            name = choose.choices(names, weights)[0]
            tally.scenarios[name] += 1
            try:
                await SCENARIOS[name][0](browser)
            except (Mismatch, LoginFailed) as problem:
                tally.mismatches[name] += 1
                tally.note(name, str(problem))
                browser.expected = UNKNOWN
            except httpx.HTTPError as error:
                tally.transport_errors[name] += 1
                tally.note(name, f"{type(error).__name__}: {error}")
                browser.expected = UNKNOWN
    finally:
        await browser.http.aclose()

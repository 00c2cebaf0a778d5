"""The pieces the OAuth e2e tests share: the served app, a browser, and what a refusal looks like.

:class:`OAuthServer` is ``oauth_app`` on a real server with its providers (see
:func:`provider_mappings`); :class:`Browser` is httpx with one cookie jar for the app and
the OP, driving a sign-in one step at a time so that a test can change one step.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx
from live_server import LiveServer

from tests.oidc_op.provider import AuthorizationResponse, OIDCClient, OpenIDProvider

SESSION_COOKIE = "authjs.session-token"
CHECK_COOKIES = {
    "state": "authjs.state",
    "pkce": "authjs.pkce.code_verifier",
    "nonce": "authjs.nonce",
}
CALLBACK_PATH = "/dashboard"
ALL_CHECKS = ["pkce", "state", "nonce"]
PROXIED = ("tamper", "tamper-userinfo", "pkce-plain", "small-key")
"""The providers whose issuer is the tampering proxy."""


def provider_mappings(
    op: OpenIDProvider, proxy_url: str, clients: dict[str, OIDCClient]
) -> list[dict[str, Any]]:
    """The app's providers: one per way of talking to the OP, and two through the proxy."""
    basic, post = clients["client_secret_basic"], clients["client_secret_post"]
    public = clients["none"]
    return [
        op.provider_config(basic, id="op", name="OP basic", checks=["state", "nonce"]),
        op.provider_config(post, id="op-post", name="OP post", checks=["pkce", "state"]),
        op.provider_config(public, id="op-public", name="OP public", checks=["pkce", "nonce"]),
        op.provider_config(
            post,
            id="op-form",
            name="OP form_post",
            checks=ALL_CHECKS,
            authorization_params={"response_mode": "form_post"},
        ),
        {
            "id": "op-oauth",
            "name": "OP as OAuth 2.0",
            "type": "oauth",
            "issuer": op.issuer,
            "client_id": basic.client_id,
            "client_secret": basic.client_secret,
            "authorization": {
                "url": op.authorization_endpoint,
                "params": {"scope": "openid email profile"},
            },
            "token": op.token_endpoint,
            "userinfo": op.userinfo_endpoint,
            "checks": ["pkce", "state"],
        },
        op.provider_config(basic, id="tamper", issuer=proxy_url, checks=ALL_CHECKS),
        op.provider_config(
            basic, id="tamper-userinfo", issuer=proxy_url, checks=ALL_CHECKS, id_token=False
        ),
        op.provider_config(
            basic,
            id="pkce-plain",
            issuer=proxy_url,
            well_known=f"{proxy_url}/pkce-plain/.well-known/openid-configuration",
            checks=["pkce"],
        ),
        op.provider_config(
            basic,
            id="small-key",
            issuer=proxy_url,
            well_known=f"{proxy_url}/small-key/.well-known/openid-configuration",
            checks=ALL_CHECKS,
        ),
    ]


@dataclass(frozen=True)
class Mark:
    """How far the events file and the server log were before a step."""

    events: int
    log: int


@dataclass
class OAuthServer:
    """``oauth_app`` served by ``name`` (``uvicorn`` or ``hypercorn-trio``)."""

    name: str
    live: LiveServer
    events_path: Path
    providers: dict[str, dict[str, Any]]

    @property
    def url(self) -> str:
        return self.live.url

    def events(self, kind: str | None = None, since: Mark | None = None) -> list[dict[str, Any]]:
        """The recorded ``sign_in`` events and ``jwt`` sign-in calls (of ``kind``)."""
        lines = self.events_path.read_text().splitlines() if self.events_path.exists() else []
        records = [json.loads(line) for line in lines[since.events if since else 0 :]]
        return [r for r in records if kind is None or r["kind"] == kind]

    def mark(self) -> Mark:
        return Mark(len(self.events()), len(self.live.log))

    def log_since(self, mark: Mark) -> str:
        return self.live.log[mark.log :]

    def error_url(self, error: str) -> str:
        return f"{self.url}/auth/error?error={error}"

    def sign_in_error_url(self, error: str) -> str:
        return f"{self.url}/auth/signin?error={error}"


class Browser:
    """One user's browser: a cookie jar shared by the app and the OP (cookies ignore ports)."""

    def __init__(self, server: OAuthServer, op: OpenIDProvider, proxy_url: str) -> None:
        self.server = server
        self.op = op
        self.proxy_url = proxy_url
        self.http = httpx.Client(
            timeout=15, trust_env=False, event_hooks={"response": [self._localhost_is_secure]}
        )

    def _localhost_is_secure(self, response: httpx.Response) -> None:
        """Send ``Secure`` cookies to http://127.0.0.1 as browsers do for a local host (the
        check cookies of ``form_post`` are ``SameSite=None; Secure``); the standard library's
        jar sends them over https only, and httpx copies the jar (and its policy) per request."""
        for cookie in self.http.cookies.jar:
            if cookie.domain == "127.0.0.1":
                cookie.secure = False

    def close(self) -> None:
        self.http.close()

    def post_sign_in(self, provider_id: str, query: str = "") -> httpx.Response:
        """``POST signin/<id>`` (``?query``: authorization parameters, as Auth.js's
        ``signIn(id, options, params)`` sends them) with the CSRF token: the redirect to the
        authorization URL."""
        csrf = self.http.get(f"{self.server.url}/auth/csrf").json()["csrfToken"]
        form = {"csrfToken": csrf, "callbackUrl": self.server.url + CALLBACK_PATH}
        url = f"{self.server.url}/auth/signin/{provider_id}" + (f"?{query}" if query else "")
        response = self.http.post(url, data=form)
        assert response.status_code == 302, response.text
        location = response.headers["location"]
        assert location.startswith(self.op.authorization_endpoint + "?"), location
        return response

    def start(self, provider_id: str, query: str = "") -> str:
        """``POST signin/<id>``; the authorization URL it redirects to."""
        return self.post_sign_in(provider_id, query).headers["location"]

    def authorize(self, provider_id: str, url: str, *, deny: bool = False) -> AuthorizationResponse:
        """The OP's login and consent; what the OP sends back (``iss`` naming the proxy
        for the providers behind it)."""
        answer = self.op.login(self.http, url, deny=deny)
        if provider_id in PROXIED and "iss" in answer.params:
            answer = with_params(answer, iss=self.proxy_url)
        return answer

    def deliver(self, answer: AuthorizationResponse) -> httpx.Response:
        return answer.send(self.http)

    def until_callback(self, provider_id: str) -> AuthorizationResponse:
        """Start, log in and consent: the authorization response, not delivered yet."""
        return self.authorize(provider_id, self.start(provider_id))

    def sign_in(self, provider_id: str) -> httpx.Response:
        """The whole round trip; the callback's answer."""
        return self.deliver(self.until_callback(provider_id))

    def session(self) -> Any:
        return self.http.get(f"{self.server.url}/auth/session").json()

    def cookie(self, name: str) -> str | None:
        return next((c.value for c in self.http.cookies.jar if c.name == name), None)

    def copy_cookies_to(self, other: Browser) -> None:
        for cookie in self.http.cookies.jar:
            other.http.cookies.jar.set_cookie(cookie)


@contextmanager
def browser(server: OAuthServer, op: OpenIDProvider, proxy_url: str) -> Iterator[Browser]:
    client = Browser(server, op, proxy_url)
    try:
        yield client
    finally:
        client.close()


def with_params(answer: AuthorizationResponse, **changes: str | None) -> AuthorizationResponse:
    """``answer`` with parameters changed (``None`` removes one), in its URL too for a GET."""
    params = {k: v for k, v in {**answer.params, **changes}.items() if v is not None}
    if answer.method == "POST":
        return replace(answer, params=params)
    return replace(answer, url=f"{answer.redirect_uri}?{urlencode(params)}", params=params)


def deliver_pairs(
    client: Browser, answer: AuthorizationResponse, pairs: list[tuple[str, str]]
) -> httpx.Response:
    """Deliver ``answer`` with exactly the query ``pairs`` (repetitions kept)."""
    return client.http.get(f"{answer.redirect_uri}?{urlencode(pairs)}")


def query(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query))


def set_cookie_headers(response: httpx.Response, names: tuple[str, ...]) -> dict[str, str]:
    """The ``Set-Cookie`` headers of ``response`` for the cookies ``names``, by name."""
    headers = {}
    for header in response.headers.get_list("set-cookie"):
        name = header.partition("=")[0]
        if name in names:
            headers[name] = header
    return headers


def sets_session_cookie(response: httpx.Response) -> bool:
    """Whether ``response`` sets a (non-empty) session cookie, chunked or not."""
    for header in response.headers.get_list("set-cookie"):
        name, _, rest = header.partition("=")
        value = rest.split(";", 1)[0]
        if name.startswith(SESSION_COOKIE) and value and "max-age=0" not in header.lower():
            return True
    return False


def assert_refused(
    server: OAuthServer,
    client: Browser,
    response: httpx.Response,
    mark: Mark,
    *,
    cause: str,
    error: str = "Configuration",
) -> None:
    """The callback ended on the error page (the sign-in page for ``OAuthCallbackError``) with
    ``error``, set no session cookie, emitted no ``sign_in`` event and logged ``cause``."""
    sign_in_page = error == "OAuthCallbackError"
    expected = server.sign_in_error_url(error) if sign_in_page else server.error_url(error)
    assert response.status_code == 302, response.text
    assert response.headers["location"] == expected
    assert not sets_session_cookie(response), response.headers.get_list("set-cookie")
    assert server.events("sign_in", since=mark) == []
    assert server.events("jwt", since=mark) == []
    log = server.log_since(mark)
    assert "[auth][error] " in log or "[auth][warn] " in log, log  # refusals are warnings
    assert cause in log, log
    page = client.http.get(expected)
    if sign_in_page:
        assert page.status_code == 200
        assert "Try signing in with a different account." in page.text
    else:
        assert page.status_code == 500
        assert "Server error" in page.text
    assert client.session() is None


def assert_signed_in(
    server: OAuthServer,
    client: Browser,
    response: httpx.Response,
    mark: Mark,
    provider_id: str,
    *,
    name: str,
) -> dict[str, Any]:
    """The callback signed the user in through ``provider_id``: redirect to the kept callback
    URL, session cookie, check cookies used up, one ``sign_in`` event and one ``jwt`` call
    with ``trigger="signIn"``. Returns that ``jwt`` call (user, account, profile)."""
    assert response.status_code == 302, response.text
    location = response.headers["location"]
    assert location == server.url + CALLBACK_PATH, (location, server.log_since(mark))
    assert sets_session_cookie(response), response.headers.get_list("set-cookie")
    for check in CHECK_COOKIES.values():
        assert client.cookie(check) is None, check
    session = client.session()
    assert session["provider"] == provider_id
    assert session["user"]["name"] == name
    assert session["user"]["email"] == client.op.account.email
    [event] = server.events("sign_in", since=mark)
    [call] = server.events("jwt", since=mark)
    assert call["trigger"] == "signIn"
    assert event["is_new_user"] is False
    for seen in (event, call):
        assert seen["user"]["name"] == name
        assert seen["profile"]["sub"] == client.op.account.sub
    account = call["account"]
    assert account == event["account"]
    assert account["provider"] == provider_id
    assert account["type"] == server.providers[provider_id]["type"]
    assert account["provider_account_id"] == client.op.account.sub
    assert account["token_type"] == "bearer"
    assert isinstance(account["access_token"], str)
    assert isinstance(account["expires_at"], int)
    return call

"""Driving the OP's development login and consent pages as a browser would.

The steps are a generator (it yields the HTTP requests a browser would make and
receives the answers), driven by a sync (``httpx.Client``) and an async
(``httpx.AsyncClient``) driver: one walk through the pages, two kinds of client.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Literal
from urllib.parse import parse_qsl, urljoin, urlsplit

import httpx

MAX_STEPS = 12


@dataclass(frozen=True)
class AuthorizationResponse:
    """What the OP sends the browser back to the client with: a redirect (``GET`` to
    ``url``, parameters in its query) or, for ``response_mode=form_post``, a form
    (``POST`` of ``params`` to ``url``)."""

    method: Literal["GET", "POST"]
    url: str
    params: dict[str, str]

    @property
    def redirect_uri(self) -> str:
        """``url`` without its query."""
        return self.url.split("?", 1)[0]

    def send(self, http: httpx.Client) -> httpx.Response:
        """Deliver it to the client (the app's callback) as the browser would."""
        if self.method == "POST":
            return http.post(self.url, data=self.params)
        return http.get(self.url)

    async def asend(self, http: httpx.AsyncClient) -> httpx.Response:
        """:meth:`send` with an ``httpx.AsyncClient``."""
        if self.method == "POST":
            return await http.post(self.url, data=self.params)
        return await http.get(self.url)


class LoginFailed(AssertionError):
    """The OP answered something the login walk did not expect."""


@dataclass(frozen=True)
class Step:
    """One browser request."""

    method: Literal["GET", "POST"]
    url: str
    form: dict[str, str] | None = None


@dataclass(frozen=True)
class Page:
    """The answer to a :class:`Step`."""

    status: int
    location: str | None
    text: str


LoginWalk = Generator[Step, Page, AuthorizationResponse]


def login_walk(issuer: str, authorization_url: str, user: str, *, deny: bool) -> LoginWalk:
    """Follow the OP's redirects and submit its forms until it sends the browser away."""
    step = Step("GET", authorization_url)
    for _ in range(MAX_STEPS):
        page = yield step
        if page.status in (301, 302, 303, 307, 308) and page.location:
            target = urljoin(step.url, page.location)
            if not _at(issuer, target):
                return AuthorizationResponse("GET", target, dict(parse_qsl(urlsplit(target).query)))
            step = Step("GET", target)
            continue
        if page.status != 200:
            raise LoginFailed(f"{step.method} {step.url} answered {page.status}: {page.text[:500]}")
        form = _first_form(page.text)
        action = urljoin(step.url, form.action)
        if not _at(issuer, action):  # the form_post response mode's auto-submitting form
            return AuthorizationResponse("POST", action, form.fields)
        if deny:
            step = Step("GET", f"{action.rstrip('/')}/abort")
        elif form.fields.get("prompt") == "login":
            step = Step("POST", action, {**form.fields, "login": user, "password": "any"})
        elif form.fields.get("prompt") == "consent":
            step = Step("POST", action, form.fields)
        else:
            raise LoginFailed(f"unexpected page at {step.url}: {page.text[:500]}")
    raise LoginFailed(f"no answer for the client after {MAX_STEPS} steps")


def login(
    http: httpx.Client, issuer: str, authorization_url: str, user: str, *, deny: bool = False
) -> AuthorizationResponse:
    """Run :func:`login_walk` with a sync client."""
    walk = login_walk(issuer, authorization_url, user, deny=deny)
    step = next(walk)
    while True:
        response = http.request(step.method, step.url, data=step.form, follow_redirects=False)
        try:
            step = walk.send(_page(response))
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]


async def alogin(
    http: httpx.AsyncClient, issuer: str, authorization_url: str, user: str, *, deny: bool = False
) -> AuthorizationResponse:
    """Run :func:`login_walk` with an async client."""
    walk = login_walk(issuer, authorization_url, user, deny=deny)
    step = next(walk)
    while True:
        response = await http.request(step.method, step.url, data=step.form, follow_redirects=False)
        try:
            step = walk.send(_page(response))
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]


def _page(response: httpx.Response) -> Page:
    return Page(response.status_code, response.headers.get("location"), response.text)


def _at(issuer: str, url: str) -> bool:
    return url == issuer or url.startswith(issuer + "/")


@dataclass
class _Form:
    action: str = ""
    fields: dict[str, str] = field(default_factory=dict)


class _FormParser(HTMLParser):
    """The first ``<form>`` of a page: its action and its named inputs' values."""

    def __init__(self) -> None:
        super().__init__()
        self.form: _Form | None = None
        self.done = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "form" and self.form is None:
            self.form = _Form(action=values.get("action", ""))
        elif tag == "input" and self.form is not None and not self.done and "name" in values:
            self.form.fields[values["name"]] = values.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.done = True


def _first_form(html: str) -> _Form:
    parser = _FormParser()
    parser.feed(html)
    if parser.form is None:
        raise LoginFailed(f"no form on the page: {html[:500]}")
    return parser.form

"""The session read through the aiohttp and Django adapters, in process, against each
framework's bare endpoint: a signed-in request to a view that answers the user's e-mail,
driven through the framework's own request handling (aiohttp's application with the
request its server would make; Django's WSGI handler with its middleware), in alternating
rounds, timed in CPU time of this process (``time.process_time``): what a request costs,
whatever else the machine runs.

Ours: aiohttp's ``get_session(request, config)`` and Django's ``request.auth()``, JWT
sessions (a credentials sign-in first, through the adapter). The peer: django-allauth
(Django's database sessions and auth, signed in through allauth's login view). A JWE
session read that decrypts on every request: the bare endpoint plus the framework's
cookie parsing and :func:`sansio_auth.jwt.decode` of our cookie, nothing else
(:data:`DECRYPT`). Every protected view is checked to answer 401 signed out and with its
cookie tampered first.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from sansio_auth import jwt

from .app import SECRET, SESSION_COOKIE, USER, config, session_cookie
from .goals import Goal
from .peer_apps import PASSWORD
from .report import Figure

SECTION = (
    "Frameworks in process: a signed-in view answering the user's e-mail, per second "
    "(CPU time, alternating rounds; × = this ÷ the framework's bare endpoint)"
)
ROUNDS = 7
DECRYPT = "decrypt on every request"
"""The row of the endpoint that only decrypts our session cookie."""
SyncCall = Callable[[str], tuple[int, bytes]]
"""A request with this ``Cookie`` header: its status and body."""
Call = Callable[[str], Awaitable[tuple[int, bytes]]]


def _tampered(cookie: str) -> str:
    name, value = cookie.split("=", 1)
    middle = len(value) // 2
    return f"{name}={value[:middle]}{'A' if value[middle] != 'A' else 'B'}{value[middle + 1 :]}"


def _checked(call: SyncCall, cookie: str, *, protected: bool = True) -> None:
    status, body = call(cookie)
    if status != 200 or json.loads(body) != {"email": USER["email"]}:
        raise RuntimeError(f"not signed in: {status} {body[:200]!r}")
    if protected:
        for sent in ("", _tampered(cookie)):
            if (status := call(sent)[0]) != 401:
                raise RuntimeError(f"answered {status}, not 401, to {sent or 'no cookie'!r}")


Batch = Callable[[str, int], None]
"""``n`` requests with this ``Cookie`` header."""


def _per_second(batches: dict[str, tuple[Batch, str]], seconds: float) -> dict[str, list[float]]:
    """Each batch's requests per second in :data:`ROUNDS` alternating rounds."""
    rates: dict[str, list[float]] = {name: [] for name in batches}
    for _ in range(ROUNDS):
        for name, (batch, cookie) in batches.items():
            count, start = 0, time.process_time()
            while (elapsed := time.process_time() - start) < seconds / ROUNDS:
                batch(cookie, 50)
                count += 50
            rates[name].append(count / elapsed)
    return rates


def _decode_batch(cookie: str, n: int) -> None:
    """``n`` decryptions of the session token in ``cookie``, outside any request."""
    value = cookie.split("=", 1)[1]
    for _ in range(n):
        jwt.decode(value, SECRET, SESSION_COOKIE, now=time.time())


def _sync_batch(call: SyncCall) -> Batch:
    def batch(cookie: str, n: int) -> None:
        for _ in range(n):
            call(cookie)

    return batch


def _in_loop(calls: dict[str, Call]) -> tuple[dict[str, SyncCall], dict[str, Batch], Any]:
    """Async calls made sync (for the checks) and batched (one loop run per batch), on a
    loop kept open (close the third)."""
    loop = asyncio.new_event_loop()

    def sync(call: Call) -> SyncCall:
        return lambda cookie: loop.run_until_complete(call(cookie))

    def batched(call: Call) -> Batch:
        async def many(cookie: str, n: int) -> None:
            for _ in range(n):
                await call(cookie)

        return lambda cookie, n: loop.run_until_complete(many(cookie, n))

    return (
        {name: sync(call) for name, call in calls.items()},
        {name: batched(call) for name, call in calls.items()},
        loop,
    )


def _aiohttp_calls() -> dict[str, Call]:
    from aiohttp import web
    from aiohttp.http import HttpVersion11, RawRequestMessage
    from aiohttp.streams import EMPTY_PAYLOAD
    from multidict import CIMultiDict, CIMultiDictProxy
    from yarl import URL

    from io_bindings.aiohttp import get_session

    auth_config = config()

    def unauthorized() -> web.Response:
        return web.json_response({"detail": "Not signed in"}, status=401)

    async def bare(request: web.Request) -> web.Response:
        return web.json_response({"email": USER["email"]})

    async def me(request: web.Request) -> web.Response:
        session = await get_session(request, auth_config)
        if session is None or "user" not in session:
            return unauthorized()
        return web.json_response({"email": session["user"]["email"]})

    async def decrypt(request: web.Request) -> web.Response:
        value = request.cookies.get(SESSION_COOKIE, "")
        try:
            claims = jwt.decode(value, SECRET, SESSION_COOKIE, now=time.time())
        except jwt.InvalidToken:
            return unauthorized()
        return web.json_response({"email": claims["email"]})

    app = web.Application()
    app.router.add_get("/bare", bare)
    app.router.add_get("/me", me)
    app.router.add_get("/decrypt", decrypt)
    app.freeze()
    connection = _Connection()

    def call(path: str) -> Call:
        url = URL(path)

        async def request(cookie: str) -> tuple[int, bytes]:
            # what aiohttp's server makes of a request (its parser's message, then the request)
            pairs = [("Host", "127.0.0.1:8000")] + ([("Cookie", cookie)] if cookie else [])
            headers = CIMultiDictProxy(CIMultiDict(pairs))
            raw = tuple((k.encode(), v.encode()) for k, v in pairs)
            message = RawRequestMessage("GET", path, HttpVersion11, headers, raw, False, None,
                                        False, False, url)  # fmt: skip
            loop = asyncio.get_running_loop()
            made = web.Request(message, EMPTY_PAYLOAD, connection, connection, None, loop)  # type: ignore[arg-type]
            response = await app._handle(made)
            assert isinstance(response, web.Response)
            assert isinstance(response.body, bytes)
            return response.status, response.body

        return request

    return {"bare": call("/bare"), DECRYPT: call("/decrypt"), "get_session": call("/me")}


class _Connection:
    """The protocol, writer and transport an aiohttp request is made with (a plain TCP
    connection from 127.0.0.1), none of which these handlers use."""

    ssl_context = None
    peername = sockname = ("127.0.0.1", 8000)
    max_field_size = max_line_length = 8190
    max_headers = 128

    @property
    def transport(self) -> _Connection:
        return self

    @property
    def writer(self) -> _Connection:
        return self

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.peername if name in ("peername", "sockname") else default


def _ignored_start(status: str, headers: Any, exc_info: Any = None) -> Callable[[bytes], object]:
    return len


def _set_cookies(response: Any) -> list[tuple[str, str]]:
    """The ``name=value`` pairs of a Django response's ``Set-Cookie`` lines."""
    pairs = (m.OutputString().split(";", 1)[0].split("=", 1) for m in response.cookies.values())
    return [(name, value) for name, value in pairs]


def _django_calls(database: str) -> tuple[dict[str, SyncCall], dict[str, str]]:
    """The three WSGI handlers' calls, and the cookie each signed in with."""
    from django.contrib.auth import get_user_model
    from django.core.handlers.wsgi import WSGIHandler
    from django.core.management import call_command
    from django.test import Client, RequestFactory
    from django.test.utils import override_settings

    from . import django_peers

    django_peers.configure(database)
    call_command("migrate", verbosity=0)
    users: Any = get_user_model().objects
    users.create_user(USER["name"], USER["email"], PASSWORD)
    handlers = {}
    for name, middleware in django_peers.STACKS.items():
        with override_settings(MIDDLEWARE=middleware):
            handlers[name] = WSGIHandler()
    factory: Any = RequestFactory()

    def call(name: str, path: str) -> SyncCall:
        handler = handlers[name]

        def request(cookie: str) -> tuple[int, bytes]:
            environ = factory._base_environ(PATH_INFO=path, HTTP_COOKIE=cookie)
            response = handler(environ, _ignored_start)
            return int(response.status_code), b"".join(response)

        return request

    with override_settings(MIDDLEWARE=django_peers.STACKS["allauth"]):
        browser = Client()
        answer = browser.post("/accounts/login/", {"login": USER["email"], "password": PASSWORD})
        if answer.status_code != 302:
            raise RuntimeError(f"allauth's login refused: {answer.status_code}")
        allauth_cookie = f"sessionid={browser.cookies['sessionid'].value}"
    with override_settings(MIDDLEWARE=django_peers.STACKS["ours"]):
        browser = Client()
        csrf = browser.get("/auth/csrf")
        jar = dict(_set_cookies(csrf))
        form = {"csrfToken": csrf.json()["csrfToken"], "username": USER["email"],
                "password": PASSWORD}  # fmt: skip
        browser.cookies.clear()
        sent = "; ".join(f"{k}={v}" for k, v in jar.items())
        answer = browser.post("/auth/callback/credentials", urlencode(form), HTTP_COOKIE=sent,
                              content_type="application/x-www-form-urlencoded")  # fmt: skip
        jar.update(_set_cookies(answer))
        ours_cookie = f"authjs.session-token={jar['authjs.session-token']}"
    calls = {
        "bare": call("bare", "/bare"),
        DECRYPT: call("bare", "/decrypt"),
        "request.auth()": call("ours", "/ours"),
        "django-allauth": call("allauth", "/allauth"),
    }
    cookies = {"bare": ours_cookie, DECRYPT: ours_cookie, "request.auth()": ours_cookie,
               "django-allauth": allauth_cookie}  # fmt: skip
    return calls, cookies


def framework_figures(seconds: float) -> tuple[list[Figure], list[Goal]]:
    """aiohttp and Django, each against its bare endpoint; the µs targets."""
    with tempfile.TemporaryDirectory(prefix="bench-django-") as directory:
        django, cookies = _django_calls(str(Path(directory) / "django.db"))
        for name, call in django.items():
            _checked(call, cookies[name], protected=name != "bare")
        batches = {name: (_sync_batch(call), cookies[name]) for name, call in django.items()}
        rates = {f"Django {k}": v for k, v in _per_second(batches, seconds).items()}
    aiohttp, aiohttp_batches, loop = _in_loop(_aiohttp_calls())
    cookie = session_cookie()
    for name, call in aiohttp.items():
        _checked(call, cookie, protected=name != "bare")
    batches = {name: (batch, cookie) for name, batch in aiohttp_batches.items()}
    rates |= {f"aiohttp {k}": v for k, v in _per_second(batches, seconds).items()}
    loop.close()
    alone = 1e6 / max(_per_second({"decode": (_decode_batch, cookie)}, seconds / 4)["decode"])
    best = {name: max(rounds) for name, rounds in rates.items()}
    figures = [
        Figure.best(SECTION, name, "per second", rounds, best[f"{name.split()[0]} bare"])
        for name, rounds in rates.items()
    ]
    over = {name: 1e6 / best[name] - 1e6 / best[f"{name.split()[0]} bare"] for name in best}
    ceiling = (
        "decrypting the cookie alone costs {:.1f} µs over it (jwt.decode outside any request: "
        f"{alone:.1f} µs)"
    ).format
    goals = [
        Goal("aiohttp get_session over aiohttp's bare endpoint", over["aiohttp get_session"],
             25, "µs", ceiling(over[f"aiohttp {DECRYPT}"])),
        Goal("Django request.auth() over Django's bare endpoint", over["Django request.auth()"],
             25, "µs", f"{ceiling(over[f'Django {DECRYPT}'])}; django-allauth "
             f"{over['Django django-allauth']:.1f} µs"),
    ]  # fmt: skip
    return figures, goals

"""The hot paths, timed and profiled in process: ``python -m bench.profile_hot``.

``measure`` prints the CPU µs per call of each case next to the crypto floor's (the floor
as a case too: the same loop, so the ratio compares like with like); ``breakdown`` times
the steps of a session read alone; ``profile CASE`` prints the cProfile of one case. The
ASGI cases call :class:`~io_bindings.anyio.AuthApp` with a scope as uvicorn builds it
(``receive`` and ``send`` do nothing): the time between an ASGI server and the engine,
without the server's own.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import itertools
import math
import os
import pstats
import time
from collections.abc import Awaitable, Callable, MutableMapping
from functools import partial
from typing import Any

from io_bindings.anyio import Auth, AuthApp
from io_bindings.translate import asgi_headers, request_from_scope
from sansio_auth import NotAnAuthRoute, Request, jwt
from sansio_auth._context import Context, json_reply
from sansio_auth._routes import parse_action
from sansio_auth.cookies import read_chunked, write_chunked
from sansio_auth.http import iso_date, split_url

from . import bare
from .app import DEFAULT_UPDATE_AGE, SESSION_COOKIE, USER, config, session_cookie
from .crypto_floor import round_trip

Call = Callable[[], Awaitable[Any]]
HOST = "127.0.0.1:8000"
BREAKDOWN_LOOP = 20000


def engine_case(path: str, *, cookie: str, update_age: int = DEFAULT_UPDATE_AGE) -> Call:
    """One ``GET path`` through the engine and the async driver (no ASGI)."""
    return engine_cycle_case(path, cookies=[cookie], update_age=update_age)


def engine_cycle_case(
    path: str, *, cookies: list[str], update_age: int = DEFAULT_UPDATE_AGE
) -> Call:
    """:func:`engine_case` sending each of ``cookies`` in turn: more cookies than the
    engine keeps decoded (1,024) make every read decrypt, as a server with that many
    browsers at once would."""
    auth = Auth(config(update_age), env={})
    requests = itertools.cycle(
        [
            Request(
                method="GET",
                url=f"http://{HOST}{path}",
                headers={"host": HOST, "cookie": cookie} if cookie else {"host": HOST},
            )
            for cookie in cookies
        ]
    )

    async def call() -> Any:
        flow = auth.engine.handle(next(requests))
        assert not isinstance(flow, NotAnAuthRoute)
        return await flow.run(auth.perform)

    return call


def asgi_case(path: str, *, cookie: str, update_age: int = DEFAULT_UPDATE_AGE) -> Call:
    """One ``GET path`` through :class:`AuthApp`, as an ASGI server calls it."""
    return app_case(AuthApp(config(update_age), env={}), path, cookie=cookie)


def app_case(app: Any, path: str, *, cookie: str) -> Call:
    """One ``GET path`` through the ASGI ``app``, as an ASGI server calls it."""
    headers = [
        (b"host", HOST.encode()),
        (b"user-agent", b"wrk"),
        (b"accept", b"*/*"),
        (b"accept-encoding", b"gzip, deflate"),
    ]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
        "scheme": "http",
        "method": "GET",
        "root_path": "",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": headers,
    }
    request_message = {"type": "http.request", "body": b"", "more_body": False}

    async def receive() -> dict[str, Any]:
        return request_message

    async def send(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start" and message["status"] != 200:
            raise RuntimeError(f"{path} answered {message['status']}")

    async def call() -> Any:
        await app(dict(scope), receive, send)  # a fresh scope, as a server gives each request

    return call


def cases() -> dict[str, Call]:
    """Every case by name."""
    cookie = session_cookie()
    return {
        "session": engine_case("/auth/session", cookie=cookie),
        "session-new-cookie": engine_cycle_case(
            "/auth/session", cookies=[session_cookie() for _ in range(4096)]
        ),
        "session-update-age-0": engine_case("/auth/session", cookie=cookie, update_age=0),
        "csrf": engine_case("/auth/csrf", cookie=""),
        "asgi-session": asgi_case("/auth/session", cookie=cookie),
        "asgi-session-update-age-0": asgi_case("/auth/session", cookie=cookie, update_age=0),
        "asgi-csrf": asgi_case("/auth/csrf", cookie=""),
        "straight-session": app_case(bare.straight_app, "/auth/session", cookie=cookie),
        "straight-reissue": app_case(
            bare.create_straight_reissue_app(), "/auth/session", cookie=cookie
        ),
        "straight-csrf": app_case(bare.straight_csrf_app, "/auth/csrf", cookie=""),
        "contract-session": app_case(bare.create_contract_app(), "/auth/session", cookie=cookie),
        "contract-reissue": app_case(
            bare.create_contract_reissue_app(), "/auth/session", cookie=cookie
        ),
        "contract-csrf": app_case(bare.create_contract_csrf_app(), "/auth/csrf", cookie=""),
        "bare": app_case(bare.app, "/", cookie=""),
    }


async def _cpu_per_call(call: Call, seconds: float, batch: int = 200) -> float:
    """CPU seconds per call of this thread: what other processes on a shared machine
    take from it is not counted (their cache traffic still is)."""
    await call()
    count = 0
    start, cpu_start = time.perf_counter(), time.thread_time()
    while time.perf_counter() - start < seconds:
        for _ in range(batch):
            await call()
        count += batch
    return (time.thread_time() - cpu_start) / count


def best_micros(call: Call, seconds: float, runs: int) -> float:
    """CPU µs per call of the fastest of ``runs`` runs sharing ``seconds``."""
    return min(asyncio.run(_cpu_per_call(call, seconds / runs)) for _ in range(runs)) * 1e6


def floor_case() -> Call:
    """The crypto floor (:mod:`bench.crypto_floor`) as a case."""
    once = round_trip()

    async def call() -> None:
        once()

    return call


def measure(seconds: float, runs: int) -> None:
    """Print CPU µs per call of every case and its ratio to the crypto floor (each the
    best of ``runs`` runs sharing ``seconds``)."""
    floor = best_micros(floor_case(), seconds, runs)
    print(f"{'crypto floor':<28} {floor:8.2f} µs")
    for name, call in cases().items():
        micros = best_micros(call, seconds, runs)
        print(f"{name:<28} {micros:8.2f} µs  {micros / floor:5.2f} x floor")


def parts() -> dict[str, Callable[[], Any]]:
    """The steps of an ASGI ``GET /auth/session`` (``update_age=0``: the re-issue too), each
    alone on the inputs the request gives it; they add up to less than the whole, which
    also runs the generators and coroutines that join them."""
    app = AuthApp(config(0), env={})
    settings = app.auth.settings
    cookie = session_cookie()
    token = cookie.partition("=")[2]
    scope = {
        "type": "http", "scheme": "http", "method": "GET", "path": "/auth/session",
        "raw_path": b"/auth/session", "query_string": b"", "server": ("127.0.0.1", 8000),
        "headers": [(b"host", HOST.encode()), (b"accept", b"*/*"), (b"cookie", cookie.encode())],
    }  # fmt: skip
    request = request_from_scope(scope, b"")
    now = time.time()
    claims = jwt.decode(token, settings.secrets, SESSION_COOKIE, now=now)
    spec = settings.cookies.session_token
    response = asyncio.run(app.auth.respond(request))
    assert response is not None
    reissued = response.cookies[0]

    def context() -> Context:
        return Context(
            settings, request, cache=app.auth.engine.cache, now=now, entropy=os.urandom,
            origin=f"http://{HOST}", action="session", provider_id=None, query={},
        )  # fmt: skip

    return {
        "ASGI: request_from_scope (headers, URL, Host check)": partial(
            request_from_scope, scope, b""
        ),
        "ASGI: response headers (Set-Cookie included)": partial(asgi_headers, response),
        "engine: split_url": partial(split_url, request.url),
        "engine: parse_action": partial(parse_action, "/auth/session", "/auth"),
        "engine: Context (Cookie header parsed)": context,
        "engine: read_chunked": partial(read_chunked, {SESSION_COOKIE: token}, SESSION_COOKIE),
        "jwt.decode": partial(jwt.decode, token, settings.secrets, SESSION_COOKIE, now=now),
        "jwt.encode": partial(
            jwt.encode, claims, settings.secrets, SESSION_COOKIE, now=now, entropy=os.urandom
        ),
        "session: iso_date (expires)": partial(iso_date, now),
        "session: json_reply": partial(json_reply, {"user": USER, "expires": iso_date(now)}),
        "cookie: write_chunked": partial(write_chunked, spec, token, now, [SESSION_COOKIE]),
        "cookie: Set-Cookie header_value": reissued.header_value,
    }


def breakdown(runs: int) -> None:
    """Print the CPU µs of each step of :func:`parts` (best of ``runs`` loops)."""
    for name, step in parts().items():
        best = math.inf
        for _ in range(runs):
            start = time.thread_time()
            for _ in range(BREAKDOWN_LOOP):
                step()
            best = min(best, (time.thread_time() - start) / BREAKDOWN_LOOP)
        print(f"{name:<52} {best * 1e6:7.2f} µs")


def profile(name: str, calls: int, top: int) -> None:
    """Print the cProfile of ``calls`` calls of case ``name``, by own time."""
    call = cases()[name]

    async def run(times: int) -> None:
        for _ in range(times):
            await call()

    asyncio.run(run(1))
    profiler = cProfile.Profile()
    profiler.runcall(asyncio.run, run(calls))
    pstats.Stats(profiler).sort_stats("tottime").print_stats(top)


def main(argv: list[str] | None = None) -> None:
    """``measure [--seconds S]`` or ``profile CASE [--calls N] [--top K]``."""
    parser = argparse.ArgumentParser(prog="python -m bench.profile_hot", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    measure_parser = sub.add_parser("measure")
    measure_parser.add_argument("--seconds", type=float, default=2.0)
    measure_parser.add_argument("--runs", type=int, default=5)
    profile_parser = sub.add_parser("profile")
    profile_parser.add_argument("case", choices=sorted(cases()))
    profile_parser.add_argument("--calls", type=int, default=20000)
    profile_parser.add_argument("--top", type=int, default=40)
    breakdown_parser = sub.add_parser("breakdown")
    breakdown_parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    if args.command == "measure":
        measure(args.seconds, args.runs)
    elif args.command == "breakdown":
        breakdown(args.runs)
    else:
        profile(args.case, args.calls, args.top)


if __name__ == "__main__":
    main()

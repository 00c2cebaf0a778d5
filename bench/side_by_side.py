"""``GET /auth/session`` and ``GET /auth/csrf`` over HTTP, ours and Auth.js's side by side.

Ours: :func:`bench.app.create_app` under uvicorn on the pure-Python stack (h11 + asyncio,
uvicorn as installed without extras) and on uvloop + httptools (the ``server`` extra);
the bare ASGI handler (:mod:`bench.bare`) on both is the floor, the same handler
decrypting the session cookie on every request is what a reader without a memo of decoded
tokens can reach (ours keeps one: a cookie sent again is not decrypted again), a session read
in straight-line code shows what the engine's machinery costs. Auth.js: ``@auth/core``
under node (:mod:`bench.authjs`), same provider, same secret; node's own bare handler is
its floor. Session reads send what a browser holds after its first visit; ``/auth/csrf`` is
always a first visit (no cookie: a new token and its cookie each time).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import authjs
from .app import USER, session_cookie
from .goals import Goal, ratio
from .load import Target, alternating, described, first_visit, pooled
from .plan import Plan
from .report import Figure, typical
from .servers import STACKS, Server, authjs_peer, copies_of, running, uvicorn

AUTHJS = "Auth.js (node)"
Measured = tuple[tuple[str, str], int]
"""A figure's (row, column) and which copy of its server it was measured on."""


def _is_session(body: Any) -> bool:
    return isinstance(body, dict) and body.get("user", {}).get("name") == USER["name"]


def _is_csrf(body: Any) -> bool:
    return bool(body.get("csrfToken"))


@dataclass(frozen=True)
class Route:
    """A row: ``path`` on each column's server; Auth.js's row ``authjs_row`` is the baseline."""

    name: str
    path: str
    expect: Callable[[Any], bool]
    session: bool = False
    ours: str = "bench.app:create_app"
    env: tuple[tuple[str, str], ...] = ()
    authjs_path: str | None = None
    authjs_row: str | None = None


def _without_the_engine(kind: str, read: str, reissue: str, csrf: str) -> tuple[Route, ...]:
    """The rows of one family of :mod:`bench.bare`'s apps (``create_<kind>_app``,
    ``create_<kind>_reissue_app``, ``create_<kind>_csrf_app``), each against the Auth.js
    route it answers as."""
    app = f"bench.bare:create_{kind}"
    return (
        Route(read, "/auth/session", _is_session, session=True, ours=f"{app}_app",
              authjs_row=SESSION),
        Route(reissue, "/auth/session", _is_session, session=True, ours=f"{app}_reissue_app",
              authjs_row=SESSION),
        Route(csrf, "/auth/csrf", _is_csrf, ours=f"{app}_csrf_app", authjs_row=CSRF),
    )  # fmt: skip


SESSION = "GET /auth/session, valid cookie"
REISSUE = "GET /auth/session, update_age=0 (re-encrypt each time)"
CSRF = "GET /auth/csrf (new token + cookie)"
STRAIGHT = "session read in straight-line code (no engine)"
STRAIGHT_REISSUE = "session re-issue in straight-line code (no engine)"
STRAIGHT_CSRF = "CSRF token + cookie in straight-line code (no engine)"
CONTRACT = "the straight-line read through the engine's Request and Response"
CONTRACT_REISSUE = "the straight-line re-issue through the engine's Request and Response"
CONTRACT_CSRF = "the straight-line CSRF token through the engine's Request and Response"
BARE = "bare handler on the same server (the floor)"
ROUTES = (
    Route(SESSION, "/auth/session", _is_session, session=True, authjs_path="/auth/session"),
    Route(REISSUE, "/auth/session", _is_session, session=True,
          env=(("BENCH_UPDATE_AGE", "0"),), authjs_row=SESSION),
    Route(CSRF, "/auth/csrf", _is_csrf, authjs_path="/auth/csrf"),
    *_without_the_engine("straight", STRAIGHT, STRAIGHT_REISSUE, STRAIGHT_CSRF),
    *_without_the_engine("contract", CONTRACT, CONTRACT_REISSUE, CONTRACT_CSRF),
    Route("session token decrypted on every request", "/bare", lambda body: body == {"ok": True},
          session=True, ours="bench.bare:create_decrypt_app", authjs_row=SESSION),
    Route(BARE, "/bare", lambda body: body == {"ok": True}, ours="bench.bare:create_app",
          authjs_path="/bare"),
)  # fmt: skip


def _server(route: Route, stack: str) -> str:
    """The name of the server ``route`` is measured on with ``stack`` (routes share them)."""
    return f"{route.ours} {dict(route.env)} on {stack}"


def _column(stack: str) -> str:
    return f"ours, uvicorn {stack}"


def _servers(with_authjs: bool) -> dict[str, Server]:
    servers = {
        _server(route, stack): uvicorn(route.ours, stack, env=dict(route.env))
        for route in ROUTES
        for stack in STACKS
    }
    if with_authjs:
        servers[AUTHJS] = authjs_peer()
    return servers


def _targets(urls: dict[tuple[str, int], str], copies: int) -> dict[Measured, Target]:
    targets = {}
    for route in ROUTES:
        cookie = session_cookie() if route.session else ""
        for copy in range(copies):
            row = {
                (route.name, _column(stack)): urls[_server(route, stack), copy] + route.path
                for stack in STACKS
            }
            if route.authjs_path is not None and (AUTHJS, copy) in urls:
                row[route.name, AUTHJS] = urls[AUTHJS, copy] + route.authjs_path
            for measured, url in row.items():
                targets[measured, copy] = first_visit(url, cookie, route.expect, keep=route.session)
    return targets


def section(plan: Plan) -> str:
    """The title of these figures' table."""
    return (
        f"HTTP GET, requests per second: server on core 0, {described()} on core 1, "
        f"{plan.describe(copied=True)} (× = ours ÷ Auth.js; update_age=0 against Auth.js's "
        "session read, which re-encrypts every time)"
    )


def http_figures(plan: Plan) -> list[Figure]:
    """Every route on every server, in alternating rounds. Without node, no Auth.js column."""
    servers = copies_of(_servers(with_authjs=authjs.node_missing() is None), plan.copies)
    with running(servers) as urls:
        targets = _targets(urls, plan.copies)
        rates = pooled(alternating(targets, plan.seconds, plan.rounds, warm_up=plan.warm_up))
    title, figures = section(plan), []
    for route in ROUTES:
        if (route.name, AUTHJS) in rates:
            figures.append(
                Figure.of_processes(title, route.name, AUTHJS, rates[route.name, AUTHJS])
            )
        theirs = rates.get((route.authjs_row or route.name, AUTHJS))
        baseline = typical(theirs) if theirs else None
        for stack in STACKS:
            column = _column(stack)
            processes = rates[route.name, column]
            figures.append(Figure.of_processes(title, route.name, column, processes, baseline))
    return figures


def route_goals(figures: list[Figure]) -> list[Goal]:
    """The routes against our own straight-line rows and the bare handler, fast server."""
    fast = {f.row: f.per_second for f in figures if f.column == _column("httptools + uvloop")}
    return [
        Goal("/auth/session ÷ the straight-line read (fast server)",
             ratio(fast, SESSION, STRAIGHT), 0.85,
             note=_contract_note(ratio(fast, CONTRACT, STRAIGHT))),
        Goal("/auth/session update_age=0 ÷ the straight-line re-issue",
             ratio(fast, REISSUE, STRAIGHT_REISSUE), 0.85,
             note=_contract_note(ratio(fast, CONTRACT_REISSUE, STRAIGHT_REISSUE))),
        Goal("/auth/csrf ÷ the bare handler (fast server)", ratio(fast, CSRF, BARE), 0.7,
             note=_straight_note(ratio(fast, STRAIGHT_CSRF, BARE),
                                 ratio(fast, CONTRACT_CSRF, BARE))),
    ]  # fmt: skip


def _contract_note(contract: float | None) -> str:
    """How near the straight-line row the same code through the engine's contract comes:
    the most any route the engine serves can reach."""
    return "" if contract is None else f"through the engine's Request and Response: ×{contract:.2f}"


def _straight_note(straight: float | None, contract: float | None = None) -> str:
    """How near the bare handler a CSRF token made without the engine comes (and through
    the engine's contract)."""
    if straight is None:
        return ""
    note = f"made in straight-line code: ×{straight:.2f}"
    return note if contract is None else f"{note}; {_contract_note(contract)}"

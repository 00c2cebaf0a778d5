"""No per-request work grows with the number of providers or of configured callbacks: a
session read and a CSRF token run the same lines of the engine with 1 provider as with 50,
and with every callback and event handler the route does not call as with none (counted,
not timed)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from sansio_auth import AuthConfig, Engine, NotAnAuthRoute, Request, Response, jwt
from sansio_auth.providers import OIDCProvider
from tests.sansio_auth.driver import ORIGIN, SECRET, START, seeded_entropy

PACKAGE = str(Path(__file__).parents[2] / "sansio_auth")
SESSION = "authjs.session-token"


def engine(providers: int, **config: Any) -> Engine:
    oidc = [
        OIDCProvider(
            id=f"op{n}",
            name=f"OP {n}",
            type="oidc",
            issuer=f"https://op{n}.example",
            client_id="i",
            client_secret="s",
        )
        for n in range(providers)
    ]
    settings = AuthConfig(secret=SECRET, trust_host=True, providers=oidc, **config)
    return Engine(settings, clock=lambda: START, entropy=seeded_entropy("scaling"), env={})


def session_cookie(provider: str) -> str:
    """A session holding the (not yet due) tokens of ``provider``: its lookup runs."""
    state = {"provider": provider, "access_token": "at", "expires_at": int(START) + 3600}
    token = jwt.encode(
        {"sub": "1", "name": "Ann", "oauth": state},
        SECRET,
        SESSION,
        now=START,
        entropy=seeded_entropy("token"),
    )
    return f"{SESSION}={token}"


def lines_run(run: Callable[[], Response]) -> tuple[int, Response]:
    """How many lines of ``sansio_auth`` ``run`` executes, and its response."""
    count = 0

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if not frame.f_code.co_filename.startswith(PACKAGE):
            return None
        count += event == "line"
        return trace

    sys.settrace(trace)
    try:
        response = run()
    finally:
        sys.settrace(None)
    return count, response


def respond(engine: Engine, path: str, cookie: str = "") -> Response:
    headers = {"cookie": cookie} if cookie else {}
    flow = engine.handle(Request(method="GET", url=f"{ORIGIN}{path}", headers=headers))
    assert not isinstance(flow, NotAnAuthRoute)
    return flow.run_sync(lambda action: pytest.fail(f"unexpected {action!r}"))


@pytest.mark.parametrize("path", ["/auth/session", "/auth/csrf"])
def test_a_request_runs_the_same_lines_with_1_or_50_providers(path: str) -> None:
    counts = []
    for providers in (1, 50):
        auth = engine(providers)
        cookie = session_cookie(f"op{providers - 1}")  # the last one: a scan would reach it
        respond(auth, path, cookie)  # warm: memoised keys
        count, response = lines_run(partial(respond, auth, path, cookie))
        assert response.status == 200
        counts.append(count)
    assert counts[0] == counts[1] > 50


def _never(**_: Any) -> Any:
    pytest.fail("a callback this route does not use was called")


UNUSED_EVENTS = ("sign_in", "sign_out", "create_user", "update_user", "link_account",
                 "token_refreshed")  # fmt: skip
UNUSED_BY_READS = {
    "callbacks": {"sign_in": _never, "redirect": _never},
    "events": dict.fromkeys(UNUSED_EVENTS, _never),
}


@pytest.mark.parametrize("path", ["/auth/session", "/auth/csrf"])
def test_a_request_runs_the_same_lines_with_or_without_callbacks_it_does_not_call(
    path: str,
) -> None:
    counts = []
    for config in ({}, UNUSED_BY_READS):
        auth = engine(1, **config)
        cookie = session_cookie("op0")
        respond(auth, path, cookie)
        count, response = lines_run(partial(respond, auth, path, cookie))
        assert response.status == 200
        counts.append(count)
    assert counts[0] == counts[1] > 50

"""The server-side session read (``Engine.session``, what every framework adapter calls) gives
exactly the answer of the ``GET session`` route, on generated configurations and cookies:
the same session, the same cookies set (a re-issued token after ``update_age``, a deleted
one), the same adapter calls (revocation checks, database reads and writes) and the same
callbacks run (``jwt``, ``session``). The read made without a flow
(``Engine.session_now``, which servers try first) either declines or gives that answer too,
and only where the flow would have performed no action and set no cookie: never for a
database session or a revocable JWT session (whose record the user's list of sessions
keeps)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sansio_auth import Flow, Response, jwt
from sansio_auth.actions import SessionResult
from sansio_auth.http import split_url
from sansio_auth.testing import seeded_entropy
from tests.sansio_auth.adapter_faults import FaultyAdapter, seed_session, seed_user
from tests.sansio_auth.driver import ORIGIN, SECRET, START, AuthPair

SESSION = "authjs.session-token"
DAY = 86400
NEW_SECRET = "a-newer-secret-0123456789abcdefghijklmnop"


def session_callback(session: dict[str, Any], token: Any = None, user: Any = None) -> Any:
    return {**session, "seen": "session-callback"}


def jwt_callback(token: dict[str, Any]) -> dict[str, Any]:
    return {**token, "role": "admin"}


configs = st.fixed_dictionaries(
    {
        "strategy": st.sampled_from(["jwt", "database"]),
        "update_age": st.sampled_from([0, 60, DAY]),
        "max_age": st.sampled_from([3600, 30 * DAY]),
        "session_callback": st.booleans(),
        "jwt_callback": st.booleans(),
        "revocation": st.booleans(),
        "session_event": st.booleans(),
        "secrets": st.sampled_from([(SECRET,), (NEW_SECRET, SECRET)]),
        "secure": st.sampled_from([None, True, False]),
        "refreshing_provider": st.booleans(),
    }
)
cookies = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(
            ["valid", "tampered", "garbage", "absent", "other secret", "provider state"]
        ),
        "age": st.one_of(
            st.integers(min_value=0, max_value=40 * DAY), st.sampled_from([59, 60, 61, DAY])
        ),
        "chunked": st.booleans(),
        "origin": st.sampled_from(["http", "https", "forwarded https"]),
    }
)


def pair_for(config: dict[str, Any]) -> tuple[AuthPair, FaultyAdapter]:
    db = FaultyAdapter()
    callbacks: dict[str, Any] = {}
    if config["session_callback"]:
        callbacks["session"] = session_callback
    if config["jwt_callback"]:
        callbacks["jwt"] = jwt_callback
    session: dict[str, Any] = {
        "strategy": config["strategy"],
        "update_age": config["update_age"],
        "max_age": config["max_age"],
    }
    if config["revocation"] and config["strategy"] == "jwt":
        session["revocation"] = True
    events = {"session": lambda **message: None} if config.get("session_event") else {}
    pair = AuthPair.build(
        adapter=db,
        session=session,
        callbacks=callbacks,
        events=events,
        secret=list(config.get("secrets", (SECRET,))),
        use_secure_cookies=config.get("secure"),
        providers=[OIDC] if config.get("refreshing_provider") else [],
        seed=7,
    )
    seed_user(db.store, "u1", "ada@example.com", name="Ada")
    return pair, db


def cookie_for(
    config: dict[str, Any], cookie: dict[str, Any], db: FaultyAdapter, name: str
) -> str | None:
    kind, issued = cookie["kind"], START - cookie["age"]
    if kind == "absent":
        return None
    if kind == "garbage":
        return "not-a-token"
    if config["strategy"] == "database":
        token = "tok-1" if kind == "valid" else "tok-unknown"
        seed_session(db.store, "tok-1", "u1", issued + config["max_age"])
        return token
    secret = SECRET if kind != "other secret" else "another-secret-0123456789abcdefghij"
    claims: dict[str, Any] = {"name": "Ada", "email": "ada@example.com", "sub": "u1", "sid": "s1"}
    if kind == "provider state":
        claims["oauth"] = {"provider": "op", "access_token": "at", "expires_at": issued + 3600}
    value = jwt.encode(
        claims,
        secret,
        name,
        now=issued,
        entropy=seeded_entropy(3),
        max_age=config["max_age"],
    )
    return value[:-3] + ("AAA" if value[-3:] != "AAA" else "BBB") if kind == "tampered" else value


OIDC = {"id": "op", "name": "OP", "type": "oidc", "issuer": "https://op.example",
        "client_id": "c", "client_secret": "s"}  # fmt: skip


def request_headers(cookie: dict[str, Any], name: str, value: str | None) -> dict[str, str]:
    headers = {"x-forwarded-proto": "https"} if cookie["origin"] == "forwarded https" else {}
    if value is None:
        return headers
    if not cookie["chunked"]:
        return {**headers, "cookie": f"{name}={value}"}
    middle = len(value) // 2
    return {**headers, "cookie": f"{name}.0={value[:middle]}; {name}.1={value[middle:]}"}


plain_configs = configs.map(
    lambda config: {**config, "strategy": "jwt", "session_callback": False, "jwt_callback": False,
                    "revocation": False, "session_event": False, "refreshing_provider": False}
)  # fmt: skip
"""Configurations whose JWT reads can be made without a flow (the fast path's own ground)."""


@settings(max_examples=300, deadline=None)
@given(config=configs, cookie=cookies)
def test_the_server_side_read_answers_as_the_route(
    config: dict[str, Any], cookie: dict[str, Any]
) -> None:
    check_read(config, cookie)


@settings(max_examples=200, deadline=None)
@given(config=plain_configs, cookie=cookies)
def test_the_read_without_a_flow_answers_as_the_route(
    config: dict[str, Any], cookie: dict[str, Any]
) -> None:
    check_read(config, cookie)


def check_read(config: dict[str, Any], cookie: dict[str, Any]) -> None:
    """The route's flow, the server-side flow, the route as served (``response_or_flow``:
    the response without a flow when it can) and, when it answers, the read without a flow
    give the same session, cookies, adapter calls and callbacks; the read without a flow
    answers only where the flow performs no action."""
    answers, quick, owners = [], None, []
    for way in ("route flow", "server", "route", "now"):
        pair, db = pair_for(config)
        origin = "https://app.example" if cookie["origin"] == "https" else ORIGIN
        secure = origin.startswith("https") or cookie["origin"] == "forwarded https"
        if config["secure"] is not None:
            secure = config["secure"]
        name = pair.engine.settings.cookies_for(secure).session_token.name
        value = cookie_for(config, cookie, db, name)
        headers = request_headers(cookie, name, value)
        if way.startswith("route"):
            request = pair.browser.build("GET", f"{origin}/auth/session", headers=headers)
            if way == "route flow":
                parts = split_url(request.url)
                response = pair.performer.run(Flow(pair.engine._serve(request, *parts, now=None)))
            else:  # as the runtimes serve it: the response at once, or the flow driven
                served = pair.engine.response_or_flow(request)
                assert isinstance(served, Response | Flow)
                response = served if isinstance(served, Response) else pair.performer.run(served)
            data: Any = response
        elif way == "server":
            request = pair.browser.build("GET", f"{origin}/any/page?x=1", headers=headers)
            response = pair.performer.run(pair.engine.session(request))
            data = response.data
            owners.append(response.user_id)
        else:
            request = pair.browser.build("GET", f"{origin}/any/page?x=1", headers=headers)
            quick = pair.engine.session_now(request)
            if quick is None:
                break
            response, data = quick, quick.data
            owners.append(quick.user_id)
        called = [(name, args) for name, args in db.calls]
        invoked = [action.name for action in pair.performer.actions if hasattr(action, "name")]
        answers.append((data, response.cookies, called, invoked))
    route_flow, server, route = answers[:3]
    assert route == route_flow  # the whole response: status, headers, cookies, body
    assert (route_flow[0].json(), *route_flow[1:]) == server
    if quick is not None:  # taken only where the flow performs nothing
        assert answers[3] == server
        assert server[2:] == ([], [])
        assert owners[1] == owners[0]  # whose session it is, too
    if value is not None and (config["strategy"] == "database" or config["revocation"]):
        # a database session, or a revocable JWT session (its marks read, its record
        # touched on re-issue, for the user's list of sessions): always the flow
        assert quick is None


def test_a_plain_jwt_session_and_a_signed_out_request_are_read_without_a_flow() -> None:
    config = {"strategy": "jwt", "update_age": DAY, "max_age": 30 * DAY, "session_callback": False,
              "jwt_callback": False, "revocation": False, "session_event": False,
              "secrets": (SECRET,), "secure": None, "refreshing_provider": False}  # fmt: skip
    pair, db = pair_for(config)
    cookie = {"kind": "valid", "age": 60, "chunked": False, "origin": "http"}
    value = cookie_for(config, cookie, db, SESSION)
    request = pair.browser.build("GET", "/page", headers={"cookie": f"{SESSION}={value}"})
    read = pair.engine.session_now(request)
    assert read is not None
    assert read.data["user"] == {"name": "Ada", "email": "ada@example.com", "id": "u1"}
    assert pair.engine.session_now(pair.browser.build("GET", "/page")) == SessionResult()


def test_the_server_side_read_sees_the_requests_origin_not_its_path() -> None:
    pair, _ = pair_for(
        {"strategy": "jwt", "update_age": DAY, "max_age": 30 * DAY,
         "session_callback": False, "jwt_callback": False, "revocation": False}
    )  # fmt: skip
    pair.browser.jar.clear()
    request = pair.browser.build("POST", f"{ORIGIN}/form", headers={"cookie": f"{SESSION}=x"})
    read = pair.performer.run(pair.engine.session(request))
    assert read.data is None
    assert [c.name for c in read.cookies] == [SESSION]  # the unreadable cookie is deleted

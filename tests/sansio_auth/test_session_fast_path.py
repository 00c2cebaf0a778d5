"""The server-side session read (``Engine.session``, what every framework adapter calls) gives
exactly the answer of the ``GET session`` route, on generated configurations and cookies:
the same session, the same cookies set (a re-issued token after ``update_age``, a deleted
one), the same adapter calls (revocation checks, database reads and writes) and the same
callbacks run (``jwt``, ``session``)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sansio_auth import jwt
from sansio_auth.testing import seeded_entropy
from tests.sansio_auth.adapter_faults import FaultyAdapter, seed_session, seed_user
from tests.sansio_auth.driver import ORIGIN, SECRET, START, AuthPair

SESSION = "authjs.session-token"
DAY = 86400


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
    }
)
cookies = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(["valid", "tampered", "garbage", "absent", "other secret"]),
        "age": st.integers(min_value=0, max_value=40 * DAY),
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
    pair = AuthPair.build(adapter=db, session=session, callbacks=callbacks, seed=7)
    seed_user(db.store, "u1", "ada@example.com", name="Ada")
    return pair, db


def cookie_for(config: dict[str, Any], cookie: dict[str, Any], db: FaultyAdapter) -> str | None:
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
    claims = {"name": "Ada", "email": "ada@example.com", "sub": "u1", "sid": "s1"}
    value = jwt.encode(
        claims,
        secret,
        SESSION,
        now=issued,
        entropy=seeded_entropy(3),
        max_age=config["max_age"],
    )
    return value[:-3] + ("AAA" if value[-3:] != "AAA" else "BBB") if kind == "tampered" else value


@settings(max_examples=150, deadline=None)
@given(config=configs, cookie=cookies)
def test_the_server_side_read_answers_as_the_route(
    config: dict[str, Any], cookie: dict[str, Any]
) -> None:
    answers = []
    for way in ("route", "server"):
        pair, db = pair_for(config)
        value = cookie_for(config, cookie, db)
        headers = {"cookie": f"{SESSION}={value}"} if value is not None else {}
        if way == "route":
            request = pair.browser.build("GET", "/auth/session", headers=headers)
            response = pair.performer.run(pair.engine.handle(request))  # type: ignore[arg-type]
            data = response.json()
        else:
            request = pair.browser.build("GET", "/any/page?x=1", headers=headers)
            response = pair.performer.run(pair.engine.session(request))
            data = response.data
        called = [(name, args) for name, args in db.calls]
        invoked = [action.name for action in pair.performer.actions if hasattr(action, "name")]
        answers.append((data, response.cookies, called, invoked))
    assert answers[0] == answers[1]


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

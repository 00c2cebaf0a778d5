"""Whose a session is: ``Engine.session`` and ``Engine.update_session`` answer, besides the
session, the id of the stored user it belongs to (a JWT session's ``sub``), for a framework's
``request.user``; ``None`` whenever the session is."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sansio_auth import Request
from sansio_auth.actions import AuthorizedResult, SessionResult
from sansio_auth.providers import Credentials
from tests.sansio_auth.adapter_faults import FaultyAdapter, seed_session, seed_user
from tests.sansio_auth.driver import ANN, ORIGIN, START, AuthPair, users

SESSION = "authjs.session-token"


def request(cookie: str | None) -> Request:
    headers = {} if cookie is None else {"cookie": cookie}
    return Request(method="GET", url=f"{ORIGIN}/", headers=headers)


def session_of(pair: AuthPair, cookie: str | None) -> SessionResult:
    result = pair.performer.run(pair.engine.session(request(cookie)))
    assert isinstance(result, SessionResult)
    return result


def route_answer(pair: AuthPair, cookie: str | None) -> Any:
    headers = {} if cookie is None else {"cookie": cookie}
    return pair.browser.get("/auth/session", headers=headers).json()


def test_a_database_session_is_its_rows_user() -> None:
    db = FaultyAdapter()
    pair = AuthPair.build(adapter=db, session={"strategy": "database", "update_age": 0})
    seed_user(db.store, "u1", "ada@example.com", name="Ada")
    seed_session(db.store, "tok", "u1", START + 3600)
    read = session_of(pair, f"{SESSION}=tok")
    assert (read.data, read.user_id) == (route_answer(pair, f"{SESSION}=tok"), "u1")
    assert read.data["user"]["id"] == "u1"  # with a store, the session names its user
    for cookie in (f"{SESSION}=gone", None):
        read = session_of(pair, cookie)
        assert (read.data, read.user_id) == (None, None)


def test_a_jwt_session_is_its_subs() -> None:
    pair = AuthPair.build(providers=[Credentials(authorize=users(ANN))])
    pair.browser.sign_in_with_credentials(username="ann", password="pw")
    cookie = pair.browser.cookie_header()
    read = session_of(pair, cookie)
    assert (read.data, read.user_id) == (route_answer(pair, cookie), ANN["id"])
    updated = pair.performer.run(pair.engine.update_session(request(cookie), {"x": 1}))
    assert isinstance(updated, SessionResult)
    assert updated.user_id == ANN["id"]


def test_the_authorized_callbacks_read_names_the_user_too() -> None:
    """The session the ``authorized`` callback was given is the request's: whose it is, too
    (the middleware keeps it for ``current_user``)."""
    db = FaultyAdapter()
    pair = AuthPair.build(adapter=db, callbacks={"authorized": lambda auth: True})
    seed_user(db.store, "u1", "ada@example.com", name="Ada")
    seed_session(db.store, "tok", "u1", START + 3600)
    for cookie, owner in ((f"{SESSION}=tok", "u1"), (f"{SESSION}=gone", None), (None, None)):
        result = pair.performer.run(pair.engine.authorized(request(cookie), None))
        assert isinstance(result, AuthorizedResult)
        assert (result.read, result.user_id) == (True, owner)


def test_no_session_no_user() -> None:
    """A token without ``sub`` belongs to no stored user; a session the ``session``
    callback ends has none either."""
    no_sub = AuthPair.build(
        providers=[Credentials(authorize=users(ANN))],
        callbacks={"jwt": lambda token, **_: {k: v for k, v in token.items() if k != "sub"}},
    )
    no_sub.browser.sign_in_with_credentials(username="ann", password="pw")
    read = session_of(no_sub, no_sub.browser.cookie_header())
    assert read.data["user"]["email"] == ANN["email"]
    assert read.user_id is None
    ended = AuthPair.build(
        providers=[Credentials(authorize=users(ANN))], callbacks={"session": lambda **_: None}
    )
    ended.browser.sign_in_with_credentials(username="ann", password="pw")
    read = session_of(ended, ended.browser.cookie_header())
    assert (read.data, read.user_id) == (None, None)


@settings(max_examples=60, deadline=None)
@given(
    store=st.booleans(),
    strategy=st.sampled_from(["jwt", "database"]),
    update_age=st.sampled_from([0, 86400]),
    callback=st.booleans(),
)
def test_the_session_names_its_stored_user_exactly_when_there_is_a_store(
    store: bool, strategy: str, update_age: int, callback: bool
) -> None:
    """``user.id`` is the stored user's id (the read's ``user_id``) whenever a store is
    configured, on every strategy and read (the route, the server-side flow, the read without
    a flow), and the ``session`` callback sees it; without a store the session has no ``id``
    (a JWT's ``sub`` then is the provider's, or a random one: no user to name)."""
    if strategy == "database" and not store:
        strategy = "jwt"  # database sessions need a store
    db = FaultyAdapter()
    seen: list[Any] = []

    def session_callback(session: dict[str, Any], **_: Any) -> dict[str, Any]:
        seen.append(session["user"].get("id"))
        return session

    pair = AuthPair.build(
        adapter=db if store else None,
        providers=[Credentials(authorize=users(ANN))] if strategy == "jwt" else [],
        session={"strategy": strategy, "update_age": update_age},
        callbacks={"session": session_callback} if callback else {},
    )
    seed_user(db.store, ANN["id"], ANN["email"], name=ANN["name"])
    if strategy == "database":
        seed_session(db.store, "tok", ANN["id"], START + 3600)
        cookie = f"{SESSION}=tok"
    else:
        pair.browser.sign_in_with_credentials(username="ann", password="pw")
        cookie = pair.browser.cookie_header()
    reads = [session_of(pair, cookie)]
    now = pair.engine.session_now(request(cookie))
    if now is not None:
        reads.append(now)
    for read in reads:
        assert read.data["user"].get("id") == (ANN["id"] if store else None)
        assert read.user_id == ANN["id"]
    assert route_answer(pair, cookie)["user"] == reads[0].data["user"]
    assert seen == ([ANN["id"] if store else None] * len(seen))

"""``GET|POST session`` with database sessions (authjs-facts §5.2): lookup, sliding expiry
throttled by ``update_age``, expired rows, adapter failures, callbacks and events."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sansio_auth.events import CallAdapter
from sansio_auth.http import http_date, iso_date
from tests.sansio_auth.adapter_faults import (
    FaultyAdapter,
    seed_session,
    seed_user,
    utc,
)
from tests.sansio_auth.driver import (
    START,
    AuthPair,
    StoredCookie,
    deleted_names,
    set_cookie_lines,
    written,
)

SESSION = "authjs.session-token"
DAY = 86400
MAX_AGE = 30 * DAY


def record(into):
    def handler(**message):
        into.append(message)

    return handler


def database(*, session=None, callbacks=None, events=None, **options):
    db = FaultyAdapter()
    pair = AuthPair.build(
        adapter=db,
        session={"strategy": "database", **(session or {})},
        callbacks=callbacks or {},
        events=events or {},
        **options,
    )
    return pair, db


def signed_in(pair, db, *, expires=START + MAX_AGE, token="tok-1"):
    """A user with a session row; the browser holds its cookie."""
    seed_user(db.store, "u1", "ada@example.com", name="Ada", image="https://img/ada.png")
    seed_session(db.store, token, "u1", expires)
    pair.browser.jar[SESSION] = StoredCookie(token, None)
    return token


def read(pair, token=None):
    headers = {"cookie": f"{SESSION}={token}"} if token is not None else None
    response = pair.browser.get("/auth/session", headers=headers)
    assert response.status == 200
    return response


def writes(db):
    return len(db.called("update_session"))


# -- reading -------------------------------------------------------------------------------------


def test_a_fresh_session_is_read_without_a_write_or_a_cookie():
    pair, db = database()
    token = signed_in(pair, db)
    pair.clock.advance(3600)
    response = read(pair)
    assert response.json() == {
        "user": {
            "name": "Ada",
            "email": "ada@example.com",
            "image": "https://img/ada.png",
            "id": "u1",
        },
        "expires": iso_date(START + MAX_AGE),
    }
    assert writes(db) == 0
    assert not any(line.startswith(SESSION) for line in set_cookie_lines(response))
    assert db.called("get_session_and_user") == [(token,)]


def test_a_due_session_is_extended_and_answers_its_real_expiry():
    pair, db = database()
    token = signed_in(pair, db)
    pair.clock.advance(DAY)  # expires - max_age + update_age <= now
    response = read(pair)
    new_expiry = pair.clock.now + MAX_AGE
    extension = {"session_token": token, "expires": utc(new_expiry)}
    assert db.called("update_session") == [({**extension, "last_seen_at": utc(pair.clock.now)},)]
    assert db.store.sessions[token]["expires"] == utc(new_expiry)
    assert response.json()["expires"] == iso_date(new_expiry)  # not the pre-update expiry
    [line] = [line for line in set_cookie_lines(response) if line.startswith(SESSION)]
    assert line.startswith(f"{SESSION}={token};")
    assert f"Expires={http_date(new_expiry)}" in line
    assert "no-store" in (response.header("cache-control") or "")


def test_the_extension_is_one_flight_per_session():
    """Concurrent reads that all find the session due are one write: the action carries a
    single-flight key of its own session (a hash, never the token)."""
    pair, db = database()
    token = signed_in(pair, db)
    pair.clock.advance(DAY)
    pair.performer.clear()
    read(pair)
    [call] = [a for a in pair.performer.actions if isinstance(a, CallAdapter)
              and a.method == "update_session"]  # fmt: skip
    assert call.single_flight is not None
    assert token not in call.single_flight
    assert call.single_flight == "update_session:" + hashlib.sha256(token.encode()).hexdigest()
    reads = [a for a in pair.performer.actions if isinstance(a, CallAdapter)
             and a.method == "get_session_and_user"]  # fmt: skip
    assert [a.single_flight for a in reads] == [None]


def test_update_age_zero_writes_on_every_read():
    pair, db = database(session={"update_age": 0})
    signed_in(pair, db)
    for _ in range(3):
        pair.clock.advance(1)
        assert SESSION in written(read(pair))
    assert writes(db) == 3


def test_an_expired_session_is_deleted_on_read():
    pair, db = database()
    token = signed_in(pair, db, expires=START + 10)
    pair.clock.advance(10)
    response = read(pair, token)  # a cookie can outlive its row (e.g. a clock skew, a restore)
    assert response.json() is None
    assert db.called("delete_session") == [(token,)]
    assert token not in db.store.sessions
    assert SESSION in deleted_names(response)
    assert "u1" in db.store.users  # the user stays


def test_an_unknown_token_is_no_session_and_its_cookie_goes():
    pair, db = database()
    response = read(pair, "made-up")
    assert response.json() is None
    assert SESSION in deleted_names(response)
    assert writes(db) == 0


def test_a_row_deleted_while_being_extended_is_no_session():
    pair, db = database()
    token = signed_in(pair, db)
    pair.clock.advance(DAY)
    db.before("update_session", lambda *args: db.store.delete_session(token))
    response = read(pair)
    assert response.json() is None
    assert SESSION in deleted_names(response)


def test_no_cookie_no_lookup():
    pair, db = database()
    assert read(pair).json() is None
    assert db.calls == []


# -- failures ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "expires", "elapsed"),
    [
        ("get_session_and_user", START + MAX_AGE, 0),
        ("update_session", START + MAX_AGE, DAY),  # due for extension
        ("delete_session", START + 5, 5),  # expired
    ],
)
def test_an_adapter_failure_is_logged_and_changes_no_cookie(method, expires, elapsed):
    pair, db = database()
    token = signed_in(pair, db, expires=expires)
    pair.clock.advance(elapsed)
    db.fail_on(method)
    response = read(pair, token)
    assert response.json() is None
    assert not any(c.name.startswith(SESSION) for c in response.cookies)
    assert pair.performer.log_codes("error") == ["SessionTokenError"]
    assert pair.browser.cookies()[SESSION] == token


def test_a_session_callback_that_raises_is_a_session_token_error():
    def broken(session):
        raise ValueError("boom")

    pair, db = database(callbacks={"session": broken})
    signed_in(pair, db)
    response = read(pair)
    assert response.json() is None
    assert pair.performer.log_codes("error") == ["SessionTokenError"]
    assert not response.cookies or SESSION not in {c.name for c in response.cookies}


# -- callbacks and events ------------------------------------------------------------------------


def test_session_callback_gets_the_user_and_the_update():
    seen, emitted = [], []

    def session_callback(session, user, token, new_session, trigger):
        seen.append(
            {
                "session": session,
                "user": user,
                "token": token,
                "new": new_session,
                "trigger": trigger,
            }
        )
        return {**session, "id": user["id"], "nickname": (new_session or {}).get("nickname")}

    pair, db = database(
        callbacks={"session": session_callback}, events={"session": record(emitted)}
    )
    signed_in(pair, db)
    body = read(pair).json()
    assert body["id"] == "u1"
    assert body["nickname"] is None
    first = seen[0]
    assert first["session"] == {
        "user": {
            "name": "Ada",
            "email": "ada@example.com",
            "image": "https://img/ada.png",
            "id": "u1",
        },
        "expires": iso_date(START + MAX_AGE),
    }
    assert first["user"]["id"] == "u1"
    assert first["user"]["email_verified"] is None
    assert first["token"] is None
    assert first["trigger"] is None
    assert "session_token" not in first["session"]  # the HttpOnly cookie's value stays hidden

    response = pair.browser.update_session({"nickname": "Countess"})
    assert response.status == 200
    assert response.json()["nickname"] == "Countess"
    assert seen[-1]["trigger"] == "update"
    assert seen[-1]["new"] == {"nickname": "Countess"}
    assert [e["session"]["nickname"] for e in emitted] == [None, "Countess"]
    assert all(e["token"] is None for e in emitted)


def test_update_without_csrf_is_400_null_and_touches_nothing():
    pair, db = database()
    signed_in(pair, db)
    response = pair.browser.post("/auth/session", json={"data": {"x": 1}})
    assert response.status == 400
    assert response.json() is None
    assert db.calls == []


def test_sign_out_deletes_the_row_and_the_cookie():
    signed_out = []
    pair, db = database(events={"sign_out": record(signed_out)})
    token = signed_in(pair, db)
    response = pair.browser.sign_out()
    assert response.status == 302
    assert token not in db.store.sessions
    assert SESSION in deleted_names(response)
    assert signed_out[0]["session"]["session_token"] == token
    assert pair.browser.session() is None


# -- the update_age throttle -----------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    update_age=st.integers(min_value=0, max_value=MAX_AGE),
    gaps=st.lists(st.integers(min_value=0, max_value=2 * DAY), min_size=1, max_size=25),
)
def test_update_age_throttles_writes(update_age, gaps):
    """Writes happen exactly when ``update_age`` has passed since the last one (or the
    session's start), so over any run writes ≤ reads and writes ≤ elapsed / update_age."""
    pair, db = database(session={"update_age": update_age, "max_age": 3 * DAY})
    max_age = 3 * DAY
    token = signed_in(pair, db, expires=START + max_age)
    last_write, alive, reads = START, True, 0
    for gap in gaps:
        pair.clock.advance(gap)
        now = pair.clock.now
        before = writes(db)
        body = read(pair, token).json()
        reads += 1
        if alive and last_write + max_age <= now:
            alive = False
        if not alive:
            assert body is None
            assert writes(db) == before
            continue
        expected_write = now - last_write >= update_age
        assert writes(db) == before + int(expected_write)
        if expected_write:
            last_write = now
        assert body["expires"] == iso_date(last_write + max_age)
    assert writes(db) <= reads
    if update_age > 0:
        assert writes(db) <= (pair.clock.now - START) // update_age


def test_a_database_sign_in_deletes_a_stray_chunk_past_the_cap():
    from tests.sansio_auth.own_site import Site

    site = Site("database")
    browser = site.browser(None)
    browser.jar[f"{SESSION}.16"] = StoredCookie("left-over", None)  # refused: no session
    assert browser.session() is None
    browser.jar[f"{SESSION}.16"] = StoredCookie("left-over", None)
    assert site.sign_in(browser).status == 302
    assert f"{SESSION}.16" not in browser.cookies()
    assert browser.session()["user"]["email"] == "alice@example.com"

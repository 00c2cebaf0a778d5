"""``GET|POST session``: reading, updating and sliding the JWT session (authjs-facts §5)."""

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_auth import jwt
from sansio_auth.cookies import CHUNK_SIZE
from sansio_auth.http import http_date, iso_date, parse_cookie_header
from sansio_auth.providers import Credentials
from tests.sansio_auth.driver import (
    ANN,
    SECRET,
    START,
    AuthPair,
    deleted_names,
    seeded_entropy,
    users,
    written,
)

SESSION = "authjs.session-token"
DAY = 86400
MAX_AGE = 30 * DAY


def signed_in(**options):
    auth = AuthPair.build(providers=[Credentials(authorize=users(ANN))], **options)
    response = auth.browser.sign_in_with_credentials(username="ann", password="pw")
    assert any(name.startswith(("sid", SESSION)) for name in written(response))
    auth.performer.clear()
    return auth


def read(auth):
    response = auth.browser.get("/auth/session")
    assert response.status == 200
    return response


def token_in(auth, name=SESSION):
    return jwt.decode(auth.browser.cookies()[name], SECRET, name, now=auth.clock.now)


def cookie_with(value, name=SESSION):
    return {"cookie": f"{name}={value}"}


# -- reading ----------------------------------------------------------------------------------


def test_session_after_sign_in():
    auth = signed_in()
    body = read(auth).json()
    assert body == {
        "user": {"name": "Ann", "email": "ann@example.com"},
        "expires": iso_date(START + MAX_AGE),
    }


def test_default_token_contents():
    auth = signed_in()
    token = token_in(auth)
    assert {k: token[k] for k in ("name", "email", "sub")} == {
        "name": "Ann",
        "email": "ann@example.com",
        "sub": "1",
    }
    assert token["iat"] == int(START)
    assert token["exp"] == int(START) + MAX_AGE
    assert token["auth_time"] == int(START)  # ours: the sign-in time (freshness)
    assert set(token) == {"name", "email", "sub", "iat", "exp", "jti", "auth_time"}


def test_session_cookie_attributes():
    auth = AuthPair.build(providers=[Credentials(authorize=users(ANN))])
    response = auth.browser.sign_in_with_credentials(username="ann", password="pw")
    [cookie] = [c for c in response.cookies if c.name == SESSION]
    line = cookie.header_value()
    assert line.endswith(f"; Path=/; Expires={http_date(START + MAX_AGE)}; HttpOnly; SameSite=Lax")


def test_jwt_max_age_and_cookie_expiry_are_separate():
    auth = signed_in(jwt={"max_age": 60}, session={"max_age": 3600})
    assert token_in(auth)["exp"] == int(START) + 60
    auth.clock.advance(60 + 15)
    response = read(auth)
    assert response.json() is None
    assert SESSION in deleted_names(response)


# -- sliding expiry (fixes Auth.js's re-encrypt-on-every-read, authjs-facts §5.1 step 6) ----


def test_fresh_session_is_not_reissued():
    auth = signed_in()
    auth.clock.advance(DAY - 1)
    response = read(auth)
    assert response.cookies == ()
    assert response.json()["expires"] == iso_date(START + MAX_AGE)


def test_session_is_reissued_once_update_age_has_passed():
    auth = signed_in()
    auth.clock.advance(DAY)
    response = read(auth)
    [cookie] = response.cookies
    assert cookie.name == SESSION
    assert cookie.options.expires == START + DAY + MAX_AGE
    assert response.json()["expires"] == iso_date(START + DAY + MAX_AGE)
    assert token_in(auth)["iat"] == int(START + DAY)
    assert token_in(auth)["sub"] == "1"
    auth.clock.advance(1)
    assert read(auth).cookies == ()  # and not again until another day has passed


def test_update_age_zero_reissues_on_every_read():
    auth = signed_in(session={"update_age": 0})
    assert [c.name for c in read(auth).cookies] == [SESSION]
    assert [c.name for c in read(auth).cookies] == [SESSION]


def test_a_session_kept_alive_outlives_max_age():
    auth = signed_in(session={"max_age": 10 * DAY})
    for _ in range(30):
        auth.clock.advance(DAY)
        assert read(auth).json()["user"]["name"] == "Ann"


def test_an_idle_session_expires():
    auth = signed_in(session={"max_age": 10 * DAY})
    auth.clock.advance(10 * DAY + 1)
    assert SESSION not in auth.browser.cookies()  # the browser dropped it
    assert read(auth).json() is None


def test_jwt_callback_change_reissues_the_cookie():
    def jwt_callback(token):
        token["reads"] = token.get("reads", 0) + 1
        return token

    auth = signed_in(callbacks={"jwt": jwt_callback})
    assert [c.name for c in read(auth).cookies] == [SESSION]
    assert [c.name for c in read(auth).cookies] == [SESSION]
    assert token_in(auth)["reads"] == 3  # sign-in, then two reads


def test_unchanged_jwt_callback_does_not_reissue():
    auth = signed_in(callbacks={"jwt": lambda token: token})
    assert read(auth).cookies == ()
    [params] = auth.performer.invoked("jwt")
    assert params["trigger"] is None
    assert params["session"] is None
    assert params["user"] is None
    assert params["token"]["sub"] == "1"


def test_rotated_secret_reissues_under_the_new_secret():
    auth = signed_in(secret="old-secret-0123456789")
    old_cookie = auth.browser.cookies()[SESSION]
    rotated = AuthPair.build(
        providers=[Credentials(authorize=users(ANN))],
        secret=["new-secret-987", "old-secret-0123456789"],
    )
    response = rotated.browser.get("/auth/session", headers=cookie_with(old_cookie))
    assert response.json()["user"]["name"] == "Ann"
    new_cookie = written(response)[SESSION]
    assert jwt.decode(new_cookie, "new-secret-987", SESSION, now=START)["sub"] == "1"


# -- update ------------------------------------------------------------------------------------


def test_update_passes_data_to_the_jwt_and_session_callbacks():
    def jwt_callback(token, trigger, session):
        if trigger == "update":
            token["name"] = session["name"]
        return token

    def session_callback(session, new_session, trigger):
        session["trigger"] = trigger
        session["data"] = new_session
        return session

    auth = signed_in(callbacks={"jwt": jwt_callback, "session": session_callback})
    response = auth.browser.update_session({"name": "Annie"})
    assert response.status == 200
    assert response.json()["user"]["name"] == "Annie"
    assert response.json()["trigger"] == "update"
    assert response.json()["data"] == {"name": "Annie"}
    assert SESSION in written(response)
    assert token_in(auth)["name"] == "Annie"
    assert read(auth).json()["user"]["name"] == "Annie"
    [update_call] = [p for p in auth.performer.invoked("jwt") if p["trigger"] == "update"]
    assert update_call["session"] == {"name": "Annie"}


def test_update_with_a_form_body():
    seen = []
    auth = signed_in(callbacks={"jwt": lambda token, session: seen.append(session) or token})
    form = {"csrfToken": auth.browser.csrf_token(), "data": "plain"}
    assert auth.browser.post("/auth/session", form=form).status == 200
    assert seen == [None, "plain"]  # sign-in, then the update


def test_default_callbacks_ignore_update_data():
    auth = signed_in()
    response = auth.browser.update_session({"name": "Mallory"})
    assert response.json()["user"]["name"] == "Ann"


def test_update_without_a_session_is_null():
    auth = AuthPair.build()
    assert auth.browser.update_session({"x": 1}).json() is None


def test_update_with_a_wrong_csrf_token_is_400():
    auth = signed_in()
    auth.browser.csrf_token()
    response = auth.browser.post("/auth/session", json={"csrfToken": "0" * 64, "data": {}})
    assert response.status == 400
    assert response.json() is None
    assert response.cookies == ()


# -- ending the session --------------------------------------------------------------------------


def test_jwt_callback_none_ends_the_session():
    calls = []

    def jwt_callback(token, trigger):
        calls.append(trigger)
        return token if trigger == "signIn" else None

    auth = signed_in(callbacks={"jwt": jwt_callback})
    response = read(auth)
    assert response.json() is None
    assert deleted_names(response) == {SESSION}
    assert SESSION not in auth.browser.cookies()


def test_expired_token_is_null_and_deleted():
    auth = signed_in()
    value = auth.browser.cookies()[SESSION]
    later = auth.new_browser()
    auth.clock.advance(MAX_AGE + 16)
    response = later.get("/auth/session", headers=cookie_with(value))
    assert response.json() is None
    assert deleted_names(response) == {SESSION}
    assert "JWTSessionError" in auth.performer.log_codes("warn")


def test_a_check_cookie_token_is_not_a_session():
    auth = AuthPair.build()
    planted = jwt.encode(
        {"sub": "1", "name": "Mock"}, SECRET, "authjs.state", now=START, entropy=seeded_entropy()
    )
    response = auth.browser.get("/auth/session", headers=cookie_with(planted))
    assert response.json() is None
    assert deleted_names(response) == {SESSION}


def test_an_https_session_token_is_not_an_http_one():
    auth = AuthPair.build()
    token = jwt.encode(
        {"sub": "1"}, SECRET, "__Secure-authjs.session-token", now=START, entropy=seeded_entropy()
    )
    assert auth.browser.get("/auth/session", headers=cookie_with(token)).json() is None


def test_decode_override_returning_none_ends_the_session():
    auth = AuthPair.build(jwt={"decode": lambda token: None})
    response = auth.browser.get("/auth/session", headers=cookie_with("anything"))
    assert response.json() is None
    assert deleted_names(response) == {SESSION}


def test_encode_and_decode_overrides():
    store = {}

    def encode(token, secret, salt, max_age):
        store["params"] = (secret, salt, max_age)
        store[f"t{len(store)}"] = token
        return f"t{len(store) - 1}"

    def decode(token, secret, salt):
        return store.get(token)

    auth = signed_in(jwt={"encode": encode, "decode": decode, "max_age": 99})
    assert auth.browser.cookies()[SESSION] == "t1"
    assert store["params"] == (SECRET, SESSION, 99)
    assert read(auth).json()["user"]["name"] == "Ann"


def test_overrides_get_the_secret_list_when_rotating():
    seen = {}

    def encode(token, secret):
        seen["secret"] = secret
        return "x"

    signed_in(secret=["a", "b"], jwt={"encode": encode})
    assert seen["secret"] == ["a", "b"]


# -- events ---------------------------------------------------------------------------------------


def test_session_event_gets_the_callback_result_and_the_token():
    received = []

    def on_session(session, token):
        received.append((session, token))

    auth = signed_in(
        events={"session": on_session},
        callbacks={"session": lambda session: {"only": "this"}},
    )
    assert read(auth).json() == {"only": "this"}
    [(session, token)] = received
    assert session == {"only": "this"}
    assert token["sub"] == "1"


def test_no_session_event_without_a_session():
    auth = AuthPair.build(events={"session": lambda: None})
    read(auth)
    assert auth.performer.emitted("session") == []


# -- chunked sessions ------------------------------------------------------------------------


def test_a_big_token_is_chunked_and_shrinks_back():
    def jwt_callback(token, trigger, session):
        if trigger == "signIn":
            token["blob"] = "x" * (2 * CHUNK_SIZE)
        if trigger == "update":
            token.pop("blob")
        return token

    auth = signed_in(callbacks={"jwt": jwt_callback})
    names = sorted(auth.browser.cookies())
    assert f"{SESSION}.0" in names
    assert f"{SESSION}.2" in names
    assert SESSION not in names
    assert read(auth).json()["user"]["name"] == "Ann"

    response = auth.browser.update_session({})
    assert deleted_names(response) == {f"{SESSION}.0", f"{SESSION}.1", f"{SESSION}.2"}
    assert SESSION in written(response)
    assert sorted(n for n in auth.browser.cookies() if n.startswith(SESSION)) == [SESSION]
    assert read(auth).json()["user"]["name"] == "Ann"


def test_a_missing_chunk_is_no_session_and_every_chunk_is_deleted():
    auth = signed_in(callbacks={"jwt": lambda token: {**token, "blob": "y" * (2 * CHUNK_SIZE)}})
    del auth.browser.jar[f"{SESSION}.1"]
    response = read(auth)
    assert response.json() is None
    assert deleted_names(response) == {f"{SESSION}.0", f"{SESSION}.2"}


STRAY = f"{SESSION}.16"  # past the cap (MAX_CHUNKS): a request holding it is refused


def with_stray_chunk(auth):
    from sansio_auth.testing.browser import StoredCookie

    auth.browser.jar[STRAY] = StoredCookie("left-over", None)


@pytest.mark.parametrize("plain", [True, False])  # the read without actions, and the flow's
def test_a_stray_chunk_past_the_cap_is_deleted_by_a_read_and_by_a_sign_in(plain):
    options = {} if plain else {"callbacks": {"jwt": lambda token: token}}
    auth = AuthPair.build(providers=[Credentials(authorize=users(ANN))], **options)
    with_stray_chunk(auth)
    response = read(auth)
    assert response.json() is None
    assert deleted_names(response) == {STRAY}
    with_stray_chunk(auth)
    signed = auth.browser.sign_in_with_credentials(username="ann", password="pw")
    assert STRAY in deleted_names(signed)
    assert STRAY not in auth.browser.cookies()
    assert read(auth).json()["user"]["name"] == "Ann"


def test_a_session_cookie_that_came_with_a_stray_chunk_goes_with_it():
    """A browser left with both (before stray chunks were deleted): one read refuses and
    deletes both, and the next sign-in works."""
    auth = signed_in()
    with_stray_chunk(auth)
    response = read(auth)
    assert response.json() is None
    assert deleted_names(response) == {SESSION, STRAY}
    auth.browser.sign_in_with_credentials(username="ann", password="pw")
    assert read(auth).json()["user"]["name"] == "Ann"


# -- properties: a tampered or truncated cookie never yields a session --------------------------

COOKIE_CHARS = "".join(c for c in string.printable if c not in "; \t\n\r\x0b\x0c,")
VALID = signed_in().browser.cookies()[SESSION]


def assert_no_session(value):
    auth = AuthPair.build()
    response = auth.browser.get("/auth/session", headers=cookie_with(value))
    assert response.status == 200
    assert response.json() is None
    sent = parse_cookie_header(f"{SESSION}={value}").get(SESSION)
    assert deleted_names(response) == ({SESSION} if sent else set())
    assert written(response) == {}


@given(index=st.integers(min_value=0), replacement=st.sampled_from(COOKIE_CHARS))
def test_a_tampered_cookie_never_yields_a_session(index, replacement):
    position = index % len(VALID)
    tampered = VALID[:position] + replacement + VALID[position + 1 :]
    if tampered != VALID:
        assert_no_session(tampered)


@given(cut=st.integers(min_value=0, max_value=len(VALID) - 1))
def test_a_truncated_cookie_never_yields_a_session(cut):
    assert_no_session(VALID[:cut])


@given(value=st.text(alphabet=COOKIE_CHARS, max_size=400))
def test_a_garbage_cookie_never_yields_a_session(value):
    assert_no_session(value)


@given(data=st.data())
def test_a_spliced_cookie_never_yields_a_session(data):
    other = signed_in(seed="other").browser.cookies()[SESSION]
    mine, theirs = VALID.split("."), other.split(".")
    picks = [data.draw(st.booleans()) for _ in mine]
    spliced = ".".join(a if keep else b for a, b, keep in zip(mine, theirs, picks, strict=True))
    if spliced not in (VALID, other):
        assert_no_session(spliced)


def test_a_raising_session_callback_ends_the_session_without_a_half_written_cookie():
    def session_callback(session, trigger):
        if trigger == "update":
            raise RuntimeError("profile service is down")
        return session

    auth = signed_in(callbacks={"session": session_callback})
    response = auth.browser.update_session({"a": 1})
    assert response.status == 200
    assert response.json() is None
    assert [(c.name, c.value) for c in response.cookies] == [(SESSION, "")]
    assert deleted_names(response) == {SESSION}
    assert "JWTSessionError" in auth.performer.log_codes("error")  # the callback's fault


def test_a_raising_jwt_callback_on_read_ends_the_session():
    def jwt_callback(token, trigger):
        if trigger is None:
            raise RuntimeError("revoked")
        return token

    auth = signed_in(callbacks={"jwt": jwt_callback})
    response = read(auth)
    assert response.json() is None
    assert deleted_names(response) == {SESSION}


def test_a_renamed_session_cookie_is_also_the_salt():
    auth = signed_in(cookies={"session_token": {"name": "sid", "options": {"same_site": "strict"}}})
    value = auth.browser.cookies()["sid"]
    assert jwt.decode(value, SECRET, "sid", now=START)["sub"] == "1"
    assert read(auth).json()["user"]["name"] == "Ann"
    response = auth.browser.sign_out()
    assert [c.header_value() for c in response.cookies] == [
        "sid=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict"
    ]

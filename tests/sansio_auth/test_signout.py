"""``GET|POST signout``: the confirmation page and ending the session (authjs-facts §7)."""

from sansio_auth.cookies import CHUNK_SIZE, MAX_CHUNKS
from sansio_auth.providers import Credentials
from sansio_auth.settings import DATABASE_METHODS
from tests.sansio_auth.driver import (
    ANN,
    ORIGIN,
    AuthPair,
    StoredCookie,
    deleted_names,
    users,
    written,
)

SESSION = "authjs.session-token"


def signed_in(**options):
    auth = AuthPair.build(providers=[Credentials(authorize=users(ANN))], **options)
    auth.browser.sign_in_with_credentials(username="ann", password="pw")
    auth.performer.clear()
    return auth


def test_sign_out_deletes_the_session_and_redirects():
    auth = signed_in()
    response = auth.browser.sign_out()
    assert response.status == 302
    assert response.location == ORIGIN
    assert deleted_names(response) == {SESSION}
    assert response.header("cache-control") == "private, no-cache, no-store"
    assert auth.browser.session() is None
    assert "authjs.csrf-token" in auth.browser.cookies()  # other cookies stay


def test_sign_out_emits_the_token():
    received = []
    auth = signed_in(events={"sign_out": lambda token: received.append(token)})
    auth.browser.sign_out()
    [message] = auth.performer.emitted("sign_out")
    assert message["token"]["sub"] == "1"
    assert message["session"] is None
    assert received[0]["name"] == "Ann"


def test_sign_out_to_the_callback_url():
    auth = signed_in()
    response = auth.browser.sign_out(callbackUrl="/goodbye")
    assert response.location == f"{ORIGIN}/goodbye"


def test_sign_out_to_another_origin_goes_home():
    auth = signed_in()
    assert auth.browser.sign_out(callbackUrl="https://evil.example.com/").location == ORIGIN


def test_sign_out_uses_the_callback_url_cookie():
    auth = AuthPair.build(providers=[Credentials(authorize=users(ANN))])
    auth.browser.sign_in_with_credentials(username="ann", password="pw", callbackUrl="/was-here")
    assert auth.browser.sign_out().location == f"{ORIGIN}/was-here"


def test_sign_out_without_a_session():
    auth = AuthPair.build(events={"sign_out": lambda: None})
    response = auth.browser.sign_out()
    assert response.location == ORIGIN
    assert deleted_names(response) == set()
    assert auth.performer.emitted("sign_out") == []


def test_sign_out_with_an_invalid_token_still_deletes_it():
    auth = AuthPair.build(events={"sign_out": lambda: None})
    token = auth.browser.csrf_token()
    auth.browser.jar[SESSION] = StoredCookie("garbage", None)
    response = auth.browser.post("/auth/signout", form={"csrfToken": token})
    assert response.location == ORIGIN
    assert deleted_names(response) == {SESSION}
    assert "SignOutError" in auth.performer.log_codes("error")
    assert auth.performer.emitted("sign_out") == []


def test_sign_out_deletes_every_chunk():
    auth = signed_in(callbacks={"jwt": lambda token: {**token, "blob": "z" * (2 * CHUNK_SIZE)}})
    response = auth.browser.sign_out()
    assert deleted_names(response) == {f"{SESSION}.0", f"{SESSION}.1", f"{SESSION}.2"}
    assert not any(name.startswith(SESSION) for name in auth.browser.cookies())


def test_sign_out_with_5000_chunks_answers_a_bounded_response():
    """The audit's 487 KiB answer: every chunk sent used to get its own deletion."""
    auth = signed_in()
    chunks = "; ".join(f"{SESSION}.{i}=x" for i in range(5000))
    response = auth.browser.post(
        "/auth/signout",
        form={"csrfToken": auth.browser.csrf_token()},
        headers={"cookie": f"{chunks}; {csrf_cookie(auth)}"},
    )
    assert response.status == 302
    assert deleted_names(response) == {f"{SESSION}.{i}" for i in range(MAX_CHUNKS)}
    assert sum(len(line) for _, line in response.header_list()) < 4096


def csrf_cookie(auth):
    name = "authjs.csrf-token"
    return f"{name}={auth.browser.cookies()[name]}"


def test_signout_page_does_not_sign_out():
    auth = signed_in()
    response = auth.browser.get("/auth/signout")
    assert response.status == 200
    assert b'action="http://localhost:3000/auth/signout"' in response.body
    assert auth.browser.session()["user"]["name"] == "Ann"


def test_signout_page_override_redirects():
    auth = signed_in(pages={"sign_out": "/my-signout"})
    response = auth.browser.get("/auth/signout?callbackUrl=/x")
    assert response.status == 302
    assert response.location == "/my-signout"
    assert auth.browser.session() is not None


def test_sign_out_with_return_redirect_header():
    auth = signed_in()
    form = {"csrfToken": auth.browser.csrf_token()}
    response = auth.browser.post(
        "/auth/signout", form=form, headers={"x-auth-return-redirect": "1"}
    )
    assert response.status == 200
    assert response.json() == {"url": ORIGIN}
    assert deleted_names(response) == {SESSION}


class MemoryAdapter:
    """Just enough of a database adapter for sign-out with database sessions."""

    def __init__(self):
        self.deleted = []

    def delete_session(self, token):
        self.deleted.append(token)
        return {"session_token": token, "user_id": "1"}

    def __getattr__(self, name):
        if name in DATABASE_METHODS:
            return lambda *args: None
        raise AttributeError(name)


def test_sign_out_with_database_sessions_deletes_the_row():
    adapter = MemoryAdapter()
    auth = AuthPair.build(adapter=adapter, events={"sign_out": lambda session: None})
    auth.browser.jar[SESSION] = StoredCookie("tok-1", None)
    response = auth.browser.sign_out()
    assert adapter.deleted == ["tok-1"]
    [message] = auth.performer.emitted("sign_out")
    assert message["session"] == {"session_token": "tok-1", "user_id": "1"}
    assert message["token"] is None
    assert deleted_names(response) == {SESSION}
    assert SESSION not in written(response)


def test_a_failing_adapter_does_not_stop_the_sign_out():
    adapter = MemoryAdapter()

    def broken(token):
        raise ConnectionError("database is down")

    adapter.delete_session = broken
    auth = AuthPair.build(adapter=adapter)
    auth.browser.jar[SESSION] = StoredCookie("tok-1", None)
    response = auth.browser.sign_out()
    assert response.location == ORIGIN
    assert deleted_names(response) == {SESSION}
    assert "SignOutError" in auth.performer.log_codes("error")

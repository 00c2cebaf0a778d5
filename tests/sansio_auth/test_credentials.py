"""Credentials sign-in: ``authorize``, the ``sign_in``/``jwt``/``session`` callbacks, events."""

import dataclasses

import msgspec
import pytest

from sansio_auth import AuthError, CredentialsSignin, Request
from sansio_auth.errors import AccessDenied, CallbackRouteError, OAuthAccountNotLinked
from sansio_auth.events import InvokeCallback
from sansio_auth.providers import Credentials
from tests.sansio_auth.driver import ANN, ORIGIN, AuthPair, query_of, users, written

SESSION = "authjs.session-token"


def pair(authorize=None, **options):
    provider = Credentials(authorize=authorize or users(ANN))
    return AuthPair.build(providers=[provider], **options)


def sign_in(auth, **fields):
    fields.setdefault("username", "ann")
    fields.setdefault("password", "pw")
    return auth.browser.sign_in_with_credentials(**fields)


# -- authorize ----------------------------------------------------------------------------------


def test_sync_authorize_signs_in():
    auth = pair()
    response = sign_in(auth)
    assert response.status == 302
    assert response.location == ORIGIN
    assert SESSION in written(response)
    assert auth.browser.session()["user"] == {"name": "Ann", "email": "ann@example.com"}


def test_async_authorize_signs_in():
    async def authorize(credentials, request):
        assert isinstance(request, Request)
        if credentials["password"] == "pw":
            return {"id": 5, "name": "Async"}
        return None

    auth = pair(authorize)
    assert SESSION in written(sign_in(auth))
    assert auth.browser.session()["user"] == {"name": "Async"}
    assert SESSION not in written(sign_in(auth, password="wrong"))


def test_authorize_gets_the_whole_body_and_the_request():
    seen = {}

    def authorize(credentials, request):
        seen.update(credentials=credentials, request=request)
        return {"id": "1"}

    auth = pair(authorize)
    sign_in(auth, callbackUrl="/next")
    credentials = seen["credentials"]
    assert credentials["username"] == "ann"
    assert credentials["callbackUrl"] == "/next"
    assert len(credentials["csrfToken"]) == 64
    assert seen["request"].url == f"{ORIGIN}/auth/callback/credentials"
    assert seen["request"].method == "POST"


def test_authorize_accepts_only_the_params_it_names():
    def authorize(credentials):
        return {"id": "1"} if credentials.get("password") == "pw" else None

    assert SESSION in written(sign_in(pair(authorize)))


@pytest.mark.parametrize("nothing", [None, False, {}, ""])
def test_no_user_redirects_to_signin_with_the_default_code(nothing):
    auth = pair(lambda credentials: nothing)
    response = sign_in(auth)
    assert response.status == 302
    assert response.location == f"{ORIGIN}/auth/signin?error=CredentialsSignin&code=credentials"
    assert SESSION not in written(response)
    assert "CredentialsSignin" in auth.performer.log_codes("warn")


def test_credentials_signin_with_a_code():
    def authorize(credentials):
        raise CredentialsSignin("user ann has a wrong password", code="try_again")

    auth = pair(authorize)
    response = sign_in(auth)
    assert query_of(response.location) == {"error": "CredentialsSignin", "code": "try_again"}
    assert "password" not in response.location
    [log] = [entry for entry in auth.performer.logs if entry.code == "CredentialsSignin"]
    assert "user ann has a wrong password" in log.message


def test_credentials_signin_subclass_with_a_class_code():
    class Locked(CredentialsSignin):
        code = "locked"

    def authorize(credentials):
        raise Locked()

    assert query_of(sign_in(pair(authorize)).location)["code"] == "locked"


@pytest.mark.parametrize("asynchronous", [False, True])
def test_other_exception_is_a_configuration_error_logged_in_full(asynchronous):
    def fail(credentials):
        raise RuntimeError("database password is hunter2")

    async def fail_async(credentials):
        fail(credentials)

    auth = pair(fail_async if asynchronous else fail)
    response = sign_in(auth)
    assert response.location == f"{ORIGIN}/auth/error?error=Configuration"
    assert "hunter2" not in response.location
    assert response.body == b""
    assert SESSION not in written(response)
    [log] = [entry for entry in auth.performer.logs if entry.level == "error"]
    assert isinstance(log.error, CallbackRouteError)
    assert isinstance(log.error.cause["err"], RuntimeError)
    assert "hunter2" in log.message


def test_a_client_safe_auth_error_from_authorize_keeps_its_type():
    def authorize(credentials):
        raise OAuthAccountNotLinked("linked elsewhere")

    response = sign_in(pair(authorize))
    assert response.location == f"{ORIGIN}/auth/signin?error=OAuthAccountNotLinked"


def test_user_and_account_reach_the_callbacks():
    seen = []

    def jwt(**params):
        seen.append(params)
        return params["token"]

    auth = pair(
        lambda credentials: {"id": 42, "name": "N", "image": "/i.png"}, callbacks={"jwt": jwt}
    )
    sign_in(auth)
    first = seen[0]
    assert first["trigger"] == "signIn"
    assert first["user"] == {"id": "42", "name": "N", "image": "/i.png"}
    assert first["account"] == {
        "provider_account_id": "42",
        "type": "credentials",
        "provider": "credentials",
    }
    assert first["token"] == {
        "name": "N",
        "picture": "/i.png",
        "sub": "42",
        "auth_time": int(auth.clock.now),
    }
    assert first["is_new_user"] is False


def test_a_user_without_id_gets_a_random_uuid():
    auth = pair(lambda credentials: {"name": "No id"})
    sign_in(auth)
    [message] = auth.performer.emitted("sign_in") or [None]
    assert message is None  # no handler, no event
    auth = pair(lambda credentials: {"name": "No id"}, events={"sign_in": lambda user: None})
    sign_in(auth)
    [message] = auth.performer.emitted("sign_in")
    user_id = message["user"]["id"]
    assert len(user_id) == 36
    assert user_id[14] == "4"
    assert message["account"]["provider_account_id"] == user_id


@dataclasses.dataclass
class UserRecord:
    id: str
    name: str


class UserStruct(msgspec.Struct):
    id: str
    name: str


@pytest.mark.parametrize("user", [UserRecord("1", "Rec"), UserStruct("1", "Rec")])
def test_authorize_may_return_a_record(user):
    auth = pair(lambda credentials: user)
    sign_in(auth)
    assert auth.browser.session()["user"] == {"name": "Rec"}


def test_authorize_returning_a_non_user_is_a_configuration_error():
    response = sign_in(pair(lambda credentials: True))
    assert response.location == f"{ORIGIN}/auth/error?error=Configuration"


def test_csrf_is_required():
    auth = pair()
    form = {"username": "ann", "password": "pw"}
    response = auth.browser.post("/auth/callback/credentials", form=form)
    assert response.location == f"{ORIGIN}/auth/signin?error=MissingCSRF"
    assert auth.performer.invoked("authorize") == []


def test_callback_url_from_the_body():
    response = sign_in(pair(), callbackUrl="/dashboard")
    assert response.location == f"{ORIGIN}/dashboard"
    assert written(response)["authjs.callback-url"] == f"{ORIGIN}/dashboard"


def test_callback_url_to_another_origin_is_refused():
    response = sign_in(pair(), callbackUrl="https://evil.example.com/")
    assert response.location == ORIGIN


# -- the sign_in callback ------------------------------------------------------------------------


def test_sign_in_callback_true_and_its_params():
    seen = {}

    def allow(user, account, credentials, profile, email):
        seen.update(
            user=user, account=account, credentials=credentials, profile=profile, email=email
        )
        return True

    auth = pair(callbacks={"sign_in": allow})
    assert SESSION in written(sign_in(auth))
    assert seen["user"]["id"] == "1"
    assert seen["account"]["type"] == "credentials"
    assert seen["credentials"]["username"] == "ann"
    assert seen["profile"] is None
    assert seen["email"] is None


@pytest.mark.parametrize("refusal", [False, None, 0, ""])
def test_sign_in_callback_false_is_access_denied(refusal):
    auth = pair(callbacks={"sign_in": lambda: refusal})
    response = sign_in(auth)
    assert response.location == f"{ORIGIN}/auth/error?error=AccessDenied"
    assert SESSION not in written(response)


def test_sign_in_callback_url_redirects_there():
    auth = pair(callbacks={"sign_in": lambda: "/not-yet"})
    response = sign_in(auth)
    assert response.location == f"{ORIGIN}/not-yet"
    assert SESSION not in written(response)


def test_sign_in_callback_foreign_url_goes_through_redirect():
    auth = pair(callbacks={"sign_in": lambda: "https://evil.example.com/x"})
    assert sign_in(auth).location == ORIGIN
    custom = pair(
        callbacks={
            "sign_in": lambda: "https://partner.example.com/x",
            "redirect": lambda url, base_url: url,
        }
    )
    assert sign_in(custom).location == "https://partner.example.com/x"


@pytest.mark.parametrize("asynchronous", [False, True])
def test_sign_in_callback_raising_is_access_denied_with_the_message(asynchronous):
    def refuse():
        raise ValueError("banned user")

    async def refuse_async():
        refuse()

    auth = pair(callbacks={"sign_in": refuse_async if asynchronous else refuse})
    response = sign_in(auth)
    assert response.location == f"{ORIGIN}/auth/error?error=AccessDenied"
    [log] = [entry for entry in auth.performer.logs if entry.level == "error"]
    assert isinstance(log.error, AccessDenied)
    assert log.error.message == "banned user"
    assert "banned" not in response.location


def test_sign_in_callback_raising_an_auth_error_keeps_it():
    class Custom(AuthError):
        type = "Custom"

    def refuse():
        raise Custom("nope")

    response = sign_in(pair(callbacks={"sign_in": refuse}))
    assert response.location == f"{ORIGIN}/auth/error?error=Configuration"


def test_sign_in_callback_with_pages_error():
    auth = pair(callbacks={"sign_in": lambda: False}, pages={"error": "/oops"})
    assert sign_in(auth).location == f"{ORIGIN}/oops?error=AccessDenied"


def test_credentials_error_with_pages_sign_in():
    auth = pair(lambda credentials: None, pages={"sign_in": "https://app.example.com/login?x=1"})
    assert sign_in(auth).location == (
        "https://app.example.com/login?x=1&error=CredentialsSignin&code=credentials"
    )


# -- jwt and session callbacks --------------------------------------------------------------------


def test_jwt_callback_adds_claims_and_session_exposes_only_what_it_returns():
    def jwt(token, user=None, trigger=None):
        if trigger == "signIn":
            token["role"] = "admin"
            token["secret_note"] = "never shown"
        return token

    def session(session, token):
        return {
            "user": {"name": token["name"], "role": token["role"]},
            "expires": session["expires"],
        }

    auth = pair(callbacks={"jwt": jwt, "session": session})
    sign_in(auth)
    body = auth.browser.session()
    assert body["user"] == {"name": "Ann", "role": "admin"}
    assert "secret_note" not in str(body)


def test_default_session_does_not_expose_the_token():
    auth = pair(callbacks={"jwt": lambda token: {**token, "internal": "x"}})
    sign_in(auth)
    body = auth.browser.session()
    assert set(body) == {"user", "expires"}
    assert "internal" not in str(body)


def test_jwt_callback_returning_none_sets_no_session():
    auth = pair(callbacks={"jwt": lambda token: None})
    response = sign_in(auth)
    assert SESSION not in written(response)
    assert auth.browser.session() is None


def test_jwt_callback_returning_a_non_dict_is_a_configuration_error():
    auth = pair(callbacks={"jwt": lambda token: "token"})
    response = sign_in(auth)
    assert response.location == f"{ORIGIN}/auth/error?error=Configuration"
    assert SESSION not in written(response)


# -- events ----------------------------------------------------------------------------------------


def test_sign_in_event():
    received = []
    auth = pair(events={"sign_in": lambda **message: received.append(message)})
    sign_in(auth)
    [message] = auth.performer.emitted("sign_in")
    assert message["user"]["id"] == "1"
    assert message["account"]["provider"] == "credentials"
    assert message["profile"] is None
    assert message["is_new_user"] is False
    assert received == [dict(message)]


def test_no_event_on_a_failed_sign_in():
    auth = pair(events={"sign_in": lambda: None})
    sign_in(auth, password="wrong")
    assert auth.performer.emitted("sign_in") == []


def test_a_raising_event_handler_does_not_change_the_response():
    def boom():
        raise RuntimeError("audit log is down")

    auth = pair(events={"sign_in": boom})
    response = sign_in(auth)
    assert response.location == ORIGIN
    assert SESSION in written(response)


def test_actions_are_callbacks_in_the_expected_order():
    auth = pair(
        callbacks={"sign_in": lambda: True, "jwt": lambda token: token},
        events={"sign_in": lambda: None},
    )
    auth.browser.csrf_token()
    auth.performer.clear()
    sign_in(auth)
    names = [a.name for a in auth.performer.actions if isinstance(a, InvokeCallback)]
    assert names == ["authorize", "sign_in", "jwt", "events.sign_in"]
    assert all(isinstance(a, InvokeCallback) for a in auth.performer.actions)

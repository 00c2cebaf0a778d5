"""How the account routes answer, whatever the flow decided: the headers of pages whose URL
carries a token or that show a secret, ``{"url"}`` for a script where a browser is
redirected (and Auth.js's own routes unchanged), one lifetime for the waiting sign-in's
cookie, and an ID token without a ``sub`` refused as the provider's fault."""

from __future__ import annotations

from email.utils import parsedate_to_datetime
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_auth import Response
from sansio_auth.cookies import CookieSpec
from sansio_auth.errors import fault_of
from sansio_auth.http import CookieOptions
from sansio_auth.oauth.id_token import IDTokenError
from sansio_auth.providers import Credentials, Email
from tests.sansio_auth.accounts_peer import Accounts, build, code_for, sign_in, sign_up, verify
from tests.sansio_auth.driver import ORIGIN, parse_set_cookie, set_cookie_lines
from tests.sansio_auth.oauth.fake_op import FakeOP
from tests.sansio_auth.oauth.fake_op import build as build_op_site
from tests.sansio_auth.oauth.fake_op import sign_in as op_sign_in

ANN, PW = "ann@example.com", "correct horse battery"
JSON = {"accept": "application/json"}
NO_REFERRER = "no-referrer"
NO_STORE = "private, no-cache, no-store"
PENDING = "authjs.two-factor"


def ann(**options: Any) -> Accounts:
    accounts = build(**options)
    sign_up(accounts, ANN, PW)
    verify(accounts, ANN)
    return accounts


def post(accounts: Accounts, route: str, headers: dict[str, str] | None = None, **form: str) -> Any:
    b = accounts.browser
    fields = {"csrfToken": b.csrf_token(), **form}
    return b.post(f"{accounts.base}/{route}", form=fields, headers=headers or {})


def enrol(accounts: Accounts) -> str:
    """Ann (signed in) sets up her authenticator app; its URI."""
    b = accounts.browser
    uri: str = b.get(f"{accounts.base}/two-factor-setup", headers=JSON).json()["uri"]
    enabled = post(accounts, "two-factor-setup", action="enable", code=code_for(uri, b.clock.now))
    assert enabled.status == 200
    return uri


# -- headers: Referrer-Policy where the URL carries a token, no-store where a secret shows -------


def test_the_reset_page_sends_no_referrer_and_is_never_stored() -> None:
    accounts = ann()
    post(accounts, "forgot-password", email=ANN)
    mail = accounts.outbox.last("reset-password")
    page = accounts.browser.get(mail.path)
    assert page.status == 200
    assert (page.header("referrer-policy"), page.header("cache-control")) == (NO_REFERRER, NO_STORE)
    fields = {"token": mail.query["token"], "email": ANN}
    refused = post(accounts, "reset-password", password="short", **fields)  # shown again
    assert refused.status == 400
    assert (refused.header("referrer-policy"), refused.header("cache-control")) == (
        NO_REFERRER,
        NO_STORE,
    )
    forged = accounts.browser.get(f"{accounts.base}/reset-password?token=forged&email={ANN}")
    done = post(accounts, "reset-password", password="a brand new passphrase", **fields)
    used = accounts.browser.get(mail.path)  # the form; posting it would be refused
    for answer in (forged, done, used):
        assert answer.header("referrer-policy") == NO_REFERRER
        assert answer.header("cache-control") == NO_STORE


def test_the_verification_link_sends_no_referrer_whatever_its_outcome() -> None:
    accounts = build()
    sign_up(accounts, ANN, PW)
    link = accounts.outbox.last("verify-email").path
    followed = accounts.browser.get(link)
    again = accounts.browser.get(link)  # used up: the error page
    assert followed.status == 200
    assert again.location is not None
    assert again.location.endswith("error=Verification")
    for answer in (followed, again):
        assert answer.header("referrer-policy") == NO_REFERRER
        assert answer.header("cache-control") is None  # it shows no secret


def test_the_set_up_and_recovery_code_pages_are_never_stored() -> None:
    accounts = ann(two_factor={})
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    setup = b.get(f"{accounts.base}/two-factor-setup")
    assert b"otpauth://" in setup.body
    uri = b.get(f"{accounts.base}/two-factor-setup", headers=JSON).json()["uri"]
    codes = post(accounts, "two-factor-setup", action="enable", code=code_for(uri, b.clock.now))
    assert b"data-recovery-codes" in codes.body
    for answer in (setup, codes):
        assert answer.header("cache-control") == NO_STORE
        assert answer.header("referrer-policy") is None


def test_the_forced_set_up_at_two_factor_is_never_stored() -> None:
    accounts = ann(two_factor={"require_two_factor": True})
    b = accounts.browser
    assert sign_in(accounts, ANN, PW).location.endswith("/two-factor")
    page = b.get(f"{accounts.base}/two-factor")
    assert b"otpauth://" in page.body
    uri = b.get(f"{accounts.base}/two-factor", headers=JSON).json()["uri"]
    codes = post(accounts, "two-factor", method="enrol", code=code_for(uri, b.clock.now))
    assert b"data-recovery-codes" in codes.body
    for answer in (page, codes):
        assert answer.header("cache-control") == NO_STORE
    assert [name for name, _ in codes.header_list()].count("cache-control") == 1  # sets a session


def test_other_pages_keep_their_headers() -> None:
    accounts = build()
    for path in ("signin", "signup", "forgot-password"):
        answer = accounts.browser.get(f"{accounts.base}/{path}")
        assert answer.status == 200
        assert answer.header("referrer-policy") is None
        assert answer.header("cache-control") is None


# -- the waiting sign-in's cookie: one lifetime ----------------------------------------------


def lifetime(response: Response, name: str, now: float) -> tuple[int, int]:
    """``(Max-Age, Expires - now)`` of the cookie ``name`` the response sets."""
    [attributes] = [
        attrs for line in set_cookie_lines(response) for n, _, attrs in [parse_set_cookie(line)]
        if n == name and attrs.get("max-age") != "0"
    ]  # fmt: skip
    expires = parsedate_to_datetime(attributes["expires"]).timestamp()
    return int(attributes["max-age"]), round(expires - int(now))


@pytest.mark.parametrize("challenge_max_age", [None, 120, 900, 3600])
def test_the_waiting_sign_in_cookie_has_one_lifetime(challenge_max_age: int | None) -> None:
    options = {} if challenge_max_age is None else {"challenge_max_age": challenge_max_age}
    accounts = ann(two_factor=options)
    sign_in(accounts, ANN, PW)
    enrol(accounts)
    accounts.browser.sign_out()
    waiting = sign_in(accounts, ANN, PW)
    assert waiting.location is not None
    assert waiting.location.endswith("/two-factor")
    age = challenge_max_age or 300
    assert lifetime(waiting, PENDING, accounts.pair.clock.now) == (age, age)


@given(
    lifetime_given=st.integers(1, 10**8),
    spec_age=st.integers(1, 10**8),
    now=st.floats(0, 4e9, allow_nan=False),
)
def test_a_cookie_given_a_lifetime_has_it_as_max_age_and_expires(
    lifetime_given: int, spec_age: int, now: float
) -> None:
    with_max_age = CookieSpec("c", CookieOptions(max_age=spec_age), spec_age)
    cookie = with_max_age.make("v", now, expires_in=lifetime_given)
    assert cookie.options.max_age == lifetime_given
    assert cookie.options.expires == now + lifetime_given
    assert with_max_age.make("v", now).options.max_age == spec_age
    session_like = CookieSpec("s", CookieOptions(), spec_age)  # Expires only, as Auth.js's
    assert session_like.make("v", now, expires_in=lifetime_given).options.max_age is None


# -- {"url"} for a script on the account routes; Auth.js's routes unchanged ---------------------


def as_json(accounts: Accounts, route: str, **form: str) -> Response:
    b = accounts.browser
    body = {"csrfToken": b.csrf_token(), **form}
    return b.post(f"{accounts.base}/{route}", json=body)


def test_sign_up_that_signs_in_at_once_answers_a_script_with_its_url() -> None:
    accounts = build(password={"require_verified_email": False})
    answer = as_json(accounts, "signup", email=ANN, password=PW)
    assert (answer.status, answer.json()) == (200, {"url": ORIGIN})
    assert accounts.browser.session()["user"]["email"] == ANN
    other = build(password={"require_verified_email": False})
    page = post(other, "signup", email=ANN, password=PW)  # a browser: redirected
    assert (page.status, page.location) == (302, ORIGIN)


@pytest.mark.parametrize("how", ["json", "accept"])
def test_a_password_sign_in_answers_a_script_with_its_url(how: str) -> None:
    accounts = ann()
    if how == "json":
        answer = as_json(accounts, "callback/password", email=ANN, password=PW)
    else:
        answer = post(accounts, "callback/password", JSON, email=ANN, password=PW)
    assert (answer.status, answer.json()) == (200, {"url": ORIGIN})
    assert accounts.browser.session()["user"]["email"] == ANN
    wrong = post(accounts, "callback/password", JSON, email=ANN, password="not it at all")
    assert wrong.status == 200
    assert wrong.json() == {"url": f"{ORIGIN}/auth/signin?error=CredentialsSignin&code=credentials"}


def test_the_second_factor_answers_a_script_with_its_url() -> None:
    accounts = ann(two_factor={})
    b = accounts.browser
    sign_in(accounts, ANN, PW)
    uri = enrol(accounts)
    b.sign_out()
    b.advance(30)
    waiting = as_json(accounts, "callback/password", email=ANN, password=PW)
    assert waiting.json() == {"url": f"{ORIGIN}/auth/two-factor"}
    done = as_json(accounts, "two-factor", method="totp", code=code_for(uri, b.clock.now))
    assert (done.status, done.json()) == (200, {"url": ORIGIN})
    assert b.session()["user"]["email"] == ANN


def test_auth_js_routes_answer_a_json_post_as_auth_js_does() -> None:
    accounts = build(
        providers=[
            Credentials(authorize=lambda credentials: {"id": "1", "email": "x@example.com"}),
            Email(send_verification_request=lambda **params: None),
        ]
    )
    credentials = as_json(accounts, "callback/credentials", username="x", password="y")
    assert (credentials.status, credentials.location) == (302, ORIGIN)
    email = as_json(accounts, "signin/email", email="bo@example.com")
    assert email.status == 302
    assert email.location == f"{ORIGIN}/auth/verify-request?provider=email&type=email"
    b = accounts.browser
    header = {"x-auth-return-redirect": "1"}
    asked = b.post(
        f"{accounts.base}/signin/email",
        form={"csrfToken": b.csrf_token(), "email": "bo@example.com"},
        headers=header,
    )
    assert asked.json() == {"url": f"{ORIGIN}/auth/verify-request?provider=email&type=email"}


# -- an ID token without a subject ---------------------------------------------------------------


def test_an_id_token_without_a_subject_is_the_providers_fault() -> None:
    op = FakeOP().misbehave("no-sub")
    site = build_op_site(op)
    answer = op_sign_in(site.browser, op)
    assert answer.location == f"{ORIGIN}/auth/error?error=Configuration"  # as Auth.js answers
    [logged] = [entry for entry in site.performer.logs if entry.error is not None]
    assert isinstance(logged.error.__cause__, IDTokenError)  # as every refused ID token
    assert "no `sub`" in logged.message
    assert fault_of(logged.error) == "provider"
    assert logged.level == "error"  # the operator's to look at, not a refusal of the user


def test_replies_keep_no_stray_attributes() -> None:
    """The ``refused`` code a form answer carries is for the log, never on the wire."""
    accounts = build()
    answer = post(accounts, "signup", JSON, email=ANN, password="short")
    assert msgspec.json.decode(answer.body) == {"error": "too_short"}

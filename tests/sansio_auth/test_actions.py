"""Server-side actions: the pure rules of :mod:`sansio_auth.actions` (property-tested) and
the engine's entry points that apply them (``Engine.sign_in``, ``sign_out``,
``update_session``, ``session``, ``authorized``)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_auth import AccessDenied, CredentialsSignin, Request, actions
from sansio_auth.actions import ActionResult, AuthorizedResult, SessionResult
from sansio_auth.authorized import Allow, Custom, RedirectTo
from sansio_auth.errors import Configuration, MissingCSRF
from sansio_auth.providers import Credentials, GitHub
from tests.sansio_auth.driver import ANN, ORIGIN, AuthPair, query_of, users, written

SESSION = "authjs.session-token"
METHODS = st.sampled_from(["GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH", "post"])
HOSTS = st.sampled_from(["app.test", "evil.test", "app.test:8080", "APP.test", "sub.app.test"])
SCHEMES = st.sampled_from(["http", "https"])
PATHS = st.text(alphabet="abc/?=&%", max_size=12).map(lambda p: "/" + p)


def request(method: str = "POST", **headers: str) -> Request:
    return Request(method=method, url=f"{ORIGIN}/page", headers=headers)


# -- the pure rules ------------------------------------------------------------------------


@given(method=METHODS, scheme=SCHEMES, host=HOSTS)
def test_only_unsafe_requests_from_another_origin_are_cross_site(method, scheme, host):
    origin = "http://app.test"
    sent = f"{scheme}://{host}"
    refused = actions.cross_site(request(method, origin=sent), origin)
    unsafe = method.upper() not in actions.SAFE_METHODS
    assert refused == (unsafe and sent.lower() != origin)
    assert not actions.cross_site(request(method), origin)  # no Origin: a server's own call


def test_cross_site_edge_cases():
    origin = "https://app.test"
    for sent in ("null", "https://app.test:443x", "https://evil.test\\@app.test", ""):
        assert actions.cross_site(request(origin=sent), origin), sent
    assert not actions.cross_site(request(origin="https://app.test:443"), origin)


@given(scheme=SCHEMES, host=HOSTS, path=PATHS, redirect_to=st.none() | PATHS)
def test_the_callback_url_is_redirect_to_else_a_same_site_referer_else_root(
    scheme, host, path, redirect_to
):
    origin = "http://app.test"
    referer = f"{scheme}://{host}{path}"
    url = actions.callback_url(redirect_to, request(referer=referer), origin)
    if redirect_to:
        assert url == redirect_to
    elif referer.lower().startswith(origin + "/"):
        parts = urlsplit(referer)
        assert url == (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        assert url.startswith("/")  # never another site's
    else:
        assert url == "/"


@given(
    redirect=st.sampled_from([None, True, False, "false", "0", "no", "off", "true", "1", " OFF "]),
    fields=st.dictionaries(st.sampled_from(["username", "password", "email"]), st.text()),
)
def test_options_split_into_fields_redirect_and_destination(redirect, fields):
    options: dict[str, Any] = {**fields, "redirectTo": "/a", "upload": object()}
    if redirect is not None:
        options["redirect"] = redirect
    parsed = actions.parse_options(options)
    assert parsed.fields == fields  # plain values only, no option names
    expected = redirect not in (False, "false", "0", "no", "off", " OFF ")
    assert parsed.redirect is expected
    assert parsed.redirect_to == "/a"
    assert actions.parse_options({"redirect_to": "/b", "redirectTo": "/a"}).redirect_to == "/b"
    assert actions.parse_options(None) == actions.Options({}, True, None)


def test_a_refused_credentials_sign_in_goes_back_to_the_form_page():
    page = f"{ORIGIN}/auth/signin?error=CredentialsSignin&code=locked"
    error = CredentialsSignin(code="locked")
    back = actions.back_to_form(
        page, error, request(referer=f"{ORIGIN}/login?tab=1&code=x"), ORIGIN
    )
    assert back == "/login?tab=1&error=CredentialsSignin&code=locked"
    assert actions.back_to_form(page, error, request(referer="http://evil.test/"), ORIGIN) == page
    assert (
        actions.back_to_form(page, AccessDenied(), request(referer=f"{ORIGIN}/x"), ORIGIN) == page
    )


def test_authorization_params_in_every_shape():
    for params in (
        "?prompt=login&x=",
        {"prompt": "login", "x": ""},
        [("prompt", "login"), ("x", "")],
    ):
        assert actions.authorization_query(params) == {"prompt": "login", "x": ""}
    assert actions.authorization_query(None) == {}


# -- the engine's entry points -------------------------------------------------------------


def pair(**options: Any) -> AuthPair:
    providers = [Credentials(authorize=users(ANN)), GitHub(client_id="i", client_secret="s")]
    return AuthPair.build(providers=providers, **options)


def run(auth: AuthPair, flow: Any) -> Any:
    result = auth.performer.run(flow)
    auth.browser.store(result)
    return result


def signed_in_pair(**options: Any) -> AuthPair:
    auth = pair(**options)
    auth.browser.sign_in_with_credentials(username="ann", password="pw")
    assert auth.browser.session()["user"]["email"] == ANN["email"]
    return auth


def test_server_sign_in_with_credentials_needs_no_token_and_lands_on_the_referer():
    auth = pair()
    page = auth.browser.build("POST", "/login", headers={"referer": f"{ORIGIN}/here?x=1"})
    result = run(
        auth, auth.engine.sign_in(page, "credentials", {"username": "ann", "password": "pw"})
    )
    assert isinstance(result, ActionResult)
    assert (result.status, result.url, result.error) == (303, f"{ORIGIN}/here?x=1", None)
    assert result.location == result.url
    assert SESSION in written(result)
    assert auth.browser.session()["user"]["name"] == ANN["name"]


def test_a_cross_site_post_is_refused_before_anything_runs():
    auth = pair()
    evil = auth.browser.build("POST", "/login", headers={"origin": "http://evil.test"})
    options = {"username": "ann", "password": "pw"}
    for flow in (
        auth.engine.sign_in(evil, "credentials", options),
        auth.engine.sign_out(evil),
        auth.engine.update_session(evil, {"x": 1}),
    ):
        result = run(auth, flow)
        assert result.status == 403
        assert result.cookies == ()
    assert auth.performer.invoked("authorize") == []


def test_a_failed_sign_in_answers_its_error_and_where_to_show_it():
    auth = pair()
    page = auth.browser.build("POST", "/login", headers={"referer": f"{ORIGIN}/login"})
    result = run(
        auth, auth.engine.sign_in(page, "credentials", {"username": "ann", "password": "no"})
    )
    assert isinstance(result.error, CredentialsSignin)
    assert (result.status, result.url) == (303, "/login?error=CredentialsSignin&code=credentials")
    assert SESSION not in written(result)


@pytest.mark.parametrize("script", [False, True])
def test_a_sign_in_over_the_rate_limit_answers_as_the_route_does(script: bool) -> None:
    from io_bindings.db.memory import MemoryCounters

    limits = {"credentials_per_account": (1, 60), "store": MemoryCounters()}
    auth = pair(rate_limits=limits)
    headers = {"referer": f"{ORIGIN}/login"} | ({"x-auth-return-redirect": "1"} if script else {})
    page = auth.browser.build("POST", "/login", headers=headers)
    wrong = {"username": "ann", "password": "no"}
    refused = run(auth, auth.engine.sign_in(page, "credentials", wrong))
    assert isinstance(refused.error, CredentialsSignin)
    right = {"username": "ann", "password": "pw"}
    result = run(auth, auth.engine.sign_in(page, "credentials", right))
    assert isinstance(result, ActionResult)
    assert (result.status, result.url, result.error) == (429, None, None)
    assert result.header("retry-after") == "60"
    assert SESSION not in written(result)
    if script:
        assert msgspec.json.decode(result.body)["error"] == "RateLimited"
    else:
        assert b"Too many attempts" in result.body
    assert len(auth.performer.invoked("authorize")) == 1  # the refused attempt never got there


def test_no_or_an_unknown_provider_goes_to_the_sign_in_page_unless_a_form_named_it():
    auth = pair()
    page = auth.browser.build("POST", "/login")
    for provider in (None, "", "nope"):
        result = run(
            auth, auth.engine.sign_in(page, provider, {"redirect": "false", "redirectTo": "/a"})
        )
        assert result.status == 200
        assert msgspec.json.decode(result.body) == {"url": result.url}
        assert result.url == f"{ORIGIN}/auth/signin?callbackUrl=%2Fa"
    token = auth.browser.csrf_token()
    form = {"csrfToken": token}
    result = run(
        auth,
        auth.engine.sign_in(auth.browser.build("POST", "/login"), "nope", form, form_post=True),
    )
    assert isinstance(result.error, Configuration)
    assert result.url == f"{ORIGIN}/auth/error?error=Configuration"


def test_a_form_post_must_carry_the_csrf_token_of_its_cookie():
    auth = pair()
    token = auth.browser.csrf_token()
    login = {"username": "ann", "password": "pw"}
    for form in ({}, {"csrfToken": "forged"}):
        result = run(
            auth,
            auth.engine.sign_in(
                auth.browser.build("POST", "/f"), "credentials", {**login, **form}, form_post=True
            ),
        )
        assert isinstance(result.error, MissingCSRF)
        assert query_of(result.url)["error"] == "MissingCSRF"
    form = {**login, "csrfToken": token}
    result = run(
        auth,
        auth.engine.sign_in(auth.browser.build("POST", "/f"), "credentials", form, form_post=True),
    )
    assert result.error is None
    assert SESSION in written(result)


def test_oauth_sign_in_gets_the_authorization_url_and_params():
    auth = pair()
    flow = auth.engine.sign_in(
        auth.browser.build("GET", "/go"), "github", {"redirect": False}, {"prompt": "login"}
    )
    result = run(auth, flow)
    assert result.url.startswith("https://github.com/login/oauth/authorize?")
    assert query_of(result.url)["prompt"] == "login"
    assert any(
        c.name == "authjs.pkce.code_verifier" or c.name == "authjs.state" for c in result.cookies
    )


def test_sign_out_ends_the_session_and_goes_to_redirect_to():
    auth = signed_in_pair()
    result = run(
        auth, auth.engine.sign_out(auth.browser.build("POST", "/bye"), {"redirectTo": "/after"})
    )
    assert (result.status, result.url) == (303, f"{ORIGIN}/after")
    assert auth.browser.session() is None


def test_the_session_read_is_the_routes_answer_without_json():
    auth = signed_in_pair(session={"update_age": 0})
    read = auth.performer.run(auth.engine.session(auth.browser.build("GET", "/anything")))
    assert isinstance(read, SessionResult)
    assert read.data == auth.browser.session()
    assert SESSION in written(read)  # update_age=0: re-issued
    signed_out = pair()
    assert (
        signed_out.performer.run(
            signed_out.engine.session(signed_out.browser.build("GET", "/"))
        ).data
        is None
    )


def test_update_session_runs_the_jwt_callback_with_the_data():
    def jwt(
        token: dict[str, Any], trigger: str | None = None, session: Any = None
    ) -> dict[str, Any]:
        if trigger == "update":
            token["name"] = session["name"]
        return token

    auth = signed_in_pair(callbacks={"jwt": jwt})
    result = run(
        auth, auth.engine.update_session(auth.browser.build("POST", "/me"), {"name": "Annie"})
    )
    assert result.data["user"]["name"] == "Annie"
    assert auth.browser.session()["user"]["name"] == "Annie"


@pytest.mark.parametrize(
    ("answer", "decision"),
    [
        (True, Allow()),
        ("/elsewhere", RedirectTo(f"{ORIGIN}/elsewhere")),
        (
            False,
            RedirectTo(f"{ORIGIN}/auth/signin?callbackUrl=http%3A%2F%2Flocalhost%3A3000%2Fpage"),
        ),
        ({"custom": 1}, Custom({"custom": 1})),
    ],
)
def test_the_authorized_callback_runs_through_the_engine(answer: Any, decision: Any) -> None:
    seen: list[Any] = []

    def authorized(auth: Any, request: Any) -> Any:
        seen.append((auth, request))
        return answer

    auth = signed_in_pair(callbacks={"authorized": authorized})
    result = run(
        auth, auth.engine.authorized(auth.browser.build("GET", "/page"), "framework request")
    )
    assert isinstance(result, AuthorizedResult)
    assert result.decision == decision
    assert result.read
    assert result.data["user"]["email"] == ANN["email"]
    assert seen == [(result.data, "framework request")]


def test_without_an_authorized_callback_the_session_is_not_read_and_a_raising_one_is_500():
    auth = pair()
    result = run(auth, auth.engine.authorized(auth.browser.build("GET", "/page"), None))
    assert (result.decision, result.read) == (Allow(), False)

    def broken(auth: Any) -> bool:
        raise RuntimeError("boom")

    auth = pair(callbacks={"authorized": broken})
    result = run(auth, auth.engine.authorized(auth.browser.build("GET", "/page"), None))
    assert result.status == 500
    assert b"boom" not in result.body
    assert "AuthError" in auth.performer.log_codes("error")


# -- a session the server starts (a test client's force_login) ---------------------------------


def test_start_session_issues_a_session_as_a_sign_in_does_without_a_provider():
    seen: list[tuple[Any, ...]] = []

    def jwt(token: dict[str, Any], account: Any = None, trigger: Any = None) -> dict[str, Any]:
        if trigger is not None:
            seen.append((account["provider"], account["type"], trigger))
        return token

    def signed_in(user: Any, account: Any) -> None:
        seen.append(("event", user["id"], account["provider"]))

    auth = pair(callbacks={"jwt": jwt}, events={"sign_in": signed_in})
    user = {"id": "7", "name": "Seven", "email": "seven@example.com"}
    result = run(auth, auth.engine.start_session(auth.browser.build("GET", "/"), user))
    assert isinstance(result, SessionResult)
    assert (result.user_id, result.data) == ("7", None)
    assert SESSION in written(result)
    assert auth.browser.session()["user"] == {"name": "Seven", "email": "seven@example.com"}
    assert seen == [("server", "server", "signIn"), ("event", "7", "server")]


def test_start_session_needs_a_user_id_and_a_stored_user():
    auth = pair()
    nameless = auth.performer.run(auth.engine.start_session(auth.browser.build("GET", "/"), {}))
    assert nameless.status == 500
    assert auth.browser.session() is None

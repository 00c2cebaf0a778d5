"""The route table: Auth.js's paths, methods, statuses and JSON bodies (authjs-facts §1)."""

import hashlib

import pytest

from sansio_auth import NOT_AN_AUTH_ROUTE, Request, skip_csrf_check
from sansio_auth.providers import Credentials
from tests.sansio_auth.driver import (
    ANN,
    ORIGIN,
    SECRET,
    AuthPair,
    deleted_names,
    users,
    written,
)

NO_CACHE = {"cache-control": "private, no-cache, no-store", "expires": "0", "pragma": "no-cache"}
BAD_REQUEST = b'"Bad request."'


def pair(**options):
    options.setdefault(
        "providers",
        [Credentials(authorize=users(ANN), credentials={"username": {}, "password": {}})],
    )
    return AuthPair.build(**options)


def headers_of(response):
    return {k.lower(): v for k, v in response.headers}


def assert_config_error(response):
    assert response.status == 302
    assert response.location == f"{ORIGIN}/auth/error?error=Configuration"


# -- providers and csrf ----------------------------------------------------------------------


def test_providers():
    response = pair().browser.get("/auth/providers")
    assert response.status == 200
    assert headers_of(response)["content-type"] == "application/json"
    assert "cache-control" not in headers_of(response)
    assert response.json() == {
        "credentials": {
            "id": "credentials",
            "name": "Credentials",
            "type": "credentials",
            "signinUrl": f"{ORIGIN}/auth/signin/credentials",
            "callbackUrl": f"{ORIGIN}/auth/callback/credentials",
        }
    }


def test_csrf_issues_a_token_and_its_cookie():
    browser = pair().browser
    response = browser.get("/auth/csrf")
    assert response.status == 200
    assert NO_CACHE.items() <= headers_of(response).items()
    token = response.json()["csrfToken"]
    assert len(token) == 64
    assert int(token, 16) >= 0
    assert token == token.lower()
    digest = hashlib.sha256((token + SECRET).encode()).hexdigest()
    assert written(response) == {"authjs.csrf-token": f"{token}|{digest}"}
    assert "authjs.csrf-token=" + token + "%7C" + digest in response.header_list()[-1][1]


def test_csrf_reuses_a_valid_cookie():
    browser = pair().browser
    token = browser.csrf_token()
    again = browser.get("/auth/csrf")
    assert again.json()["csrfToken"] == token
    assert again.cookies == ()


def test_csrf_replaces_a_forged_cookie():
    browser = pair().browser
    forged = "a" * 64 + "|" + "b" * 64
    response = browser.get("/auth/csrf", headers={"cookie": f"authjs.csrf-token={forged}"})
    token = response.json()["csrfToken"]
    assert token != "a" * 64
    assert written(response)["authjs.csrf-token"].startswith(token + "|")


def csrf_cookie(token: str, secret: str) -> str:
    return f"authjs.csrf-token={token}|{hashlib.sha256((token + secret).encode()).hexdigest()}"


def test_csrf_cookie_is_made_with_the_first_secret():
    browser = pair(secret=["new", "old"]).browser
    token = browser.csrf_token()
    digest = hashlib.sha256((token + "new").encode()).hexdigest()
    assert browser.cookies()["authjs.csrf-token"] == f"{token}%7C{digest}"
    single = pair(secret="only").browser  # as Auth.js makes it with one secret
    token = single.csrf_token()
    digest = hashlib.sha256((token + "only").encode()).hexdigest()
    assert single.cookies()["authjs.csrf-token"] == f"{token}%7C{digest}"


@pytest.mark.parametrize(
    ("made_with", "checked_with"),
    [
        # a secret rolled across a fleet, node by node: [old] -> [old, new] -> [new, old] -> [new]
        (["old"], ["old", "new"]),
        (["old", "new"], ["old"]),
        (["old", "new"], ["new", "old"]),
        (["new", "old"], ["old", "new"]),
        (["new", "old"], ["new"]),
        (["new"], ["new", "old"]),
    ],
)
def test_a_csrf_token_survives_each_step_of_a_secret_roll(made_with, checked_with):
    made = pair(secret=made_with).browser
    made.get("/auth/csrf")
    cookie = made.cookies()["authjs.csrf-token"].replace("%7C", "|")
    token = cookie.partition("|")[0]
    checked = pair(secret=checked_with).browser
    answer = checked.get("/auth/csrf", headers={"cookie": f"authjs.csrf-token={cookie}"})
    assert answer.json()["csrfToken"] == token  # the cookie is taken
    if made_with[0] == checked_with[0]:
        assert "authjs.csrf-token" not in written(answer)
    else:  # and made again with the first secret, the token kept
        digest = hashlib.sha256((token + checked_with[0]).encode()).hexdigest()
        assert written(answer)["authjs.csrf-token"].replace("%7C", "|") == f"{token}|{digest}"


def test_a_csrf_cookie_is_made_again_before_its_secret_is_removed():
    """The last step of a roll: a node with ``[new, old]`` hands out the token of an old
    cookie with a new cookie, which a node that has only ``new`` takes."""
    old_node, rolled, retired = (pair(secret=s) for s in (["old"], ["new", "old"], ["new"]))
    old_node.browser.get("/auth/csrf")
    cookie = old_node.browser.cookies()["authjs.csrf-token"].replace("%7C", "|")
    answer = rolled.browser.get("/auth/csrf", headers={"cookie": f"authjs.csrf-token={cookie}"})
    token = answer.json()["csrfToken"]
    renewed = written(answer)["authjs.csrf-token"].replace("%7C", "|")
    later = retired.browser.get("/auth/csrf", headers={"cookie": f"authjs.csrf-token={renewed}"})
    assert later.json()["csrfToken"] == token


def test_csrf_cookie_of_auth_js_with_several_secrets_is_taken():
    token = "a" * 64
    browser = pair(secret=["new", "old"]).browser
    answer = browser.get("/auth/csrf", headers={"cookie": csrf_cookie(token, "new,old")})
    assert answer.json()["csrfToken"] == token
    other = browser.get("/auth/csrf", headers={"cookie": csrf_cookie(token, "retired")})
    assert other.json()["csrfToken"] != token  # made with a secret we do not have: replaced


def test_csrf_with_skip_csrf_check_is_404_and_deletes_the_cookie():
    auth = pair(skip_csrf_check=skip_csrf_check)
    response = auth.browser.get("/auth/csrf", headers={"cookie": "authjs.csrf-token=x"})
    assert response.status == 404
    assert response.body == b""
    assert deleted_names(response) == {"authjs.csrf-token"}
    assert "csrf-disabled" in auth.performer.log_codes("warn")


# -- session -------------------------------------------------------------------------------


def test_get_session_without_cookie_is_null_with_no_cache_headers():
    response = pair().browser.get("/auth/session")
    assert response.status == 200
    assert response.body == b"null"
    assert NO_CACHE.items() <= headers_of(response).items()
    assert response.cookies == ()


def test_post_session_without_csrf_is_400_null():
    auth = pair()
    response = auth.browser.post("/auth/session", json={"data": {"x": 1}})
    assert response.status == 400
    assert response.json() is None
    assert "MissingCSRF" in auth.performer.log_codes("warn")


def test_post_session_with_csrf_has_no_cache_headers():
    browser = pair().browser
    response = browser.post("/auth/session", json={"csrfToken": browser.csrf_token()})
    assert response.status == 200
    assert response.json() is None
    assert "cache-control" not in headers_of(response)


# -- sign-in -------------------------------------------------------------------------------


def test_signin_page():
    response = pair().browser.get("/auth/signin")
    assert response.status == 200
    assert headers_of(response)["content-type"].startswith("text/html")
    assert b"<title>Sign In</title>" in response.body


def test_signin_page_with_a_provider_is_not_a_page():
    assert_config_error(pair().browser.get("/auth/signin/credentials"))


def test_post_signin_without_provider_goes_to_the_page():
    browser = pair().browser
    response = browser.post("/auth/signin", form={"csrfToken": browser.csrf_token()})
    assert response.status == 302
    assert response.location == f"{ORIGIN}/auth/signin"


def test_post_signin_credentials_goes_to_the_page():
    browser = pair().browser
    response = browser.post("/auth/signin/credentials", form={"csrfToken": browser.csrf_token()})
    assert response.location == f"{ORIGIN}/auth/signin"


def test_post_signin_undefined_provider_is_no_provider():
    browser = pair().browser
    response = browser.post("/auth/signin/undefined", form={"csrfToken": browser.csrf_token()})
    assert response.location == f"{ORIGIN}/auth/signin"


def test_post_signin_unknown_provider_is_a_configuration_error():
    browser = pair().browser
    response = browser.post("/auth/signin/nope", form={"csrfToken": browser.csrf_token()})
    assert_config_error(response)


def test_post_signin_without_csrf():
    response = pair().browser.post("/auth/signin", form={})
    assert response.status == 302
    assert response.location == f"{ORIGIN}/auth/signin?error=MissingCSRF"


def test_post_callback_credentials_signs_in():
    browser = pair().browser
    response = browser.sign_in_with_credentials(username="ann", password="pw")
    assert response.status == 302
    assert response.location == ORIGIN
    assert "authjs.session-token" in written(response)


@pytest.mark.parametrize("path", ["/auth/callback/credentials", "/auth/callback/nope"])
def test_get_callback_of_credentials_or_unknown_is_a_configuration_error(path):
    assert_config_error(pair().browser.get(path))


def test_post_callback_of_an_unknown_provider():
    browser = pair().browser
    response = browser.post("/auth/callback/nope", form={"csrfToken": browser.csrf_token()})
    assert_config_error(response)


# -- sign-out ------------------------------------------------------------------------------


def test_signout_page():
    response = pair().browser.get("/auth/signout")
    assert response.status == 200
    assert b"<title>Sign Out</title>" in response.body


def test_post_signout_redirects_to_the_callback_url():
    browser = pair().browser
    browser.sign_in_with_credentials(username="ann", password="pw")
    response = browser.sign_out(callbackUrl="/bye")
    assert response.status == 302
    assert response.location == f"{ORIGIN}/bye"


# -- error and verify-request pages ---------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "status"),
    [
        ("Configuration", 500),
        ("AccessDenied", 403),
        ("Verification", 403),
        ("Default", 200),
        ("CredentialsSignin", 200),
        ("<script>", 200),
        (None, 200),
    ],
)
def test_error_page_status(error, status):
    path = "/auth/error" + (f"?error={error}" if error else "")
    response = pair().browser.get(path)
    assert response.status == status
    assert headers_of(response)["content-type"].startswith("text/html")
    assert b"<script>" not in response.body


def test_verify_request_page():
    response = pair().browser.get("/auth/verify-request")
    assert response.status == 200
    assert b"Check your email" in response.body


# -- malformed requests ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    ["/auth", "/auth/", "/auth/nope", "/auth/session/x", "/auth/csrf/x", "/auth/a/b/c"],
)
def test_unknown_action_is_400_bad_request(path):
    auth = pair()
    response = auth.browser.get(path)
    assert response.status == 400
    assert response.body == BAD_REQUEST
    assert headers_of(response)["content-type"] == "application/json"
    assert "UnknownAction" in auth.performer.log_codes("warn")


@pytest.mark.parametrize("path", ["/auth/session/", "/auth//session", "/auth/%73ession"])
def test_lenient_paths_are_served(path):
    response = pair().browser.get(path)
    assert response.status == 200
    assert response.body == b"null"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/auth/providers"),
        ("POST", "/auth/csrf"),
        ("POST", "/auth/error"),
        ("POST", "/auth/verify-request"),
        ("POST", "/auth/webauthn-options/passkey"),
    ],
)
def test_known_action_with_the_wrong_method_is_a_configuration_error(method, path):
    auth = pair()
    response = auth.browser.request(method, path)
    assert_config_error(response)
    assert "UnknownAction" in auth.performer.log_codes("warn")


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"])
def test_other_methods_are_400(method):
    response = pair().browser.request(method, "/auth/session")
    assert response.status == 400
    assert response.body == BAD_REQUEST


def test_lower_case_methods_are_served():
    assert pair().browser.request("get", "/auth/session").body == b"null"


@pytest.mark.parametrize("body", [b"{", b"[1]", b'"x"', b"\xff"])
def test_bad_json_body_is_400(body):
    browser = pair().browser
    request = browser.build(
        "POST", "/auth/signin", body=body, headers={"content-type": "application/json"}
    )
    response = browser.send(request)
    assert response.status == 400
    assert response.body == BAD_REQUEST


def test_non_utf8_form_body_is_400():
    browser = pair().browser
    request = browser.build(
        "POST",
        "/auth/signin",
        body=b"csrfToken=\xff",
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert browser.send(request).status == 400


def test_other_body_types_are_ignored():
    browser = pair().browser
    request = browser.build(
        "POST", "/auth/signin", body=b"--x--", headers={"content-type": "multipart/form-data"}
    )
    assert browser.send(request).location == f"{ORIGIN}/auth/signin?error=MissingCSRF"


@pytest.mark.parametrize(
    "path", ["/", "/authsession", "/auth-session", "/other/auth/session", "/AUTH/session"]
)
def test_paths_outside_base_path_are_not_auth_routes(path):
    engine = pair().engine
    assert engine.handle(Request(method="GET", url=ORIGIN + path)) is NOT_AN_AUTH_ROUTE


def test_custom_base_path():
    auth = pair(base_path="/api/auth")
    assert auth.browser.get("/api/auth/session").body == b"null"
    assert auth.engine.handle(Request(method="GET", url=ORIGIN + "/auth/session")) is (
        NOT_AN_AUTH_ROUTE
    )
    assert auth.browser.get("/api/auth/providers").json()["credentials"]["signinUrl"] == (
        f"{ORIGIN}/api/auth/signin/credentials"
    )


def test_auth_url_fixes_the_origin():
    auth = pair(env={"AUTH_URL": "https://public.example.com/auth"}, trust_host=None)
    browser = auth.new_browser("http://internal:8000")
    body = browser.get("/auth/providers").json()
    assert body["credentials"]["signinUrl"] == "https://public.example.com/auth/signin/credentials"


def test_forwarded_host_is_honoured_when_trusted():
    browser = pair().browser
    headers = {"x-forwarded-host": "public.example.com, proxy", "x-forwarded-proto": "https"}
    body = browser.get("/auth/providers", headers=headers).json()
    assert body["credentials"]["signinUrl"] == "https://public.example.com/auth/signin/credentials"


# -- X-Auth-Return-Redirect ---------------------------------------------------------------------


def test_return_redirect_header_gives_json_url_and_keeps_cookies():
    browser = pair().browser
    form = {"csrfToken": browser.csrf_token(), "username": "ann", "password": "pw"}
    response = browser.post(
        "/auth/callback/credentials", form=form, headers={"x-auth-return-redirect": "1"}
    )
    assert response.status == 200
    assert response.json() == {"url": ORIGIN}
    assert headers_of(response)["content-type"] == "application/json"
    assert response.location == ORIGIN
    assert "authjs.session-token" in written(response)


def test_return_redirect_header_on_an_error():
    response = pair().browser.post("/auth/signin", form={}, headers={"x-auth-return-redirect": ""})
    assert response.status == 200
    assert response.json() == {"url": f"{ORIGIN}/auth/signin?error=MissingCSRF"}

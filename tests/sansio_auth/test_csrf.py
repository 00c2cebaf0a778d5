"""The CSRF double-submit check on every state-changing POST (authjs-facts §3.3)."""

import hashlib
import string

from hypothesis import given
from hypothesis import strategies as st

from sansio_auth import skip_csrf_check
from sansio_auth.providers import Credentials
from tests.sansio_auth.driver import ANN, ORIGIN, SECRET, AuthPair, users, written

CSRF = "authjs.csrf-token"
SESSION = "authjs.session-token"
POST_ROUTES = [
    "/auth/signin",
    "/auth/signin/credentials",
    "/auth/callback/credentials",
    "/auth/signout",
    "/auth/session",
]
MISSING_CSRF = f"{ORIGIN}/auth/signin?error=MissingCSRF"


def pair(**options):
    return AuthPair.build(providers=[Credentials(authorize=users(ANN))], **options)


def cookie_for(token, secret=SECRET):
    return f"{token}|{hashlib.sha256((token + secret).encode()).hexdigest()}"


def assert_refused(auth, path, response):
    if path == "/auth/session":
        assert response.status == 400
        assert response.json() is None
    else:
        assert response.status == 302
        assert response.location == MISSING_CSRF
    assert SESSION not in written(response)
    assert auth.performer.invoked("authorize") == []
    assert "MissingCSRF" in auth.performer.log_codes("warn")


hex_tokens = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
cookie_values = st.one_of(
    st.none(),
    st.text(alphabet=string.ascii_letters + string.digits + "|%-_.", max_size=140),
    hex_tokens.map(lambda token: cookie_for(token, "another-secret")),
    hex_tokens.map(lambda token: token + "|"),
    hex_tokens.map(lambda token: token),
)
body_tokens = st.one_of(
    st.none(),
    st.text(max_size=80),
    hex_tokens,
    st.integers(),
    st.lists(st.text(max_size=3), max_size=2),
)


@given(path=st.sampled_from(POST_ROUTES), cookie=cookie_values, data=st.data())
def test_csrf_never_passes_without_the_matching_cookie(path, cookie, data):
    """No cookie, a forged one (even with the token it names in the body), or garbage."""
    auth = pair()
    named = cookie.partition("|")[0] if cookie is not None else None
    given_token = data.draw(st.one_of(body_tokens, st.just(named)))
    as_json = data.draw(st.booleans())
    body = {"username": "ann", "password": "pw", "data": {"x": 1}}
    if given_token is not None:
        body["csrfToken"] = given_token
    headers = {"cookie": f"{CSRF}={cookie}"} if cookie is not None else {}
    if not as_json:
        body = {k: v for k, v in body.items() if isinstance(v, str)}
    kind = "json" if as_json else "form"
    response = auth.browser.post(path, headers=headers, **{kind: body})
    assert_refused(auth, path, response)


@given(path=st.sampled_from(POST_ROUTES), given_token=hex_tokens)
def test_a_valid_cookie_with_another_token_is_refused(path, given_token):
    auth = pair()
    token = auth.browser.csrf_token()
    if given_token == token:
        return
    response = auth.browser.post(path, form={"csrfToken": given_token})
    assert_refused(auth, path, response)


def test_the_token_in_the_query_does_not_count():
    auth = pair()
    token = auth.browser.csrf_token()
    response = auth.browser.post(f"/auth/signin?csrfToken={token}", form={})
    assert_refused(auth, "/auth/signin", response)


def test_a_cookie_made_for_http_is_not_the_https_one():
    auth = pair(origin="https://example.com")
    token = "a" * 64
    response = auth.browser.post(
        "/auth/signin", form={"csrfToken": token}, headers={"cookie": f"{CSRF}={cookie_for(token)}"}
    )
    assert response.location == "https://example.com/auth/signin?error=MissingCSRF"
    ok = auth.browser.post(
        "/auth/signin",
        form={"csrfToken": token},
        headers={"cookie": f"__Host-{CSRF}={cookie_for(token)}"},
    )
    assert ok.location == "https://example.com/auth/signin"


def test_a_matching_token_passes_on_every_route():
    auth = pair()
    for path in POST_ROUTES:
        token = auth.browser.csrf_token()
        response = auth.browser.post(
            path, form={"csrfToken": token, "username": "ann", "password": "pw"}
        )
        assert response.location != MISSING_CSRF
        assert response.status != 400


def test_percent_encoded_cookie_is_accepted():
    auth = pair()
    token = "b" * 64
    encoded = cookie_for(token).replace("|", "%7C")
    response = auth.browser.post(
        "/auth/signin", form={"csrfToken": token}, headers={"cookie": f"{CSRF}={encoded}"}
    )
    assert response.location == f"{ORIGIN}/auth/signin"


def test_skip_csrf_check_lets_every_post_through():
    auth = pair(skip_csrf_check=skip_csrf_check)
    response = auth.browser.post(
        "/auth/callback/credentials", form={"username": "ann", "password": "pw"}
    )
    assert response.location == ORIGIN
    assert SESSION in written(response)
    assert auth.browser.post("/auth/signout", form={}).location == ORIGIN
    assert SESSION not in auth.browser.cookies()

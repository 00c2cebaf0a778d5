"""The callback URL and the default ``redirect`` callback: never leave the origin."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sansio_auth._context import default_redirect
from sansio_auth.providers import Credentials
from tests.sansio_auth.driver import ANN, ORIGIN, AuthPair, deleted_names, users, written

CALLBACK = "authjs.callback-url"


@pytest.mark.parametrize(
    ("url", "result"),
    [
        ("/dashboard", f"{ORIGIN}/dashboard"),
        ("/", f"{ORIGIN}/"),
        (f"{ORIGIN}/ok?x=1#y", f"{ORIGIN}/ok?x=1#y"),
        ("HTTP://LOCALHOST:3000/ok", "HTTP://LOCALHOST:3000/ok"),  # kept verbatim, as Auth.js
        ("//evil.com/x", f"{ORIGIN}//evil.com/x"),  # a path on this host, as Auth.js
        ("https://evil.com/", ORIGIN),
        ("https://localhost:3000/", ORIGIN),
        ("http://localhost:3001/", ORIGIN),
        ("javascript:alert(1)", ORIGIN),
        ("dashboard", ORIGIN),
        ("", ORIGIN),
        ("http://evil.com\\@localhost:3000/", ORIGIN),  # browsers go to evil.com
        ("http://user:pw@localhost:3000/", ORIGIN),
        ("/ok\r\nSet-Cookie: x=y", ORIGIN),  # no header injection through Location
        ("/tab\there", ORIGIN),
    ],
)
def test_default_redirect(url, result):
    assert default_redirect(url, ORIGIN) == result


WHATWG_AUTHORITY_END = "/\\?#"
C0_OR_SPACE = {chr(c) for c in range(0x21)} | {"\x7f"}


def assert_stays_on(url: str, origin: str) -> None:
    """Read ``url`` as a browser would (WHATWG, special scheme) and check its origin."""
    assert not set(url) & (C0_OR_SPACE - {" "}), "tabs, newlines and controls change URLs"
    assert url == url.lstrip(), "leading spaces are stripped by browsers"
    scheme, sep, rest = url.partition("://")
    assert sep
    assert scheme.lower() == origin.partition("://")[0]
    end = min((i for i, c in enumerate(rest) if c in WHATWG_AUTHORITY_END), default=len(rest))
    authority = rest[:end]
    assert "@" not in authority
    assert authority.lower() == origin.partition("://")[2]


URL_PIECES = [
    "http://",
    "https://",
    "HTTP://",
    "//",
    "/",
    "\\",
    "@",
    "localhost:3000",
    "localhost",
    ":3000",
    "evil.com",
    ":",
    "#",
    "?",
    "%40",
    "%2F",
    "\t",
    "\n",
    " ",
    ".",
    "javascript:",
    "data:",
    "[::1]",
]
urls = st.one_of(
    st.text(max_size=60),
    st.lists(st.sampled_from(URL_PIECES) | st.text(max_size=3), max_size=8).map("".join),
)


@given(url=urls)
def test_default_redirect_never_leaves_the_origin(url):
    assert_stays_on(default_redirect(url, ORIGIN), ORIGIN)


def test_default_redirect_never_leaves_the_origin_for_any_authority_trick():
    """Every combination of the usual parser-confusion tricks, exhaustively."""
    schemes = ["http://", "https://", "HTTP://", "//", "http:/", "http:\\\\", "", "/"]
    hosts = ["", "evil.com", "localhost:3000", "localhost", "user:pw", "[::1]:3000"]
    separators = ["", "@", "\\@", "\\", "%40@", "#@", "?@", "/@", ":@", "\t", ".", ":", "@@"]
    tails = ["", "/", "/x", "\\x", "?q", "#f", " "]
    for parts in itertools.product(schemes, hosts, separators, hosts, tails):
        assert_stays_on(default_redirect("".join(parts), ORIGIN), ORIGIN)


@given(url=urls)
def test_default_redirect_never_leaves_an_https_origin(url):
    assert_stays_on(default_redirect(url, "https://example.com"), "https://example.com")


@given(url=urls)
def test_a_sign_in_never_redirects_off_the_origin(url):
    auth = AuthPair.build(providers=[Credentials(authorize=users(ANN))])
    response = auth.browser.sign_in_with_credentials(username="ann", password="pw", callbackUrl=url)
    assert response.status == 302
    assert_stays_on(response.location, ORIGIN)
    if CALLBACK in written(response):
        assert_stays_on(written(response)[CALLBACK], ORIGIN)


# -- callback URL resolution -------------------------------------------------------------------


def pair(**options):
    return AuthPair.build(providers=[Credentials(authorize=users(ANN))], **options)


def test_query_callback_url_is_resolved_and_remembered():
    auth = pair()
    response = auth.browser.get("/auth/signin?callbackUrl=/next")
    assert written(response)[CALLBACK] == f"{ORIGIN}/next"
    again = auth.browser.get("/auth/signin")
    assert CALLBACK not in written(again)  # unchanged: not re-set


def test_next_is_a_callback_url_and_callback_url_wins():
    """``?next=`` (Django's ``login_required``, Flask-Login) leads back as ``callbackUrl``."""
    auth = pair()
    response = auth.browser.get("/auth/signin?next=/private/")
    assert written(response)[CALLBACK] == f"{ORIGIN}/private/"
    both = pair().browser.get("/auth/signin?next=/next&callbackUrl=/callback")
    assert written(both)[CALLBACK] == f"{ORIGIN}/callback"


@given(url=urls, other=urls)
def test_next_resolves_as_callback_url_does(url, other):
    """``next`` alone lands where ``callbackUrl`` alone would (the same origin rule); with
    both, ``callbackUrl`` decides."""
    as_next = pair().browser.sign_in_with_credentials(username="ann", password="pw", next=url)
    as_callback = pair().browser.sign_in_with_credentials(
        username="ann", password="pw", callbackUrl=url
    )
    assert as_next.location == as_callback.location
    assert_stays_on(as_next.location, ORIGIN)
    both = pair().browser.sign_in_with_credentials(
        username="ann", password="pw", callbackUrl=url, next=other
    )
    if url:
        assert both.location == as_callback.location


def test_body_callback_url_wins_over_the_query():
    auth = pair()
    token = auth.browser.csrf_token()
    response = auth.browser.post(
        "/auth/signout?callbackUrl=/from-query", form={"csrfToken": token, "callbackUrl": "/body"}
    )
    assert response.location == f"{ORIGIN}/body"


def test_non_http_callback_url_is_ignored_with_a_warning():
    auth = pair()
    response = auth.browser.get("/auth/signin?callbackUrl=javascript:alert(1)")
    assert response.status == 200
    assert written(response)[CALLBACK] == ORIGIN
    assert "invalid-callback-url" in auth.performer.log_codes("warn")


def test_a_garbage_callback_url_cookie_is_deleted_not_fatal():
    auth = pair()
    response = auth.browser.get(
        "/auth/signin", headers={"cookie": f"{CALLBACK}=javascript%3Aalert(1)"}
    )
    assert response.status == 200
    assert CALLBACK in deleted_names(response) or written(response)[CALLBACK] == ORIGIN
    assert "invalid-callback-url" in auth.performer.log_codes("warn")


def test_custom_redirect_callback():
    seen = []

    def redirect(url, base_url):
        seen.append((url, base_url))
        return "https://partner.example.com/welcome"

    auth = pair(callbacks={"redirect": redirect})
    response = auth.browser.sign_in_with_credentials(
        username="ann", password="pw", callbackUrl="/x"
    )
    assert response.location == "https://partner.example.com/welcome"
    assert seen == [("/x", ORIGIN)]


def test_async_redirect_callback():
    async def redirect(url, base_url):
        return base_url + "/async"

    auth = pair(callbacks={"redirect": redirect})
    response = auth.browser.sign_in_with_credentials(
        username="ann", password="pw", callbackUrl="/x"
    )
    assert response.location == f"{ORIGIN}/async"


def test_redirect_callback_must_return_a_string():
    auth = pair(callbacks={"redirect": lambda url: None})
    response = auth.browser.sign_in_with_credentials(
        username="ann", password="pw", callbackUrl="/x"
    )
    assert response.location == f"{ORIGIN}/auth/error?error=Configuration"
    assert "authjs.session-token" not in written(response)

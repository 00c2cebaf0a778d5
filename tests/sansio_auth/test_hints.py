"""Errors that name their fix (:data:`sansio_auth.errors.HINTS`): the one log line of a
failure ends with the likely fix; with ``debug=True`` the error (or sign-in) page shows the
cause and the fix, from fixed texts only; without debug, the browser sees Auth.js's
``?error=`` and nothing more."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from sansio_auth import AuthConfig, errors
from sansio_auth.errors import HINTS, OAUTH_ERROR_HINTS, CallbackRouteError, hint_of, likely_fix
from sansio_auth.oauth.callback import AuthorizationResponseError
from sansio_auth.providers import Credentials, GitHub
from sansio_auth.testing import Browser, MemoryOP

ROOT = Path(__file__).parents[2]
SECRET = "hints-test-secret-that-is-long-enough-012345"


def github_at(op: MemoryOP, **options: Any) -> Any:
    """GitHub pointed at another server's endpoints, without ``issuer`` (the first hour)."""
    return GitHub(
        id="op",
        client_id=op.client_id,
        client_secret=op.client_secret,
        authorization=f"{op.issuer}/authorize",
        token=f"{op.issuer}/token",
        userinfo=f"{op.issuer}/userinfo",
        **options,
    )


def browser(op: MemoryOP, *, debug: bool, **options: Any) -> Browser:
    config = AuthConfig(
        secret=SECRET, trust_host=True, providers=[github_at(op)], debug=debug, **options
    )
    return Browser(config, op=op)


def error_lines(b: Browser) -> list[str]:
    """The lines of the errors logged (refusals the browser caused at warn, faults at error)."""
    return [str(entry) for entry in b.performer.logs if entry.error is not None]


def test_endpoints_overridden_without_issuer_name_the_fix_on_the_page_with_debug() -> None:
    op = MemoryOP(iss_parameter=True)
    b = browser(op, debug=True)
    page = b.sign_in("op")
    assert b.url == "http://localhost:3000/auth/error?error=Configuration&hint=issuer-mismatch"
    html = page.body.decode()
    assert page.status == 500
    assert "the <code>iss</code> it sent (RFC 9207" in html
    assert "set <code>issuer=</code> to that server&#x27;s issuer too" in html
    for secret in (op.client_secret, SECRET, *op.grants, *op.access_tokens):
        assert secret not in html
        assert secret not in b.url


def test_without_debug_the_page_is_auth_js_s_and_the_one_log_line_names_the_fix() -> None:
    op = MemoryOP(iss_parameter=True)
    b = browser(op, debug=False)
    page = b.sign_in("op")
    assert b.url == "http://localhost:3000/auth/error?error=Configuration"
    assert 'class="debug"' not in page.body.decode()
    [line] = error_lines(b)
    assert line.startswith("[auth][warn] CallbackRouteError: the `iss` parameter is not")
    assert line.endswith(f"Likely fix: {HINTS['issuer-mismatch'].fix}")
    assert "\n" not in line
    assert op.client_secret not in line


def test_a_hint_in_the_query_shows_only_with_debug_and_only_a_known_row() -> None:
    op = MemoryOP()
    quiet, loud = browser(op, debug=False), browser(op, debug=True)
    url = "/auth/error?error=Configuration&hint=check-cookies"
    assert 'class="debug"' not in quiet.get(url).body.decode()
    assert HINTS["check-cookies"].cause[:40] in loud.get(url).body.decode()
    forged = loud.get("/auth/error?error=Configuration&hint=%3Cscript%3E").body.decode()
    assert 'class="debug"' not in forged
    assert "<script>" not in forged


def test_the_provider_refusing_the_client_names_its_credentials() -> None:
    op = MemoryOP()
    b = Browser(
        AuthConfig(
            secret=SECRET,
            trust_host=True,
            debug=True,
            providers=[{**op.provider(), "client_secret": "not the secret"}],
        ),
        op=op,
    )
    b.sign_in("op")
    assert b.url.endswith("&hint=client-credentials")
    assert error_lines(b)[-1].endswith(f"Likely fix: {HINTS['client-credentials'].fix}")


def test_a_callback_without_the_check_cookies_names_the_origin() -> None:
    op = MemoryOP()
    config = AuthConfig(secret=SECRET, trust_host=True, debug=True, providers=[op.provider()])
    b = Browser(config, op=op)
    start = b.post("/auth/signin/op", form={"csrfToken": b.csrf_token()})
    b.jar.clear()  # the browser lost its cookies (another origin, blocked cookies)
    b.follow(start)
    assert b.url.endswith("&hint=check-cookies")


def test_the_bare_base_path_logs_where_the_pages_are() -> None:
    b = Browser(
        AuthConfig(
            secret=SECRET,
            trust_host=True,
            providers=[Credentials(authorize=lambda credentials: None)],
        )
    )
    assert b.get("/auth").status == 400
    [line] = error_lines(b)
    assert line.startswith("[auth][warn] UnknownAction: not an auth route: /auth")
    assert line.endswith(f"Likely fix: {HINTS['not-an-auth-route'].fix}")


def test_a_credentials_authorize_that_raises_is_told_to_return_none() -> None:
    def authorize(credentials: dict[str, Any]) -> None:
        raise KeyError("password")

    config = AuthConfig(
        secret=SECRET, trust_host=True, debug=True, providers=[Credentials(authorize=authorize)]
    )
    b = Browser(config)
    b.sign_in("credentials", password="x")
    assert b.url.endswith("&hint=authorize-raised")


def test_hint_of_finds_the_row_on_a_wrapped_error() -> None:
    inner = AuthorizationResponseError("iss", hint="issuer-mismatch")
    assert hint_of(CallbackRouteError(inner)) == "issuer-mismatch"
    outer = CallbackRouteError("outer")
    outer.__cause__ = inner  # `raise ... from inner`
    assert hint_of(outer) == "issuer-mismatch"
    assert hint_of(CallbackRouteError("x", hint="authorize-raised")) == "authorize-raised"
    assert hint_of(ValueError("no hint")) is None
    assert likely_fix(errors.MissingCSRF()) == HINTS["missing-csrf"].fix


def test_every_named_hint_is_a_row_of_the_table() -> None:
    """``hint_of`` ignores a name it does not know, so a typo would silently lose a fix."""
    named = set(OAUTH_ERROR_HINTS.values())
    for path in (ROOT / "sansio_auth").rglob("*.py"):
        named |= set(re.findall(r'\bhint="([^"]+)"', path.read_text()))
        named |= set(
            re.findall(r'default_hint: ClassVar\[str \| None\] = "([^"]+)"', path.read_text())
        )
    assert named <= set(HINTS), named - set(HINTS)
    assert len(named) >= 10


@pytest.mark.parametrize("name", sorted(HINTS))
def test_the_texts_are_fixed_sentences(name: str) -> None:
    hint = HINTS[name]
    for text in hint:
        assert text.endswith("."), (name, text)
        assert "{" not in text, (name, text)  # nothing is formatted into them
        assert text.count("`") % 2 == 0, (name, text)


def test_sign_in_page_errors_show_their_fix_and_custom_pages_get_the_hint() -> None:
    op = MemoryOP()
    loud = browser(op, debug=True)
    page = loud.get("/auth/signin?error=OAuthAccountNotLinked&hint=account-not-linked")
    assert "allow_dangerous_email_account_linking=True" in page.body.decode()
    custom = browser(op, debug=True, pages={"error": "/oops", "sign_in": "/login"})
    to_error = custom.get("/auth/error?error=Configuration&hint=issuer-mismatch")
    assert to_error.location == "/oops?error=Configuration&hint=issuer-mismatch"
    to_sign_in = custom.get("/auth/signin?error=OAuthAccountNotLinked&hint=account-not-linked")
    assert to_sign_in.location is not None
    assert to_sign_in.location.endswith("&error=OAuthAccountNotLinked&hint=account-not-linked")
    quiet = browser(op, debug=False, pages={"error": "/oops"})
    assert quiet.get("/auth/error?error=Configuration&hint=x").location == (
        "/oops?error=Configuration"
    )

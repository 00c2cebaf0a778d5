"""``sansio_auth.authorized``: the meaning of the ``authorized`` callback's answer."""

from __future__ import annotations

import pytest

from sansio_auth import AuthConfig
from sansio_auth.authorized import Allow, Custom, RedirectTo, decide, sign_in_redirect
from sansio_auth.settings import Settings, resolve

URL = "https://app.test/dashboard?tab=2"


def settings(**options: object) -> Settings:
    return resolve(AuthConfig(secret="s" * 32, trust_host=True, **options), {})  # type: ignore[arg-type]


def test_true_allows() -> None:
    assert decide(True, request_url=URL, settings=settings()) == Allow()


@pytest.mark.parametrize("result", [False, None])
def test_false_or_none_redirects_to_the_sign_in_page_with_callback_url(result: object) -> None:
    assert decide(result, request_url=URL, settings=settings()) == RedirectTo(
        "https://app.test/auth/signin?callbackUrl=https%3A%2F%2Fapp.test%2Fdashboard%3Ftab%3D2"
    )


def test_a_custom_sign_in_page_and_no_loop_on_it() -> None:
    custom = settings(pages={"sign_in": "/login?theme=dark"})
    assert decide(False, request_url=URL, settings=custom) == RedirectTo(
        "https://app.test/login?theme=dark&callbackUrl=https%3A%2F%2Fapp.test%2Fdashboard%3Ftab%3D2"
    )
    assert decide(False, request_url="https://app.test/login", settings=custom) == Allow()


def test_a_string_redirects_relative_to_the_request() -> None:
    assert decide("/", request_url=URL, settings=settings()) == RedirectTo("https://app.test/")
    assert decide("https://other.test/x", request_url=URL, settings=settings()) == RedirectTo(
        "https://other.test/x"
    )


def test_anything_else_is_the_response_to_send() -> None:
    response = object()
    assert decide(response, request_url=URL, settings=settings()) == Custom(response)


def test_sign_in_redirect_keeps_a_relative_request_relative() -> None:
    """Django and aiohttp pass the path and query: the redirect stays on the request's origin."""
    assert sign_in_redirect(settings(), "/account/?tab=2") == (
        "/auth/signin?callbackUrl=%2Faccount%2F%3Ftab%3D2"
    )
    assert sign_in_redirect(settings(base_path="/api/auth"), "/x") == (
        "/api/auth/signin?callbackUrl=%2Fx"
    )


def test_sign_in_redirect_to_a_given_page_and_never_from_it() -> None:
    assert sign_in_redirect(settings(), "/account/", page="/login/") == (
        "/login/?callbackUrl=%2Faccount%2F"
    )
    assert sign_in_redirect(settings(), "/login/?x=1", page="/login/") is None
    assert sign_in_redirect(settings(), "/auth/signin") is None

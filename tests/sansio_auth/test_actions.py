"""``sansio_auth.actions``: the requests and answers of server-side sign-in and sign-out."""

from __future__ import annotations

from urllib.parse import parse_qs

import msgspec
import pytest

from sansio_auth import AccessDenied, AuthConfig, AuthError, CredentialsSignin, Response, actions
from sansio_auth.providers import Credentials, GitHub
from sansio_auth.settings import Settings, resolve


def settings(**options: object) -> Settings:
    providers = [
        Credentials(authorize=lambda credentials: None),
        GitHub(client_id="i", client_secret="s"),
    ]
    config = AuthConfig(secret="s" * 32, trust_host=True, providers=providers, **options)  # type: ignore[arg-type]
    return resolve(config, {})


def answer(url: str, status: int = 200) -> Response:
    return Response(status=status, body=msgspec.json.encode({"url": url}))


def test_the_route_of_each_provider_kind() -> None:
    s = settings()
    assert actions.sign_in_route(s, "credentials") == "/callback/credentials"
    assert actions.sign_in_route(s, "github") == "/signin/github"
    assert actions.sign_in_route(s, "nope") is None
    assert actions.sign_in_route(s, None) is None


def test_the_sign_in_page_url_and_the_form() -> None:
    assert actions.sign_in_page_url("http://a.test", settings(), "/x?y=1") == (
        "http://a.test/auth/signin?callbackUrl=%2Fx%3Fy%3D1"
    )
    body = actions.action_form(
        {"username": "ann", "csrfToken": "forged"}, csrf_token="t", callback_url="/"
    )
    assert parse_qs(body.decode()) == {
        "username": ["ann"],
        "csrfToken": ["t"],
        "callbackUrl": ["/"],
    }


def test_the_answer_url_or_its_error() -> None:
    s = settings()
    assert actions.answer_url(answer("http://a.test/dashboard?error=kept"), s) == (
        "http://a.test/dashboard?error=kept"  # not an auth page: the user's own query
    )
    with pytest.raises(CredentialsSignin) as raised:
        actions.answer_url(
            answer("http://a.test/auth/signin?error=CredentialsSignin&code=locked"), s
        )
    assert raised.value.code == "locked"
    with pytest.raises(AccessDenied):
        actions.answer_url(answer("http://a.test/auth/error?error=AccessDenied"), s)
    with pytest.raises(AuthError, match="Mystery"):
        actions.answer_url(answer("http://a.test/auth/error?error=Mystery"), s)
    with pytest.raises(AuthError, match="status 400"):
        actions.answer_url(Response(status=400), s)

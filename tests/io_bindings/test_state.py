"""AuthState's form post and CSRF token: what every adapter's form views and tags use."""

from __future__ import annotations

import pytest

from io_bindings._state import AuthState
from io_bindings.anyio import Auth
from io_bindings.translate import make_request
from sansio_auth import AuthConfig, Request
from sansio_auth.providers import Credentials

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _state() -> AuthState:
    provider = Credentials(authorize=lambda credentials, request: None, credentials={"name": {}})
    config = AuthConfig(secret="state-test-secret-0123456789abcdefgh", trust_host=True,
                        providers=[provider])  # fmt: skip

    def request() -> Request:
        headers = {"host": "app.test", "origin": "https://app.test"}
        return make_request("POST", scheme="https", host="app.test", raw_path="/signout",
                            headers=headers)  # fmt: skip

    return AuthState(Auth(config, env={}), request)


def test_the_csrf_token_is_made_once_with_one_cookie() -> None:
    state = _state()
    token = state.csrf_token()
    assert token
    assert state.csrf_token() == token
    assert [cookie.name for cookie in state.cookies] == ["__Host-authjs.csrf-token"]
    assert state.cookies[0].value.startswith(f"{token}|")


async def test_a_form_post_is_checked_against_the_pages_csrf_token() -> None:
    state = _state()
    token = state.csrf_token()  # the page's form carries it; its cookie is this request's
    signed_out = await state.form_post({"csrfToken": token, "redirectTo": "/bye"}, sign_in=False)
    assert (signed_out.status, signed_out.url) == (303, "https://app.test/bye")
    refused = await _state().form_post({"csrfToken": "forged"}, sign_in=False)
    assert refused.error is not None
    assert refused.error.type == "MissingCSRF"


async def test_a_form_post_names_its_provider_in_the_form() -> None:
    state = _state()
    token = state.csrf_token()
    form = {"csrfToken": token, "provider": "credentials", "name": "x", "redirectTo": "/in"}
    result = await state.form_post(form, sign_in=True)
    assert result.error is not None
    assert result.error.type == "CredentialsSignin"
    unknown = await state.form_post({**form, "provider": "nope"}, sign_in=True)
    assert unknown.error is not None
    assert unknown.error.type == "Configuration"

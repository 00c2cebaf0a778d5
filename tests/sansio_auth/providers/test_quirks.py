"""The rewrites several services' hooks share (``sansio_auth.providers.quirks``)."""

from urllib.parse import parse_qsl

import pytest

from sansio_auth.events import OutboundRequest
from sansio_auth.providers.quirks import (
    base_url_option,
    bearer_token_type,
    scope_text,
    with_form,
    with_params,
)


def test_a_token_answer_without_token_type_carries_a_bearer_token():
    assert bearer_token_type({"access_token": "a", "user_id": 1}) == {
        "access_token": "a",
        "user_id": 1,
        "token_type": "bearer",
    }
    assert bearer_token_type({"access_token": "a", "token_type": "DPoP"})["token_type"] == "DPoP"
    assert bearer_token_type({"errcode": 40029, "errmsg": "invalid code"}) == {
        "errcode": 40029,
        "errmsg": "invalid code",
    }


@pytest.mark.parametrize(
    ("scope", "expected"),
    [
        (["basicProfile", "publishPost"], {"scope": "basicProfile publishPost"}),
        ("openid email", {"scope": "openid email"}),
        (7, {}),
        (None, {}),
    ],
)
def test_scope_as_oauth_text(scope, expected):
    assert scope_text({"access_token": "a", "scope": scope}) == {"access_token": "a", **expected}
    assert scope_text({"access_token": "a"}) == {"access_token": "a"}


def test_with_params_sets_query_parameters():
    url = "https://www.tiktok.com/v2/auth/authorize?client_id=x&scope=a+b&state=s"
    assert with_params(url, {"client_key": "x", "scope": "user.info.basic"}) == (
        "https://www.tiktok.com/v2/auth/authorize?client_id=x&scope=user.info.basic"
        "&state=s&client_key=x"
    )
    assert with_params("https://x.example/a", {"appid": "wx1"}) == "https://x.example/a?appid=wx1"


def test_with_form_sets_form_fields():
    request = OutboundRequest(
        method="POST",
        url="https://open.tiktokapis.com/v2/oauth/token/",
        headers=(("content-type", "application/x-www-form-urlencoded"),),
        body=b"grant_type=authorization_code&code=a%2Bb&client_id=x",
    )
    changed = with_form(request, {"client_key": "x", "code": "c"})
    assert dict(parse_qsl(changed.body.decode())) == {
        "grant_type": "authorization_code",
        "code": "c",
        "client_id": "x",
        "client_key": "x",
    }
    assert (changed.method, changed.url, changed.headers) == (
        request.method,
        request.url,
        request.headers,
    )


def test_a_base_url_option_moves_every_endpoint():
    rebase = base_url_option("api_base_url", {"token": "/access_token", "userinfo": "/people/me"})
    assert rebase({"client_id": "c"}) == {"client_id": "c"}
    options = rebase(
        {"api_base_url": "https://api.example/v1/", "userinfo": {"params": {"x": "1"}}}
    )
    assert options == {
        "token": {"url": "https://api.example/v1/access_token"},
        "userinfo": {"url": "https://api.example/v1/people/me", "params": {"x": "1"}},
    }

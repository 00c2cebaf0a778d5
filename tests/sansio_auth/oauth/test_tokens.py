"""The token request's client authentication and the strict token response reader."""

import base64
from urllib.parse import parse_qsl

import pytest

from sansio_auth.oauth.tokens import (
    TokenResponseError,
    basic_credentials,
    parse_token_response,
    token_request,
)

NOW = 1_800_000_000.7


def test_basic_credentials_form_encode_both_parts():
    header = basic_credentials("my id", "c s+/")
    assert base64.b64decode(header.removeprefix("Basic ")) == b"my+id:c+s%2B%2F"


def request(method, verifier="v" * 43, extra=None):
    return token_request(
        "https://op.example/token",
        code="the-code",
        redirect_uri="https://app.example/auth/callback/op",
        code_verifier=verifier,
        client_id="cid",
        client_secret="sec",
        auth_method=method,
        extra=extra,
    )


def body(req):
    return dict(parse_qsl(req.body.decode()))


def test_client_secret_basic():
    req = request("client_secret_basic")
    assert req.method == "POST"
    assert dict(req.headers)["authorization"] == basic_credentials("cid", "sec")
    assert list(body(req)) == ["redirect_uri", "code", "code_verifier", "grant_type"]
    assert body(req)["grant_type"] == "authorization_code"


def test_client_secret_post():
    req = request("client_secret_post", verifier=None)
    assert "authorization" not in dict(req.headers)
    assert body(req) == {
        "redirect_uri": "https://app.example/auth/callback/op",
        "code": "the-code",
        "grant_type": "authorization_code",
        "client_id": "cid",
        "client_secret": "sec",
    }


def test_public_client():
    req = request("none")
    assert body(req)["client_id"] == "cid"
    assert "client_secret" not in body(req)
    assert "authorization" not in dict(req.headers)


def test_extra_params_never_replace_the_grant():
    req = request("none", extra={"resource": "https://api.example", "code": "evil"})
    assert body(req)["resource"] == "https://api.example"
    assert body(req)["code"] == "the-code"


def test_unsupported_method():
    with pytest.raises(ValueError, match="private_key_jwt"):
        request("private_key_jwt")


def parse(json, status=200, **kwargs):
    return parse_token_response(status, json.encode(), now=NOW, **kwargs)


def test_a_full_token_set():
    tokens = parse(
        '{"access_token":"at","token_type":"Bearer","expires_in":3600,"refresh_token":"rt",'
        '"scope":"openid email","id_token":"a.b.c","session_state":"x","extra":[1]}'
    )
    assert tokens == {
        "access_token": "at",
        "token_type": "bearer",
        "expires_in": 3600,
        "expires_at": 1_800_003_600,
        "refresh_token": "rt",
        "scope": "openid email",
        "id_token": "a.b.c",
        "session_state": "x",
        "extra": [1],
    }


@pytest.mark.parametrize(("value", "seconds"), [("3600", 3600), (59.5, 59.5), (0, 0)])
def test_expires_in_coerced(value, seconds):
    tokens = parse_token_response(
        200,
        b'{"access_token":"a","token_type":"DPoP","expires_in":%s}'
        % (f'"{value}"' if isinstance(value, str) else str(value)).encode(),
        now=NOW,
    )
    assert tokens["expires_in"] == seconds
    assert tokens["token_type"] == "dpop"
    assert tokens["expires_at"] == 1_800_000_000 + int(seconds)


def test_nulls_count_as_absent():
    tokens = parse('{"access_token":"a","token_type":"bearer","scope":null,"refresh_token":null}')
    assert tokens == {"access_token": "a", "token_type": "bearer"}


@pytest.mark.parametrize(
    ("json", "message"),
    [
        ('{"token_type":"bearer"}', "access_token"),
        ('{"access_token":"","token_type":"bearer"}', "access_token"),
        ('{"access_token":7,"token_type":"bearer"}', "access_token"),
        ('{"access_token":"a"}', "token_type"),
        ('{"access_token":"a","token_type":"mac"}', "unsupported token_type"),
        ('{"access_token":"a","token_type":"bearer","scope":["a"]}', "scope"),
        ('{"access_token":"a","token_type":"bearer","id_token":{}}', "id_token"),
        ('{"access_token":"a","token_type":"bearer","expires_in":"soon"}', "expires_in"),
        ('{"access_token":"a","token_type":"bearer","expires_in":-1}', "out of range"),
        ('{"access_token":"a","token_type":"bearer","expires_in":true}', "expires_in"),
        ('{"access_token":"a","token_type":"bearer","expires_in":null}', "expires_in"),
        ('{"access_token":"a","token_type":"bearer","expires_in":{}}', "expires_in"),
        ('["access_token"]', "not a JSON object"),
        ("not json", "not a JSON object"),
        ('{"error":"invalid_grant","error_description":"used"}', "invalid_grant"),
    ],
)
def test_refusals(json, message):
    with pytest.raises(TokenResponseError, match=message):
        parse(json)


def test_error_status():
    with pytest.raises(TokenResponseError, match="HTTP 503") as caught:
        parse("<html>", status=503)
    assert caught.value.error is None
    with pytest.raises(TokenResponseError, match="invalid_client") as caught:
        parse('{"error":"invalid_client"}', status=401)
    assert caught.value.error == "invalid_client"
    with pytest.raises(TokenResponseError, match="HTTP 201"):
        parse('{"access_token":"a","token_type":"bearer"}', status=201)


def test_conform_hook_runs_first():
    def conform(data):
        return {**data, "scope": " ".join(data["scope"])}

    tokens = parse('{"access_token":"a","token_type":"bearer","scope":["a","b"]}', conform=conform)
    assert tokens["scope"] == "a b"

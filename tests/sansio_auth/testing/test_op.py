"""MemoryOP: the endpoints, client authentication, PKCE, ``iss``, key rotation, and each
switch to misbehave (the engine must refuse every one)."""

import json
from typing import Any

import pytest

from sansio_auth import AuthConfig
from sansio_auth.events import HTTPResponse, OutboundRequest
from sansio_auth.oauth.cache import JWKS_REFETCH_INTERVAL
from sansio_auth.testing import FAULTS, ORIGIN, SECRET, AuthorizeRefused, Browser, MemoryOP


def browser_for(op: MemoryOP, **provider: Any) -> Browser:
    config = AuthConfig(secret=SECRET, trust_host=True, providers=[op.provider(**provider)])
    return Browser(config, op=op)


def signed_in(browser: Browser) -> bool:
    return browser.session() is not None


def get(op: MemoryOP, name: str) -> Any:
    response = op.handle(OutboundRequest(method="GET", url=op.endpoint(name)))
    return response.status, json.loads(response.body)


def test_discovery_and_jwks():
    op = MemoryOP(iss_parameter=True)
    response = op.handle(OutboundRequest(method="GET", url=op.discovery_url))
    document = json.loads(response.body)
    assert document["issuer"] == op.issuer
    assert document["authorization_response_iss_parameter_supported"] is True
    status, jwks = get(op, "jwks")
    assert status == 200
    assert [key["kid"] for key in jwks["keys"]] == ["key-1"]
    assert "d" not in jwks["keys"][0]  # public keys only
    assert op.count("discovery") == op.count("jwks") == 1


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post", "none"])
def test_each_client_auth_method_signs_in_and_a_mismatch_is_refused(method):
    op = MemoryOP(auth_method=method)
    browser = browser_for(op)
    browser.sign_in("op")
    assert signed_in(browser)
    other = "client_secret_post" if method != "client_secret_post" else "client_secret_basic"
    refused = browser_for(op, client={"token_endpoint_auth_method": other})
    refused.sign_in("op")
    assert "error=" in refused.url
    assert not signed_in(refused)


def test_pkce_s256_is_checked_and_can_be_required():
    op = MemoryOP(require_pkce=True)
    browser = browser_for(op, checks=["state"])  # no PKCE: the OP refuses
    browser.sign_in("op")
    assert not signed_in(browser)
    assert browser_for(op).sign_in("op") is not None  # pkce by default for OIDC
    assert op.grants
    assert all(g.code_challenge for g in op.grants.values())


def test_the_iss_parameter_is_sent_when_asked():
    op = MemoryOP(iss_parameter=True)
    browser = browser_for(op)
    browser.sign_in("op")
    assert signed_in(browser)
    callbacks = [q.url for q, _ in browser.history if "/callback/op" in q.url]
    assert f"iss={op.issuer.replace(':', '%3A').replace('/', '%2F')}" in callbacks[0]


def test_key_rotation_the_engine_follows_new_keys():
    op = MemoryOP()
    browser = browser_for(op)
    browser.sign_in("op")
    assert op.rotate(keep_old=False) == "key-2"
    _, jwks = get(op, "jwks")
    assert [key["kid"] for key in jwks["keys"]] == ["key-2"]
    browser.sign_out()
    browser.advance(JWKS_REFETCH_INTERVAL)
    browser.sign_in("op")  # signed with key-2: the engine refetches the JWKS
    assert signed_in(browser)
    assert op.count("jwks") >= 2


@pytest.mark.parametrize("fault", FAULTS)
def test_every_fault_is_refused_and_behave_undoes_it(fault):
    op = MemoryOP().misbehave(fault)
    browser = browser_for(op)
    browser.sign_in("op")
    assert browser.url.startswith(f"{ORIGIN}/auth/error?error=")
    assert not signed_in(browser)
    op.behave()
    browser.sign_in("op")
    assert signed_in(browser)


def test_an_unknown_fault_is_named():
    with pytest.raises(ValueError, match="unknown fault 'late'"):
        MemoryOP().misbehave("late")  # type: ignore[arg-type]


def test_error_responses_and_exact_answers():
    op = MemoryOP(fail={"authorize": "access_denied"})
    browser = browser_for(op)
    browser.sign_in("op")
    assert browser.url == f"{ORIGIN}/auth/signin?error=OAuthCallbackError"
    op.behave()
    op.fail["token"] = "error"
    browser.sign_in("op")
    assert not signed_in(browser)
    op.behave()
    op.answers["userinfo"] = HTTPResponse(status=200, body=b"not json")
    assert op.handle(OutboundRequest(method="GET", url=op.endpoint("userinfo"))).body == (
        b"not json"
    )
    with pytest.raises(TimeoutError):
        MemoryOP(fail={"jwks": "timeout"}).handle(
            OutboundRequest(method="GET", url=op.endpoint("jwks"))
        )


def test_authorize_refuses_what_an_op_would_not_redirect_back_from():
    op = MemoryOP()
    with pytest.raises(AuthorizeRefused, match="not this OP"):
        op.authorize("https://elsewhere.example/authorize?client_id=client-1")
    with pytest.raises(AuthorizeRefused, match="client_id"):
        op.authorize(op.endpoint("authorize") + "?client_id=other&redirect_uri=x")
    with pytest.raises(AuthorizeRefused, match="no user 'zed'"):
        op.authorize(op.endpoint("authorize") + "?client_id=client-1&redirect_uri=x", "zed")
    result = op.authorize(op.endpoint("authorize") + "?client_id=client-1&redirect_uri=x")
    assert result.params["error"] == "unsupported_response_type"


def test_userinfo_needs_the_access_token():
    op = MemoryOP()
    status, body = get(op, "userinfo")
    assert (status, body) == (401, {"error": "invalid_token"})

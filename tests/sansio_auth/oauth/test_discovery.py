"""Discovery and JWKS: issuer match, typed metadata, caching by the injected clock."""

import json

import pytest

from sansio_auth.events import Failed, HTTPResponse, OutboundRequest
from sansio_auth.fetch import ProviderResponseError, max_age
from sansio_auth.oauth.cache import JWKS_REFETCH_INTERVAL, ProviderCache, TTLCache
from sansio_auth.oauth.discovery import (
    discover,
    get_jwks,
    parse_jwks,
    parse_metadata,
    same_issuer,
)
from sansio_auth.providers import OIDCProvider
from tests.sansio_auth.oauth.fake_op import FakeOP

NOW = 1_800_000_000.0
PROVIDER = OIDCProvider.from_mapping(
    {"id": "op", "type": "oidc", "issuer": "https://op.example", "client_id": "c"}
)


def run(step, http):
    """Drive a step generator with ``http`` answering its SendHTTP actions."""
    try:
        action = next(step)
        while True:
            try:
                event = http(action.request)
            except Exception as err:  # becomes Failed, as in a binding
                event = Failed(error=err)
            action = step.send(event)
    except StopIteration as done:
        return done.value


def test_same_issuer():
    assert same_issuer("https://op.example", "https://op.example")
    assert same_issuer("https://op.example/", "https://OP.example")
    assert not same_issuer("https://op.example/tenant", "https://op.example")
    assert not same_issuer("https://op.example/a/", "https://op.example/a")


def test_parse_metadata():
    document = FakeOP().document()
    metadata = parse_metadata(json.dumps(document).encode(), "https://op.example")
    assert metadata.jwks_uri == "https://op.example/jwks"
    assert metadata.id_token_signing_alg_values_supported == ("RS256", "ES256")
    assert metadata.authorization_response_iss_parameter_supported is False
    with pytest.raises(ProviderResponseError, match="issuer"):
        parse_metadata(json.dumps(document).encode(), "https://other.example")
    with pytest.raises(ProviderResponseError, match="invalid"):
        parse_metadata(json.dumps({**document, "jwks_uri": 5}).encode(), "https://op.example")
    with pytest.raises(ProviderResponseError, match="invalid"):
        parse_metadata(b"[]", "https://op.example")


def test_discovery_is_cached_until_max_age():
    op = FakeOP()
    cache = ProviderCache()

    def http(request: OutboundRequest) -> HTTPResponse:
        response = op.handle(request)
        return HTTPResponse(
            status=200, headers={"cache-control": "public, max-age=600"}, body=response.body
        )

    first = run(discover(PROVIDER, cache, NOW), http)
    assert run(discover(PROVIDER, cache, NOW + 599), http) is first
    assert op.count("discovery") == 1
    run(discover(PROVIDER, cache, NOW + 600), http)
    assert op.count("discovery") == 2


def test_max_age_bounds():
    def response(value):
        return HTTPResponse(status=200, headers={"cache-control": value})

    assert max_age(response("max-age=10"), 99, low=60, high=3600) == 60
    assert max_age(response("no-cache, max-age=99999"), 99, low=60, high=3600) == 3600
    assert max_age(response("max-age=²"), 99, low=60, high=3600) == 99
    assert max_age(HTTPResponse(status=200), 99, low=60, high=3600) == 99


def test_jwks_cache_and_refetch_bookkeeping():
    op = FakeOP(published=["key-1", "key-2"])
    cache = ProviderCache()
    keys = run(get_jwks("https://op.example/jwks", cache, NOW), op.handle)
    assert [k["kid"] for k in keys] == ["key-1", "key-2"]
    assert run(get_jwks("https://op.example/jwks", cache, NOW + 10), op.handle) is keys
    assert not cache.may_refetch_jwks("https://op.example/jwks", NOW + 10)
    assert cache.may_refetch_jwks("https://op.example/jwks", NOW + JWKS_REFETCH_INTERVAL)
    run(get_jwks("https://op.example/jwks", cache, NOW + 10, refresh=True), op.handle)
    assert op.count("jwks") == 2


def test_parse_jwks():
    assert parse_jwks(b'{"keys":[{"kty":"RSA","n":"x"},{"no":"kty"},5]}') == (
        {"kty": "RSA", "n": "x"},
    )
    for body in (b"{}", b'{"keys":{}}', b"[]"):
        with pytest.raises(ProviderResponseError):
            parse_jwks(body)


def test_ttl_cache():
    cache = TTLCache()
    cache.put("a", 1, now=NOW, ttl=10)
    assert cache.get("a", NOW + 9.9) == 1
    assert cache.get("a", NOW + 10) is None
    cache.clear()
    assert cache.get("a", NOW) is None

"""The OAuth/OIDC provider records: mappings, defaults, deep merges and start-up checks."""

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from sansio_auth import AuthConfig
from sansio_auth.errors import Configuration, InvalidEndpoints
from sansio_auth.providers import (
    PROVIDER_KINDS,
    ClientOptions,
    Endpoint,
    GitHub,
    OAuthProvider,
    OIDCProvider,
    ProviderStyle,
)
from sansio_auth.providers.oauth import merge_options
from sansio_auth.settings import resolve

OIDC = {
    "id": "op",
    "name": "My OP",
    "type": "oidc",
    "issuer": "https://op.example",
    "client_id": "id",
    "client_secret": "secret",
    "checks": ["pkce", "nonce"],
    "client": {"token_endpoint_auth_method": "client_secret_post"},
}
OAUTH = {
    "id": "corp",
    "type": "oauth",
    "authorization": "https://corp.example/authorize",
    "token": {"url": "https://corp.example/token"},
    "userinfo": "https://corp.example/me",
    "client_id": "id",
    "client_secret": "secret",
    "profile": lambda profile: {"id": profile["uid"]},
}


def providers(*values, env=None):
    config = AuthConfig(secret="s" * 32, trust_host=True, providers=list(values))
    return resolve(config, env or {}).providers


def test_kinds_are_registered():
    assert PROVIDER_KINDS["oauth"] is OAuthProvider
    assert PROVIDER_KINDS["oidc"] is OIDCProvider


def test_oidc_mapping():
    [provider] = providers(OIDC)
    assert isinstance(provider, OIDCProvider)
    assert provider.checks == ("pkce", "nonce")
    assert provider.client == ClientOptions(token_endpoint_auth_method="client_secret_post")
    assert provider.id_token is True
    assert provider.authorization == Endpoint()


def test_oauth_mapping():
    [provider] = providers(OAUTH)
    assert type(provider) is OAuthProvider
    assert provider.name == "corp"  # a mapping without a name is named by its id
    assert provider.authorization == Endpoint(url="https://corp.example/authorize")
    assert provider.token.url == "https://corp.example/token"
    assert provider.checks == ("pkce",)  # Auth.js's default for both types
    assert provider.client.token_endpoint_auth_method == "client_secret_basic"


def test_record_instances_are_accepted():
    record = OIDCProvider(
        id="op", name="OP", type="oidc", issuer="https://op.example", client_id="i",
        client_secret="s", style={"bg": "#000"},
    )  # fmt: skip
    [provider] = providers(record)
    assert provider is record
    assert record.style == ProviderStyle(bg="#000")


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"clientId": "x"}, "clientId"),
        ({"client": {"token_endpoint_auth": "x"}}, "token_endpoint_auth"),
        ({"authorization": {"url": "https://x", "parms": {}}}, "parms"),
        ({"style": {"colour": "red"}}, "colour"),
    ],
)
def test_unknown_keys_are_named(changes, named):
    with pytest.raises(Configuration, match=named):
        providers({**OIDC, **changes})


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"checks": ["pkce", "magic"]}, "unknown checks magic"),
        ({"type": "oauth", "checks": ["nonce"]}, "unknown checks nonce"),
        ({"client_id": None}, "AUTH_OP_ID"),
        ({"client_secret": None}, "AUTH_OP_SECRET"),
        ({"issuer": None}, "AUTH_OP_ISSUER"),
        ({"client": {"token_endpoint_auth_method": "private_key_jwt"}}, "not supported"),
        ({"client": {"token_endpoint_auth_method": "none"}, "checks": ["state"]}, "needs pkce"),
        ({"client": {"id_token_signed_response_alg": "HS1"}}, "ID token algorithm 'HS1'"),
        ({"client": {"userinfo_signed_response_alg": "none"}}, "userinfo algorithm 'none'"),
        (
            {
                "client": {
                    "id_token_signed_response_alg": "HS256",
                    "token_endpoint_auth_method": "none",
                }
            },
            "HS256 ID token signatures are keyed by the client secret",
        ),
        (
            {
                "client": {
                    "userinfo_signed_response_alg": "HS256",
                    "token_endpoint_auth_method": "none",
                }
            },
            "a public client",
        ),
        ({"client": {"id_token_signed_response_alg": "none"}}, "not accepted"),
        ({"issuer": "ftp://op.example"}, "not an http"),
        ({"redirect_proxy_url": "/relative"}, "not an http"),
        ({"authorization": {"url": "https://x", "request": print}}, "only userinfo"),
    ],
)
def test_start_up_refusals(changes, message):
    with pytest.raises(Configuration, match=message):
        providers({**OIDC, **changes})


def test_public_client_needs_no_secret():
    [provider] = providers(
        {**OIDC, "client_secret": None, "client": {"token_endpoint_auth_method": "none"}}
    )
    assert provider.client_secret is None


@pytest.mark.parametrize("missing", ["authorization", "token", "userinfo"])
def test_oauth_without_issuer_needs_every_endpoint(missing):
    with pytest.raises(InvalidEndpoints, match=f"missing both issuer .* {missing}"):
        providers({**OAUTH, missing: None})


def test_oauth_with_an_issuer_discovers_endpoints():
    [provider] = providers(
        {**OAUTH, "issuer": "https://corp.example", "token": None, "userinfo": None}
    )
    assert provider.token.url is None


def test_env_inference():
    env = {
        "AUTH_OP_ID": "env-id",
        "AUTH_OP_SECRET": "env-secret",
        "AUTH_OP_ISSUER": "https://env.example",
    }
    [provider] = providers({"id": "op", "type": "oidc"}, env=env)
    assert (provider.client_id, provider.client_secret, provider.issuer) == (
        "env-id",
        "env-secret",
        "https://env.example",
    )
    [configured] = providers(OIDC, env=env)
    assert configured.client_id == "id"  # configuration wins


def test_secret_is_not_in_the_repr():
    [provider] = providers(OIDC)
    assert "secret" not in repr(provider).replace("client_secret", "")


def test_deep_merge_over_built_in_defaults():
    default = GitHub()
    scoped = GitHub(authorization={"params": {"scope": "read:user"}, "url": None})
    assert scoped.authorization.url == default.authorization.url
    assert scoped.authorization.params == {"scope": "read:user"}
    replaced = GitHub(authorization="https://proxy.example/authorize")
    assert replaced.authorization == Endpoint(url="https://proxy.example/authorize")
    styled = GitHub(style={"bg": "#000"})
    assert styled.style is not None
    assert (styled.style.bg, styled.style.text) == ("#000", "#fff")


def test_deep_merge_at_every_level():
    """``{a:{b:{c:1}}}`` + ``{a:{b:{d:2}}}`` keeps ``c`` (Auth.js's ``merge``), in a built-in's
    endpoint params and in any other mapping option."""
    assert merge_options({"a": {"b": {"c": 1}}}, {"a": {"b": {"d": 2}}}) == {
        "a": {"b": {"c": 1, "d": 2}}
    }
    assert merge_options({"a": {"b": 1}}, {"a": {"b": None, "c": None}}) == {
        "a": {"b": 1, "c": None}
    }
    assert merge_options({"a": [1, 2]}, {"a": [3]}) == {"a": [3]}

    @dataclass(frozen=True, kw_only=True)
    class Nested(OIDCProvider):
        defaults: ClassVar[Mapping[str, Any]] = {
            "id": "nested",
            "name": "Nested",
            "issuer": "https://op.example",
            "authorization": {"params": {"claims": {"id_token": {"email": {"essential": True}}}}},
            "authorization_params": {"ui": {"theme": "dark"}},
        }

    provider = Nested.from_mapping(
        {
            "authorization": {"params": {"claims": {"id_token": {"name": {"essential": True}}}}},
            "authorization_params": {"ui": {"locale": "fr"}},
        }
    )
    assert provider.authorization.params["claims"]["id_token"] == {
        "email": {"essential": True},
        "name": {"essential": True},
    }
    assert provider.authorization_params == {"ui": {"theme": "dark", "locale": "fr"}}


def test_checks_accept_a_single_string_and_dedupe():
    [provider] = providers({**OIDC, "checks": "state"})
    assert provider.checks == ("state",)
    [twice] = providers({**OIDC, "checks": ["state", "state", "pkce"]})
    assert twice.checks == ("state", "pkce")


def test_replace_keeps_records_valid():
    [provider] = providers(OIDC)
    renamed = dataclasses.replace(provider, name="Renamed")
    assert renamed.client == provider.client
    assert renamed.authorization == provider.authorization

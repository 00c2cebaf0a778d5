"""Where a provider's endpoints are: its configuration, else its discovery document; its JWKS.

``<issuer>/.well-known/openid-configuration`` is fetched once and cached (its
``issuer`` must be the configured one); a JWKS is cached too and refetched when
an ID token names a key it lacks, at most once a minute per URL.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

import msgspec

from .._flow import Step
from ..events import OutboundRequest
from ..fetch import ACCEPT_JSON, ProviderResponseError, decode_json, max_age, send
from ..providers.oauth import OAuthProvider, OIDCProvider
from .cache import DISCOVERY_TTL, JWKS_TTL, ProviderCache

JWK = Mapping[str, Any]


class ServerMetadata(msgspec.Struct, frozen=True, kw_only=True):
    """The parts of an OpenID Provider's metadata (RFC 8414 / OIDC Discovery) used here."""

    issuer: str
    authorization_endpoint: str | None = None
    token_endpoint: str | None = None
    userinfo_endpoint: str | None = None
    jwks_uri: str | None = None
    id_token_signing_alg_values_supported: tuple[str, ...] | None = None
    userinfo_signing_alg_values_supported: tuple[str, ...] | None = None
    authorization_response_iss_parameter_supported: bool = False
    code_challenge_methods_supported: tuple[str, ...] | None = None
    end_session_endpoint: str | None = None
    """RP-Initiated Logout 1.0."""
    backchannel_logout_supported: bool = False
    """Back-Channel Logout 1.0."""


class AuthorizationServer(msgspec.Struct, frozen=True, kw_only=True):
    """A provider's endpoints and issuer facts: configuration first, discovery for the rest."""

    issuer: str | None = None
    authorization_endpoint: str | None = None
    token_endpoint: str | None = None
    userinfo_endpoint: str | None = None
    jwks_uri: str | None = None
    id_token_algorithms: tuple[str, ...] | None = None
    userinfo_algorithms: tuple[str, ...] | None = None
    iss_parameter_supported: bool = False
    pkce_s256: bool = False
    """Whether the metadata lists ``S256`` in ``code_challenge_methods_supported``: only
    then is PKCE known to protect the callback (RFC 9700 §2.1.1)."""


def well_known_url(provider: OAuthProvider) -> str:
    """The discovery URL: ``well_known``, else ``<issuer>/.well-known/openid-configuration``."""
    if provider.well_known:
        return provider.well_known
    assert provider.issuer is not None
    return provider.issuer.rstrip("/") + "/.well-known/openid-configuration"


def same_issuer(found: str, expected: str) -> bool:
    """Issuer identifiers are equal (scheme and host case-insensitive, ``/`` for an empty path)."""

    def normal(value: str) -> str:
        parts = urlsplit(value)
        return f"{parts.scheme.lower()}://{parts.netloc.lower()}{parts.path or '/'}" + (
            f"?{parts.query}" if parts.query else ""
        )

    try:
        return found == expected or normal(found) == normal(expected)
    except ValueError:
        return False


def parse_metadata(
    body: bytes, expected_issuer: str, conform_issuer: Callable[[str], str] | None = None
) -> ServerMetadata:
    """A discovery document, checked: JSON object, typed fields, and the expected issuer.

    ``conform_issuer`` rewrites the document's issuer first (a multi-tenant template).
    """
    try:
        metadata = msgspec.json.decode(body, type=ServerMetadata)
    except (msgspec.DecodeError, UnicodeDecodeError) as err:
        raise ProviderResponseError(
            f"the discovery document is invalid: {err}", hint="discovery-failed"
        ) from err
    if conform_issuer is not None:
        metadata = msgspec.structs.replace(metadata, issuer=conform_issuer(metadata.issuer))
    if not same_issuer(metadata.issuer, expected_issuer):
        raise ProviderResponseError(
            f"the discovery document's issuer {metadata.issuer!r} is not {expected_issuer!r}",
            hint="discovery-failed",
        )
    return metadata


def discover(provider: OAuthProvider, cache: ProviderCache, now: float) -> Step[ServerMetadata]:
    """The provider's discovery document, from the cache or fetched (then cached)."""
    url = well_known_url(provider)
    cached = cache.metadata.get(url, now)
    if isinstance(cached, ServerMetadata):
        return cached
    request = OutboundRequest(method="GET", url=url, headers=(ACCEPT_JSON,))
    response = yield from send(request, "discovery")
    if response.status != 200:
        raise ProviderResponseError(
            f"the discovery endpoint answered HTTP {response.status}", hint="discovery-failed"
        )
    metadata = parse_metadata(
        response.body, provider.issuer or "", conform_issuer=provider.discovered_issuer
    )
    ttl = max_age(response, DISCOVERY_TTL, low=300, high=DISCOVERY_TTL)
    cache.metadata.put(url, metadata, now=now, ttl=ttl)
    return metadata


def authorization_server(
    provider: OAuthProvider, cache: ProviderCache, now: float, *, callback: bool
) -> Step[AuthorizationServer]:
    """The endpoints for the sign-in start (``callback=False``) or the callback.

    Discovery runs when an endpoint the step needs is not configured, and always
    for an OIDC callback (the JWKS and the issuer's metadata are needed). For a provider
    that :func:`relies_on_pkce` both steps discover when either does, so that they agree
    on whether PKCE is known to work.
    """
    at_sign_in, at_callback = _discovers(provider)
    needs_discovery = at_callback if callback else at_sign_in
    if relies_on_pkce(provider):
        needs_discovery = at_sign_in or at_callback  # both steps judge PKCE by one document
    if not needs_discovery:
        return AuthorizationServer(
            issuer=provider.issuer,
            authorization_endpoint=provider.authorization.url,
            token_endpoint=provider.token.url,
            userinfo_endpoint=provider.userinfo.url,
        )
    metadata = yield from discover(provider, cache, now)
    return AuthorizationServer(
        issuer=metadata.issuer,
        authorization_endpoint=provider.authorization.url or metadata.authorization_endpoint,
        token_endpoint=provider.token.url or metadata.token_endpoint,
        userinfo_endpoint=provider.userinfo.url or metadata.userinfo_endpoint,
        jwks_uri=metadata.jwks_uri,
        id_token_algorithms=metadata.id_token_signing_alg_values_supported,
        userinfo_algorithms=metadata.userinfo_signing_alg_values_supported,
        iss_parameter_supported=metadata.authorization_response_iss_parameter_supported,
        pkce_s256="S256" in (metadata.code_challenge_methods_supported or ()),
    )


def _discovers(provider: OAuthProvider) -> tuple[bool, bool]:
    """Whether the sign-in start and the callback need the discovery document: for an
    endpoint that is not configured, and always for an OIDC callback (the JWKS and the
    issuer's metadata are needed)."""
    profile_from_userinfo = not isinstance(provider, OIDCProvider) or not provider.id_token
    at_callback = (
        isinstance(provider, OIDCProvider)
        or provider.token.url is None
        or (profile_from_userinfo and not (provider.userinfo.url or provider.userinfo.request))
    )
    return provider.authorization.url is None, at_callback


def relies_on_pkce(provider: OAuthProvider) -> bool:
    """Whether PKCE is the provider's only protection of the callback against forgery
    (no ``state``; no ``nonce`` on an OIDC provider)."""
    checks = provider.checks
    nonce = isinstance(provider, OIDCProvider) and "nonce" in checks
    return "pkce" in checks and "state" not in checks and not nonce


def parse_jwks(body: bytes) -> tuple[dict[str, Any], ...]:
    """The keys of a JWKS document (entries that are not JSON objects with a ``kty`` dropped)."""
    document = decode_json(body, "JWKS")
    keys = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(keys, list):
        raise ProviderResponseError("the JWKS document has no `keys` list")
    return tuple(k for k in keys if isinstance(k, dict) and isinstance(k.get("kty"), str))


def get_jwks(
    url: str, cache: ProviderCache, now: float, *, refresh: bool = False
) -> Step[tuple[dict[str, Any], ...]]:
    """The JWKS at ``url``: cached unless ``refresh`` (the caller rate-limits refreshes)."""
    cached = None if refresh else cache.jwks.get(url, now)
    if isinstance(cached, tuple):
        return cached
    request = OutboundRequest(method="GET", url=url, headers=(ACCEPT_JSON,))
    response = yield from send(request, "JWKS")
    cache.jwks_fetched(url, now)
    if response.status != 200:
        raise ProviderResponseError(f"the JWKS endpoint answered HTTP {response.status}")
    keys = parse_jwks(response.body)
    cache.jwks.put(url, keys, now=now, ttl=max_age(response, JWKS_TTL, low=60, high=24 * 3600))
    return keys

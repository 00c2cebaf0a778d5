"""OAuth 2.0 and OpenID Connect provider records.

A provider is given as a record (:class:`OAuthProvider`, :class:`OIDCProvider`, or a
built-in such as :func:`~sansio_auth.providers.GitHub`) or as a plain mapping with
Auth.js's provider keys in snake_case::

    {"id": "op", "name": "My OP", "type": "oidc", "issuer": "https://op.example",
     "client_id": "...", "client_secret": "...", "checks": ["pkce", "nonce"],
     "client": {"token_endpoint_auth_method": "client_secret_post"}}

``authorization``, ``token`` and ``userinfo`` take a URL or ``{"url", "params"}``
(``userinfo`` also ``{"request": fn}``); without them the endpoints come from the
issuer's discovery document. Unknown keys are a configuration error naming them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self, get_args
from urllib.parse import urlsplit

from ..errors import Configuration, InvalidEndpoints
from ..events import Action, Event, OutboundRequest
from ..fetch import ProviderResponseError, bearer_request, decode_json, send
from ._base import Provider, ProviderStyle, ProviderType, build, record_of

if TYPE_CHECKING:
    from ..errors import TokenResponseError

TokenEndpointAuthMethod = Literal["client_secret_basic", "client_secret_post", "none"]
Check = Literal["pkce", "state", "nonce", "none"]
Profile = dict[str, Any]
TokenSet = Mapping[str, Any]

ID_TOKEN_ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)
"""ID token signature algorithms accepted from any provider: asymmetric (no ``none``)."""
HMAC_ID_TOKEN_ALGORITHMS = frozenset({"HS256", "HS384", "HS512"})
"""Accepted only from a provider that declares one as ``id_token_signed_response_alg``
(the token is keyed by its client secret, OpenID Connect Core §10.1)."""

ISSUER = "{issuer}"
"""In an endpoint URL, the issuer (without its final ``/``): services that each customer runs
(Mastodon, Nextcloud) have endpoints under the issuer the configuration or
``AUTH_<ID>_ISSUER`` names; start-up fails naming it while it is missing."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Endpoint:
    """An endpoint: its URL, extra query/body ``params``, and (userinfo only) a ``request``.

    ``request(tokens, provider)`` (sync or async) replaces the userinfo request and
    returns the profile.
    """

    url: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    request: Callable[..., Any] | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class ClientOptions:
    """How the client authenticates and what it expects (OAuth client metadata)."""

    token_endpoint_auth_method: TokenEndpointAuthMethod = "client_secret_basic"  # noqa: S105
    """``client_secret_basic`` (default), ``client_secret_post``, or ``none`` (PKCE required)."""
    id_token_signed_response_alg: str | None = None
    """The one ID token algorithm to accept; default: the issuer's list (asymmetric ones),
    else ``RS256``. ``HS256``/``HS384``/``HS512`` (keyed by the client secret) only this way."""
    userinfo_signed_response_alg: str | None = None
    """The same for signed userinfo responses (``application/jwt``, OpenID Connect Core
    §5.3.2), which are verified like ID tokens whenever a service sends one."""


Step = Generator[Action, Event, Any]


@dataclass(frozen=True, slots=True)
class SignedUserinfo:
    """A userinfo response that is a JWT (``application/jwt``): the engine verifies it."""

    jwt: str


@dataclass(frozen=True, kw_only=True, slots=True)
class Hooks:
    """The named slots where a service deviates from the standard protocol.

    Built-in services fill them in their row (:class:`~sansio_auth.providers.service.Service`);
    an empty slot is the standard behaviour (the :class:`OAuthProvider` method of that name).
    Like Authlib's compliance hooks, a slot that does not exist is refused by name.
    """

    options: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    """The factory's own keywords (GitHub's ``enterprise``) turned into provider keys."""
    authorization_url: Callable[[OAuthProvider, str], str] | None = None
    """``authorization_redirect``: the authorization URL as the service wants it (WeChat's
    ``appid``, a fragment)."""
    token_request: Callable[[OAuthProvider, OutboundRequest], OutboundRequest] | None = None
    """``prepare_token_request``: every token endpoint request (code and refresh) as the
    service wants it (another grant, the client id under another name)."""
    token_response: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    """``conform_token_response``: fix the token endpoint's JSON before it is read."""
    token_error: Callable[[OAuthProvider, TokenResponseError], Exception] | None = None
    """The error a refused code exchange in the callback ends with (default: the error
    page, ``Configuration``); Microsoft Entra ID's is ``OAuthCallbackError``."""
    token_status: Callable[[int], int] | None = None
    """``conform_token_status``: the token endpoint's HTTP status as the standard has it
    (Medium answers ``201 Created`` where OAuth 2.0 says ``200``)."""
    userinfo: Callable[[OAuthProvider, str, TokenSet], Step] | None = None
    """``request_userinfo``: the requests that get the profile."""
    complete_profile: (
        Callable[[OAuthProvider, Profile, TokenSet, Mapping[str, Any]], Step] | None
    ) = None
    """``complete_profile``: add what the service gives outside the ID token or userinfo."""
    discovered_issuer: Callable[[OAuthProvider, str], str] | None = None
    """``discovered_issuer``: the issuer a discovery document names, as the service means it."""
    id_token_issuer: Callable[[OAuthProvider, str, str], str] | None = None
    """``id_token_issuer``: the ``iss`` an ID token must carry (multi-tenant services)."""


@dataclass(frozen=True, kw_only=True)
class OAuthProvider(Provider):
    """An OAuth 2.0 provider (``type: "oauth"``): the profile comes from ``userinfo``."""

    kind: ClassVar[ProviderType] = "oauth"
    default_checks: ClassVar[tuple[Check, ...]] = ("pkce",)
    default_issuer: ClassVar[str | None] = None
    """The issuer when neither the configuration nor ``AUTH_<ID>_ISSUER`` names one."""
    hooks: ClassVar[Hooks] = Hooks()
    """Where this provider's service deviates from the standard (built-ins' rows set it)."""
    issuer: str | None = None
    """Authorization server issuer: discovery base, RFC 9207 ``iss`` check, ID token ``iss``."""
    client_id: str | None = None
    """Default ``AUTH_<ID>_ID``."""
    client_secret: str | None = field(default=None, repr=False)
    """Default ``AUTH_<ID>_SECRET``."""
    authorization: Endpoint = field(default_factory=Endpoint)
    token: Endpoint = field(default_factory=Endpoint)
    userinfo: Endpoint = field(default_factory=Endpoint)
    well_known: str | None = None
    """Discovery URL; default ``<issuer>/.well-known/openid-configuration``."""
    authorization_params: Mapping[str, Any] = field(default_factory=dict)
    """Extra authorization request parameters (after ``authorization.params``)."""
    checks: tuple[Check, ...] = ()
    """``pkce``, ``state``, ``nonce`` (oidc only) or ``none``; default ``("pkce",)``."""
    client: ClientOptions = field(default_factory=ClientOptions)
    profile: Callable[..., Any] | None = None
    """``(profile, tokens) -> user`` mapping; the user's ``id`` becomes ``provider_account_id``."""
    account: Callable[..., Any] | None = None
    """``(tokens) -> fields`` stored with a linked account (database sessions)."""
    allow_dangerous_email_account_linking: bool = False
    redirect_proxy_url: str | None = None
    """Overrides the configuration's ``redirect_proxy_url`` for this provider."""
    refresh: bool | None = None
    """Refresh the access token when a session is read and it is within ``refresh_skew``
    of expiring; ``None`` (default): on for ``oidc`` providers, off for ``oauth``. Only
    accounts the provider gave a ``refresh_token`` are refreshed."""
    refresh_skew: int = 60
    """Seconds before ``expires_at`` from which the access token is refreshed."""
    end_session: bool = False
    """RP-initiated logout: sign-out also ends the session at the provider (its
    ``end_session_endpoint``), then comes back to ``<base>/signout/callback/<id>``."""
    backchannel_logout: bool = False
    """Back-channel logout: ``POST <base>/backchannel-logout/<id>`` ends the sessions the
    provider's logout token names."""

    @property
    def refreshes(self) -> bool:
        """Whether sessions refresh this provider's access tokens."""
        return self.type == "oidc" if self.refresh is None else self.refresh

    def __post_init__(self) -> None:
        super().__post_init__()
        set_ = object.__setattr__
        for name in ("authorization", "token", "userinfo"):
            endpoint = _endpoint(getattr(self, name), self.id, name)
            if self.issuer and endpoint.url is not None and ISSUER in endpoint.url:
                url = endpoint.url.replace(ISSUER, self.issuer.rstrip("/"))
                endpoint = dataclasses.replace(endpoint, url=url)
            set_(self, name, endpoint)
        if isinstance(self.client, Mapping):
            set_(self, "client", record_of(ClientOptions, self.client, self.id, "client"))
        set_(self, "checks", self._checks(self.checks))
        set_(self, "authorization_params", dict(self.authorization_params))
        if self.issuer and self.well_known and ISSUER in self.well_known:
            set_(self, "well_known", self.well_known.replace(ISSUER, self.issuer.rstrip("/")))

    def _checks(self, value: Any) -> tuple[Check, ...]:
        items = (value,) if isinstance(value, str) else tuple(value or self.default_checks)
        allowed = set(get_args(Check)) - ({"nonce"} if self.type == "oauth" else set())
        bad = sorted(str(c) for c in items if c not in allowed)
        if bad:
            raise Configuration(
                f"provider {self.id!r}: unknown checks {', '.join(bad)} "
                f"(allowed for {self.type}: {', '.join(sorted(allowed))})"
            )
        return tuple(dict.fromkeys(items))

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any]) -> Self:
        """A record from the defaults deep-merged with ``options`` (the user wins), as
        Auth.js merges a provider's ``options`` over its defaults."""
        if cls.hooks.options is not None:
            options = cls.hooks.options(dict(options))
        merged = dict(options)
        for key, value in options.items():
            default = cls.defaults.get(key)
            if key in _ENDPOINTS or (isinstance(value, Mapping) and _mergeable(default)):
                merged[key] = merge_options(default, value)
        if "name" not in merged and "name" not in cls.defaults and "id" in merged:
            merged["name"] = merged["id"]
        return build(cls, cls.defaults, merged)

    # -- start-up checks (after AUTH_<ID>_* inference) ----------------------------------------

    def check(self) -> None:
        """Refuse a provider that cannot work: missing credentials or endpoints."""
        prefix = self.env_prefix
        method = self.client.token_endpoint_auth_method
        if method not in get_args(TokenEndpointAuthMethod):
            raise Configuration(
                f"provider {self.id!r}: token_endpoint_auth_method {method!r} is not supported "
                f"(use {', '.join(get_args(TokenEndpointAuthMethod))})"
            )
        if not self.client_id:
            raise Configuration(f"provider {self.id!r} needs a client_id (or {prefix}ID)")
        if method != "none" and not self.client_secret:
            raise Configuration(f"provider {self.id!r} needs a client_secret (or {prefix}SECRET)")
        if method == "none" and "pkce" not in self.checks:
            raise Configuration(f"provider {self.id!r}: a public client (auth 'none') needs pkce")
        if isinstance(self.refresh_skew, bool) or not isinstance(self.refresh_skew, int):
            raise Configuration(f"provider {self.id!r}: refresh_skew must be whole seconds")
        if self.refresh_skew < 0:
            raise Configuration(f"provider {self.id!r}: refresh_skew must not be negative")
        for what, alg in (
            ("ID token", self.client.id_token_signed_response_alg),
            ("userinfo", self.client.userinfo_signed_response_alg),
        ):
            if alg is not None and alg not in ID_TOKEN_ALGORITHMS | HMAC_ID_TOKEN_ALGORITHMS:
                accepted = sorted(ID_TOKEN_ALGORITHMS | HMAC_ID_TOKEN_ALGORITHMS)
                raise Configuration(
                    f"provider {self.id!r}: {what} algorithm {alg!r} is not accepted "
                    f"(use one of {', '.join(accepted)})"
                )
            if alg in HMAC_ID_TOKEN_ALGORITHMS and method == "none":
                raise Configuration(
                    f"provider {self.id!r}: {alg} {what} signatures are keyed by the client "
                    "secret; a public client (auth 'none') has none"
                )
        templated = [e for e in ("authorization", "token", "userinfo") if self._templated(e)]
        if templated:
            raise Configuration(
                f"provider {self.id!r} needs an issuer (or {prefix}ISSUER): "
                f"its {', '.join(templated)} URLs are the issuer's"
            )
        for name, url in (
            ("issuer", self.issuer),
            ("well_known", self.well_known),
            ("redirect_proxy_url", self.redirect_proxy_url),
            ("authorization", self.authorization.url),
            ("token", self.token.url),
            ("userinfo", self.userinfo.url),
        ):
            if url is not None and not _is_http_url(url):
                raise Configuration(f"provider {self.id!r}: {name} is not an http(s) URL: {url!r}")
        if self.issuer is None:
            self._check_endpoints(prefix)

    def _templated(self, endpoint: str) -> bool:
        url = getattr(self, endpoint).url
        return url is not None and ISSUER in url

    def _check_endpoints(self, prefix: str) -> None:
        missing = [
            name
            for name, present in (
                ("authorization", self.authorization.url),
                ("token", self.token.url),
                ("userinfo", self.userinfo.url or self.userinfo.request),
            )
            if not present
        ]
        if missing:
            raise InvalidEndpoints(
                f"provider {self.id!r} is missing both issuer ({prefix}ISSUER) and "
                f"{' and '.join(missing)} endpoint config"
            )

    # -- hooks for providers whose service needs more than the standard -----------------------

    def authorization_redirect(self, url: str) -> str:
        """The authorization URL the browser is sent to (hook ``authorization_url``)."""
        hook = self.hooks.authorization_url
        return url if hook is None else hook(self, url)

    def prepare_token_request(self, request: OutboundRequest) -> OutboundRequest:
        """A token endpoint request, as the service wants it (hook ``token_request``)."""
        hook = self.hooks.token_request
        return request if hook is None else hook(self, request)

    def conform_token_response(self, body: dict[str, Any]) -> dict[str, Any]:
        """Fix a token endpoint's non-standard JSON before it is read (hook ``token_response``)."""
        hook = self.hooks.token_response
        return body if hook is None else hook(body)

    def conform_token_status(self, status: int) -> int:
        """The token endpoint's HTTP status as the standard has it (hook ``token_status``)."""
        hook = self.hooks.token_status
        return status if hook is None else hook(status)

    def discovered_issuer(self, issuer: str) -> str:
        """The issuer a discovery document names, as this provider reads it."""
        hook = self.hooks.discovered_issuer
        return issuer if hook is None else hook(self, issuer)

    def id_token_issuer(self, issuer: str, id_token: str) -> str:
        """The ``iss`` an ID token must carry; a multi-tenant service derives it from the token."""
        hook = self.hooks.id_token_issuer
        return issuer if hook is None else hook(self, issuer, id_token)

    def complete_profile(
        self, profile: Profile, tokens: TokenSet, params: Mapping[str, Any]
    ) -> Step:
        """Add what the service gives outside the ID token or userinfo (nothing by default).

        ``params`` are the callback's parameters (query, or form for ``form_post``).
        """
        hook = self.hooks.complete_profile
        if hook is not None:
            return (yield from hook(self, profile, tokens, params))
        return profile

    def request_userinfo(self, url: str, tokens: TokenSet) -> Step:
        """GET ``url`` with the access token (or the service's ``userinfo`` hook): the profile,
        or a :class:`SignedUserinfo` for the engine to verify."""
        hook = self.hooks.userinfo
        if hook is not None:
            return (yield from hook(self, url, tokens))
        response = yield from send(bearer_request(url, tokens["access_token"]), "userinfo")
        if response.status != 200:
            raise ProviderResponseError(f"the userinfo endpoint answered HTTP {response.status}")
        media_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if media_type == "application/jwt":
            return SignedUserinfo(response.body.decode("ascii", "replace").strip())
        profile = decode_json(response.body, "userinfo")
        if not isinstance(profile, dict):
            raise ValueError("the userinfo response is not a JSON object")
        return profile


@dataclass(frozen=True, kw_only=True)
class OIDCProvider(OAuthProvider):
    """An OpenID Connect provider (``type: "oidc"``): the profile comes from the ID token.

    The ID token is always validated, signature included. With ``id_token=False``
    the profile is the userinfo response instead (its ``sub`` must match).
    """

    kind: ClassVar[ProviderType] = "oidc"
    id_token: bool = True

    def check(self) -> None:
        """Also: an issuer is required (discovery, JWKS, ``iss``)."""
        if not self.issuer:
            raise Configuration(
                f"oidc provider {self.id!r} needs an issuer (or {self.env_prefix}ISSUER)"
            )
        super().check()


def _is_http_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _endpoint(value: Any, provider_id: str, name: str) -> Endpoint:
    if isinstance(value, Endpoint):
        endpoint = value
    elif value is None:
        endpoint = Endpoint()
    elif isinstance(value, str):
        endpoint = Endpoint(url=value)
    elif isinstance(value, Mapping):
        endpoint = record_of(Endpoint, value, provider_id, name)
    else:
        raise Configuration(f"provider {provider_id!r}: {name} must be a URL or a mapping")
    if endpoint.request is not None and name != "userinfo":
        raise Configuration(f"provider {provider_id!r}: only userinfo takes a `request` function")
    if not isinstance(endpoint.params, Mapping):
        raise Configuration(f"provider {provider_id!r}: {name}.params must be a mapping")
    return endpoint


def _as_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        return {"url": value}
    if isinstance(value, Mapping):
        return dict(value)
    if value is None:
        return {}
    return {f.name: getattr(value, f.name) for f in fields(value)}


_ENDPOINTS = frozenset({"authorization", "token", "userinfo"})
"""Options that are a URL or a mapping: a URL string counts as ``{"url": ...}`` in a merge."""


def _mergeable(value: Any) -> bool:
    """Whether a default is merged into rather than replaced: a mapping or an options record."""
    return isinstance(value, Mapping | ClientOptions | Endpoint | ProviderStyle)


def merge_options(default: Any, override: Any) -> Any:
    """Deep-merge ``override`` over ``default`` at every level, as Auth.js's ``merge``: a
    mapping merges into a mapping (or a record, or an endpoint URL, which counts as
    ``{"url": ...}``), anything else replaces it; ``None`` never overwrites a value (it is
    kept where there is none: a JSON ``null`` in ``claims``). Lists are replaced whole
    (Auth.js merges arrays index by index, which only surprises)."""
    if not isinstance(override, Mapping):
        return default if override is None else override  # a URL or a record replaces it
    merged = _as_dict(default)
    for key, value in override.items():
        if isinstance(value, Mapping):
            below = merged.get(key)
            merged[key] = merge_options(below if _mergeable(below) else None, value)
        elif value is not None or key not in merged:
            merged[key] = value
    return merged

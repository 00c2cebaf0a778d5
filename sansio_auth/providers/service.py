"""A built-in OAuth/OpenID Connect provider is a row of data: a :class:`Service`.

Theory of operation. Each built-in service is one :class:`Service` named ``SERVICE`` in its
own module under ``sansio_auth/providers/services/``, with the few functions only it needs.
Everything else is derived from the rows, so a rule about built-ins lives here and nowhere
else:

* ``make docs`` generates ``sansio_auth/providers/builtin.py`` from the rows (the record type
  ``GitHubProvider`` and the factory ``GitHub`` of each service, for IDE completion and
  ``isinstance``; ``BUILTIN_PROVIDERS`` by id) and the provider table of docs/providers.md;
  a test fails when either is stale.
* A row turns into the ``defaults`` of its record type (:meth:`Service.defaults`): the
  same provider keys a custom provider is configured with, so a built-in is a provider like
  any other, overridden key by key (deep-merged) when its factory is called.
* Where a service deviates from the standard protocol it fills a named slot of
  :class:`~sansio_auth.providers.oauth.Hooks` (a typo'd slot is a ``TypeError`` naming it
  and a ``mypy`` error): nothing is subclassed.
* The profile maps to a user declaratively (:class:`ProfileMap`: per field, the first
  non-empty of its paths) or, for the few services that compute one, by a function.
* ``setup``, ``notes`` and ``differs`` are documentation: the service's setup page, its
  quirks, and where we deliberately differ from Auth.js. They are rendered into
  docs/providers.md.
"""

from __future__ import annotations

import builtins
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from ._base import ProviderStyle, env_prefix
from .oauth import Check, Hooks, OAuthProvider, TokenEndpointAuthMethod

LOGOS = "https://authjs.dev/img/providers"
"""Where Auth.js publishes its provider logos (one SVG per provider id)."""


@dataclass(frozen=True, slots=True, init=False)
class Join:
    """A path whose value is the non-empty texts of ``paths`` joined by ``sep``.

    ``Join("first_name", "last_name")`` gives ``"Ada Lovelace"``, ``"Ada"`` when the last
    name is missing, and nothing (the next path is tried) when both are.
    """

    paths: tuple[str, ...]
    sep: str = " "

    def __init__(self, *paths: str, sep: str = " ") -> None:
        object.__setattr__(self, "paths", paths)
        object.__setattr__(self, "sep", sep)

    def read(self, profile: Any) -> str | None:
        parts = (read_path(profile, path) for path in self.paths)
        texts = [p.strip() for p in parts if isinstance(p, str) and p.strip()]
        return self.sep.join(texts) or None

    def __str__(self) -> str:
        return f"{self.sep.join(self.paths)!r}"


Path = str | Join
"""A dotted path into the profile (``"name.display_name"``, ``"images.0.url"``) or a
:class:`Join` of paths."""
Paths = Path | tuple[Path, ...]


def read_path(profile: Any, path: Path) -> Any:
    """The value at ``path`` (``None`` where a step is missing); a list step is an index."""
    if isinstance(path, Join):
        return path.read(profile)
    value = profile
    for step in path.split("."):
        if isinstance(value, Mapping):
            value = value.get(step)
        elif isinstance(value, list) and step.isdigit() and int(step) < len(value):
            value = value[int(step)]
        else:
            return None
    return value


def _paths(paths: Paths) -> tuple[Path, ...]:
    return paths if isinstance(paths, tuple) else (paths,)


def _first(profile: Any, paths: Paths) -> Any:
    for path in _paths(paths):
        value = read_path(profile, path)
        if value is not None and value != "":
            return value
    return None


@dataclass(frozen=True, slots=True)
class ProfileMap:
    """A ``profile()`` as data: each user field is the first non-empty value of its paths.

    A number as ``id`` becomes text (account ids are stored as text, as in Auth.js), a
    profile without one is refused naming its paths; a field without paths is ``None``.
    """

    id: Paths
    name: Paths = ()
    email: Paths = ()
    image: Paths = ()

    def __call__(self, profile: Mapping[str, Any]) -> dict[str, Any]:
        ident = _first(profile, self.id)
        if ident is None:
            raise ValueError(f"the profile has no {' or '.join(map(str, _paths(self.id)))}")
        if isinstance(ident, int) and not isinstance(ident, bool):
            ident = str(ident)
        return {
            "id": ident,
            "name": _first(profile, self.name),
            "email": _first(profile, self.email),
            "image": _first(profile, self.image),
        }


@dataclass(frozen=True, kw_only=True, slots=True)
class Service:
    """One built-in OAuth 2.0 or OpenID Connect service (see the module docstring)."""

    id: str
    """Auth.js's provider id (kebab case: ``azure-ad-b2c``); the ``AUTH_<ID>_`` prefix."""
    name: str
    """Display name (the sign-in button says "Sign in with <name>")."""
    type: Literal["oauth", "oidc"]
    factory: str
    """The factory's name, Auth.js's (``GitHub``, ``MicrosoftEntraID``); the record type is
    ``<factory>Provider`` (an all-capital name is capitalised: ``ZitadelProvider``)."""
    aliases: tuple[str, ...] = ()
    """More names for the factory (``Zitadel`` for ``ZITADEL``)."""
    also_ids: tuple[str, ...] = ()
    """Other ids ``BUILTIN_PROVIDERS`` lists the factory under: Auth.js's module name where
    it is not the provider id (``ory-hydra`` for ``hydra``)."""

    issuer: str | None = None
    """A fixed issuer (discovery, ``iss`` checks); the configuration may still override it."""
    default_issuer: str | None = None
    """The issuer when neither the configuration nor ``AUTH_<ID>_ISSUER`` names one."""
    issuer_required: str | None = None
    """Set when the user must name the issuer (their tenant): what it is, with an example,
    for the factory's docstring and the docs (``the realm URL, e.g. ...``)."""
    well_known: str | None = None
    """A discovery URL that is not ``<issuer>/.well-known/openid-configuration``."""

    authorization: str | None = None
    token: str | None = None
    userinfo: str | None = None
    """Endpoints; an OIDC service may leave them to discovery."""
    scope: str | None = None
    """The default ``scope`` (OIDC without it: ``openid profile email``)."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """Further authorization request parameters (``{"response_mode": "form_post"}``)."""
    token_params: Mapping[str, Any] = field(default_factory=dict)
    """Extra token request form fields."""
    userinfo_params: Mapping[str, Any] = field(default_factory=dict)
    """Extra userinfo query parameters (``{"fields": "id,name,email"}``)."""
    checks: tuple[Check, ...] = ("pkce",)
    client_auth: TokenEndpointAuthMethod = "client_secret_basic"
    id_token_alg: str | None = None
    """The one algorithm its ID tokens are signed with (``id_token_signed_response_alg``);
    ``HS256``/``HS384``/``HS512`` (keyed by the client secret) only this way."""
    userinfo_alg: str | None = None
    """The one algorithm its signed userinfo responses use (``userinfo_signed_response_alg``)."""
    id_token: bool = True
    """``oidc`` only: the profile is the ID token's claims; ``False``: the userinfo response."""

    profile: ProfileMap | Callable[..., Any] | None = None
    """Service profile → user ``{id, name, email, image}``; ``None``: Auth.js's default
    (``sub``, ``name``, ``email``, ``picture`` of the standard claims)."""
    style: ProviderStyle = field(default_factory=ProviderStyle)
    """Button colours; the logo defaults to Auth.js's ``<id>.svg``."""
    hooks: Hooks = field(default_factory=Hooks)
    """The named slots where the service deviates from the standard (most have none)."""
    record: builtins.type[OAuthProvider] | None = None
    """A hand-written record type to build on, for a service with options of its own
    (Entra ID's ``profile_photo``); by default :class:`OAuthProvider`/:class:`OIDCProvider`."""

    setup: str
    """The service's page for registering an application (docs)."""
    notes: str = ""
    """Its quirks, and what this provider does about them (docs, Markdown)."""
    differs: str = ""
    """Where this provider deliberately differs from Auth.js's (docs, Markdown)."""

    @property
    def env_prefix(self) -> str:
        """``AUTH_<ID>_``: the id upper-cased, dashes as underscores."""
        return env_prefix(self.id)

    @property
    def record_name(self) -> str:
        """The record type's name (``GitHubProvider``, ``ZitadelProvider``)."""
        base = self.factory.capitalize() if self.factory.isupper() else self.factory
        return f"{base}Provider"

    def defaults(self) -> dict[str, Any]:
        """The provider keys of this service (its record type's ``defaults``)."""
        authorization_params = dict(self.params)
        if self.scope is not None:
            authorization_params = {"scope": self.scope, **authorization_params}
        values: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "issuer": self.issuer,
            "well_known": self.well_known,
            "authorization": _endpoint(self.authorization, authorization_params),
            "token": _endpoint(self.token, self.token_params),
            "userinfo": _endpoint(self.userinfo, self.userinfo_params),
            "checks": self.checks,
            "client": _client(self.client_auth, self.id_token_alg, self.userinfo_alg),
            "profile": self.profile,
            "style": _style(self.id, self.style),
        }
        if self.type == "oidc" and not self.id_token:
            values["id_token"] = False
        return {key: value for key, value in values.items() if value is not None}


def _endpoint(url: str | None, params: Mapping[str, Any]) -> dict[str, Any] | None:
    if url is None and not params:
        return None
    return {"url": url, "params": dict(params)}


def _client(method: str, id_token_alg: str | None, userinfo_alg: str | None) -> dict[str, Any]:
    client: dict[str, Any] = {"token_endpoint_auth_method": method}
    if id_token_alg is not None:
        client["id_token_signed_response_alg"] = id_token_alg
    if userinfo_alg is not None:
        client["userinfo_signed_response_alg"] = userinfo_alg
    return client


def _style(provider_id: str, style: ProviderStyle) -> ProviderStyle:
    if style.logo is not None:
        return style
    return dataclasses.replace(style, logo=f"{LOGOS}/{provider_id}.svg")


R = TypeVar("R", bound=type[OAuthProvider])


def builtin(service: Service) -> Callable[[R], R]:
    """Make a record type ``service``'s (the generated ``builtin.py`` decorates each)."""

    def made(record: R) -> R:
        record.defaults = service.defaults()
        record.default_issuer = service.default_issuer
        record.hooks = service.hooks
        return record

    return made


def sorted_services(services: Sequence[Service]) -> tuple[Service, ...]:
    """``services`` by id, refusing two with one id, factory or record name."""
    seen: dict[str, str] = {}
    for service in services:
        names = (service.id, *service.also_ids, service.factory, service.record_name)
        for name in (*names, *service.aliases):
            if name in seen:
                raise ValueError(f"{service.id}: {name!r} is also {seen[name]}'s")
            seen[name] = service.id
    return tuple(sorted(services, key=lambda s: s.id))

"""The OpenID Connect services that need only their issuer: one table, one record type each.

Each is as Auth.js's provider of the same name: the issuer from the configuration or
``AUTH_<ID>_ISSUER`` (required: start-up fails naming it when missing), discovery,
scope ``openid profile email``, PKCE (Okta: PKCE and state), ``client_secret_basic``,
the default OIDC profile. A row of :data:`ISSUER_ONLY` makes the record type
(``KeycloakProvider``) and the factory (``Keycloak``) of its service.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ._common import style
from .oauth import Check, OIDCProvider


@dataclass(frozen=True, kw_only=True, slots=True)
class IssuerOnly:
    """One service: its id, name, button and checks, and what its issuer is."""

    id: str
    name: str
    """The display name, also the factory's name (``ZITADEL``)."""
    issuer: str
    """What the issuer is, with an example (for the factory's docstring)."""
    style: Mapping[str, str]
    checks: tuple[Check, ...] = ("pkce",)


ISSUER_ONLY: Mapping[str, IssuerOnly] = {
    row.id: row
    for row in (
        IssuerOnly(
            id="auth0",
            name="Auth0",
            issuer="your tenant's domain, e.g. ``https://dev-abc123.us.auth0.com/``",
            style=style("auth0", bg="#EB5424", text="#fff"),
        ),
        IssuerOnly(
            id="authentik",
            name="Authentik",
            issuer="the application's URL, e.g. "
            "``https://authentik.example.com/application/o/my-app/``",
            style=style("authentik"),
        ),
        IssuerOnly(
            id="cognito",
            name="Cognito",
            issuer="the user pool URL, e.g. "
            "``https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEfGhI``",
            style=style("cognito", brand_color="#C17B9E", text="#fff"),
        ),
        IssuerOnly(
            id="keycloak",
            name="Keycloak",
            issuer="the realm URL, e.g. ``https://sso.example.com/realms/my-realm``",
            style=style("keycloak", brand_color="#428bca", text="#fff"),
        ),
        IssuerOnly(
            id="okta",
            name="Okta",
            issuer="your org or authorization server, e.g. ``https://dev-123456.okta.com`` "
            "or ``https://dev-123456.okta.com/oauth2/default``",
            style=style("okta", bg="#000", text="#fff"),
            checks=("pkce", "state"),
        ),
        IssuerOnly(
            id="zitadel",
            name="ZITADEL",
            issuer="your instance, e.g. ``https://my-instance.zitadel.cloud``",
            style=style("zitadel"),
        ),
    )
}
"""Every issuer-only service, by provider id."""


def _made(provider_id: str) -> tuple[type[OIDCProvider], Callable[..., OIDCProvider]]:
    """The record type (``KeycloakProvider``) and the factory (``Keycloak``) of a row."""
    row = ISSUER_ONLY[provider_id]

    @dataclass(frozen=True, kw_only=True)
    class Record(OIDCProvider):
        defaults: ClassVar[Mapping[str, Any]] = {
            "id": row.id,
            "name": row.name,
            "style": row.style,
            "checks": row.checks,
        }

    def factory(**options: Any) -> OIDCProvider:
        return Record.from_mapping(options)

    prefix = "AUTH_" + row.id.upper()
    Record.__name__ = Record.__qualname__ = f"{row.id.capitalize()}Provider"
    Record.__doc__ = f"The {row.name} provider record (see :func:`{row.name}`)."
    factory.__name__ = factory.__qualname__ = row.name
    factory.__doc__ = (
        f"The {row.name} provider; ``{prefix}_ID``/``_SECRET``/``_ISSUER`` fill the rest.\n\n"
        f"The issuer is {row.issuer}."
    )
    return Record, factory


Auth0Provider, Auth0 = _made("auth0")
AuthentikProvider, Authentik = _made("authentik")
CognitoProvider, Cognito = _made("cognito")
KeycloakProvider, Keycloak = _made("keycloak")
OktaProvider, Okta = _made("okta")
ZitadelProvider, ZITADEL = _made("zitadel")

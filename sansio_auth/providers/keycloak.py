"""Keycloak (OpenID Connect). The issuer is the realm URL, e.g.
``https://sso.example.com/realms/my-realm``.

As Auth.js's: the issuer from the configuration or ``AUTH_KEYCLOAK_ISSUER`` (required:
start-up fails naming it when missing), discovery, scope ``openid profile email``,
PKCE, ``client_secret_basic``, the default OIDC profile.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ._common import style
from .oauth import OIDCProvider


@dataclass(frozen=True, kw_only=True)
class KeycloakProvider(OIDCProvider):
    """The Keycloak provider record (see :func:`Keycloak`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "keycloak",
        "name": "Keycloak",
        "style": style("keycloak", brand_color="#428bca", text="#fff"),
    }


def Keycloak(**options: Any) -> KeycloakProvider:  # noqa: N802 - Auth.js's name
    """The Keycloak provider; ``AUTH_KEYCLOAK_ID``/``_SECRET``/``_ISSUER`` fill the rest."""
    return KeycloakProvider.from_mapping(options)

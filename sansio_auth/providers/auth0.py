"""Auth0 (OpenID Connect). The issuer is your tenant's domain, e.g.
``https://dev-abc123.us.auth0.com/``.

As Auth.js's: the issuer from the configuration or ``AUTH_AUTH0_ISSUER`` (required:
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
class Auth0Provider(OIDCProvider):
    """The Auth0 provider record (see :func:`Auth0`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "auth0",
        "name": "Auth0",
        "style": style("auth0", bg="#EB5424", text="#fff"),
    }


def Auth0(**options: Any) -> Auth0Provider:  # noqa: N802 - Auth.js's name
    """The Auth0 provider; ``AUTH_AUTH0_ID``/``_SECRET``/``_ISSUER`` fill the rest."""
    return Auth0Provider.from_mapping(options)

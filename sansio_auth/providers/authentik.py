"""authentik (OpenID Connect). The issuer is the application's URL, e.g.
``https://authentik.example.com/application/o/my-app/``.

As Auth.js's: the issuer from the configuration or ``AUTH_AUTHENTIK_ISSUER`` (required:
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
class AuthentikProvider(OIDCProvider):
    """The Authentik provider record (see :func:`Authentik`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "authentik",
        "name": "Authentik",
        "style": style("authentik"),
    }


def Authentik(**options: Any) -> AuthentikProvider:  # noqa: N802 - Auth.js's name
    """The Authentik provider; ``AUTH_AUTHENTIK_ID``/``_SECRET``/``_ISSUER`` fill the rest."""
    return AuthentikProvider.from_mapping(options)

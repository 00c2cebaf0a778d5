"""Okta (OpenID Connect). The issuer is your org or authorization server, e.g.
``https://dev-123456.okta.com`` or ``https://dev-123456.okta.com/oauth2/default``.

As Auth.js's: the issuer from the configuration or ``AUTH_OKTA_ISSUER`` (required:
start-up fails naming it when missing), discovery, scope ``openid profile email``,
checks ``pkce`` and ``state``, ``client_secret_basic``, the default OIDC profile.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ._common import style
from .oauth import OIDCProvider


@dataclass(frozen=True, kw_only=True)
class OktaProvider(OIDCProvider):
    """The Okta provider record (see :func:`Okta`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "okta",
        "name": "Okta",
        "checks": ("pkce", "state"),
        "style": style("okta", bg="#000", text="#fff"),
    }


def Okta(**options: Any) -> OktaProvider:  # noqa: N802 - Auth.js's name
    """The Okta provider; ``AUTH_OKTA_ID``/``_SECRET``/``_ISSUER`` fill the rest."""
    return OktaProvider.from_mapping(options)

"""Salesforce (OpenID Connect; the profile from userinfo, ``id_token=False``).

As Auth.js's: issuer ``https://login.salesforce.com`` unless the configuration or
``AUTH_SALESFORCE_ISSUER`` names another (``https://test.salesforce.com`` for
sandboxes, ``https://<MyDomain>.my.salesforce.com``), checks ``pkce``, ``state``
and ``nonce``, the default OIDC profile from the userinfo response (its ``sub``, the
user's identity URL, must be the ID token's).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ._common import style
from .oauth import OIDCProvider


@dataclass(frozen=True, kw_only=True)
class SalesforceProvider(OIDCProvider):
    """The Salesforce provider record (see :func:`Salesforce`)."""

    default_issuer: ClassVar[str | None] = "https://login.salesforce.com"
    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "salesforce",
        "name": "Salesforce",
        "id_token": False,
        "checks": ("pkce", "state", "nonce"),
        "style": style("salesforce", bg="#00a1e0", text="#fff"),
    }


def Salesforce(**options: Any) -> SalesforceProvider:  # noqa: N802 - Auth.js's name
    """The Salesforce provider; ``AUTH_SALESFORCE_ID``/``_SECRET`` are the connected app's."""
    return SalesforceProvider.from_mapping(options)

"""ZITADEL (OpenID Connect). The issuer is your instance, e.g.
``https://my-instance.zitadel.cloud``.

As Auth.js's: the issuer from the configuration or ``AUTH_ZITADEL_ISSUER`` (required:
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
class ZitadelProvider(OIDCProvider):
    """The ZITADEL provider record (see :func:`ZITADEL`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "zitadel",
        "name": "ZITADEL",
        "style": style("zitadel"),
    }


def ZITADEL(**options: Any) -> ZitadelProvider:  # noqa: N802 - Auth.js's name
    """The ZITADEL provider; ``AUTH_ZITADEL_ID``/``_SECRET``/``_ISSUER`` fill the rest."""
    return ZitadelProvider.from_mapping(options)

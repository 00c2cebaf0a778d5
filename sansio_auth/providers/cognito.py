"""Amazon Cognito user pools (OpenID Connect). The issuer is the user pool URL,
e.g. ``https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEfGhI``.

As Auth.js's: the issuer from the configuration or ``AUTH_COGNITO_ISSUER`` (required:
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
class CognitoProvider(OIDCProvider):
    """The Cognito provider record (see :func:`Cognito`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "cognito",
        "name": "Cognito",
        "style": style("cognito", brand_color="#C17B9E", text="#fff"),
    }


def Cognito(**options: Any) -> CognitoProvider:  # noqa: N802 - Auth.js's name
    """The Cognito provider; ``AUTH_COGNITO_ID``/``_SECRET``/``_ISSUER`` fill the rest."""
    return CognitoProvider.from_mapping(options)

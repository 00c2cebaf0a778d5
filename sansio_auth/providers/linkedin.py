"""LinkedIn ("Sign In with LinkedIn using OpenID Connect").

As Auth.js's: issuer ``https://www.linkedin.com/oauth`` (discovery), scope
``openid profile email``, the ``state`` check only (LinkedIn supports PKCE for
native apps only), ``client_secret_post``, the default OIDC profile.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ._common import style
from .oauth import OIDCProvider


@dataclass(frozen=True, kw_only=True)
class LinkedInProvider(OIDCProvider):
    """The LinkedIn provider record (see :func:`LinkedIn`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "linkedin",
        "name": "LinkedIn",
        "issuer": "https://www.linkedin.com/oauth",
        "checks": ("state",),
        "client": {"token_endpoint_auth_method": "client_secret_post"},
        "style": style("linkedin", bg="#069", text="#fff"),
    }


def LinkedIn(**options: Any) -> LinkedInProvider:  # noqa: N802 - Auth.js's name
    """The LinkedIn provider; ``AUTH_LINKEDIN_ID``/``AUTH_LINKEDIN_SECRET`` give credentials."""
    return LinkedInProvider.from_mapping(options)

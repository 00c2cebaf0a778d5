"""Google (OpenID Connect): discovery from ``https://accounts.google.com``.

As Auth.js's: scope ``openid profile email``, PKCE, the default profile (``sub``,
``name``, ``email``, ``picture``). For a refresh token pass
``authorization={"params": {"access_type": "offline", "prompt": "consent"}}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .oauth import OIDCProvider


@dataclass(frozen=True, kw_only=True)
class GoogleProvider(OIDCProvider):
    """The Google provider record (see :func:`Google`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "google",
        "name": "Google",
        "issuer": "https://accounts.google.com",
        "style": {
            "logo": "https://authjs.dev/img/providers/google.svg",
            "brand_color": "#1a73e8",
            "text": "#fff",
        },
    }


def Google(**options: Any) -> GoogleProvider:  # noqa: N802 - Auth.js's name
    """The Google provider with ``options``; ``AUTH_GOOGLE_ID``/``_SECRET`` give credentials."""
    return GoogleProvider.from_mapping(options)

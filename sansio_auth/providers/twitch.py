"""Twitch (OpenID Connect, issuer ``https://id.twitch.tv/oauth2``).

As Auth.js's: scope ``openid user:read:email`` with the ``claims`` request for
``email``, ``picture`` and ``preferred_username`` in the ID token, PKCE,
``client_secret_post``, the default OIDC profile (the name is ``preferred_username``).
Twitch's token endpoint answers ``scope`` as a JSON array and errors as
``{"status", "message"}``: both are made standard before the response is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ._common import style
from .oauth import OIDCProvider


@dataclass(frozen=True, kw_only=True)
class TwitchProvider(OIDCProvider):
    """The Twitch provider record (see :func:`Twitch`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "twitch",
        "name": "Twitch",
        "issuer": "https://id.twitch.tv/oauth2",
        "authorization": {
            "params": {
                "scope": "openid user:read:email",
                "claims": {
                    "id_token": {"email": None, "picture": None, "preferred_username": None}
                },
            }
        },
        "client": {"token_endpoint_auth_method": "client_secret_post"},
        "style": style("twitch", bg="#65459B", text="#fff"),
    }

    def conform_token_response(self, body: dict[str, Any]) -> dict[str, Any]:
        """``scope`` array → space-separated text; ``{"status", "message"}`` → an OAuth error."""
        if "access_token" not in body and not isinstance(body.get("error"), str):
            message = body.get("message")
            return {
                "error": "invalid_request",
                "error_description": message if isinstance(message, str) else "",
            }
        scope = body.get("scope")
        if isinstance(scope, list):
            return {**body, "scope": " ".join(str(item) for item in scope)}
        if "scope" in body and not isinstance(scope, str):
            return {key: value for key, value in body.items() if key != "scope"}
        return body


def Twitch(**options: Any) -> TwitchProvider:  # noqa: N802 - Auth.js's name
    """The Twitch provider; ``AUTH_TWITCH_ID``/``AUTH_TWITCH_SECRET`` give credentials."""
    return TwitchProvider.from_mapping(options)

"""Microsoft Entra ID (OpenID Connect), single- or multi-tenant.

The issuer comes from the configuration, else ``AUTH_MICROSOFT_ENTRA_ID_ISSUER``, else
``https://login.microsoftonline.com/common/v2.0`` (any work, school or personal
account). Use ``https://login.microsoftonline.com/<tenant id>/v2.0`` for one tenant
(its ID: a domain name's discovery document names the ID, which would not match).
As Auth.js's: scope ``openid profile email User.Read``, PKCE, ``client_secret_basic``.

Multi-tenant issuers (``common``, ``organizations``, ``consumers``) publish the issuer
template ``…/{tenantid}/v2.0``: discovery fills it with the configured tenant, and an
ID token must carry the issuer of its own ``tid`` (which ``organizations`` and
``consumers`` restrict). Auth.js re-discovers the tenant instead; the keys are the same.

The profile photo comes from Microsoft Graph
(``/v1.0/me/photos/<size>x<size>/$value``, ``profile_photo_size`` 48 by default;
``profile_photo=False`` skips it) as a ``data:`` URL in ``profile["picture"]``; a missing or larger
than 16 KiB photo leaves it out (it ends up in the session cookie).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import msgspec

from ..errors import Configuration
from ..events import OutboundRequest
from ..fetch import ProviderResponseError, send
from ._common import style
from .oauth import OIDCProvider, Profile, Step, TokenSet

COMMON_ISSUER = "https://login.microsoftonline.com/common/v2.0"
CONSUMERS_TENANT = "9188040d-6c67-4c5b-b112-36a304b66dad"
"""The ``tid`` of personal Microsoft accounts."""
PHOTO_SIZES = (48, 64, 96, 120, 240, 360, 432, 504, 648)
PHOTO_URL = "https://graph.microsoft.com/v1.0/me/photos/{size}x{size}/$value"
MAX_PHOTO_BYTES = 16 * 1024

_ISSUER = re.compile(r"(?P<base>https://[^/]+/)(?P<tenant>[^/]+)(?P<rest>/v2\.0/?)")
_GUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def entra_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """Entra claims → user: ``sub``, ``name``, ``email``, the Graph photo (or ``None``)."""
    return {
        "id": profile["sub"],
        "name": profile.get("name"),
        "email": profile.get("email"),
        "image": profile.get("picture"),
    }


def _tenant(issuer: str) -> str | None:
    match = _ISSUER.fullmatch(issuer)
    return match["tenant"] if match else None


def _tid(id_token: str) -> Any:
    """The (not yet verified) ``tid`` claim; only used to pick the issuer to verify against."""
    parts = id_token.split(".")
    if len(parts) != 3:
        return None
    try:
        payload = base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4))
        claims = msgspec.json.decode(payload)
    except (ValueError, msgspec.DecodeError):
        return None
    return claims.get("tid") if isinstance(claims, dict) else None


@dataclass(frozen=True, kw_only=True)
class MicrosoftEntraIDProvider(OIDCProvider):
    """The Microsoft Entra ID provider record (see :func:`MicrosoftEntraID`)."""

    default_issuer: ClassVar[str | None] = COMMON_ISSUER
    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "microsoft-entra-id",
        "name": "Microsoft Entra ID",
        "authorization": {"params": {"scope": "openid profile email User.Read"}},
        "profile": entra_profile,
        "style": style("microsoft-entra-id", bg="#0072c6", text="#fff"),
    }
    profile_photo: bool = True
    """Fetch the profile photo from Microsoft Graph (one more request per sign-in)."""
    profile_photo_size: int = 48
    """Graph photo size: 48, 64, 96, 120, 240, 360, 432, 504 or 648."""

    def __post_init__(self) -> None:
        super().__post_init__()
        size = self.profile_photo_size
        if size not in PHOTO_SIZES:
            raise Configuration(
                f"provider {self.id!r}: profile_photo_size must be one of "
                f"{', '.join(map(str, PHOTO_SIZES))}, got {size!r}"
            )

    def discovered_issuer(self, issuer: str) -> str:
        """Fill the ``{tenantid}`` template of a multi-tenant document with our tenant."""
        tenant = _tenant(self.issuer or "")
        return issuer.replace("{tenantid}", tenant) if tenant else issuer

    def id_token_issuer(self, issuer: str, id_token: str) -> str:
        """For ``common``/``organizations``/``consumers``: the issuer of the token's tenant."""
        match = _ISSUER.fullmatch(issuer)
        if match is None or match["tenant"] not in ("common", "organizations", "consumers"):
            return issuer
        tid = _tid(id_token)
        if not isinstance(tid, str) or not _GUID.fullmatch(tid):
            return issuer
        personal = tid == CONSUMERS_TENANT
        if match["tenant"] == ("organizations" if personal else "consumers"):
            return issuer  # a tenant this issuer does not admit: `iss` will not match
        return f"{match['base']}{tid}{match['rest']}"

    def complete_profile(
        self, profile: Profile, tokens: TokenSet, params: Mapping[str, Any]
    ) -> Step:
        """Add the Graph profile photo as a ``data:`` URL (``picture``) when there is one."""
        if not self.profile_photo:
            return profile
        request = OutboundRequest(
            method="GET",
            url=PHOTO_URL.format(size=self.profile_photo_size),
            headers=(("authorization", f"Bearer {tokens['access_token']}"),),
        )
        try:
            response = yield from send(request, "Microsoft Graph photo")
        except ProviderResponseError:
            return profile
        if response.status != 200 or not 0 < len(response.body) <= MAX_PHOTO_BYTES:
            return profile
        media_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if not re.fullmatch(r"image/[a-z0-9.+-]+", media_type):
            media_type = "image/jpeg"
        encoded = base64.b64encode(response.body).decode()
        profile["picture"] = f"data:{media_type};base64,{encoded}"
        return profile


def MicrosoftEntraID(**options: Any) -> MicrosoftEntraIDProvider:  # noqa: N802 - Auth.js's name
    """The Microsoft Entra ID provider with ``options`` (``issuer``, ``profile_photo``...).

    ``AUTH_MICROSOFT_ENTRA_ID_ID``/``_SECRET``/``_ISSUER`` fill the credentials and tenant.
    """
    return MicrosoftEntraIDProvider.from_mapping(options)

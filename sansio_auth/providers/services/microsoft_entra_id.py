"""Microsoft Entra ID (OpenID Connect), single- or multi-tenant."""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from ...errors import Configuration, OAuthCallbackError
from ...events import OutboundRequest
from ...fetch import ProviderResponseError, send
from .._base import ProviderStyle
from ..oauth import Hooks, OAuthProvider, OIDCProvider, Profile, Step, TokenSet
from ..service import ProfileMap, Service

if TYPE_CHECKING:
    from ...errors import TokenResponseError

COMMON_ISSUER = "https://login.microsoftonline.com/common/v2.0"
CONSUMERS_TENANT = "9188040d-6c67-4c5b-b112-36a304b66dad"
"""The ``tid`` of personal Microsoft accounts."""
PHOTO_SIZES = (48, 64, 96, 120, 240, 360, 432, 504, 648)
PHOTO_URL = "https://graph.microsoft.com/v1.0/me/photos/{size}x{size}/$value"
MAX_PHOTO_BYTES = 16 * 1024

_ISSUER = re.compile(r"(?P<base>https://[^/]+/)(?P<tenant>[^/]+)(?P<rest>/v2\.0/?)")
_GUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass(frozen=True, kw_only=True)
class EntraRecord(OIDCProvider):
    """Entra ID's own options (the record type ``MicrosoftEntraIDProvider`` builds on)."""

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


def tenant_issuer(provider: OAuthProvider, issuer: str) -> str:
    """Fill the ``{tenantid}`` template of a multi-tenant document with our tenant."""
    tenant = _tenant(provider.issuer or "")
    return issuer.replace("{tenantid}", tenant) if tenant else issuer


def token_tenant_issuer(provider: OAuthProvider, issuer: str, id_token: str) -> str:
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


def provider_refused(provider: OAuthProvider, error: TokenResponseError) -> OAuthCallbackError:
    """A token endpoint error is the service refusing the sign-in: back to the sign-in page
    with ``OAuthCallbackError``, as Auth.js does for Entra ID (its errors come in the body)."""
    return OAuthCallbackError(
        f"OAuth Provider returned an error: {error.error}",
        cause={"provider": provider.id, "error": error.error},
    )


def graph_photo(
    provider: OAuthProvider, profile: Profile, tokens: TokenSet, params: Mapping[str, Any]
) -> Step:
    """Add the Graph profile photo as a ``data:`` URL (``picture``) when there is one."""
    if not isinstance(provider, EntraRecord) or not provider.profile_photo:
        return profile
    request = OutboundRequest(
        method="GET",
        url=PHOTO_URL.format(size=provider.profile_photo_size),
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


SERVICE = Service(
    id="microsoft-entra-id",
    name="Microsoft Entra ID",
    type="oidc",
    factory="MicrosoftEntraID",
    default_issuer=COMMON_ISSUER,
    scope="openid profile email User.Read",
    profile=ProfileMap(id="sub", name="name", email="email", image="picture"),
    style=ProviderStyle(bg="#0072c6", text="#fff"),
    hooks=Hooks(
        discovered_issuer=tenant_issuer,
        id_token_issuer=token_tenant_issuer,
        complete_profile=graph_photo,
        token_error=provider_refused,
    ),
    record=EntraRecord,
    setup="https://learn.microsoft.com/en-us/entra/identity-platform/quickstart-register-app",
    notes="The issuer defaults to `…/common/v2.0` (any work, school or personal account); "
    "use `https://login.microsoftonline.com/<tenant id>/v2.0` for one tenant. `common`, "
    "`organizations` and `consumers` publish the issuer template `…/{tenantid}/v2.0`; the ID "
    "token must carry the issuer of its own `tid` (`organizations` refuses personal "
    "accounts, `consumers` work accounts). The profile photo comes from Microsoft Graph as a "
    "`data:` URL (`profile_photo_size`, default 48; `profile_photo=False` skips the request; "
    "photos over 16 KiB are left out, they would end up in the session cookie).",
    differs="A token endpoint error sends the user back to the sign-in page with "
    "`OAuthCallbackError`, as in Auth.js. "
    "The token's tenant issuer is derived from its `tid` instead of a second "
    "discovery; the photo `data:` URL has no stray space after `base64,` and keeps Graph's "
    "media type. `AUTH_MICROSOFT_ENTRA_ID_ISSUER` overrides the default issuer whether the "
    "provider is passed as a value or called (Auth.js: only as a value).",
)

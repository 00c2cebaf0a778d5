"""Azure DevOps (Azure DevOps OAuth 2.0; deprecated by Microsoft)."""

from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode

import msgspec

from ...events import OutboundRequest
from ..oauth import Hooks, OAuthProvider
from ..quirks import scope_keyword, with_params
from ..service import Service, read_path

VSSPS = "https://app.vssps.visualstudio.com"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


def assertion_response(provider: OAuthProvider, url: str) -> str:
    """Azure DevOps answers ``response_type=Assertion`` (its code comes back as ``code``)."""
    return with_params(url, {"response_type": "Assertion"})


def assertion_grant(provider: OAuthProvider, request: OutboundRequest) -> OutboundRequest:
    """The code exchange Azure DevOps takes: the code as ``assertion`` of a JWT-bearer grant,
    the client secret as ``client_assertion`` (its only client authentication: no Basic
    header, no PKCE verifier). Other grants are left as they are."""
    form = dict(parse_qsl(request.body.decode(), keep_blank_values=True))
    if form.get("grant_type") != "authorization_code":
        return request
    body = {
        "client_assertion_type": CLIENT_ASSERTION_TYPE,
        "client_assertion": provider.client_secret or "",
        "grant_type": JWT_BEARER,
        "assertion": form.get("code", ""),
        "redirect_uri": form.get("redirect_uri", ""),
    }
    headers = tuple((k, v) for k, v in request.headers if k.lower() != "authorization")
    return msgspec.structs.replace(request, headers=headers, body=urlencode(body).encode())


def bearer_jwt(body: dict[str, Any]) -> dict[str, Any]:
    """``token_type: "jwt-bearer"`` names a bearer token (it is sent as ``Bearer``)."""
    if body.get("token_type") == "jwt-bearer":
        return {**body, "token_type": "bearer"}
    return body


def devops_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """Profile → user: ``id``, ``displayName``, ``emailAddress``, the avatar as a data URL."""
    avatar = read_path(profile, "coreAttributes.Avatar.value.value")
    return {
        "id": profile["id"],
        "name": profile.get("displayName"),
        "email": profile.get("emailAddress"),
        "image": f"data:image/jpeg;base64,{avatar}" if isinstance(avatar, str) and avatar else None,
    }


SERVICE = Service(
    id="azure-devops",
    name="Azure DevOps",
    type="oauth",
    factory="AzureDevOps",
    authorization=f"{VSSPS}/oauth2/authorize",
    token=f"{VSSPS}/oauth2/token",
    userinfo=f"{VSSPS}/_apis/profile/profiles/me",
    userinfo_params={"details": "true", "coreAttributes": "Avatar", "api-version": "6.0"},
    scope="vso.profile",
    checks=("state",),
    client_auth="client_secret_post",
    profile=devops_profile,
    hooks=Hooks(
        options=scope_keyword,
        authorization_url=assertion_response,
        token_request=assertion_grant,
        token_response=bearer_jwt,
    ),
    setup="https://app.vsaex.visualstudio.com/app/register",
    notes="Microsoft no longer registers Azure DevOps OAuth apps (since April 2025) and "
    "retires the service in 2026: prefer Microsoft Entra ID. The flow is Azure DevOps' own: "
    "`response_type=Assertion`, the code exchanged with a JWT-bearer grant whose "
    "`client_assertion` is the client secret; HTTPS callback URLs only. Scopes: "
    '`AzureDevOps(scope="vso.profile vso.work")` (registered with the app). Token refresh is '
    "not supported: Azure DevOps' refresh grant needs the callback URL again.",
    differs="Auth.js posts the exchange to the authorize URL with a standard grant (its "
    "custom token request is never used by @auth/core); this provider sends the documented "
    "JWT-bearer grant to `/oauth2/token`. It uses the `state` check where Auth.js uses PKCE, "
    "which Azure DevOps OAuth does not support. A profile without an avatar leaves the image "
    "empty instead of failing.",
)

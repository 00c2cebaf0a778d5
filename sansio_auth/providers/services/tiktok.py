"""TikTok (Login Kit, OAuth v2)."""

from ...events import OutboundRequest
from .._base import ProviderStyle
from ..oauth import Hooks, OAuthProvider
from ..quirks import with_form, with_params
from ..service import ProfileMap, Service


def client_key_param(provider: OAuthProvider, url: str) -> str:
    """TikTok names the client id ``client_key`` on the authorization request."""
    return with_params(url, {"client_key": provider.client_id or ""})


def client_key_field(provider: OAuthProvider, request: OutboundRequest) -> OutboundRequest:
    """... and on the token request (next to the standard ``client_id``)."""
    return with_form(request, {"client_key": provider.client_id or ""})


SERVICE = Service(
    id="tiktok",
    name="TikTok",
    type="oauth",
    factory="TikTok",
    authorization="https://www.tiktok.com/v2/auth/authorize",
    token="https://open.tiktokapis.com/v2/oauth/token/",
    userinfo="https://open.tiktokapis.com/v2/user/info/",
    scope="user.info.basic",
    userinfo_params={"fields": "open_id,avatar_url,display_name"},
    client_auth="client_secret_post",
    profile=ProfileMap(
        id="data.user.open_id", name="data.user.display_name", image="data.user.avatar_url"
    ),
    style=ProviderStyle(bg="#000", text="#fff"),
    hooks=Hooks(authorization_url=client_key_param, token_request=client_key_field),
    setup="https://developers.tiktok.com/doc/login-kit-web/",
    notes="The client id is TikTok's *client key* (`AUTH_TIKTOK_ID`), sent as `client_key`. "
    "TikTok gives no e-mail.",
    differs="`client_key` is the configured client id wherever it comes from: Auth.js reads "
    "it from the factory's options only, so with `AUTH_TIKTOK_ID` it sends "
    "`client_key=undefined`.",
)

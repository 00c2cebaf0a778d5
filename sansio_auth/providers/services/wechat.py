"""WeChat (微信网页授权: Official Account pages, or website QR-code login)."""

from collections.abc import Mapping
from typing import Any, Literal

from ...errors import Configuration
from ...events import OutboundRequest
from ...fetch import ACCEPT_JSON, ProviderResponseError, get_json
from .._base import ProviderStyle
from ..oauth import Hooks, OAuthProvider, Step, TokenSet, merge_options
from ..quirks import bearer_token_type, with_form, with_params
from ..service import ProfileMap, Service

PlatformType = Literal["OfficialAccount", "WebsiteApp"]
AUTHORIZE: Mapping[str, tuple[str, str]] = {
    "OfficialAccount": ("https://open.weixin.qq.com/connect/oauth2/authorize", "snsapi_userinfo"),
    "WebsiteApp": ("https://open.weixin.qq.com/connect/qrconnect", "snsapi_login"),
}
"""The authorization URL and scope of each platform type."""


def platform_type(options: dict[str, Any]) -> dict[str, Any]:
    """``platform_type``: ``"OfficialAccount"`` (pages opened in WeChat, the default) or
    ``"WebsiteApp"`` (a website's QR-code login)."""
    kind = options.pop("platform_type", "OfficialAccount")
    if kind not in AUTHORIZE:
        raise Configuration(
            f"WeChat `platform_type` must be 'OfficialAccount' or 'WebsiteApp', not {kind!r}"
        )
    url, scope = AUTHORIZE[kind]
    authorization = {"url": url, "params": {"scope": scope}}
    options["authorization"] = merge_options(authorization, options.get("authorization"))
    return options


def appid_param(provider: OAuthProvider, url: str) -> str:
    """WeChat names the client id ``appid`` on the authorization request, and its
    authorization URLs end with ``#wechat_redirect`` (WeChat's documentation requires it)."""
    return with_params(url, {"appid": provider.client_id or ""}) + "#wechat_redirect"


def app_credentials(provider: OAuthProvider, request: OutboundRequest) -> OutboundRequest:
    """... and ``appid``/``secret`` on the token request."""
    credentials = {"appid": provider.client_id or "", "secret": provider.client_secret or ""}
    return with_form(request, credentials)


def sns_userinfo(provider: OAuthProvider, url: str, tokens: TokenSet) -> Step:
    """``/sns/userinfo`` takes the token and the ``openid`` in its query (WeChat's way)."""
    query = {
        "access_token": tokens["access_token"],
        "openid": str(tokens.get("openid")),
        "lang": "zh_CN",
    }
    request = OutboundRequest(method="GET", url=with_params(url, query), headers=(ACCEPT_JSON,))
    profile = yield from get_json(request, "userinfo")
    if not isinstance(profile, dict) or "errcode" in profile:
        raise ProviderResponseError("the WeChat userinfo answer is an error or not a JSON object")
    return profile


SERVICE = Service(
    id="wechat",
    name="WeChat",
    type="oauth",
    factory="WeChat",
    authorization=AUTHORIZE["OfficialAccount"][0],
    token="https://api.weixin.qq.com/sns/oauth2/access_token",
    userinfo="https://api.weixin.qq.com/sns/userinfo",
    scope=AUTHORIZE["OfficialAccount"][1],
    checks=("state",),
    profile=ProfileMap(id="unionid", name="nickname", image="headimgurl"),
    style=ProviderStyle(bg="#fff", text="#000"),
    hooks=Hooks(
        options=platform_type,
        authorization_url=appid_param,
        token_request=app_credentials,
        token_response=bearer_token_type,
        userinfo=sns_userinfo,
    ),
    setup="https://developers.weixin.qq.com/doc/offiaccount/OA_Web_Apps/Wechat_webpage_authorization.html",
    notes='`WeChat(platform_type="WebsiteApp")` for a website\'s QR-code login (default: '
    "pages opened inside WeChat). The app id and secret are sent as `appid`/`secret`; the "
    "token answer has no `token_type` (a bearer token is assumed); the user is "
    "`/sns/userinfo`, identified by its `unionid` (the app must be bound to a WeChat Open "
    "Platform account). WeChat gives no e-mail.",
    differs="`appid`/`secret` are the configured credentials wherever they come from (Auth.js "
    "reads them from the factory's options only, so `AUTH_WECHAT_ID`/`_SECRET` leave them "
    "`undefined`), and they travel in the token request's form body, not in its URL. The "
    "authorization URL ends with `#wechat_redirect`, as WeChat's documentation requires "
    "(Auth.js leaves it out).",
)

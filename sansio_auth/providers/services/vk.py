"""VK (VKontakte OAuth 2.0, API 5.131)."""

from ...fetch import ProviderResponseError, bearer_request, get_json
from .._base import ProviderStyle
from ..oauth import Hooks, OAuthProvider, Step, TokenSet
from ..quirks import bearer_token_type
from ..service import Join, ProfileMap, Service
from .github import USER_AGENT

API_VERSION = "5.131"
"""The VK API version asked for (https://dev.vk.com/reference/versions), as Auth.js's."""


def users_get(provider: OAuthProvider, url: str, tokens: TokenSet) -> Step:
    """The user is the only item of ``users.get``; the e-mail comes with the token."""
    request = bearer_request(url, tokens["access_token"], USER_AGENT)
    answer = yield from get_json(request, "userinfo")
    users = answer.get("response") if isinstance(answer, dict) else None
    if not isinstance(users, list) or not users or not isinstance(users[0], dict):
        raise ProviderResponseError("the VK users.get answer has no user")
    email = tokens.get("email")
    return {**users[0], "email": email if isinstance(email, str) and email else None}


SERVICE = Service(
    id="vk",
    name="VK",
    type="oauth",
    factory="VK",
    authorization="https://oauth.vk.com/authorize",
    token=f"https://oauth.vk.com/access_token?v={API_VERSION}",
    userinfo="https://api.vk.com/method/users.get",
    scope="email",
    params={"v": API_VERSION},
    userinfo_params={"fields": "photo_100", "v": API_VERSION},
    client_auth="client_secret_post",
    profile=ProfileMap(
        id="id", name=Join("first_name", "last_name"), email="email", image="photo_100"
    ),
    style=ProviderStyle(bg="#07F", text="#fff"),
    hooks=Hooks(token_response=bearer_token_type, userinfo=users_get),
    setup="https://vk.com/apps?act=manage",
    notes="VK's OAuth (`oauth.vk.com`, API version 5.131). The e-mail comes in the token "
    "answer (scope `email`), the user from `users.get`.",
    differs="The token answer has no `token_type` (VK's documentation shows none): a bearer "
    "token is assumed, where Auth.js refuses the answer. `users.get` is asked with "
    "`User-Agent: sansio-auth` (Auth.js: `authjs`).",
)

"""Notion (public integrations, OAuth 2.0)."""

from ...fetch import bearer_request, get_json
from .._base import ProviderStyle
from ..oauth import Hooks, OAuthProvider, Step, TokenSet
from ..service import ProfileMap, Service, read_path

NOTION_API = "https://api.notion.com"
NOTION_VERSION = ("notion-version", "2022-06-28")


def bot_owner(provider: OAuthProvider, url: str, tokens: TokenSet) -> Step:
    """The bot user of the token, unwrapped to the person who owns it."""
    request = bearer_request(url, tokens["access_token"], NOTION_VERSION)
    bot = yield from get_json(request, "userinfo")
    user = read_path(bot, "bot.owner.user")
    if not isinstance(user, dict):
        raise ValueError("the Notion integration is not owned by a user (owner=workspace?)")
    return user


SERVICE = Service(
    id="notion",
    name="Notion",
    type="oauth",
    factory="Notion",
    authorization=f"{NOTION_API}/v1/oauth/authorize",
    token=f"{NOTION_API}/v1/oauth/token",
    userinfo=f"{NOTION_API}/v1/users/me",
    params={"owner": "user"},
    profile=ProfileMap(id="id", name="name", email="person.email", image="avatar_url"),
    style=ProviderStyle(bg="#fff", text="#000"),
    hooks=Hooks(userinfo=bot_owner),
    setup="https://www.notion.so/my-integrations",
    notes="The user is the owner of the integration's bot (`bot.owner.user` of "
    "`GET /v1/users/me`, `Notion-Version: 2022-06-28`).",
)

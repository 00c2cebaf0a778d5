"""Mail.ru (OAuth 2.0)."""

from ...events import OutboundRequest
from ...fetch import ACCEPT_JSON, get_object
from ..oauth import Hooks, OAuthProvider, Step, TokenSet
from ..quirks import with_params
from ..service import Service


def token_in_query(provider: OAuthProvider, url: str, tokens: TokenSet) -> Step:
    """``GET /userinfo?access_token=...``: Mail.ru reads the token from the query only."""
    query = {"access_token": tokens["access_token"]}
    request = OutboundRequest(method="GET", url=with_params(url, query), headers=(ACCEPT_JSON,))
    return (yield from get_object(request, "userinfo"))


SERVICE = Service(
    id="mailru",
    name="Mail.ru",
    type="oauth",
    factory="Mailru",
    authorization="https://oauth.mail.ru/login",
    token="https://oauth.mail.ru/token",
    userinfo="https://oauth.mail.ru/userinfo",
    scope="userinfo",
    hooks=Hooks(userinfo=token_in_query),
    setup="https://oauth.mail.ru/app/",
    notes="The default profile (`id`, `name`, `email`; Mail.ru's `image` is not mapped, as "
    "in Auth.js).",
    differs="The userinfo request passes the token as the `access_token` query parameter, "
    "the only way Mail.ru accepts it; Auth.js's bearer header gets `missing request "
    "parameter: access_token` (nextauthjs/next-auth#5660).",
)

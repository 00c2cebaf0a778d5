"""Foursquare (OAuth 2.0, the v2 API)."""

from collections.abc import Mapping
from typing import Any

from ...events import OutboundRequest
from ...fetch import ACCEPT_JSON, get_object
from .._base import ProviderStyle
from ..oauth import Hooks, OAuthProvider, Step, TokenSet, merge_options
from ..quirks import bearer_token_type, with_params
from ..service import Join, Service, read_path

API_VERSION = "20230131"
"""The ``v`` (``YYYYMMDD``) Auth.js pins by default."""


def api_version(options: dict[str, Any]) -> dict[str, Any]:
    """Auth.js's ``apiVersion`` option (also ``api_version``): the ``v`` of the user request."""
    version = options.pop("api_version", options.pop("apiVersion", None))
    if version is None:
        return options
    params = {"params": {"v": str(version)}}
    options["userinfo"] = merge_options(options.get("userinfo"), params)
    return options


def oauth_token_param(provider: OAuthProvider, url: str, tokens: TokenSet) -> Step:
    """``GET /v2/users/self?v=...&oauth_token=...``: the v2 API takes the token in the query."""
    query = {"oauth_token": tokens["access_token"]}
    request = OutboundRequest(method="GET", url=with_params(url, query), headers=(ACCEPT_JSON,))
    return (yield from get_object(request, "userinfo"))


def foursquare_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """``response.user`` → user: ``id``, first and last name, contact e-mail, original photo."""
    user = read_path(profile, "response.user")
    if not isinstance(user, Mapping):
        raise ValueError("the Foursquare answer has no response.user")
    photo = user.get("photo")
    image = None
    if isinstance(photo, Mapping) and photo.get("prefix") and photo.get("suffix"):
        image = f"{photo['prefix']}original{photo['suffix']}"
    return {
        "id": user["id"],
        "name": Join("firstName", "lastName").read(user),
        "email": read_path(user, "contact.email"),
        "image": image,
    }


SERVICE = Service(
    id="foursquare",
    name="Foursquare",
    type="oauth",
    factory="Foursquare",
    authorization="https://foursquare.com/oauth2/authenticate",
    token="https://foursquare.com/oauth2/access_token",
    userinfo="https://api.foursquare.com/v2/users/self",
    userinfo_params={"v": API_VERSION},
    client_auth="client_secret_post",
    profile=foursquare_profile,
    style=ProviderStyle(bg="#000", text="#fff"),
    hooks=Hooks(options=api_version, token_response=bearer_token_type, userinfo=oauth_token_param),
    setup="https://foursquare.com/developers/apps",
    notes="The v2 API takes the token as the `oauth_token` query parameter and a version date "
    '`v` (`Foursquare(api_version="20240101")`, Auth.js\'s `apiVersion`). Tokens do not '
    "expire; the token answer is `{access_token}` alone, taken as a bearer token.",
    differs="The client id and secret go in the token request's body, the parameters "
    "Foursquare documents (Auth.js sends HTTP Basic), and the answer without `token_type` is "
    "accepted (Auth.js refuses it). A missing first or last name is left out (Auth.js writes "
    "`undefined`).",
)

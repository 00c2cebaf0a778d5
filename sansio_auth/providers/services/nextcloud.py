"""Nextcloud (the OAuth 2.0 app of a Nextcloud server), named by the issuer."""

from ...fetch import ProviderResponseError, bearer_request, get_json
from .._base import ProviderStyle
from ..oauth import Hooks, OAuthProvider, Step, TokenSet
from ..service import ProfileMap, Service, read_path

OCS_API = ("ocs-apirequest", "true")
"""Nextcloud's OCS API answers only requests that say they are API requests."""


def provisioned_user(provider: OAuthProvider, url: str, tokens: TokenSet) -> Step:
    """``GET <url>/<user_id>`` (the token names the user) of the provisioning API.

    The user is the OCS envelope's ``ocs.data``; its avatar is the server's
    ``/avatar/<id>/512``, added as ``avatar_url``.
    """
    user_id = tokens.get("user_id")
    if not isinstance(user_id, str) or not user_id:
        raise ProviderResponseError("the Nextcloud token response names no `user_id`")
    request = bearer_request(f"{url}/{user_id}", tokens["access_token"], OCS_API)
    answer = yield from get_json(request, "userinfo")
    user = read_path(answer, "ocs.data")
    if not isinstance(user, dict) or not user.get("id"):
        raise ProviderResponseError("the Nextcloud answer has no user (`ocs.data`)")
    if provider.issuer:
        user = {**user, "avatar_url": f"{provider.issuer.rstrip('/')}/avatar/{user['id']}/512"}
    return user


SERVICE = Service(
    id="nextcloud",
    name="Nextcloud",
    type="oauth",
    factory="Nextcloud",
    issuer_required="your server's URL, e.g. ``https://cloud.example.com``",
    authorization="{issuer}/apps/oauth2/authorize",
    token="{issuer}/apps/oauth2/api/v1/token",
    userinfo="{issuer}/ocs/v1.php/cloud/users",
    profile=ProfileMap(id="id", name="displayname", email="email", image="avatar_url"),
    style=ProviderStyle(bg="#fff", text="#0082C9"),
    hooks=Hooks(userinfo=provisioned_user),
    setup="https://docs.nextcloud.com/server/latest/admin_manual/configuration_server/oauth2.html",
    notes="The issuer is the server. The user comes from the provisioning API "
    "(`GET /ocs/v1.php/cloud/users/<user_id>`, `OCS-APIRequest: true`) for the `user_id` "
    "of the token response; the image is the server's `/avatar/<id>/512`.",
    differs="The issuer may also come from `AUTH_NEXTCLOUD_ISSUER` (Auth.js builds the URLs "
    "from the factory's `issuer` option only).",
)

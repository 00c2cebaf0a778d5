"""Box (OAuth 2.0)."""

from .._base import ProviderStyle
from ..service import ProfileMap, Service

SERVICE = Service(
    id="box",
    name="Box",
    type="oauth",
    factory="Box",
    authorization="https://account.box.com/api/oauth2/authorize",
    token="https://api.box.com/oauth2/token",
    userinfo="https://api.box.com/2.0/users/me",
    client_auth="client_secret_post",
    profile=ProfileMap(id="id", name="name", email="login", image="avatar_url"),
    style=ProviderStyle(bg="#0075C9", text="#fff"),
    setup="https://app.box.com/developers/console",
    notes="No scope parameter: the application's configured scopes apply. The e-mail is "
    "the account's `login`.",
    differs="The client authenticates with `client_id`/`client_secret` in the token "
    "request's body, as Box documents: Box refuses HTTP Basic (`invalid_client`), which "
    "Auth.js sends.",
)

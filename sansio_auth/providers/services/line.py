"""LINE (OpenID Connect; ID tokens signed with HS256 keyed by the channel secret)."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="line",
    name="LINE",
    type="oidc",
    factory="LINE",
    aliases=("Line",),
    issuer="https://access.line.me",
    checks=("state",),
    client_auth="client_secret_post",
    id_token_alg="HS256",
    style=ProviderStyle(bg="#00C300", text="#fff"),
    setup="https://developers.line.biz/console/",
    notes="LINE Login signs web logins' ID tokens with HS256 keyed by the channel secret "
    "(accepted only because this provider declares it). The e-mail needs LINE's *Email "
    "address permission* for the channel.",
    differs="The token request sends the channel id and secret in the form body "
    "(`client_secret_post`), as LINE's API reference lists them; Auth.js sends them as HTTP "
    "Basic credentials.",
)

"""Facebook Login (OAuth 2.0)."""

from .._base import ProviderStyle
from ..service import ProfileMap, Service

GRAPH_VERSION = "v25.0"

SERVICE = Service(
    id="facebook",
    name="Facebook",
    type="oauth",
    factory="Facebook",
    authorization=f"https://www.facebook.com/{GRAPH_VERSION}/dialog/oauth",
    token="https://graph.facebook.com/oauth/access_token",
    userinfo="https://graph.facebook.com/me",
    scope="email",
    userinfo_params={"fields": "id,name,email,picture"},
    client_auth="client_secret_post",
    profile=ProfileMap(id="id", name="name", email="email", image="picture.data.url"),
    style=ProviderStyle(bg="#006aff", text="#fff"),
    setup="https://developers.facebook.com/docs/facebook-login/manually-build-a-login-flow/",
    differs=f"The login dialog is pinned to Graph API {GRAPH_VERSION} (Auth.js: v19.0, "
    "retired in May 2026) and the client authenticates with `client_secret_post`, the form "
    "Meta documents.",
)

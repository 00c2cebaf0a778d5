"""Wikimedia (Meta-Wiki's OAuth 2.0, one account for every Wikimedia project)."""

from .._base import ProviderStyle
from ..service import ProfileMap, Service

SERVICE = Service(
    id="wikimedia",
    name="Wikimedia",
    type="oauth",
    factory="Wikimedia",
    authorization="https://meta.wikimedia.org/w/rest.php/oauth2/authorize",
    token="https://meta.wikimedia.org/w/rest.php/oauth2/access_token",
    userinfo="https://meta.wikimedia.org/w/rest.php/oauth2/resource/profile",
    scope="",
    profile=ProfileMap(id="sub", name="username", email="email"),
    style=ProviderStyle(bg="#000", text="#fff"),
    setup="https://meta.wikimedia.org/wiki/Special:OAuthConsumerRegistration/propose/oauth2",
    notes="Register an OAuth 2.0 consumer on Meta-Wiki; the e-mail (and real name) come only "
    "with the *User identity verification: real name and email* grant.",
)

"""SimpleLogin (OpenID Connect)."""

from .._base import ProviderStyle
from ..service import ProfileMap, Service

SERVICE = Service(
    id="simplelogin",
    name="SimpleLogin",
    type="oidc",
    factory="SimpleLogin",
    issuer="https://app.simplelogin.io",
    profile=ProfileMap(id="sub", name="name", email="email", image="avatar_url"),
    style=ProviderStyle(brand_color="#e3156a"),
    setup="https://app.simplelogin.io/developer",
    notes="The e-mail may be an alias the user creates for the app; the avatar URL expires "
    "after a week.",
)

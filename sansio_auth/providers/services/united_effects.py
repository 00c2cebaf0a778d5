"""United Effects (OpenID Connect): the issuer is the Auth Group's."""

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .._base import ProviderStyle
from ..oauth import Hooks, OAuthProvider
from ..service import Service


def resource_indicator(provider: OAuthProvider, url: str) -> str:
    """``resource=<issuer>`` (RFC 8707) on the authorization request, unless one is given."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    query.setdefault("resource", provider.issuer or "")
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment))


SERVICE = Service(
    id="united-effects",
    name="United Effects",
    type="oidc",
    factory="UnitedEffects",
    issuer_required="the URL with your Auth Group id, e.g. "
    "``https://auth.unitedeffects.com/YQpbQV5dbW-224dCovz-3``",
    scope="openid email profile",
    style=ProviderStyle(),
    hooks=Hooks(authorization_url=resource_indicator),
    setup="https://docs.unitedeffects.com/integrations/nextauthjs",
    notes="The authorization request names the issuer as its `resource`. United Effects "
    "releases no name or picture by design.",
)

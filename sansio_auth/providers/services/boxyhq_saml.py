"""BoxyHQ SAML (SAML Jackson, an OAuth 2.0 bridge to SAML and OIDC identity providers)."""

from dataclasses import dataclass

from ...errors import Configuration
from .._base import ProviderStyle
from ..oauth import Endpoint, OAuthProvider
from ..service import Join, ProfileMap, Service

PATHS = {
    "authorization": "/api/oauth/authorize",
    "token": "/api/oauth/token",
    "userinfo": "/api/oauth/userinfo",
}
"""Jackson's endpoints under its URL (the issuer)."""


@dataclass(frozen=True, kw_only=True)
class JacksonRecord(OAuthProvider):
    """The endpoints come from the issuer, the Jackson service's URL (the record type
    ``SAMLJacksonProvider`` builds on)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.issuer:
            return
        base = self.issuer.rstrip("/")
        for name, path in PATHS.items():
            endpoint: Endpoint = getattr(self, name)
            if endpoint.url is None:
                object.__setattr__(self, name, Endpoint(url=base + path, params=endpoint.params))

    def check(self) -> None:
        """Also: the issuer (every endpoint is under it)."""
        if not self.issuer:
            raise Configuration(
                f"provider {self.id!r} needs an issuer, the URL of your SAML Jackson service, "
                f"e.g. https://jackson.example.com (or {self.env_prefix}ISSUER)"
            )
        super().check()


SERVICE = Service(
    id="boxyhq-saml",
    name="BoxyHQ SAML",
    type="oauth",
    factory="SAMLJackson",
    aliases=("BoxyHQSAML",),
    issuer_required="the URL of your SAML Jackson service, e.g. ``https://jackson.example.com``",
    params={"provider": "saml"},
    profile=ProfileMap(id="id", name=Join("firstName", "lastName"), email="email"),
    style=ProviderStyle(brand_color="#25c2a0"),
    record=JacksonRecord,
    setup="https://boxyhq.com/docs/jackson/deploy/service",
    notes="The endpoints are `<issuer>/api/oauth/{authorize,token,userinfo}`. Name the "
    'tenant and product with `authorization={"params": {"tenant": ..., "product": '
    "...}}` (client id `dummy`) or use the connection's client id and secret.",
    differs="The issuer may come from `AUTH_BOXYHQ_SAML_ISSUER` (Auth.js builds the URLs from "
    "the `issuer` option only, so the variable alone gives `undefined/api/oauth/...`); a "
    "missing issuer stops start-up with a configuration error.",
)

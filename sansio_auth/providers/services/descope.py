"""Descope (OpenID Connect): the issuer is ``https://api.descope.com/<project id>``."""

from dataclasses import dataclass

from ...errors import Configuration
from .._base import ProviderStyle
from ..oauth import OIDCProvider
from ..service import Service

CLIENT_ID = "{client_id}"
"""In the default issuer, the client id (Descope's OIDC client id is the project id)."""


@dataclass(frozen=True, kw_only=True)
class DescopeRecord(OIDCProvider):
    """The default issuer is made of the client id, wherever that comes from."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.issuer and CLIENT_ID in self.issuer and self.client_id:
            object.__setattr__(self, "issuer", self.issuer.replace(CLIENT_ID, self.client_id))

    def check(self) -> None:
        """Without a client id the default issuer cannot be made: name the variable."""
        if self.issuer and CLIENT_ID in self.issuer:
            prefix = self.env_prefix
            raise Configuration(
                f"provider {self.id!r} needs a client_id (or {prefix}ID), the Descope project "
                f"id its issuer is made of (or an issuer: {prefix}ISSUER)"
            )
        super().check()


SERVICE = Service(
    id="descope",
    name="Descope",
    type="oidc",
    factory="Descope",
    default_issuer=f"https://api.descope.com/{CLIENT_ID}",
    checks=("pkce", "state"),
    style=ProviderStyle(bg="#1C1C23", text="#ffffff"),
    record=DescopeRecord,
    setup="https://docs.descope.com/customize/auth/oidc",
    notes="The client id is the Descope project id; the issuer defaults to "
    "`https://api.descope.com/<client id>` (or `AUTH_DESCOPE_ISSUER`, the OIDC application's "
    "*Issuer*).",
    differs="The default issuer is made of the client id wherever that comes from "
    "(`AUTH_DESCOPE_ID` included); Auth.js makes it of the `clientId` option only, and gets "
    "`https://api.descope.com/undefined` when the id is left to the environment and "
    "`AUTH_DESCOPE_ISSUER` is unset.",
)

"""Descope (OpenID Connect): the issuer is ``https://api.descope.com/<project id>``."""

from dataclasses import dataclass

from .._base import ProviderStyle
from ..oauth import OIDCProvider
from ..service import Service

API = "https://api.descope.com"


@dataclass(frozen=True, kw_only=True)
class DescopeRecord(OIDCProvider):
    """Without an issuer, the project's: the client id is the Descope project id."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.issuer is None and self.client_id:
            object.__setattr__(self, "issuer", f"{API}/{self.client_id}")


SERVICE = Service(
    id="descope",
    name="Descope",
    type="oidc",
    factory="Descope",
    checks=("pkce", "state"),
    style=ProviderStyle(bg="#1C1C23", text="#ffffff"),
    record=DescopeRecord,
    setup="https://docs.descope.com/customize/auth/oidc",
    notes="The client id is the Descope project id; the issuer defaults to "
    "`https://api.descope.com/<client id>` (or `AUTH_DESCOPE_ISSUER`, the OIDC application's "
    "*Issuer*).",
    differs="The default issuer is built from the client id wherever it comes from "
    "(`AUTH_DESCOPE_ID` included); Auth.js builds it from the `clientId` option only, and "
    "gets `https://api.descope.com/undefined` when that is left to the environment and "
    "`AUTH_DESCOPE_ISSUER` is unset.",
)

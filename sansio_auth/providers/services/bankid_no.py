"""BankID Norge (OpenID Connect; the profile from the signed userinfo response)."""

from .._base import ProviderStyle
from ..service import ProfileMap, Service

SERVICE = Service(
    id="bankid-no",
    name="BankID Norge",
    type="oidc",
    factory="BankIDNorway",
    default_issuer="https://auth.bankid.no/auth/realms/prod",
    params={"ui_locales": "no", "login_hint": "BIS"},
    checks=("pkce", "state", "nonce"),
    client_auth="client_secret_post",
    userinfo_alg="RS256",
    id_token=False,
    profile=ProfileMap(id="sub", name="name", email="email"),
    style=ProviderStyle(text="#fff", bg="#39134c"),
    setup="https://developer.bankid.no/bankid-oidc-provider/",
    notes="The userinfo endpoint answers a signed JWT (`application/jwt`, RS256), verified "
    "with the realm's keys; its `sub` must be the ID token's. `login_hint=BIS` starts BankID "
    "with biometrics; the test realm is "
    '`BankIDNorway(issuer="https://auth.current.bankid.no/auth/realms/current")`.',
)

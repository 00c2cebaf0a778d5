"""WorkOS (SSO: an enterprise's identity provider behind WorkOS's OAuth 2.0)."""

from typing import Any

from .._base import ProviderStyle
from ..oauth import Hooks, merge_options
from ..service import Join, ProfileMap, Service


def connection(options: dict[str, Any]) -> dict[str, Any]:
    """``connection="conn_..."``: the SSO connection to sign in with (default: none)."""
    value = options.pop("connection", "")
    authorization = {"params": {"connection": str(value)}}
    options["authorization"] = merge_options(authorization, options.get("authorization"))
    return options


SERVICE = Service(
    id="workos",
    name="WorkOS",
    type="oauth",
    factory="WorkOS",
    default_issuer="https://api.workos.com/",
    authorization="{issuer}/sso/authorize",
    token="{issuer}/sso/token",
    userinfo="{issuer}/sso/profile",
    client_auth="client_secret_post",
    profile=ProfileMap(
        id="id", name=Join("first_name", "last_name"), email="email", image="raw_attributes.picture"
    ),
    style=ProviderStyle(bg="#6363f1", text="#fff"),
    hooks=Hooks(options=connection),
    setup="https://dashboard.workos.com/configuration",
    notes='`WorkOS(connection="conn_...")` signs in with one SSO connection; without it, '
    "pass `organization`, `domain` or `provider` on the sign-in request. The issuer "
    "defaults to `https://api.workos.com/`.",
)

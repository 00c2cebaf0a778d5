"""Hugging Face (OpenID Connect)."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="huggingface",
    name="Hugging Face",
    type="oidc",
    factory="Huggingface",
    issuer="https://huggingface.co",
    checks=("state", "pkce"),
    style=ProviderStyle(bg="#FFD21E", text="#000"),
    setup="https://huggingface.co/settings/applications/new",
    notes="`orgIds=<org id>` in the sign-in request's query asks for access to an organisation.",
)

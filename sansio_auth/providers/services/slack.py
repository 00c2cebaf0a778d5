"""Slack ("Sign in with Slack", OpenID Connect)."""

from .._base import ProviderStyle
from ..service import Service

SERVICE = Service(
    id="slack",
    name="Slack",
    type="oidc",
    factory="Slack",
    issuer="https://slack.com",
    checks=("nonce",),
    style=ProviderStyle(brand_color="#611f69"),
    setup="https://api.slack.com/apps",
    notes="The workspace is the `https://slack.com/team_id` claim of the profile.",
)

"""Slack ("Sign in with Slack", OpenID Connect, issuer ``https://slack.com``).

As Auth.js's: scope ``openid profile email``, the ``nonce`` check only,
``client_secret_basic``, the default OIDC profile (the workspace is in the
``https://slack.com/team_id`` claim of the profile).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ._common import style
from .oauth import OIDCProvider


@dataclass(frozen=True, kw_only=True)
class SlackProvider(OIDCProvider):
    """The Slack provider record (see :func:`Slack`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "slack",
        "name": "Slack",
        "issuer": "https://slack.com",
        "checks": ("nonce",),
        "style": style("slack", brand_color="#611f69"),
    }


def Slack(**options: Any) -> SlackProvider:  # noqa: N802 - Auth.js's name
    """The Slack provider; ``AUTH_SLACK_ID``/``AUTH_SLACK_SECRET`` give credentials."""
    return SlackProvider.from_mapping(options)

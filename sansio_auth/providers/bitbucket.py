"""Bitbucket Cloud (OAuth 2.0).

As Auth.js's: scope ``account``, PKCE, the user from ``/2.0/user`` (``account_id``,
``display_name`` else ``username``, the avatar link). Bitbucket's user has no e-mail:
with the ``email`` scope added (``authorization={"params": {"scope": "account email"}}``)
the primary confirmed address of ``/2.0/user/emails`` is used (Auth.js leaves it empty).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..fetch import bearer_request, decode_json, get_json, send
from ._common import dig, style
from .oauth import OAuthProvider, Step, TokenSet


def bitbucket_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """Bitbucket user → user."""
    name = profile.get("display_name")
    return {
        "id": profile["account_id"],
        "name": name if name is not None else profile.get("username"),
        "email": profile.get("email"),
        "image": dig(profile, "links", "avatar", "href"),
    }


def confirmed_email(emails: Any) -> str | None:
    """The primary confirmed address of a ``/2.0/user/emails`` page, else the first confirmed."""
    values = dig(emails, "values")
    if not isinstance(values, list):
        return None
    confirmed = [
        e
        for e in values
        if isinstance(e, dict) and e.get("is_confirmed") is True and isinstance(e.get("email"), str)
    ]
    confirmed.sort(key=lambda e: e.get("is_primary") is not True)
    return confirmed[0]["email"] if confirmed else None


def _granted(tokens: TokenSet, scope: str) -> bool:
    granted = tokens.get("scopes", tokens.get("scope"))
    return isinstance(granted, str) and scope in granted.replace(",", " ").split()


@dataclass(frozen=True, kw_only=True)
class BitbucketProvider(OAuthProvider):
    """The Bitbucket provider record (see :func:`Bitbucket`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "bitbucket",
        "name": "Bitbucket",
        "authorization": {
            "url": "https://bitbucket.org/site/oauth2/authorize",
            "params": {"scope": "account"},
        },
        "token": "https://bitbucket.org/site/oauth2/access_token",
        "userinfo": "https://api.bitbucket.org/2.0/user",
        "profile": bitbucket_profile,
        "style": style("bitbucket", bg="#205081", text="#fff"),
    }

    def request_userinfo(self, url: str, tokens: TokenSet) -> Step:
        """``GET /2.0/user``; with the ``email`` scope also ``GET /2.0/user/emails``."""
        access_token = tokens["access_token"]
        profile = yield from get_json(bearer_request(url, access_token), "userinfo")
        if not isinstance(profile, dict):
            raise ValueError("the Bitbucket user is not a JSON object")
        if _granted(tokens, "email"):
            response = yield from send(bearer_request(f"{url}/emails", access_token), "e-mails")
            if response.status == 200:
                profile["email"] = confirmed_email(decode_json(response.body, "e-mails"))
        return profile


def Bitbucket(**options: Any) -> BitbucketProvider:  # noqa: N802 - Auth.js's name
    """The Bitbucket provider; ``AUTH_BITBUCKET_ID``/``_SECRET`` are the OAuth consumer's."""
    return BitbucketProvider.from_mapping(options)

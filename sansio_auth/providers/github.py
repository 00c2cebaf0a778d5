"""GitHub (OAuth 2.0 app or GitHub App user tokens), also GitHub Enterprise Server.

Like Auth.js's: scope ``read:user user:email``, PKCE, RFC 9207 issuer
``https://github.com/login/oauth``; a user without a public e-mail gets one from
``GET /user/emails``. Stricter: only a *verified* address from that list is used
(the primary one first), and an empty list leaves the e-mail empty instead of failing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..errors import Configuration
from ..fetch import bearer_request, decode_json, get_json, send
from .oauth import OAuthProvider, Step, TokenSet, merge_options

USER_AGENT = ("user-agent", "sansio-auth")
"""GitHub's REST API refuses requests without a ``User-Agent``."""


def github_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """GitHub user → user: ``id`` (as text), ``name`` (else ``login``), ``email``, ``image``."""
    name = profile.get("name")
    return {
        "id": str(profile["id"]),
        "name": name if name is not None else profile.get("login"),
        "email": profile.get("email"),
        "image": profile.get("avatar_url"),
    }


def _urls(base_url: str) -> dict[str, Any]:
    base = base_url.rstrip("/")
    api = "https://api.github.com" if base == "https://github.com" else f"{base}/api/v3"
    return {
        "issuer": f"{base}/login/oauth",
        "authorization": {
            "url": f"{base}/login/oauth/authorize",
            "params": {"scope": "read:user user:email"},
        },
        "token": f"{base}/login/oauth/access_token",
        "userinfo": f"{api}/user",
    }


@dataclass(frozen=True, kw_only=True)
class GitHubProvider(OAuthProvider):
    """The GitHub provider record (see :func:`GitHub`)."""

    defaults: ClassVar[Mapping[str, Any]] = {
        "id": "github",
        "name": "GitHub",
        **_urls("https://github.com"),
        "profile": github_profile,
        "style": {
            "logo": "https://authjs.dev/img/providers/github.svg",
            "bg": "#24292f",
            "text": "#fff",
        },
    }

    def request_userinfo(self, url: str, tokens: TokenSet) -> Step:
        """``GET /user``, and ``GET /user/emails`` when the profile has no public e-mail."""
        access_token = tokens["access_token"]
        profile = yield from get_json(bearer_request(url, access_token, USER_AGENT), "userinfo")
        if not isinstance(profile, dict):
            raise ValueError("the GitHub user is not a JSON object")
        if not profile.get("email"):
            request = bearer_request(f"{url}/emails", access_token, USER_AGENT)
            response = yield from send(request, "GitHub e-mails")
            if response.status == 200:
                profile["email"] = verified_email(decode_json(response.body, "GitHub e-mails"))
        return profile


def verified_email(emails: Any) -> str | None:
    """The primary verified address of a ``/user/emails`` answer, else the first verified one."""
    if not isinstance(emails, list):
        return None
    verified = [
        e["email"]
        for e in sorted(
            (e for e in emails if isinstance(e, dict)), key=lambda e: e.get("primary") is not True
        )
        if e.get("verified") is True and isinstance(e.get("email"), str)
    ]
    return verified[0] if verified else None


def GitHub(**options: Any) -> GitHubProvider:  # noqa: N802 - Auth.js's name
    """The GitHub provider with ``options`` (``client_id``, ``enterprise={"base_url": ...}``, ...).

    ``client_id``/``client_secret`` default to ``AUTH_GITHUB_ID``/``AUTH_GITHUB_SECRET``.
    """
    enterprise = options.pop("enterprise", None)
    if enterprise is not None:
        if not isinstance(enterprise, Mapping) or set(enterprise) - {"base_url"}:
            raise Configuration("GitHub `enterprise` takes {'base_url': 'https://...'} only")
        for key, value in _urls(str(enterprise["base_url"])).items():
            options[key] = merge_options(value, options.get(key))
    return GitHubProvider.from_mapping(options)

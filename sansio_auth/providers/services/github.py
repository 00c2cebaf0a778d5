"""GitHub (OAuth app or GitHub App user tokens), also GitHub Enterprise Server."""

from typing import Any

from ...errors import Configuration
from ...fetch import bearer_request, decode_json, get_object, send
from .._base import ProviderStyle
from ..oauth import Hooks, OAuthProvider, Step, TokenSet, merge_options
from ..service import ProfileMap, Service

USER_AGENT = ("user-agent", "sansio-auth")
"""GitHub's REST API refuses requests without a ``User-Agent``."""


def urls(base_url: str) -> dict[str, Any]:
    """The provider keys of a GitHub at ``base_url`` (github.com or an Enterprise Server)."""
    base = base_url.rstrip("/")
    api = "https://api.github.com" if base == "https://github.com" else f"{base}/api/v3"
    return {
        "issuer": f"{base}/login/oauth",
        "authorization": {"url": f"{base}/login/oauth/authorize"},
        "token": {"url": f"{base}/login/oauth/access_token"},
        "userinfo": {"url": f"{api}/user"},
    }


def enterprise(options: dict[str, Any]) -> dict[str, Any]:
    """``enterprise={"base_url": ...}``: every URL on that server."""
    server = options.pop("enterprise", None)
    if server is None:
        return options
    if not isinstance(server, dict) or set(server) - {"base_url"}:
        raise Configuration("GitHub `enterprise` takes {'base_url': 'https://...'} only")
    for key, value in urls(str(server["base_url"])).items():
        options[key] = merge_options(value, options.get(key))
    return options


def user_and_emails(provider: OAuthProvider, url: str, tokens: TokenSet) -> Step:
    """``GET /user``, and ``GET /user/emails`` when the profile has no public e-mail."""
    access_token = tokens["access_token"]
    profile = yield from get_object(bearer_request(url, access_token, USER_AGENT), "userinfo")
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


SERVICE = Service(
    id="github",
    name="GitHub",
    type="oauth",
    factory="GitHub",
    issuer="https://github.com/login/oauth",
    authorization="https://github.com/login/oauth/authorize",
    token="https://github.com/login/oauth/access_token",
    userinfo="https://api.github.com/user",
    scope="read:user user:email",
    profile=ProfileMap(id="id", name=("name", "login"), email="email", image="avatar_url"),
    style=ProviderStyle(bg="#24292f", text="#fff"),
    hooks=Hooks(options=enterprise, userinfo=user_and_emails),
    setup="https://github.com/settings/developers",
    notes="A user without a public e-mail gets one from `GET /user/emails`. "
    'GitHub Enterprise Server: `GitHub(enterprise={"base_url": "https://github.example.com"})`.',
    differs="Only a *verified* address from `/user/emails` is used (the primary one first), "
    "and an empty list leaves the e-mail empty instead of failing.",
)

"""Bitbucket Cloud (OAuth 2.0)."""

from typing import Any

from ...fetch import bearer_request, decode_json, get_object, send
from .._base import ProviderStyle
from ..oauth import Hooks, OAuthProvider, Step, TokenSet
from ..service import ProfileMap, Service, read_path


def confirmed_email(emails: Any) -> str | None:
    """The primary confirmed address of a ``/2.0/user/emails`` page, else the first confirmed."""
    values = read_path(emails, "values")
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


def user_and_emails(provider: OAuthProvider, url: str, tokens: TokenSet) -> Step:
    """``GET /2.0/user``; with the ``email`` scope also ``GET /2.0/user/emails``."""
    access_token = tokens["access_token"]
    profile = yield from get_object(bearer_request(url, access_token), "userinfo")
    if _granted(tokens, "email"):
        response = yield from send(bearer_request(f"{url}/emails", access_token), "e-mails")
        if response.status == 200:
            profile["email"] = confirmed_email(decode_json(response.body, "e-mails"))
    return profile


SERVICE = Service(
    id="bitbucket",
    name="Bitbucket",
    type="oauth",
    factory="Bitbucket",
    authorization="https://bitbucket.org/site/oauth2/authorize",
    token="https://bitbucket.org/site/oauth2/access_token",
    userinfo="https://api.bitbucket.org/2.0/user",
    scope="account",
    profile=ProfileMap(
        id="account_id",
        name=("display_name", "username"),
        email="email",
        image="links.avatar.href",
    ),
    style=ProviderStyle(bg="#205081", text="#fff"),
    hooks=Hooks(userinfo=user_and_emails),
    setup="https://support.atlassian.com/bitbucket-cloud/docs/use-oauth-on-bitbucket-cloud/",
    notes="Bitbucket's user has no e-mail: with the `email` scope added "
    '(`authorization={"params": {"scope": "account email"}}`) the primary confirmed address '
    "of `/2.0/user/emails` is used.",
    differs="The e-mail can be read (Auth.js leaves it empty).",
)

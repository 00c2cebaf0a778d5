"""The security page (not in Auth.js): the user's sessions and linked accounts, with forms to
end sessions, link and unlink accounts, and delete the user."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ..config import Theme
from ._webauthn_script import WEBAUTHN_SCRIPT

SECURITY_ERRORS = {
    "LastSignInMethod": "This account is your last way to sign in: link another one first.",
    "RecordNotFound": "That session or account is gone already.",
    "MissingCSRF": "The form expired. Please try again.",
    "OAuthAccountNotLinked": "That account is linked to another user.",
}
DEFAULT_SECURITY_ERROR = "That did not work. Please try again."

_STYLE = (
    "<style>.page{max-width:34rem}h2{font-size:1.05rem;margin:1.25rem 0 .5rem}"
    "ul{list-style:none;margin:0;padding:0}li{display:flex;align-items:center;gap:.75rem;"
    "justify-content:space-between;padding:.5rem 0;border-top:1px solid var(--color-border)}"
    "li p{text-align:left;margin:0}li small{display:block;color:var(--color-secondary)}"
    "li form button,.inline button{width:auto;margin:0;padding:.35rem .8rem}"
    ".badge{font-size:.8rem;color:var(--color-info)}.danger{background:var(--color-error)}"
    "label.confirm{display:flex;gap:.5rem;font-weight:400}label.confirm input{width:auto}</style>"
)

_BROWSERS = (
    ("Edg/", "Edge"),
    ("OPR/", "Opera"),
    ("Firefox/", "Firefox"),
    ("Chromium/", "Chromium"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
)
_SYSTEMS = (
    ("Android", "Android"),
    ("iPhone", "iOS"),
    ("iPad", "iPadOS"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("CrOS", "ChromeOS"),
    ("Linux", "Linux"),
)


def describe_agent(user_agent: str | None) -> str:
    """A short name for a browser ("Firefox on Linux"), from its ``User-Agent``."""
    if not user_agent:
        return "Unknown device"
    browser = next((name for mark, name in _BROWSERS if mark in user_agent), None)
    system = next((name for mark, name in _SYSTEMS if mark in user_agent), None)
    if browser and system:
        return f"{browser} on {system}"
    return browser or system or user_agent.split(" ", 1)[0][:40]


def _when(iso: str | None) -> str:
    """``2025-01-02 03:04 UTC`` from an ISO date, or a dash."""
    return "—" if not iso else f"{iso[:10]} {iso[11:16]} UTC"


def _form(url: str, csrf: str, button: str, *, fields: Mapping[str, str] | None = None,
          css: str = "", disabled: str | None = None) -> str:  # fmt: skip
    hidden = "".join(
        f'<input type="hidden" name="{escape(k)}" value="{escape(v)}">'
        for k, v in {"csrfToken": csrf, **(fields or {})}.items()
    )
    state = f' disabled title="{escape(disabled)}"' if disabled else ""
    return (
        f'<form class="inline" action="{escape(url)}" method="POST">{hidden}'
        f'<button type="submit" class="{css}"{state}>{escape(button)}</button></form>'
    )


def _sessions(sessions: Sequence[Mapping[str, Any]], urls: Mapping[str, str], csrf: str) -> str:
    items = []
    for session in sessions:
        agent = session.get("userAgent")
        details = f"Signed in {_when(session.get('createdAt'))}"
        details += f" · last seen {_when(session.get('lastSeenAt'))}"
        if session.get("ipAddress"):
            details += f" · {session['ipAddress']}"
        badge = '<span class="badge">This device</span> ' if session.get("current") else ""
        button = "Sign out" if session.get("current") else "End"
        items.append(
            f'<li class="session" data-session-id="{escape(str(session["id"]))}">'
            f'<p title="{escape(agent or "")}">{badge}{escape(describe_agent(agent))}'
            f"<small>{escape(details)}</small></p>"
            f"{_form(urls['revoke-session'], csrf, button, fields={'id': str(session['id'])})}</li>"
        )
    if len(sessions) > 1:
        end_others = _form(urls["revoke-other-sessions"], csrf, "End all other sessions")
    else:
        end_others = ""
    return f"<h2>Sessions</h2><ul>{''.join(items)}</ul>{end_others}"


def _accounts(
    accounts: Sequence[Mapping[str, Any]],
    linkable: Mapping[str, str],
    urls: Mapping[str, str],
    csrf: str,
) -> str:
    items = []
    for account in accounts:
        provider, account_id = str(account["provider"]), str(account["providerAccountId"])
        refused = None if account.get("canUnlink") else "Your last way to sign in"
        unlink = _form(
            f"{urls['unlink']}/{provider}",
            csrf,
            "Unlink",
            fields={"providerAccountId": account_id},
            disabled=refused,
        )
        items.append(
            f'<li class="account" data-provider="{escape(provider)}">'
            f"<p>{escape(str(account.get('providerName') or provider))}"
            f"<small>{escape(account_id)}</small></p>{unlink}</li>"
        )
    listed = f"<ul>{''.join(items)}</ul>" if items else "<p>No linked accounts.</p>"
    links = "".join(
        _form(f"{urls['link']}/{provider_id}", csrf, f"Link {name}")
        for provider_id, name in linkable.items()
    )
    return f"<h2>Linked accounts</h2>{listed}{links}"


def security_page(
    *,
    user: Mapping[str, Any],
    sessions: Sequence[Mapping[str, Any]] | None,
    accounts: Sequence[Mapping[str, Any]],
    linkable: Mapping[str, str],
    urls: Mapping[str, str],
    csrf_token: str,
    error: str | None,
    theme: Theme,
    passkeys: bool = False,
) -> str:
    """The page: ``sessions`` (as ``GET sessions`` answers; ``None``: they cannot be listed),
    ``accounts`` (as ``GET accounts``), a link button per ``linkable`` provider (id → name),
    with ``passkeys`` a button that registers a passkey (run by the passkey script: ``urls``
    ``add-passkey`` and ``passkey-options``), and the delete form; ``urls`` holds each
    action's URL."""
    from . import _shell  # the shell of every built-in page

    who = str(user.get("email") or user.get("name") or user.get("id"))
    parts = [_STYLE, "<h1>Security</h1>", f"<p>Signed in as {escape(who)}</p>"]
    if error:
        message = SECURITY_ERRORS.get(error, DEFAULT_SECURITY_ERROR)
        parts.append(f'<p class="error" role="alert">{escape(message)}</p>')
    if sessions is not None:
        parts.append(_sessions(sessions, urls, csrf_token))
    if accounts or linkable or passkeys:
        parts.append(_accounts(accounts, linkable, urls, csrf_token))
    if passkeys:
        parts.append(_add_passkey(urls, csrf_token))
    parts.append(
        "<h2>Delete account</h2>"
        f'<form action="{escape(urls["delete-user"])}" method="POST">'
        f'<input type="hidden" name="csrfToken" value="{escape(csrf_token)}">'
        '<label class="confirm"><input type="checkbox" name="confirm" required>'
        "Delete my account and everything stored about me</label>"
        '<button type="submit" class="danger">Delete my account</button></form>'
    )
    script = f"<script>{WEBAUTHN_SCRIPT}</script>" if passkeys else ""
    return _shell("Security", "".join(parts), theme, script)


def _add_passkey(urls: Mapping[str, str], csrf: str) -> str:
    """Registers a passkey for the signed-in user (a way to sign in, and a second factor),
    then comes back here (``callbackUrl``)."""
    hidden = "".join(
        f'<input type="hidden" name="{name}" value="{escape(value)}">'
        for name, value in (("csrfToken", csrf), ("callbackUrl", urls["security"]))
    )
    return (
        f'<form id="add-passkey" class="inline" action="{escape(urls["add-passkey"])}" '
        f'method="POST" data-webauthn-options="{escape(urls["passkey-options"])}">{hidden}'
        '<p class="error" role="alert" data-webauthn-error hidden></p>'
        '<button type="submit" name="action" value="register">Add a passkey</button></form>'
    )

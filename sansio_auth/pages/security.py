"""The security page: the user's sessions and linked accounts, with forms to end sessions,
link and unlink accounts and delete the user, and links to the account's other pages
(password, address, two-factor) and back to the site."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ..config import Theme
from ..i18n import ENGLISH, N_, Translator
from ._shell import banner, hidden, host_of, link_button, shell
from ._webauthn_script import WEBAUTHN_SCRIPT, error_box

SECURITY_ERRORS = {
    "LastSignInMethod": N_("This account is your last way to sign in: link another one first."),
    "RecordNotFound": N_("That session or account is gone already."),
    "MissingCSRF": N_("The form expired. Please try again."),
    "OAuthAccountNotLinked": N_("That account is linked to another user."),
}
DEFAULT_SECURITY_ERROR = N_("That did not work. Please try again.")

_STYLE = (
    "<style>.page{max-width:34rem}h2{font-size:1.05rem;margin:1.25rem 0 .5rem}"
    "ul{list-style:none;margin:0;padding:0}li{display:flex;align-items:center;gap:.75rem;"
    "justify-content:space-between;padding:.5rem 0;border-top:1px solid var(--color-border)}"
    "li p{text-align:left;margin:0}li small{display:block;color:var(--color-secondary)}"
    "li form button,.inline button{width:auto;margin:0;padding:.35rem .8rem}"
    "li a{color:var(--brand-color);font-weight:600}"
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


def describe_agent(user_agent: str | None, _: Translator = ENGLISH) -> str:
    """A short name for a browser ("Firefox on Linux"), from its ``User-Agent``."""
    if not user_agent:
        return _("Unknown device")
    browser = next((name for mark, name in _BROWSERS if mark in user_agent), None)
    system = next((name for mark, name in _SYSTEMS if mark in user_agent), None)
    if browser and system:
        return _("{browser} on {system}", browser=browser, system=system)
    return browser or system or user_agent.split(" ", 1)[0][:40]


def _when(iso: str | None) -> str:
    """``2025-01-02 03:04 UTC`` from an ISO date, or a dash."""
    return "—" if not iso else f"{iso[:10]} {iso[11:16]} UTC"


def _form(url: str, csrf: str, button: str, *, fields: Mapping[str, str] | None = None,
          css: str = "", disabled: str | None = None) -> str:  # fmt: skip
    hidden_fields = "".join(hidden(k, v) for k, v in {"csrfToken": csrf, **(fields or {})}.items())
    state = f' disabled title="{escape(disabled)}"' if disabled else ""
    return (
        f'<form class="inline" action="{escape(url)}" method="POST">{hidden_fields}'
        f'<button type="submit" class="{css}"{state}>{escape(button)}</button></form>'
    )


def _account_links(context: Mapping[str, Any], _: Translator) -> str:
    """Links to the account's other pages the configuration offers."""
    items = []
    if url := context["change_password_url"]:
        items.append(_link_item(url, _("Change password"), "change-password"))
    if url := context["change_email_url"]:
        items.append(_link_item(url, _("Change email"), "change-email"))
    if two_factor := context["two_factor"]:
        state = _("On") if two_factor["enabled"] else _("Off")
        label = _("Two-factor authentication")
        items.append(_link_item(two_factor["url"], label, "two-factor", state))
    if not items:
        return ""
    return f"<h2>{escape(_('Account'))}</h2><ul>{''.join(items)}</ul>"


def _link_item(url: str, text: str, name: str, state: str = "") -> str:
    note = f"<small>{escape(state)}</small>" if state else ""
    return (
        f'<li class="link" data-link="{name}"><p><a href="{escape(url)}">{escape(text)}</a>'
        f"{note}</p></li>"
    )


def _sessions(context: Mapping[str, Any], _: Translator) -> str:
    csrf, sessions = context["csrf_token"], context["sessions"]
    items = []
    for session in sessions:
        agent = session.get("userAgent")
        details = _(
            "Signed in {signed_in} · last seen {last_seen}",
            signed_in=_when(session.get("createdAt")),
            last_seen=_when(session.get("lastSeenAt")),
        )
        if session.get("ipAddress"):
            details += f" · {session['ipAddress']}"
        current = session.get("current")
        badge = f'<span class="badge">{escape(_("This device"))}</span> ' if current else ""
        button = _("Sign out") if current else _("End")
        end = _form(context["revoke_session_url"], csrf, button, fields={"id": str(session["id"])})
        items.append(
            f'<li class="session" data-session-id="{escape(str(session["id"]))}">'
            f'<p title="{escape(agent or "")}">{badge}{escape(describe_agent(agent, _))}'
            f"<small>{escape(details)}</small></p>{end}</li>"
        )
    end_others = ""
    if len(sessions) > 1:
        end_others = _form(context["revoke_other_sessions_url"], csrf, _("End all other sessions"))
    return f"<h2>{escape(_('Sessions'))}</h2><ul>{''.join(items)}</ul>{end_others}"


def _accounts(context: Mapping[str, Any], _: Translator) -> str:
    csrf = context["csrf_token"]
    items = []
    for account in context["accounts"]:
        provider, account_id = str(account["provider"]), str(account["providerAccountId"])
        refused = None if account.get("canUnlink") else _("Your last way to sign in")
        unlink = _form(
            f"{context['unlink_url']}/{provider}",
            csrf,
            _("Unlink"),
            fields={"providerAccountId": account_id},
            disabled=refused,
        )
        note = f'<small class="note">{escape(refused)}</small>' if refused else ""
        items.append(
            f'<li class="account" data-provider="{escape(provider)}">'
            f"<p>{escape(str(account.get('providerName') or provider))}"
            f"<small>{escape(account_id)}</small>{note}</p>{unlink}</li>"
        )
    listed = f"<ul>{''.join(items)}</ul>" if items else f"<p>{escape(_('No linked accounts.'))}</p>"
    links = "".join(
        _form(provider["url"], csrf, _("Link {provider}", provider=provider["name"]))
        for provider in context["linkable"]
    )
    return f"<h2>{escape(_('Linked accounts'))}</h2>{listed}{links}"


def security_page(context: Mapping[str, Any], theme: Theme, _: Translator) -> str:
    """The page: the links to the account's pages, the sessions (``None``: they cannot be
    listed), the linked accounts with a link button per linkable provider, with ``passkey``
    a button that registers a passkey (run by the passkey script), the delete form, and the
    way back to the site."""
    user = context["user"]
    who = str(user.get("email") or user.get("name") or user.get("id"))
    parts = [
        _STYLE,
        f"<h1>{escape(_('Security'))}</h1>",
        f"<p>{escape(_('Signed in as {user}', user=who))}</p>",
    ]
    if error := context["error"]:
        parts.append(banner(_(SECURITY_ERRORS.get(error, DEFAULT_SECURITY_ERROR))))
    parts.append(_account_links(context, _))
    if context["sessions"] is not None:
        parts.append(_sessions(context, _))
    if context["accounts"] or context["linkable"] or context["passkey"]:
        parts.append(_accounts(context, _))
    if context["passkey"]:
        parts.append(_add_passkey(context, _))
    parts.append(
        f"<h2>{escape(_('Delete account'))}</h2>"
        f'<form action="{escape(context["delete_user_url"])}" method="POST">'
        f"{hidden('csrfToken', context['csrf_token'])}"
        '<label class="confirm"><input type="checkbox" name="confirm" required>'
        f"{escape(_('Delete my account and everything stored about me'))}</label>"
        f'<button type="submit" class="danger">{escape(_("Delete my account"))}</button></form>'
    )
    site = context["site_url"]
    parts.append(link_button(site, _("Back to {site}", site=host_of(site)), id="back-to-site"))
    script = f"<script>{WEBAUTHN_SCRIPT}</script>" if context["passkey"] else ""
    return shell(_("Security"), "".join(parts), theme, _, script)


def _add_passkey(context: Mapping[str, Any], _: Translator) -> str:
    """Registers a passkey for the signed-in user (a way to sign in, and a second factor),
    then comes back here (``callbackUrl``)."""
    passkey = context["passkey"]
    fields = hidden("csrfToken", context["csrf_token"]) + hidden(
        "callbackUrl", context["security_url"]
    )
    return (
        f'<form id="add-passkey" class="inline" action="{escape(passkey["callback_url"])}" '
        f'method="POST" data-webauthn-options="{escape(passkey["options_url"])}">{fields}'
        f"{error_box(_)}"
        f'<button type="submit" name="action" value="register">{escape(_("Add a passkey"))}'
        "</button></form>"
    )


def security_context(
    *,
    user: Mapping[str, Any],
    sessions: Sequence[Mapping[str, Any]] | None,
    accounts: Sequence[Mapping[str, Any]],
    linkable: Sequence[Mapping[str, str]],
    urls: Mapping[str, str | None],
    csrf_token: str,
    error: str | None,
    two_factor_enabled: bool | None = None,
) -> dict[str, Any]:
    """The page's data from the flow's: ``urls`` has each action's URL by route name (and
    ``site``; ``passkey-options``/``add-passkey`` with a passkey provider;
    ``change-password``, ``change-email``, ``two-factor-setup`` where offered);
    ``two_factor_enabled`` is ``None`` without two-factor authentication."""
    passkey = None
    if urls.get("add-passkey"):
        passkey = {"options_url": urls["passkey-options"], "callback_url": urls["add-passkey"]}
    two_factor = None
    if two_factor_enabled is not None:
        two_factor = {"url": urls["two-factor-setup"], "enabled": two_factor_enabled}
    return {
        "user": {key: user.get(key) for key in ("id", "name", "email", "image")},
        "sessions": None if sessions is None else [dict(s) for s in sessions],
        "accounts": [dict(a) for a in accounts],
        "linkable": [dict(p) for p in linkable],
        "csrf_token": csrf_token,
        "error": error,
        "revoke_session_url": urls["revoke-session"],
        "revoke_other_sessions_url": urls["revoke-other-sessions"],
        "unlink_url": urls["unlink"],
        "delete_user_url": urls["delete-user"],
        "security_url": urls["security"],
        "site_url": urls["site"],
        "passkey": passkey,
        "change_password_url": urls.get("change-password"),
        "change_email_url": urls.get("change-email"),
        "two_factor": two_factor,
    }

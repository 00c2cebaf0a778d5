"""The built-in two-factor pages: the challenge after the first factor, the set-up of an
authenticator app (QR code), its management, and the recovery codes.

The QR code is an inline SVG drawn by ``segno`` from the ``otpauth://`` URI; the URI and
the secret are shown as text too, for apps that cannot scan.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

import segno

from ..config import Theme
from ..i18n import ENGLISH, N_, Translator
from ._shell import banner, hidden, link_button, shell
from ._webauthn_script import WEBAUTHN_SCRIPT, error_box
from .accounts import back_link

MESSAGES = {
    "invalid_code": N_("That code is not valid. Check it and try again."),
    "code_sent": N_("We emailed you a code. It is valid for a few minutes."),
    "passkey_failed": N_("The passkey could not be verified. Try again, or use a code."),
    "locked": N_(
        "Too many wrong codes: codes from your app and by email no longer work. "
        "Use a recovery code or a passkey, then set your app up again."
    ),
    "MissingCSRF": N_("The form expired. Please try again."),
}
DEFAULT_MESSAGE = N_("Something went wrong. Please try again.")


def _banner(code: str, _: Translator) -> str:
    if not code:
        return ""
    return banner(
        _(MESSAGES.get(code, DEFAULT_MESSAGE)), "info" if code == "code_sent" else "error"
    )


def qr_svg(uri: str, _: Translator = ENGLISH) -> str:
    """The QR code of ``uri`` as inline SVG."""
    return str(
        segno.make(uri, error="m").svg_inline(
            scale=4, dark="#000", light="#fff", title=_("QR code to scan")
        )
    )


def _code_input(name: str, label: str, *, numeric: bool = True) -> str:
    mode = ' inputmode="numeric" pattern="[0-9 ]*"' if numeric else ""
    return (
        f'<label for="input-{name}">{escape(label)}</label>'
        f'<input id="input-{name}" name="{name}" type="text" autocomplete="one-time-code"'
        f"{mode} required>"
    )


def _form(url: str, csrf: str, fields: str, button: str, **extra: str) -> str:
    more = "".join(hidden(k, v) for k, v in extra.items())
    return (
        f'<form action="{escape(url)}" method="POST">{hidden("csrfToken", csrf)}{more}'
        f'{fields}<button type="submit">{escape(button)}</button></form>'
    )


def _trust_box(days: int, _: Translator) -> str:
    if days <= 0:
        return ""
    text = _.plural("Trust this device for {n} day", "Trust this device for {n} days", days)
    return (
        '<label class="check"><input type="checkbox" name="trust_device" value="1"> '
        f"{escape(text)}</label>"
    )


def challenge_page(context: Mapping[str, Any], theme: Theme, _: Translator) -> str:
    """Ask for the second factor by each method the user has (``methods``: ``totp``,
    ``recovery``, ``passkey``, ``email``)."""
    url, csrf, methods = context["action_url"], context["csrf_token"], context["methods"]
    trust = _trust_box(context["trust_device_days"], _)
    verify = _("Verify")
    blocks = []
    if "totp" in methods:
        blocks.append(
            f"<p>{escape(_('Enter the code from your authenticator app.'))}</p>"
            + _form(url, csrf, _code_input("code", _("Code")) + trust, verify, method="totp")
        )
    if "passkey" in methods and context["passkey_options_url"]:
        blocks.append(
            f'<form id="two-factor-passkey" action="{escape(url)}" method="POST" '
            f'data-webauthn-options="{escape(context["passkey_options_url"])}">'
            f"{hidden('csrfToken', csrf)}{hidden('method', 'passkey')}{trust}{error_box(_)}"
            '<button type="submit" name="action" value="authenticate">'
            f"{escape(_('Use a passkey'))}</button></form>"
        )
    if "email" in methods:
        blocks.append(
            _form(url, csrf, "", _("Email me a code"), method="send-email")
            + _form(url, csrf, _code_input("email_code", _("Emailed code")), verify, method="email")
        )
    if "recovery" in methods:
        field = _code_input("recovery_code", _("Recovery code"), numeric=False)
        blocks.append(
            f"<details><summary>{escape(_('Use a recovery code'))}</summary>"
            + _form(url, csrf, field, _("Use recovery code"), method="recovery")
            + "</details>"
        )
    script = f"<script>{WEBAUTHN_SCRIPT}</script>" if "passkey" in methods else ""
    title = _("Two-factor authentication")
    body = f"<h1>{escape(title)}</h1>" + _banner(context["error"], _) + "<hr>".join(blocks)
    return shell(title, body, theme, _, script)


def enrol_page(context: Mapping[str, Any], theme: Theme, _: Translator) -> str:
    """Set up an authenticator app: the QR code, the secret, and a first code to confirm
    (``ask_current``: it replaces one, whose code, or a recovery code, is asked too);
    ``fields`` are the form's hidden fields."""
    uri = context["uri"]
    intro = ""
    if context["required"]:
        text = _("This site requires two-factor authentication. Set it up to finish signing in.")
        intro = f"<p>{escape(text)}</p>"
    current = ""
    if context["ask_current"]:
        label = _("Code from your current app, or a recovery code")
        current = _code_input("current_code", label, numeric=False)
    title = _("Set up two-factor authentication")
    scan = _("Scan this QR code with your authenticator app, then enter the code it shows.")
    body = (
        f"<h1>{escape(title)}</h1>"
        + intro
        + _banner(context["error"], _)
        + f"<p>{escape(scan)}</p>"
        + f'<div class="qr">{qr_svg(uri, _)}</div>'
        + f"<p>{escape(_('Or enter this key:'))} "
        + f"<code data-totp-secret>{escape(context['secret'])}</code></p>"
        + f'<p class="uri"><a href="{escape(uri)}" data-totp-uri>'
        + f"{escape(_('Open in an app on this device'))}</a></p>"
        + _form(
            context["action_url"],
            context["csrf_token"],
            _code_input("code", _("Code from the new app")) + current,
            _("Replace") if context["ask_current"] else _("Turn on"),
            **context["fields"],
        )
        + back_link(context["security_url"], _)
    )
    return shell(title, body, theme, _)


def manage_page(context: Mapping[str, Any], theme: Theme, _: Translator) -> str:
    """Two-factor is on: new recovery codes, turning it off (each needs a code), or replacing
    the authenticator app (at ``replace_url``)."""
    url, csrf = context["action_url"], context["csrf_token"]
    code = _code_input("code", _("Code from your app, or a recovery code"), numeric=False)
    left = _("Recovery codes left:")
    body = (
        f"<h1>{escape(_('Two-factor authentication is on'))}</h1>"
        + _banner(context["error"], _)
        + f"<p>{escape(left)} <strong data-codes-left>{int(context['codes_left'])}</strong></p>"
        + _form(url, csrf, code, _("Make new recovery codes"), action="regenerate")
        + "<hr>"
        + _form(
            url,
            csrf,
            code.replace("input-code", "input-off-code"),
            _("Turn off two-factor authentication"),
            action="disable",
        )
        + f'<hr><p><a href="{escape(context["replace_url"])}">'
        + f"{escape(_('Replace your authenticator app'))}</a></p>"
        + back_link(context["security_url"], _)
    )
    return shell(_("Two-factor authentication"), body, theme, _)


def recovery_codes_page(context: Mapping[str, Any], theme: Theme, _: Translator) -> str:
    """The new recovery codes, shown once."""
    items = "".join(f"<li><code>{escape(c)}</code></li>" for c in context["codes"])
    keep = _(
        "Keep them somewhere safe. Each works once, when you cannot use your app. "
        "They will not be shown again."
    )
    body = (
        f"<h1>{escape(_('Your recovery codes'))}</h1><p>{escape(keep)}</p>"
        f'<ul class="codes" data-recovery-codes>{items}</ul>'
        f"{link_button(context['continue_url'], _('Continue'))}"
    )
    return shell(_("Recovery codes"), body, theme, _)

"""The built-in two-factor pages (not in Auth.js): the challenge after the first factor, the
set-up of an authenticator app (QR code), its management, and the recovery codes.

The QR code is an inline SVG drawn by ``segno`` from the ``otpauth://`` URI; the URI and
the secret are shown as text too, for apps that cannot scan.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from html import escape

import segno

from ..config import Theme
from . import _hidden, _shell
from ._webauthn_script import WEBAUTHN_SCRIPT

MESSAGES = {
    "invalid_code": "That code is not valid. Check it and try again.",
    "code_sent": "We emailed you a code. It is valid for a few minutes.",
    "passkey_failed": "The passkey could not be verified. Try again, or use a code.",
    "locked": "Too many wrong codes: codes from your app and by email no longer work. "
    "Use a recovery code or a passkey, then set your app up again.",
    "MissingCSRF": "The form expired. Please try again.",
}


def _banner(code: str) -> str:
    if not code:
        return ""
    kind = "info" if code == "code_sent" else "error"
    text = MESSAGES.get(code, "Something went wrong. Please try again.")
    return f'<p class="{kind}" role="alert">{escape(text)}</p>'


def qr_svg(uri: str) -> str:
    """The QR code of ``uri`` as inline SVG."""
    return str(
        segno.make(uri, error="m").svg_inline(
            scale=4, dark="#000", light="#fff", title="QR code to scan"
        )
    )


def _code_input(name: str = "code", label: str = "Code", *, numeric: bool = True) -> str:
    mode = ' inputmode="numeric" pattern="[0-9 ]*"' if numeric else ""
    return (
        f'<label for="input-{name}">{escape(label)}</label>'
        f'<input id="input-{name}" name="{name}" type="text" autocomplete="one-time-code"'
        f"{mode} required>"
    )


def _form(url: str, csrf: str, fields: str, button: str, **hidden: str) -> str:
    extra = "".join(_hidden(k, v) for k, v in hidden.items())
    return (
        f'<form action="{escape(url)}" method="POST">{_hidden("csrfToken", csrf)}{extra}'
        f'{fields}<button type="submit">{escape(button)}</button></form>'
    )


def _trust_box(days: int) -> str:
    if days <= 0:
        return ""
    return (
        '<label class="check"><input type="checkbox" name="trust_device" value="1"> '
        f"Trust this device for {days} days</label>"
    )


def challenge_page(
    *,
    action_url: str,
    csrf_token: str,
    theme: Theme,
    methods: Collection[str],
    error: str = "",
    trust_device_days: int = 0,
    passkey_options_url: str | None = None,
) -> str:
    """Ask for the second factor by each method the user has: ``totp``, ``recovery``,
    ``passkey``, ``email``."""
    trust = _trust_box(trust_device_days)
    blocks = []
    if "totp" in methods:
        blocks.append(
            "<p>Enter the code from your authenticator app.</p>"
            + _form(action_url, csrf_token, _code_input() + trust, "Verify", method="totp")
        )
    if "passkey" in methods and passkey_options_url:
        blocks.append(
            f'<form id="two-factor-passkey" action="{escape(action_url)}" method="POST" '
            f'data-webauthn-options="{escape(passkey_options_url)}">'
            f"{_hidden('csrfToken', csrf_token)}{_hidden('method', 'passkey')}{trust}"
            '<p class="error" role="alert" data-webauthn-error hidden></p>'
            '<button type="submit" name="action" value="authenticate">Use a passkey</button>'
            "</form>"
        )
    if "email" in methods:
        blocks.append(
            _form(action_url, csrf_token, "", "Email me a code", method="send-email")
            + _form(
                action_url,
                csrf_token,
                _code_input("email_code", "Emailed code"),
                "Verify",
                method="email",
            )
        )
    if "recovery" in methods:
        blocks.append(
            "<details><summary>Use a recovery code</summary>"
            + _form(
                action_url,
                csrf_token,
                _code_input("recovery_code", "Recovery code", numeric=False),
                "Use recovery code",
                method="recovery",
            )
            + "</details>"
        )
    script = f"<script>{WEBAUTHN_SCRIPT}</script>" if "passkey" in methods else ""
    body = "<h1>Two-factor authentication</h1>" + _banner(error) + "<hr>".join(blocks)
    return _shell("Two-factor authentication", body, theme, script)


def enrol_page(
    *,
    action_url: str,
    csrf_token: str,
    theme: Theme,
    uri: str,
    secret: str,
    error: str = "",
    required: bool = False,
    ask_current: bool = False,
    **hidden: str,
) -> str:
    """Set up an authenticator app: the QR code, the secret, and a first code to confirm
    (``ask_current``: it replaces one, whose code, or a recovery code, is asked too)."""
    intro = (
        "<p>This site requires two-factor authentication. Set it up to finish signing in.</p>"
        if required
        else ""
    )
    current = (
        _code_input("current_code", "Code from your current app, or a recovery code", numeric=False)
        if ask_current
        else ""
    )
    body = (
        "<h1>Set up two-factor authentication</h1>"
        + intro
        + _banner(error)
        + "<p>Scan this QR code with your authenticator app, then enter the code it shows.</p>"
        + f'<div class="qr">{qr_svg(uri)}</div>'
        + f"<p>Or enter this key: <code data-totp-secret>{escape(secret)}</code></p>"
        + f'<p class="uri"><a href="{escape(uri)}" data-totp-uri>'
        + "Open in an app on this device</a></p>"
        + _form(
            action_url,
            csrf_token,
            _code_input("code", "Code from the new app") + current,
            "Replace" if ask_current else "Turn on",
            **hidden,
        )
    )
    return _shell("Set up two-factor authentication", body, theme)


def manage_page(
    *,
    action_url: str,
    replace_url: str,
    csrf_token: str,
    theme: Theme,
    codes_left: int,
    error: str = "",
) -> str:
    """Two-factor is on: new recovery codes, turning it off (each needs a code), or replacing
    the authenticator app (at ``replace_url``)."""
    code = _code_input("code", "Code from your app, or a recovery code", numeric=False)
    body = (
        "<h1>Two-factor authentication is on</h1>"
        + _banner(error)
        + f"<p>Recovery codes left: <strong data-codes-left>{codes_left}</strong></p>"
        + _form(action_url, csrf_token, code, "Make new recovery codes", action="regenerate")
        + "<hr>"
        + _form(
            action_url,
            csrf_token,
            code.replace("input-code", "input-off-code"),
            "Turn off two-factor authentication",
            action="disable",
        )
        + f'<hr><p><a href="{escape(replace_url)}">Replace your authenticator app</a></p>'
    )
    return _shell("Two-factor authentication", body, theme)


def recovery_codes_page(*, codes: Sequence[str], continue_url: str, theme: Theme) -> str:
    """The new recovery codes, shown once."""
    items = "".join(f"<li><code>{escape(c)}</code></li>" for c in codes)
    body = (
        "<h1>Your recovery codes</h1>"
        "<p>Keep them somewhere safe. Each works once, when you cannot use your app. "
        "They will not be shown again.</p>"
        f'<ul class="codes" data-recovery-codes>{items}</ul>'
        f'<a class="button" href="{escape(continue_url)}">Continue</a>'
    )
    return _shell("Recovery codes", body, theme)

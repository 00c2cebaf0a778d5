"""The default sign-in e-mail of the ``email`` provider type (Auth.js's, in English) and the
account e-mails (in the language of a :class:`~sansio_auth.i18n.Translator`): subject, text
and HTML.

Pure: the built-in senders (``io_bindings.email``) and your own
``send_verification_request`` can build the same message with
:func:`verification_message`. The recipient's address is deliberately not part of
the message body (GHSA-pgjx-7f9g-9463): it is whatever the visitor typed, so
rendering it would let anyone put their own HTML into mail sent from your domain.
"""

from __future__ import annotations

from html import escape
from typing import Literal
from urllib.parse import urlsplit

import msgspec

from .config import Theme
from .i18n import ENGLISH, N_, Translator
from .pages._shell import safe_color

DEFAULT_BRAND_COLOR = "#346df1"
DEFAULT_BUTTON_TEXT = "#fff"
_FONT = "font-family:Helvetica,Arial,sans-serif"


class VerificationMessage(msgspec.Struct, frozen=True, kw_only=True):
    """A sign-in e-mail: ``subject``, a plain ``text`` body and an ``html`` body."""

    subject: str
    text: str
    html: str


def link_host(url: str) -> str:
    """The host (with a port, if any) of ``url``, as the message names the site."""
    parts = urlsplit(url)
    return parts.netloc.rpartition("@")[2]


def verification_message(url: str, host: str, theme: Theme | None = None) -> VerificationMessage:
    """The message inviting the reader to sign in to ``host`` by following ``url``.

    ``theme.brand_color`` colours the button (default ``#346df1``) and
    ``theme.button_text`` its label (default ``#fff``); a value that is not a plain
    CSS colour is replaced by the default.
    """
    return _message(
        subject=f"Sign in to {host}",
        heading="Sign in to {host}",
        host=host,
        button="Sign in",
        url=url,
        note="If you did not request this email you can safely ignore it.",
        theme=theme,
    )


AccountMessageKind = Literal[
    "verify-email", "reset-password", "change-email", "account-exists", "no-account",
    "two-factor-code", "sign-in-methods-removed",
]  # fmt: skip
"""The e-mails of password accounts and two-factor authentication (not in Auth.js)."""

_ACCOUNT_MESSAGES: dict[str, tuple[str, str, str, str]] = {
    # kind: (subject, heading, button, note); {host} is the site
    "verify-email": (
        N_("Verify your email address for {host}"),
        N_("Verify your email address for {host}"),
        N_("Verify email address"),
        N_("If you did not create an account you can safely ignore this email."),
    ),
    "reset-password": (
        N_("Reset your password for {host}"),
        N_("Reset your password for {host}"),
        N_("Choose a new password"),
        N_(
            "If you did not ask for this you can safely ignore this email: your password "
            "stays as it is."
        ),
    ),
    "change-email": (
        N_("Confirm your new email address for {host}"),
        N_("Confirm your new email address for {host}"),
        N_("Confirm this address"),
        N_("If you did not ask to change your address you can safely ignore this email."),
    ),
    "account-exists": (
        N_("Sign-up attempt at {host}"),
        N_("Someone tried to create an account with this address at {host}"),
        N_("Sign in"),
        N_(
            "This address has an account already. If it was you, sign in (or reset your "
            "password from the sign-in page). If it was not, you can safely ignore this email."
        ),
    ),
    "no-account": (
        N_("Password reset at {host}"),
        N_("Someone asked to reset a password at {host}"),
        N_("Go to the site"),
        N_("No account uses this address. If it was not you, you can safely ignore this email."),
    ),
    "sign-in-methods-removed": (
        N_("Your account at {host} is yours alone"),
        N_("You proved this address is yours at {host}"),
        N_("Go to the site"),
        N_(
            "Before that, someone had set a password, a second factor or a linked account "
            "for this address. Anyone could have: they were removed. If it was you, set them "
            'up again (a new password through "Forgot your password?").'
        ),
    ),
    "two-factor-code": (
        N_("Your sign-in code for {host}"),
        N_("Your sign-in code for {host}"),
        "",
        N_("If you are not signing in, change your password: someone else knows it."),
    ),
}


def account_message(
    kind: AccountMessageKind,
    *,
    url: str,
    host: str,
    theme: Theme | None = None,
    code: str | None = None,
    translator: Translator = ENGLISH,
) -> VerificationMessage:
    """The e-mail of ``kind`` for ``host``, in the language of ``translator``: a link to
    ``url`` or, for ``two-factor-code``, the ``code`` itself."""
    _ = translator
    subject, heading, button, note = _ACCOUNT_MESSAGES[kind]
    return _message(
        subject=_(subject, host=host),
        heading=_(heading),
        host=host,
        button=_(button) if button else "",
        url=url,
        note=_(note),
        theme=theme,
        code=code,
        account=True,
    )


def _message(
    *,
    subject: str,
    heading: str,
    host: str,
    button: str,
    url: str,
    note: str,
    theme: Theme | None,
    code: str | None = None,
    account: bool = False,
) -> VerificationMessage:
    """The message (``{host}`` in ``heading`` is the site); the plain text has the ``note``
    for the account e-mails (``account``), and is Auth.js's for the sign-in e-mail."""
    theme = theme or Theme()
    brand = safe_color(theme.brand_color) or DEFAULT_BRAND_COLOR
    button_text = safe_color(theme.button_text) or DEFAULT_BUTTON_TEXT
    # A zero-width space before each dot keeps mail clients from turning the host into a link.
    shown_host = escape(host).replace(".", "&#8203;.")
    if code is not None:
        middle = (
            f'<tr><td align="center" style="padding:20px 0;font-size:32px;letter-spacing:6px;'
            f'{_FONT};color:#111"><strong>{escape(code)}</strong></td></tr>'
        )
        text = f"{heading.replace('{host}', host)}\n\n{code}\n\n{note}\n"
    else:
        middle = (
            '<tr><td align="center" style="padding:20px 0">'
            '<table role="presentation" border="0" cellspacing="0" cellpadding="0"><tr>'
            f'<td align="center" style="border-radius:5px" bgcolor="{escape(brand)}">'
            f'<a href="{escape(url)}" target="_blank" style="font-size:18px;{_FONT};'
            f"color:{escape(button_text)};text-decoration:none;border-radius:5px;"
            f"padding:10px 20px;border:1px solid {escape(brand)};display:inline-block;"
            f'font-weight:bold">{escape(button)}</a></td></tr></table></td></tr>'
        )
        text = f"{heading.replace('{host}', host)}\n{url}\n\n" + (f"{note}\n" if account else "")
    html = (
        '<body style="background:#f9f9f9;margin:0;padding:24px 0">'
        '<table role="presentation" width="100%" border="0" cellspacing="20" cellpadding="0" '
        'style="background:#fff;max-width:600px;margin:auto;border-radius:10px">'
        f'<tr><td align="center" style="padding:10px 0;font-size:22px;{_FONT};color:#444">'
        f"{escape(heading).replace('{host}', f'<strong>{shown_host}</strong>')}</td></tr>"
        f"{middle}"
        f'<tr><td align="center" style="padding:0 0 10px;font-size:16px;line-height:22px;'
        f'{_FONT};color:#444">{escape(note)}'
        "</td></tr></table></body>"
    )
    return VerificationMessage(subject=subject, text=text, html=html)

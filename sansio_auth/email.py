"""The default sign-in e-mail of the ``email`` provider type: subject, text and HTML.

Pure: the built-in senders (``io_bindings.email``) and your own
``send_verification_request`` can build the same message with
:func:`verification_message`. The recipient's address is deliberately not part of
the message body (GHSA-pgjx-7f9g-9463): it is whatever the visitor typed, so
rendering it would let anyone put their own HTML into mail sent from your domain.
"""

from __future__ import annotations

from html import escape
from urllib.parse import urlsplit

import msgspec

from .config import Theme
from .pages import _color as safe_color

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
    theme = theme or Theme()
    brand = safe_color(theme.brand_color) or DEFAULT_BRAND_COLOR
    button_text = safe_color(theme.button_text) or DEFAULT_BUTTON_TEXT
    # A zero-width space before each dot keeps mail clients from turning the host into a link.
    shown_host = escape(host).replace(".", "&#8203;.")
    html = (
        '<body style="background:#f9f9f9;margin:0;padding:24px 0">'
        '<table role="presentation" width="100%" border="0" cellspacing="20" cellpadding="0" '
        'style="background:#fff;max-width:600px;margin:auto;border-radius:10px">'
        f'<tr><td align="center" style="padding:10px 0;font-size:22px;{_FONT};color:#444">'
        f"Sign in to <strong>{shown_host}</strong></td></tr>"
        '<tr><td align="center" style="padding:20px 0">'
        '<table role="presentation" border="0" cellspacing="0" cellpadding="0"><tr>'
        f'<td align="center" style="border-radius:5px" bgcolor="{escape(brand)}">'
        f'<a href="{escape(url)}" target="_blank" style="font-size:18px;{_FONT};'
        f"color:{escape(button_text)};text-decoration:none;border-radius:5px;padding:10px 20px;"
        f'border:1px solid {escape(brand)};display:inline-block;font-weight:bold">Sign in</a>'
        "</td></tr></table></td></tr>"
        f'<tr><td align="center" style="padding:0 0 10px;font-size:16px;line-height:22px;'
        f'{_FONT};color:#444">If you did not request this email you can safely ignore it.'
        "</td></tr></table></body>"
    )
    return VerificationMessage(
        subject=f"Sign in to {host}", text=f"Sign in to {host}\n{url}\n\n", html=html
    )

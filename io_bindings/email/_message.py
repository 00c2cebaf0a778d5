"""The MIME form of the default sign-in e-mail, and the error a sender raises."""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid, parseaddr
from urllib.parse import urlsplit

from sansio_auth.config import Theme
from sansio_auth.email import VerificationMessage, link_host, verification_message


class EmailSendError(Exception):
    """The sign-in e-mail could not be handed to the mail server.

    The engine logs it and shows the error page; the message names the server and the
    reason, never the recipient.
    """


def default_from(url: str) -> str:
    """``no-reply@<the site's host name>``, the sender when none is configured."""
    hostname = urlsplit(url).hostname or "localhost"
    try:
        address = ipaddress.ip_address(hostname)
    except ValueError:
        return f"no-reply@{hostname}"
    return f"no-reply@[{'IPv6:' if address.version == 6 else ''}{address}]"


def build_mime_message(
    *,
    identifier: str,
    url: str,
    from_: str | None = None,
    theme: Theme | None = None,
    message: VerificationMessage | None = None,
) -> EmailMessage:
    """The multipart text + HTML message for ``identifier``, from ``from_``: ``message``
    (an account e-mail of a password provider), else the sign-in message for ``url``.

    Raises :class:`EmailSendError` when an address cannot go into a header (line
    breaks and the like).
    """
    content = message or verification_message(url, link_host(url), theme)
    sender = from_ or default_from(url)
    mime = EmailMessage(policy=SMTP)
    try:
        mime["Subject"] = content.subject
        mime["From"] = sender
        mime["To"] = identifier
    except ValueError as err:
        raise EmailSendError(f"an address cannot be used in a mail header: {err}") from err
    mime["Date"] = format_datetime(datetime.now(UTC))
    domain = parseaddr(sender)[1].rpartition("@")[2]
    mime["Message-ID"] = make_msgid(
        domain=domain if domain and not domain.startswith("[") else "localhost"
    )
    mime.set_content(content.text)
    mime.add_alternative(content.html, subtype="html")
    return mime

"""Built-in senders of sign-in e-mails, each usable as an ``email`` provider's
``send_verification_request``.

* :class:`SMTPSender` — sends the default message (:func:`sansio_auth.email.verification_message`)
  as text and HTML through an SMTP server (STARTTLS, implicit TLS or plain; optional login),
  with the standard library's ``smtplib`` in a worker thread, so it works on asyncio and trio.
* :class:`ConsoleSender` — for development: prints the link and keeps the latest ones in
  memory (``sender.sent``), so that a dev page can show them.
"""

from ._message import EmailSendError, build_mime_message
from .console import ConsoleSender, SentLink
from .smtp import Security, SMTPSender

__all__ = [
    "ConsoleSender",
    "EmailSendError",
    "SMTPSender",
    "Security",
    "SentLink",
    "build_mime_message",
]

"""Sending the sign-in e-mail through an SMTP server (stdlib ``smtplib`` in a worker thread)."""

from __future__ import annotations

import smtplib
import ssl
from email.message import EmailMessage
from typing import Literal

import anyio.to_thread

from sansio_auth.config import Theme
from sansio_auth.email import VerificationMessage

from ._message import EmailSendError, build_mime_message

Security = Literal["starttls", "tls", "none"]
"""How the connection is secured: ``starttls`` (upgrade a plain connection, port 587), ``tls`` (TLS
from the start, port 465) or ``none``."""
DEFAULT_PORTS: dict[Security, int] = {"starttls": 587, "tls": 465, "none": 25}


class SMTPSender:
    """``send_verification_request`` that mails the default sign-in message over SMTP.

    >>> Email(send_verification_request=SMTPSender("smtp.example.com", username="me",
    ...       password="...", from_="Example <no-reply@example.com>"))

    ``security`` is ``"starttls"`` (default: upgrade the connection, refuse a server that
    cannot), ``"tls"`` (implicit TLS, usually port 465) or ``"none"`` (plain text, for a
    relay on the same machine; a login is then sent in the clear). ``port`` defaults to
    587, 465 or 25 accordingly. ``ssl_context`` verifies the server (default: the
    system's CAs and host name checking). ``from_`` defaults to
    ``no-reply@<the site's host>``. ``timeout`` bounds each network operation, in seconds.

    The blocking ``smtplib`` runs in an anyio worker thread, so the sender works on
    asyncio and on trio; a cancelled send finishes (within ``timeout``) before the
    cancellation is seen. Any failure raises :class:`EmailSendError`.
    """

    def __init__(
        self,
        host: str,
        port: int | None = None,
        username: str | None = None,
        password: str | None = None,
        *,
        from_: str | None = None,
        security: Security = "starttls",
        ssl_context: ssl.SSLContext | None = None,
        timeout: float = 30.0,
        local_hostname: str | None = None,
    ) -> None:
        if security not in DEFAULT_PORTS:
            raise ValueError(f"security must be one of {sorted(DEFAULT_PORTS)}, not {security!r}")
        if password is not None and username is None:
            raise ValueError("a password needs a username")
        self.host = host
        self.port = port if port is not None else DEFAULT_PORTS[security]
        self.username = username
        self.password = password
        self.from_ = from_
        self.security: Security = security
        self.ssl_context = ssl_context
        self.timeout = timeout
        self.local_hostname = local_hostname

    def __repr__(self) -> str:
        return f"SMTPSender({self.host!r}, {self.port}, security={self.security!r})"

    async def __call__(
        self,
        identifier: str,
        url: str,
        theme: Theme | None = None,
        message: VerificationMessage | None = None,
    ) -> None:
        """Mail the sign-in link ``url`` to ``identifier`` (or ``message``: an account
        e-mail of a password provider)."""
        mime = build_mime_message(
            identifier=identifier, url=url, from_=self.from_, theme=theme, message=message
        )
        await anyio.to_thread.run_sync(self._send, mime, identifier)

    def _send(self, message: EmailMessage, recipient: str) -> None:
        try:
            with self._connect() as client:
                if self.security == "starttls":
                    client.ehlo()
                    client.starttls(context=self._context())
                if self.username is not None:
                    client.login(self.username, self.password or "")
                client.send_message(message, to_addrs=[recipient])
        except smtplib.SMTPNotSupportedError as err:
            raise self._error(str(err)) from err
        except smtplib.SMTPAuthenticationError as err:
            raise self._error(f"login refused ({err.smtp_code})") from err
        except smtplib.SMTPRecipientsRefused as err:
            codes = ", ".join(str(code) for code, _ in err.recipients.values())
            raise self._error(f"recipient refused ({codes})") from err
        except smtplib.SMTPResponseException as err:
            reason = err.smtp_error
            if isinstance(reason, bytes):
                reason = reason.decode(errors="replace")
            raise self._error(f"{err.smtp_code} {reason}".strip()) from err
        except (smtplib.SMTPException, OSError, ValueError) as err:
            raise self._error(str(err) or type(err).__name__) from err

    def _connect(self) -> smtplib.SMTP:
        if self.security == "tls":
            return smtplib.SMTP_SSL(
                self.host,
                self.port,
                local_hostname=self.local_hostname,
                timeout=self.timeout,
                context=self._context(),
            )
        return smtplib.SMTP(
            self.host, self.port, local_hostname=self.local_hostname, timeout=self.timeout
        )

    def _context(self) -> ssl.SSLContext:
        return self.ssl_context or ssl.create_default_context()

    def _error(self, reason: str) -> EmailSendError:
        return EmailSendError(
            f"could not send the sign-in e-mail through {self.host}:{self.port}: {reason}"
        )

"""A real SMTP server for tests: aiosmtpd on 127.0.0.1, in a thread of its own, with an inbox.

>>> with mail_server(tls_context=server_ctx, logins={"me": "secret"}) as smtp:
...     ...  # send to 127.0.0.1:smtp.port
...     mail = smtp.inbox.wait_for(1)[0]

It runs its own asyncio loop in a thread, so tests on asyncio, on trio or without a
loop, and server processes started by the tests, can all send to it.
"""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from live_server import free_port


@dataclass(frozen=True)
class ReceivedMail:
    """One message the server accepted, and how it came."""

    mail_from: str
    rcpt_tos: list[str]
    message: EmailMessage
    tls: bool
    """Whether the connection was encrypted (STARTTLS or implicit TLS) when it was sent."""
    login: str | None
    """The user name it authenticated with, if any."""


@dataclass
class Inbox:
    """The aiosmtpd handler: keeps every accepted message, refuses some recipients."""

    refused_recipients: set[str] = field(default_factory=set)
    mail: list[ReceivedMail] = field(default_factory=list)
    _arrived: threading.Condition = field(default_factory=threading.Condition)
    _taken: set[int] = field(default_factory=set)

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: Any
    ) -> str:
        if address in self.refused_recipients:
            return "550 5.1.1 no such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        message = message_from_bytes(raw, policy=default)
        assert isinstance(message, EmailMessage)
        login = session.auth_data.login.decode() if session.authenticated else None  # type: ignore[attr-defined]
        transport = server.transport
        encrypted = session.ssl is not None or (
            transport is not None and transport.get_extra_info("ssl_object") is not None
        )
        received = ReceivedMail(
            mail_from=envelope.mail_from or "",
            rcpt_tos=list(envelope.rcpt_tos),
            message=message,
            tls=bool(encrypted),
            login=login,
        )
        with self._arrived:
            self.mail.append(received)
            self._arrived.notify_all()
        return "250 Message accepted"

    def wait_for(self, count: int = 1, timeout: float = 15.0) -> list[ReceivedMail]:
        """The first ``count`` messages, waiting (blocking) until they have arrived."""
        with self._arrived:
            if not self._arrived.wait_for(lambda: len(self.mail) >= count, timeout):
                raise TimeoutError(f"{len(self.mail)} of {count} messages arrived in {timeout} s")
            return self.mail[:count]

    def next_for(self, address: str, timeout: float = 15.0) -> ReceivedMail:
        """The oldest message to ``address`` not returned before, waiting until one arrives."""

        def untaken() -> int | None:
            return next(
                (
                    n
                    for n, m in enumerate(self.mail)
                    if address in m.rcpt_tos and n not in self._taken
                ),
                None,
            )

        with self._arrived:
            if not self._arrived.wait_for(lambda: untaken() is not None, timeout):
                raise TimeoutError(f"no new message to {address} arrived in {timeout} s")
            index = untaken()
            assert index is not None
            self._taken.add(index)
            return self.mail[index]


def sign_in_link(mail: ReceivedMail) -> str:
    """The link of a default sign-in e-mail (the second line of its text body)."""
    body = mail.message.get_body(("plain",))
    assert body is not None
    text: str = body.get_content()
    return text.splitlines()[1]


@dataclass(frozen=True)
class MailServer:
    host: str
    port: int
    inbox: Inbox


def _authenticator(logins: Mapping[str, str]) -> Any:
    def check(server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any) -> Any:
        ok = (
            isinstance(data, LoginPassword)
            and logins.get(data.login.decode()) == data.password.decode()
        )
        return AuthResult(success=ok, handled=False, auth_data=data if ok else None)

    return check


@contextmanager
def mail_server(
    *,
    tls_context: ssl.SSLContext | None = None,
    implicit_tls: bool = False,
    logins: Mapping[str, str] | None = None,
    auth_require_tls: bool = True,
) -> Iterator[MailServer]:
    """An SMTP server on a free port of 127.0.0.1.

    ``tls_context`` offers STARTTLS (required before ``MAIL``) or, with ``implicit_tls``,
    wraps every connection in TLS. ``logins`` (user → password) makes AUTH required.
    """
    inbox = Inbox()
    options: dict[str, Any] = {}
    if tls_context is not None and implicit_tls:
        options["ssl_context"] = tls_context
    elif tls_context is not None:
        options.update(tls_context=tls_context, require_starttls=True)
    if logins is not None:
        options.update(
            authenticator=_authenticator(logins),
            auth_required=True,
            # aiosmtpd sees only STARTTLS as TLS: an implicit-TLS connection is encrypted too
            auth_require_tls=auth_require_tls and not implicit_tls,
        )
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port, **options)
    controller.start()
    try:
        yield MailServer(host="127.0.0.1", port=port, inbox=inbox)
    finally:
        controller.stop()


@contextmanager
def silent_server() -> Iterator[int]:
    """A port that accepts TCP connections and then never says a word."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield listener.getsockname()[1]

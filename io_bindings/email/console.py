"""A development sender: prints the sign-in link and remembers the latest ones."""

from __future__ import annotations

import sys
from collections import deque
from datetime import UTC, datetime
from typing import TextIO

import msgspec

from sansio_auth.config import Theme
from sansio_auth.email import VerificationMessage, link_host, verification_message


class SentLink(msgspec.Struct, frozen=True, kw_only=True):
    """One sign-in e-mail the :class:`ConsoleSender` would have sent."""

    identifier: str
    """The address it was for."""
    url: str
    """The sign-in link."""
    expires: datetime | None
    """When the link stops working."""
    sent_at: datetime
    message: VerificationMessage
    """The e-mail as :class:`~io_bindings.email.SMTPSender` would have sent it."""


def _printable(text: str) -> str:
    """``text`` with control characters shown as ``?`` (it came from a visitor)."""
    return "".join(char if char.isprintable() else "?" for char in text)


class ConsoleSender:
    """``send_verification_request`` for development: nothing is mailed.

    Each link is printed to ``file`` (default: standard output) and kept in memory,
    the ``keep`` latest ones, newest first, as :attr:`sent`. Never use it in
    production: whoever reads the output or the dev page can sign in as anyone.
    """

    def __init__(self, *, keep: int = 20, file: TextIO | None = None) -> None:
        if keep < 1:
            raise ValueError("keep must be at least 1")
        self._sent: deque[SentLink] = deque(maxlen=keep)
        self.file = file

    def __repr__(self) -> str:
        return f"ConsoleSender(keep={self._sent.maxlen})"

    @property
    def sent(self) -> list[SentLink]:
        """The links sent so far (at most ``keep``), newest first."""
        return list(self._sent)

    def latest(self, identifier: str | None = None) -> SentLink | None:
        """The newest link, or the newest for ``identifier``; ``None`` if there is none."""
        return next((s for s in self._sent if identifier in (None, s.identifier)), None)

    async def __call__(
        self,
        identifier: str,
        url: str,
        expires: datetime | None = None,
        theme: Theme | None = None,
        message: VerificationMessage | None = None,
    ) -> None:
        """Print and remember the link ``url`` for ``identifier`` (with ``message``, the
        account e-mail of a password provider, instead of the sign-in message)."""
        label = "sign-in link" if message is None else message.subject
        message = message or verification_message(url, link_host(url), theme)
        sent = SentLink(
            identifier=identifier,
            url=url,
            expires=expires,
            sent_at=datetime.now(UTC),
            message=message,
        )
        self._sent.appendleft(sent)
        print(
            f"[auth] {_printable(label)} for {_printable(identifier)}: {_printable(url)}",
            file=self.file or sys.stdout,
            flush=True,
        )

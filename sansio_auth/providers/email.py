"""The e-mail provider: sign-in with a one-time link mailed to the address given.

>>> from io_bindings.email import SMTPSender
>>> Email(send_verification_request=SMTPSender("smtp.example.com", username="me", password="..."))

or as a mapping: ``{"id": "email", "type": "email", "send_verification_request": fn}``.
E-mail sign-in needs an adapter (users and verification tokens live there), even
with JWT sessions.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..errors import Configuration
from ._base import Provider, ProviderType

DEFAULT_MAX_AGE = 24 * 60 * 60
MAX_ADDRESS_LENGTH = 320


@dataclass(frozen=True, kw_only=True)
class EmailProvider(Provider):
    """An e-mail (magic link) provider record.

    ``send_verification_request`` (sync or async; required) delivers the link. It is
    called with the keyword arguments its signature names among: ``identifier`` (the
    normalised address), ``url`` (the sign-in link), ``expires`` (an aware UTC
    ``datetime``), ``token`` (the raw token in the link), ``provider`` (this record),
    ``theme`` (:class:`~sansio_auth.Theme`) and ``request`` (the
    :class:`~sansio_auth.Request` that asked). Raising shows the error page.
    """

    kind: ClassVar[ProviderType] = "email"
    defaults: ClassVar[Mapping[str, Any]] = {"id": "email", "name": "Email"}
    send_verification_request: Callable[..., Any] | None = None
    max_age: int = DEFAULT_MAX_AGE
    """Seconds a link stays valid (default 24 hours)."""
    normalize_identifier: Callable[..., Any] | None = None
    """``(identifier) -> str``: replaces :func:`normalize_email`; raise to refuse an address."""
    generate_verification_token: Callable[..., Any] | None = None
    """``() -> str``: the token in the link; default 32 random bytes as hex."""
    secret: str | None = field(default=None, repr=False)
    """Secret the stored token is hashed with; default the configuration's ``secret``."""

    def check(self) -> None:
        """A sender is required; ``max_age`` is a positive whole number of seconds."""
        self.check_sender()
        age = self.max_age
        if isinstance(age, bool) or not isinstance(age, int) or age <= 0:
            raise Configuration(f"the email provider {self.id!r}: `max_age` must be > 0 seconds")
        for name in ("normalize_identifier", "generate_verification_token"):
            value = getattr(self, name)
            if value is not None and not callable(value):
                raise Configuration(f"the email provider {self.id!r}: `{name}` must be callable")
        if self.secret is not None and (not isinstance(self.secret, str) or not self.secret):
            raise Configuration(f"the email provider {self.id!r}: `secret` must be a string")

    def check_sender(self) -> None:
        """Something sends the link: here, ``send_verification_request``."""
        if not callable(self.send_verification_request):
            raise Configuration(
                f"the email provider {self.id!r} needs a `send_verification_request` function "
                "(e.g. io_bindings.email.SMTPSender(...))"
            )


def Email(**options: Any) -> EmailProvider:  # noqa: N802 - Auth.js's name
    """The e-mail provider (id ``email``, name ``Email``) with ``options``."""
    return EmailProvider.from_mapping(options)


def Nodemailer(**options: Any) -> EmailProvider:  # noqa: N802 - Auth.js's name
    """Auth.js's SMTP provider (id ``nodemailer``): :func:`Email` under that id and name.

    Give it ``send_verification_request=io_bindings.email.SMTPSender(host, ...)``; Auth.js's
    ``server`` option (a Nodemailer transport) has no meaning here and is refused.
    """
    if "server" in options:
        raise Configuration(
            "Nodemailer's `server` is a Node.js transport: pass "
            "send_verification_request=io_bindings.email.SMTPSender(host, port, username, "
            "password) instead"
        )
    return EmailProvider.from_mapping({"id": "nodemailer", "name": "Nodemailer", **options})


class InvalidAddress(ValueError):
    """The text given is not an e-mail address this provider sends links to."""


def normalize_email(value: Any) -> str:
    """The address links are sent to and users are keyed by, or :class:`InvalidAddress`.

    Unicode NFKC first (so a fullwidth at sign, U+FF20, cannot slip past the checks,
    GHSA-7rqj-j65f-68wh), then lower-case and trimmed. Refused: a ``"`` or more or
    fewer than one ``@`` (GHSA-5jpx-9hw9-2fx4), white space or control characters
    inside, an empty part, more than 320 characters. The domain is cut at the first
    ``,`` (CVE-2022-35924: one link, one address).
    """
    if not isinstance(value, str) or not value.strip():
        raise InvalidAddress("no e-mail address was given")
    text = unicodedata.normalize("NFKC", value).lower().strip()
    if '"' in text:
        raise InvalidAddress("an e-mail address with a quote is not accepted")
    if any(ch.isspace() or not ch.isprintable() for ch in text):
        raise InvalidAddress("an e-mail address cannot contain spaces or control characters")
    parts = text.split("@")
    if len(parts) != 2 or not parts[0] or not parts[1]:
        raise InvalidAddress("an e-mail address has exactly one @ between two parts")
    local, domain = parts[0], parts[1].split(",")[0]
    if not domain:
        raise InvalidAddress("the e-mail address has no domain")
    address = f"{local}@{domain}"
    if len(address) > MAX_ADDRESS_LENGTH:
        raise InvalidAddress("the e-mail address is too long")
    return address

"""The password provider (not in Auth.js): accounts with an e-mail address and a password,
kept by the adapter, with sign-up, e-mail verification, reset, and changes of password and
address (see docs/accounts.md).

>>> from io_bindings.email import SMTPSender
>>> Password(send_email=SMTPSender("smtp.example.com", username="me", password="..."))

Unlike a credentials provider, whose ``authorize`` checks passwords you keep, this one
stores the users, hashes their passwords (argon2id) and works with database sessions too.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..errors import Configuration
from ..passwords import MAX_LENGTH, MIN_LENGTH, OWASP, Argon2Params, common_form, common_passwords
from ._base import Provider, ProviderType

VERIFY_MAX_AGE = 24 * 60 * 60
RESET_MAX_AGE = 60 * 60
MAX_MAX_LENGTH = 4096
"""The highest ``max_length`` accepted: a bound on the work one request can ask for."""


@dataclass(frozen=True, kw_only=True)
class PasswordProvider(Provider):
    """A password provider record.

    ``send_email`` (sync or async) delivers the account e-mails: the address verification
    link, the reset link, the link confirming a new address, the e-mailed second-factor code
    and the notes sent instead when an address is taken or unknown. It is called with the
    keyword arguments its signature names among those of an e-mail provider's
    ``send_verification_request`` (``identifier``, ``url``, ``expires``, ``token``,
    ``provider``, ``theme``, ``request``) plus ``message`` (the
    :class:`~sansio_auth.email.VerificationMessage` to send: subject, text and HTML) and
    ``kind`` (``"verify-email"``, ``"reset-password"``, ``"change-email"``,
    ``"two-factor-code"``, ``"account-exists"``, ``"no-account"``). It must accept
    ``message`` (every sender of :mod:`io_bindings.email` does). Default: the
    ``send_verification_request`` of the configuration's e-mail provider, when it accepts
    ``message``.
    """

    kind: ClassVar[ProviderType] = "password"
    defaults: ClassVar[Mapping[str, Any]] = {"id": "password", "name": "Password"}
    send_email: Callable[..., Any] | None = None
    min_length: int = MIN_LENGTH
    """Fewest characters of a new password (NIST SP 800-63B: at least 8)."""
    max_length: int = MAX_LENGTH
    """Most characters of a password; longer ones are refused before any hashing."""
    argon2: Argon2Params = OWASP
    """The cost of new hashes; a hash of other parameters is replaced at the next sign-in."""
    common_passwords: bool | Collection[str] = True
    """Refuse a new password that is a common one, compared after NFKC and case folding
    (NIST SP 800-63B): ``True``, those of the built-in list (Django's 20,000,
    :func:`~sansio_auth.passwords.common_passwords`); a collection of strings, those instead;
    ``False``, none."""
    breached: Callable[..., Any] | None = None
    """``(password) -> bool`` (sync or async): ``True`` refuses a new password known from a
    breach (e.g. a Have I Been Pwned range query; see docs/accounts.md)."""
    sign_up: bool = True
    """Anyone may create an account at ``signup`` (else accounts are made server-side)."""
    require_verified_email: bool = True
    """Sign-in waits until the address is verified (the link is sent again on each try)."""
    verify_max_age: int = VERIFY_MAX_AGE
    """Seconds an address verification (or address change) link stays valid."""
    reset_max_age: int = RESET_MAX_AGE
    """Seconds a reset link stays valid."""

    def __post_init__(self) -> None:
        super().__post_init__()
        given = self.common_passwords
        if not isinstance(given, bool | str) and isinstance(given, Collection):
            if not all(isinstance(entry, str) for entry in given):
                raise Configuration(
                    f"the password provider {self.id!r}: `common_passwords` holds strings only"
                )
            object.__setattr__(self, "common_passwords", frozenset(map(common_form, given)))

    @property
    def common(self) -> Collection[str]:
        """The passwords a new one may not be, in :func:`~sansio_auth.passwords.common_form`
        (empty: no list)."""
        given = self.common_passwords
        if given is True:
            return common_passwords()
        return given if isinstance(given, frozenset) else frozenset()

    def check(self) -> None:
        """Lengths within bounds, ages positive, hooks callable, common passwords a list."""
        lengths = (self.min_length, self.max_length)
        if any(isinstance(n, bool) or not isinstance(n, int) for n in lengths) or not (
            MIN_LENGTH <= self.min_length <= self.max_length <= MAX_MAX_LENGTH
        ):
            raise Configuration(
                f"the password provider {self.id!r}: need {MIN_LENGTH} <= min_length <= "
                f"max_length <= {MAX_MAX_LENGTH}"
            )
        for name in ("verify_max_age", "reset_max_age"):
            age = getattr(self, name)
            if isinstance(age, bool) or not isinstance(age, int) or age <= 0:
                raise Configuration(f"the password provider {self.id!r}: `{name}` must be > 0")
        if not isinstance(self.common_passwords, bool | frozenset):
            raise Configuration(
                f"the password provider {self.id!r}: `common_passwords` is True, False or a "
                "collection of strings"
            )
        if not isinstance(self.argon2, Argon2Params):
            raise Configuration(f"the password provider {self.id!r}: `argon2` is Argon2Params")
        for name in ("send_email", "breached"):
            value = getattr(self, name)
            if value is not None and not callable(value):
                raise Configuration(f"the password provider {self.id!r}: `{name}` must be callable")


def Password(**options: Any) -> PasswordProvider:  # noqa: N802 - named like the other providers
    """The password provider (id ``password``, name ``Password``) with ``options``."""
    return PasswordProvider.from_mapping(options)
